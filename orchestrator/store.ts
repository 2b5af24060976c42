/**
 * The objects of one resource as the cache holds them: by namespace and
 * name, with each namespace's list kept sorted by name between changes (so
 * a read sorts nothing), and an optional index of the objects by a key of
 * their own (events by the cluster they are about).
 */
import type { Reflected, StoreChange } from "./reflector.ts";

/** An object before and after a change: undefined where there was none. */
export type Changed<T> = [before: T | undefined, after: T | undefined];

export class Store<T extends Reflected> {
  readonly #byNamespace = new Map<string, Map<string, T>>();
  readonly #sorted = new Map<string, T[]>();
  #all: T[] | undefined;
  readonly #index?: (item: T) => string | undefined;
  readonly #indexed = new Map<string, Map<string, T>>();
  #size = 0;

  /** `index` gives the key an object is found under by `indexed()`. */
  constructor(index?: (item: T) => string | undefined) {
    this.#index = index;
  }

  get size(): number {
    return this.#size;
  }

  get(namespace: string, name: string): T | undefined {
    return this.#byNamespace.get(namespace)?.get(name);
  }

  /** A namespace's objects (every namespace's when undefined), sorted. */
  list(namespace?: string): readonly T[] {
    if (namespace === undefined) {
      this.#all ??= [...this.#byNamespace.keys()].sort().flatMap((ns) =>
        this.list(ns)
      );
      return this.#all;
    }
    let sorted = this.#sorted.get(namespace);
    if (sorted === undefined) {
      const objects = this.#byNamespace.get(namespace);
      sorted = objects === undefined ? [] : [...objects.keys()].sort().map(
        (name) => objects.get(name)!,
      );
      this.#sorted.set(namespace, sorted);
    }
    return sorted;
  }

  /** The objects `index` put under `key`, in no particular order. */
  indexed(key: string): Iterable<T> {
    return this.#indexed.get(key)?.values() ?? [];
  }

  /**
   * Applies a change; answers what it changed, as [before, after] pairs (an
   * object put in place of the same version of itself is no change). A
   * replace within `namespace` ("" for all) drops what the list no longer
   * has. An upsert older than what is held (a write's answer after the
   * watch brought a later change) is ignored.
   */
  apply(change: StoreChange<T>, namespace = ""): Changed<T>[] {
    const changed: Changed<T>[] = [];
    // The same version again (a relist, the watch bringing a write's
    // answer) keeps the object held, and what was made of it.
    const put = (item: T) => {
      const held = this.get(namespaceOf(item), nameOf(item));
      if (held !== undefined && isSameVersion(held, item)) return;
      this.#put(item);
      changed.push([held, item]);
    };
    switch (change.type) {
      case "replace": {
        const keep = new Set(change.items.map(keyOf));
        for (const item of [...this.#items(namespace)]) {
          if (!keep.has(keyOf(item))) {
            this.#remove(item);
            changed.push([item, undefined]);
          }
        }
        for (const item of change.items) put(item);
        break;
      }
      case "upsert": {
        const held = this.get(namespaceOf(change.item), nameOf(change.item));
        if (held === undefined || !isOlder(change.item, held)) {
          put(change.item);
        }
        break;
      }
      case "delete": {
        const held = this.get(namespaceOf(change.item), nameOf(change.item));
        if (held !== undefined) {
          this.#remove(change.item);
          changed.push([held, undefined]);
        }
        break;
      }
    }
    return changed;
  }

  *#items(namespace: string): Iterable<T> {
    if (namespace !== "") {
      yield* this.#byNamespace.get(namespace)?.values() ?? [];
      return;
    }
    for (const objects of this.#byNamespace.values()) yield* objects.values();
  }

  #put(item: T): void {
    const namespace = namespaceOf(item);
    let objects = this.#byNamespace.get(namespace);
    if (objects === undefined) {
      objects = new Map();
      this.#byNamespace.set(namespace, objects);
    }
    const held = objects.get(nameOf(item));
    if (held !== undefined) this.#unindex(held);
    else this.#size++;
    objects.set(nameOf(item), item);
    this.#reindex(item);
    this.#changed(namespace);
  }

  #remove(item: T): void {
    const namespace = namespaceOf(item);
    const objects = this.#byNamespace.get(namespace);
    const held = objects?.get(nameOf(item));
    if (held === undefined) return;
    objects!.delete(nameOf(item));
    if (objects!.size === 0) this.#byNamespace.delete(namespace);
    this.#size--;
    this.#unindex(held);
    this.#changed(namespace);
  }

  #reindex(item: T): void {
    const key = this.#index?.(item);
    if (key === undefined) return;
    let group = this.#indexed.get(key);
    if (group === undefined) {
      group = new Map();
      this.#indexed.set(key, group);
    }
    group.set(keyOf(item), item);
  }

  #unindex(item: T): void {
    const key = this.#index?.(item);
    if (key === undefined) return;
    const group = this.#indexed.get(key);
    group?.delete(keyOf(item));
    if (group?.size === 0) this.#indexed.delete(key);
  }

  #changed(namespace: string): void {
    this.#sorted.delete(namespace);
    this.#all = undefined;
  }
}

function namespaceOf(item: Reflected): string {
  return item.metadata?.namespace ?? "";
}

function nameOf(item: Reflected): string {
  return item.metadata?.name ?? "";
}

/** "namespace/name": an object's key, and the events index's key of a cluster. */
export function keyOf(item: Reflected): string {
  return `${namespaceOf(item)}/${nameOf(item)}`;
}

/** Whether `a` and `b` are the same version of the same object. */
function isSameVersion(a: Reflected, b: Reflected): boolean {
  return a === b ||
    (a.metadata?.uid === b.metadata?.uid &&
      !!a.metadata?.resourceVersion &&
      a.metadata.resourceVersion === b.metadata?.resourceVersion);
}

/**
 * Whether `a` is an older version of the object than `b`. resourceVersions
 * are opaque to clients, but the same object's versions come from one
 * counter on every API server in use (etcd's revision); when either is not
 * a number, `a` is taken as newer.
 */
function isOlder(a: Reflected, b: Reflected): boolean {
  const [x, y] = [a.metadata?.resourceVersion, b.metadata?.resourceVersion];
  if (a.metadata?.uid !== b.metadata?.uid) return false;
  if (!x || !y || !/^\d+$/.test(x) || !/^\d+$/.test(y)) return false;
  return BigInt(x) < BigInt(y);
}
