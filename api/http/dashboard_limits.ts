/**
 * The dashboard proxy's bounds on bodies: a stream that errors, with a
 * marked error, once more than its limit has passed through it. Corral
 * never holds a proxied body whole; it counts what it passes on.
 */

/** What a bounded stream errors with past its limit. */
export class BodyLimitError extends Error {
  constructor(readonly limit: number) {
    super(`The body is larger than ${limit} bytes`);
    this.name = "BodyLimitError";
  }
}

/** `body` as it comes, erroring with BodyLimitError past `limit` bytes. */
export function bounded(
  body: ReadableStream<Uint8Array>,
  limit: number,
): ReadableStream<Uint8Array> {
  let passed = 0;
  return body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        passed += chunk.byteLength;
        if (passed > limit) {
          controller.error(new BodyLimitError(limit));
          return;
        }
        controller.enqueue(chunk);
      },
    }),
  );
}

/** Whether `error`, or one of its causes, is a BodyLimitError. */
export function isBodyLimitError(error: unknown): boolean {
  for (let e = error, depth = 0; e && depth < 5; depth++) {
    if (e instanceof BodyLimitError) return true;
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}

/** A Content-Length header's value as a number; undefined when absent or bad. */
export function contentLength(headers: Headers): number | undefined {
  const value = headers.get("content-length");
  if (value === null || !/^\d+$/.test(value.trim())) return undefined;
  return Number(value.trim());
}
