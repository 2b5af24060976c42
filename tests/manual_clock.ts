/**
 * A clock a test moves by hand, for code that takes its time and timers as
 * parameters (real ones by default): nothing fires until the test calls
 * advance(), so what a test asserts never depends on how busy the machine
 * is. The timers it hands out are the ones its own clock runs, and it holds
 * nothing a test must close.
 */

interface Pending {
  at: number;
  fire: () => void;
  /** Set order, so that timers due at once fire in the order they were set. */
  order: number;
}

export class ManualClock {
  #now: number;
  #order = 0;
  readonly #pending = new Set<Pending>();

  /** Starts at `start` ms (an epoch time, or 0 for a monotonic clock). */
  constructor(start = 0) {
    this.#now = start;
  }

  /** The time, in ms. */
  now = (): number => this.#now;

  /** Calls `fire` once the clock has moved `ms` on; the handle clears it. */
  setTimeout = (fire: () => void, ms: number): unknown => {
    const pending = { at: this.#now + Math.max(0, ms), fire, order: 0 };
    pending.order = this.#order++;
    this.#pending.add(pending);
    return pending;
  };

  clearTimeout = (handle: unknown): void => {
    this.#pending.delete(handle as Pending);
  };

  /**
   * A signal that aborts as AbortSignal.timeout(ms) does, once the clock
   * has moved `ms` on.
   */
  timeoutSignal = (ms: number): AbortSignal => {
    const controller = new AbortController();
    this.setTimeout(
      () =>
        controller.abort(
          new DOMException("Signal timed out.", "TimeoutError"),
        ),
      ms,
    );
    return controller.signal;
  };

  /** How many timers are set and not yet fired or cleared. */
  get pending(): number {
    return this.#pending.size;
  }

  /**
   * Moves the clock `ms` on, firing each timer that falls due on the way at
   * its own time, earliest first (timers they set included).
   */
  advance(ms: number): void {
    const end = this.#now + ms;
    for (;;) {
      const due = [...this.#pending].filter((p) => p.at <= end)
        .sort((a, b) => a.at - b.at || a.order - b.order)[0];
      if (!due) break;
      this.#pending.delete(due);
      this.#now = due.at;
      due.fire();
    }
    this.#now = end;
  }
}
