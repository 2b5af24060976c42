/**
 * A request's body as a web stream, read from node:http's request in
 * paused mode: a chunk is taken (`req.read()`) only when the handler pulls
 * one, and nothing is put in the stream once it is cancelled, failed or
 * ended.
 *
 * Not node:stream's `Readable.toWeb()`: it reads in flowing mode, putting
 * each chunk the request emits in the stream, and the request goes on
 * emitting what it had buffered after the handler cancelled (a refused
 * request's body, a DELETE's unwanted one): the chunk put in the cancelled
 * stream threw "The stream controller cannot close or enqueue" out of
 * node:stream's flow, an uncaught exception for what any client can send.
 */
import type http from "node:http";
import { finished } from "node:stream";

/** A request's body as a stream, and how the listener fails it. */
export interface BodyStream {
  stream: ReadableStream<Uint8Array>;
  /** Errors the stream: the handler reading it stops at once. */
  fail(error: Error): void;
}

/**
 * The body of `req` as a stream the listener can fail: with the error of a
 * time-out, the handler reading it stops at once. `onChunk` is told the
 * size of each chunk taken.
 *
 * The request is not listened to before the handler first pulls, so that
 * a body nobody reads is node:http's to discard when the answer is done
 * (it keeps the connection for the next request). Cancelled, the rest is
 * discarded in the same way.
 */
export function bodyStream(
  req: http.IncomingMessage,
  onChunk: (bytes: number) => void,
): BodyStream {
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  let open = true;
  /** Set once the request has ended, with its error if it broke off. */
  let ended: { error?: Error } | undefined;
  let wake: (() => void) | undefined;
  let unwatch: (() => void) | undefined;
  const woken = () => {
    const resolve = wake;
    wake = undefined;
    resolve?.();
  };
  const watch = () => {
    req.on("readable", woken);
    const stopWatching = finished(req, (error) => {
      ended = { error: error ?? undefined };
      woken();
    });
    unwatch = () => {
      req.off("readable", woken);
      stopWatching();
    };
  };
  /** No chunk goes in the stream from now on. */
  const stop = () => {
    open = false;
    unwatch?.();
    woken();
  };
  const stream = new ReadableStream<Uint8Array>({
    start(c) {
      controller = c;
    },
    async pull() {
      if (!unwatch) watch();
      while (open) {
        const chunk: Uint8Array | null = req.read();
        if (chunk !== null) {
          onChunk(chunk.byteLength);
          // A copy: node:http's chunks may share a buffer with what follows.
          return controller.enqueue(new Uint8Array(chunk));
        }
        if (ended) {
          stop();
          const { error } = ended;
          return error ? controller.error(error) : controller.close();
        }
        await new Promise<void>((resolve) => wake = resolve);
      }
    },
    cancel() {
      stop();
      // As node:http discards a body nobody read.
      req.resume();
    },
  }, { highWaterMark: 0 });
  return {
    stream,
    fail(error) {
      if (!open) return;
      stop();
      controller.error(error);
    },
  };
}
