/**
 * Many deadlines on one timer. The HTTP listener gives every request a
 * time-out and every keep-alive connection an idle one: as node:timers under
 * Deno, that was two timers made and three cleared per request, about a
 * tenth of the CPU a cached GetCluster costs. Here a deadline is an entry in
 * a set, and one interval, running only while there are deadlines, fires
 * those that passed: a deadline fires up to `resolutionMs` late, which is
 * nothing next to time-outs of seconds.
 */
export interface Deadline {
  /** Stops it firing; once fired or cancelled, it does nothing more. */
  cancel(): void;
  /** Sets it to fire in `ms` from now, fired or cancelled before or not. */
  restart(ms: number): void;
}

/**
 * Where Deadlines reads the time and runs its interval: the real clock by
 * default; a test passes one it moves by hand.
 */
export interface Clock {
  /** Milliseconds on a monotonic scale, as performance.now(). */
  now(): number;
  /** Calls `fire` every `ms`; the handle is for clearInterval alone. */
  setInterval(fire: () => void, ms: number): unknown;
  clearInterval(handle: unknown): void;
}

/** performance.now() and the global interval functions. */
const realClock: Clock = {
  now: () => performance.now(),
  setInterval: (fire, ms) => setInterval(fire, ms),
  clearInterval: (handle) =>
    clearInterval(handle as ReturnType<typeof setInterval>),
};

interface Entry extends Deadline {
  at: number;
  fire: () => void;
}

export class Deadlines {
  readonly #entries = new Set<Entry>();
  readonly #resolutionMs: number;
  readonly #clock: Clock;
  #interval: unknown;

  constructor(resolutionMs: number, clock: Clock = realClock) {
    this.#resolutionMs = resolutionMs;
    this.#clock = clock;
  }

  /** Calls `fire` in `ms` (to within the resolution) unless cancelled. */
  add(ms: number, fire: () => void): Deadline {
    const entries = this.#entries;
    const entry: Entry = {
      at: 0,
      fire,
      cancel: () => {
        entries.delete(entry);
        if (entries.size === 0) this.#stop();
      },
      restart: (after: number) => {
        entry.at = this.#clock.now() + after;
        entries.add(entry);
        this.#interval ??= this.#clock.setInterval(
          () => this.#tick(),
          this.#resolutionMs,
        );
      },
    };
    entry.restart(ms);
    return entry;
  }

  /** Pending deadlines, for tests. */
  get size(): number {
    return this.#entries.size;
  }

  #tick(): void {
    const now = this.#clock.now();
    for (const entry of this.#entries) {
      if (entry.at > now) continue;
      this.#entries.delete(entry);
      entry.fire();
    }
    if (this.#entries.size === 0) this.#stop();
  }

  #stop(): void {
    if (this.#interval === undefined) return;
    this.#clock.clearInterval(this.#interval);
    this.#interval = undefined;
  }
}
