/**
 * A Kubernetes watch as the HTTP port answers it: a streamed 200 of
 * newline-delimited JSON events (`{"type": "ADDED", "object": {...}}`),
 * Content-Type application/json, as the API server's watch cache answers
 * it. BOOKMARKs go only to a client that asked for them
 * (allowWatchBookmarks=true); a watch that fails after it started ends
 * with one ERROR event holding a Status (410 Expired for one that can no
 * longer be resumed), as the API server's does.
 *
 * Its life is the chain's to follow (HttpAnswer's lifetime): it ends when
 * its client goes away, at timeoutSeconds, or when the events end; the
 * chain ends it when its caller loses the right (it then just closes, and
 * the client's next watch is refused) or at --watch-max-duration (cleanly,
 * after a last BOOKMARK to a client that takes them).
 */
import { Code, ServiceError } from "../../domain/errors.ts";
import { isKept } from "../../domain/kept.ts";
import { asServiceError, errorStatus, HttpError } from "../errors.ts";
import { HttpAnswer } from "../service/dispatcher.ts";
import type { KubeWatchEvent } from "../service/object_watch.ts";
import type { Finishable } from "../service/stream_lifetime.ts";
import { streamingResponse } from "./answers.ts";
import { statusOf, type StatusTarget } from "./kube_status.ts";

export interface WatchOptions {
  /** Whether BOOKMARK events are sent (allowWatchBookmarks=true). */
  bookmarks: boolean;
  /** Ends the watch cleanly after this long (timeoutSeconds). */
  timeoutMs?: number;
  /** What an ERROR event's Status names. */
  target: StatusTarget;
}

const encoder = new TextEncoder();

/**
 * A kept event's line, made once and sent to every watch that sends the
 * event (the watches of a kind share their events: watch_entry.ts); it goes
 * with the event.
 */
const lines = new WeakMap<KubeWatchEvent, Uint8Array>();

/** An event as its NDJSON line. */
function lineOf(event: KubeWatchEvent): Uint8Array {
  if (!isKept(event)) return encoder.encode(`${JSON.stringify(event)}\n`);
  let line = lines.get(event);
  if (line === undefined) {
    line = encoder.encode(`${JSON.stringify(event)}\n`);
    lines.set(event, line);
  }
  return line;
}

/** The answer of a watch of `events`. */
export function watchAnswer(
  events: AsyncIterableIterator<KubeWatchEvent>,
  options: WatchOptions,
): HttpAnswer {
  const watch = new WatchBody(events, options);
  const response = streamingResponse(watch.body, {
    "content-type": "application/json",
    "cache-control": "no-cache, private",
    // Proxies that buffer answers (nginx) send these as they come.
    "x-accel-buffering": "no",
  });
  return new HttpAnswer(response, watch);
}

/**
 * A resume point the watches cannot resume from (ABORTED) as the API
 * server says it: 410 Expired; any other error as it is.
 */
export function expiredIfAborted(error: unknown): unknown {
  if (error instanceof ServiceError && error.code === Code.ABORTED) {
    return new HttpError(410, Code.ABORTED, error.message);
  }
  return error;
}

/**
 * The body of one watch, and its lifetime as the chain follows it: a
 * stream of no messages that ends when the body does; return() ends the
 * body, finish() ends it after what the events have queued.
 */
class WatchBody implements AsyncIterableIterator<never>, Finishable {
  readonly body: ReadableStream<Uint8Array>;
  readonly #events: AsyncIterableIterator<KubeWatchEvent> & Partial<Finishable>;
  readonly #ended = Promise.withResolvers<IteratorResult<never>>();
  #controller!: ReadableStreamDefaultController<Uint8Array>;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #done = false;

  constructor(
    events: AsyncIterableIterator<KubeWatchEvent>,
    private readonly options: WatchOptions,
  ) {
    this.#events = events;
    this.body = new ReadableStream<Uint8Array>({
      start: (controller) => {
        this.#controller = controller;
        if (options.timeoutMs !== undefined) {
          this.#timer = setTimeout(() => this.finish(), options.timeoutMs);
        }
      },
      pull: () => this.#pull(),
      cancel: () => this.#stop(),
    }, { highWaterMark: 0 });
  }

  /** Sends the next event the client takes; ends the body after the last. */
  async #pull(): Promise<void> {
    try {
      for (;;) {
        const { done, value } = await this.#events.next();
        if (this.#done) return;
        if (done) return this.#close();
        if (value.type === "BOOKMARK" && !this.options.bookmarks) continue;
        this.#controller.enqueue(lineOf(value));
        return;
      }
    } catch (thrown) {
      if (this.#done) return;
      const error = asServiceError(expiredIfAborted(thrown));
      const status = statusOf(error, errorStatus(error), this.options.target);
      this.#controller.enqueue(
        encoder.encode(
          `${JSON.stringify({ type: "ERROR", object: status })}\n`,
        ),
      );
      this.#close();
    }
  }

  /** The body ends here, after what it has sent. */
  #close(): void {
    if (this.#done) return;
    this.#ended.resolve({ done: true, value: undefined });
    this.#done = true;
    clearTimeout(this.#timer);
    try {
      this.#controller.close();
    } catch {
      // cancelled by the client already
    }
  }

  /** The body ends now: its client went away, or the chain ended it. */
  #stop(): void {
    if (this.#done) return;
    this.#close();
    Promise.resolve(this.#events.return?.()).catch(() => {});
  }

  finish(): void {
    clearTimeout(this.#timer);
    if (this.#events.finish) this.#events.finish();
    else this.#stop();
  }

  next(): Promise<IteratorResult<never>> {
    return this.#ended.promise;
  }

  return(): Promise<IteratorResult<never>> {
    this.#stop();
    return this.#ended.promise;
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<never> {
    return this;
  }
}
