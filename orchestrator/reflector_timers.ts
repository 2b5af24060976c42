/**
 * The clock and timers a reflector runs on, and the two waits it keeps:
 * the silence limit of each watch, and the backoff pause after a failure.
 *
 * Stands apart from the list/watch loop (reflector.ts) so that tests give
 * a reflector a clock of their own (no real-time budgets), and so that the
 * silence timer and the backoff, which know nothing of lists or watches,
 * read on their own.
 */

/** Where a reflector reads the time and sets its timers. */
export interface ReflectorTimers {
  /** Milliseconds on a monotonic scale, as performance.now(). */
  now(): number;
  /** Calls `fire` once, `ms` from now; the handle is for clearTimeout. */
  setTimeout(fire: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

/** performance.now() and the global timer functions. */
export const realTimers: ReflectorTimers = {
  now: () => performance.now(),
  setTimeout: (fire, ms) => setTimeout(fire, ms),
  clearTimeout: (handle) =>
    clearTimeout(handle as ReturnType<typeof setTimeout>),
};

/**
 * Calls `onSilent` once the watch is silent past `limit` (none when
 * unset): heard() each time it delivers something, stop() once it ended.
 */
export function watchSilence(
  timers: ReflectorTimers,
  limit: number | undefined,
  onSilent: () => void,
): { heard(): void; stop(): void } {
  if (limit === undefined) return { heard() {}, stop() {} };
  let last = timers.now();
  let timer: unknown;
  // One timer per watch, not one per event: when it fires early (events
  // came meanwhile) it is set again for what remains.
  const check = () => {
    const quiet = timers.now() - last;
    if (quiet >= limit) onSilent();
    else timer = timers.setTimeout(check, limit - quiet);
  };
  timer = timers.setTimeout(check, limit);
  return {
    heard: () => last = timers.now(),
    stop: () => timers.clearTimeout(timer),
  };
}

const MAX_BACKOFF_MS = 30_000;

/**
 * The pause after a failure: `firstMs` doubling up to 30 s, back to its
 * first value after a successful list or a retryNow().
 */
export class Backoff {
  readonly #timers: ReflectorTimers;
  readonly #firstBackoff: number;
  #backoff: number;
  /** Ends the pause after a failure at once. */
  #wake: (() => void) | undefined;

  constructor(timers: ReflectorTimers, firstMs: number) {
    this.#timers = timers;
    this.#firstBackoff = firstMs;
    this.#backoff = this.#firstBackoff;
  }

  /** The next pause's length. */
  get next(): number {
    return this.#backoff;
  }

  /** Back to its first value: a list succeeded. */
  reset(): void {
    this.#backoff = this.#firstBackoff;
  }

  /** The pause after `ms` is twice as long, up to 30 s. */
  double(ms: number): void {
    this.#backoff = Math.min(ms * 2, MAX_BACKOFF_MS);
  }

  /**
   * Ends the pause at once, the backoff back to its first value: the API
   * server answers again. Nothing while not pausing.
   */
  retryNow(): void {
    if (this.#wake === undefined) return;
    this.#backoff = this.#firstBackoff;
    this.#wake();
  }

  /** Ends the pause at once, if pausing. */
  wake(): void {
    this.#wake?.();
  }

  /** Waits `ms`, or until stop() wakes it (wake(), retryNow()). */
  pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        this.#timers.clearTimeout(timer);
        this.#wake = undefined;
        resolve();
      };
      const timer = this.#timers.setTimeout(done, ms);
      this.#wake = done;
    });
  }
}
