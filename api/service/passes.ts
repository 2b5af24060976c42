/**
 * Work a leader does in passes, one every interval (the expiry worker, the
 * quota records' sweep): a pass still running (a slow API server) is not
 * overlapped, and stopping waits for the pass under way.
 */
export class Passes {
  readonly #run: () => Promise<void>;
  readonly #intervalMs: number;
  #timer: ReturnType<typeof setInterval> | undefined;
  #pass: Promise<void> | undefined;
  #stopped = false;

  constructor(run: () => Promise<void>, intervalMs: number) {
    this.#run = run;
    this.#intervalMs = intervalMs;
  }

  /** Whether stop() was called: a pass checks it between its steps. */
  get stopped(): boolean {
    return this.#stopped;
  }

  start(): void {
    if (this.#timer !== undefined || this.#stopped) return;
    this.#timer = setInterval(() => {
      this.#pass ??= this.#run().finally(() => this.#pass = undefined);
    }, this.#intervalMs);
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    clearInterval(this.#timer);
    this.#timer = undefined;
    await this.#pass;
  }
}
