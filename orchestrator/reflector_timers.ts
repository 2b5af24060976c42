/**
 * The clock and timers a reflector runs on, and the one timer it keeps
 * per watch: the silence limit.
 *
 * Stands apart from the list/watch loop (reflector.ts) so that tests give
 * a reflector a clock of their own (no real-time budgets), and so that the
 * silence timer, which knows nothing of lists or watches, reads on its own.
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
