/**
 * Polls `fn` every 100 ms until it answers something other than undefined;
 * fails after `timeoutMs`, naming `what` it waited for.
 */
export async function eventually<T>(
  what: string,
  fn: () => Promise<T | undefined>,
  timeoutMs = 20_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await fn();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * Waits until `condition()` holds, checking every few milliseconds: for
 * state in this process (a counter, a listener, a cache, a reloaded file),
 * which costs little to read. Fails after `timeoutMs`, naming `what` it
 * waited for.
 */
export async function until(
  what: string,
  condition: () => boolean | Promise<boolean>,
  timeoutMs = 10_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}
