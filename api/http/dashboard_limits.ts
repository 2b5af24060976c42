/**
 * The dashboard proxy's bounds on bodies: a stream that errors, with a
 * marked error, once more than its limit has passed through it. Corral
 * never holds a proxied body whole; it counts what it passes on.
 */
import type { RequestHeaders } from "./http_request.ts";

/** What a bounded stream errors with past its limit. */
export class BodyLimitError extends Error {
  constructor(readonly limit: number) {
    super(`The body is larger than ${limit} bytes`);
    this.name = "BodyLimitError";
  }
}

/**
 * `body` as it comes, erroring with BodyLimitError past `limit` bytes;
 * `exceeded()` tells afterwards whether it did (a fetch that was sending it
 * fails with an error of its own).
 */
export function bounded(
  body: ReadableStream<Uint8Array>,
  limit: number,
): { stream: ReadableStream<Uint8Array>; exceeded(): boolean } {
  let passed = 0;
  const stream = body.pipeThrough(
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
  return { stream, exceeded: () => passed > limit };
}

/** A Content-Length header's value as a number; undefined when absent or bad. */
export function contentLength(headers: RequestHeaders): number | undefined {
  const value = headers.get("content-length");
  if (value === null || !/^\d+$/.test(value.trim())) return undefined;
  return Number(value.trim());
}
