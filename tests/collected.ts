/**
 * Whether objects were let go, for tests of what a part holds on to: a
 * full garbage collection on demand (V8's gc(), exposed for this process
 * through node:v8 and reached through node:vm, so that no test task needs
 * --expose-gc) and WeakRefs of the objects to watch.
 *
 * A WeakRef's target is kept until the end of the job that made or read
 * it; collected() waits for a macrotask before collecting, so that the
 * test's own job lets go of it first.
 */
import v8 from "node:v8";
import vm from "node:vm";

v8.setFlagsFromString("--expose-gc");
const gc: () => void = vm.runInNewContext("gc");

/** WeakRefs of objects a test wants to see let go. */
export class Watched {
  readonly #refs: WeakRef<object>[] = [];

  /** Watches `object`; answers it, to be passed on. */
  add<T extends object>(object: T): T {
    this.#refs.push(new WeakRef(object));
    return object;
  }

  get size(): number {
    return this.#refs.length;
  }

  /** How many of the watched objects are still held, after a full collection. */
  async held(): Promise<number> {
    // Twice, with a macrotask before each: promise jobs that hold the last
    // reference run out first.
    for (let i = 0; i < 2; i++) {
      await new Promise((resolve) => setTimeout(resolve, 0));
      gc();
    }
    return this.#refs.filter((ref) => ref.deref() !== undefined).length;
  }
}
