/**
 * Whether a stopping listener has been quiet: no connection nor request
 * arrived, and an event loop that kept time while it waited, so that
 * nothing could have arrived unseen.
 *
 * Closing the listening socket resets every connection the kernel accepted
 * and the listener had not yet taken: a client that connected just before
 * then has its request reset, not refused. Holding the requests that
 * arrive (Listener.quiesce) stops the clients waiting for their answers
 * from connecting again; once nothing has arrived for the quiet time, none
 * is between its handshake and its request, and the listening socket
 * closes on an empty backlog. A connection is closed as idle on the same
 * terms: no request arriving on it for the quiet time.
 *
 * Nothing is seen to arrive while the event loop is held up (a busy
 * machine, a long collection): connections wait in the kernel's backlog,
 * requests in its buffers. So the quiet time only counts while a timer
 * ticking all along comes on time; a late tick starts it again.
 */

/** Where Quiet reads the time and sets its timers; real ones by default. */
export interface Timers {
  /** Milliseconds on a monotonic scale, as performance.now(). */
  now(): number;
  setTimeout(fire: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

const realTimers: Timers = {
  now: () => performance.now(),
  setTimeout: (fire, ms) => setTimeout(fire, ms),
  clearTimeout: (handle) =>
    clearTimeout(handle as ReturnType<typeof setTimeout>),
};

/** How often the event loop is checked on, and how late a tick may be. */
export const TICK_MS = 20;
export const LATE_MS = 50;

export class Quiet {
  readonly #quietMs: number;
  readonly #timers: Timers;
  #lastArrival = -Infinity;
  /** Since when the event loop has kept time (watch()). */
  #steadySince = Infinity;
  #lastTick = 0;
  #ticker: unknown;

  constructor(quietMs: number, timers: Timers = realTimers) {
    this.#quietMs = quietMs;
    this.#timers = timers;
  }

  /** A connection or a request arrived now. */
  note(): void {
    this.#lastArrival = this.#timers.now();
  }

  /**
   * Starts watching the event loop: the quiet time counts from now on.
   * Until then nothing has been quiet.
   */
  watch(): void {
    if (this.#ticker !== undefined) return;
    this.#steadySince = this.#lastTick = this.#timers.now();
    const tick = () => {
      this.#lastTick = this.#observe();
      this.#ticker = this.#timers.setTimeout(tick, TICK_MS);
    };
    this.#ticker = this.#timers.setTimeout(tick, TICK_MS);
  }

  /** Stops watching. */
  close(): void {
    if (this.#ticker !== undefined) this.#timers.clearTimeout(this.#ticker);
    this.#ticker = undefined;
  }

  /**
   * How long until something idle since `since` (or -Infinity) has been
   * quiet for the quiet time; 0 or less once it has.
   */
  left(since: number): number {
    const now = this.#observe();
    return Math.max(since, this.#steadySince) + this.#quietMs - now;
  }

  /**
   * Resolves once nothing has arrived for the quiet time, or `maxMs` from
   * now if arrivals go on (clients that connect whatever they are
   * answered) or the event loop keeps falling behind.
   */
  wait(maxMs: number): Promise<void> {
    this.watch();
    const timers = this.#timers;
    const end = timers.now() + maxMs;
    return new Promise((resolve) => {
      const check = () => {
        const left = Math.min(this.left(this.#lastArrival), end - timers.now());
        if (left <= 0) resolve();
        else timers.setTimeout(check, left);
      };
      check();
    });
  }

  /** The time now; the quiet time starts again if a tick is overdue. */
  #observe(): number {
    const now = this.#timers.now();
    if (
      this.#ticker !== undefined && now - this.#lastTick > TICK_MS + LATE_MS
    ) {
      this.#steadySince = now;
    }
    return now;
  }
}
