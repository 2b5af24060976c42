/**
 * A server stream over HTTP: Server-Sent Events when the client accepts
 * text/event-stream (each answer an event whose id is its
 * resource_version, so a browser reconnecting sends it back as
 * Last-Event-ID), otherwise newline-delimited JSON as grpc-gateway streams
 * (one {"result": ...} per line). An error ends the stream with
 * {"error": {code, message, details}} (in SSE, an "error" event). Answers
 * are pulled one at a time as the connection takes them: a slow client
 * holds the stream back, and the stream ends it when too far behind.
 */
import type { Message } from "../../domain/message_form.ts";
import type { ServiceError } from "../../domain/errors.ts";
import { isKept } from "../../domain/kept.ts";
import type { Logger } from "../../domain/log.ts";
import { asServiceError, errorBody } from "../errors.ts";
import type { KeptEncodings } from "./kept_encodings.ts";
import type { HttpRequest } from "./http_request.ts";

/**
 * The answer streaming `stream` to `request`, each message encoded by
 * `encode`; a message that cannot be encoded is logged on `log` and ends
 * the stream with INTERNAL. A stream's answers are the same kept messages for every
 * watcher: each is framed once, and the frame's bytes shared.
 */
export function streamResponse(
  stream: AsyncIterableIterator<Message>,
  encode: (message: Message) => unknown,
  request: HttpRequest,
  requestId: string,
  encodings: KeptEncodings,
  log: Logger,
): Response {
  const sse = acceptsEventStream(request.headers.get("accept"));
  const framed = (message: Message): Uint8Array => {
    if (!isKept(message)) return frame({ result: encode(message) }, sse);
    let bytes = encodings.frame(message, sse);
    if (bytes === undefined) {
      bytes = frame({ result: encode(message) }, sse);
      encodings.setFrame(message, sse, bytes);
    }
    return bytes;
  };
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      let error: ServiceError;
      try {
        const { done, value } = await stream.next();
        if (done) return controller.close();
        try {
          return controller.enqueue(framed(value));
        } catch (thrown) {
          // Not the stream's own end: stopped here, so that its watcher
          // goes and its call is logged as ended.
          log.error("Failed to encode response", { cause: String(thrown) });
          await stream.return?.();
          error = asServiceError(thrown);
        }
      } catch (thrown) {
        // The dispatcher's stream ended itself with this error.
        error = asServiceError(thrown);
      }
      controller.enqueue(frame({ error: errorBody(error) }, sse, "error"));
      controller.close();
    },
    async cancel() {
      await stream.return?.();
    },
  }, { highWaterMark: 0 });
  request.signal.addEventListener("abort", () => stream.return?.(), {
    once: true,
  });
  return new Response(body, {
    headers: {
      "content-type": sse
        ? "text/event-stream; charset=utf-8"
        : "application/x-ndjson",
      "cache-control": "no-cache",
      // Proxies that buffer answers (nginx) send these as they come.
      "x-accel-buffering": "no",
      "x-request-id": requestId,
    },
  });
}

const encoder = new TextEncoder();

/** One answer of a stream as its bytes: an NDJSON line or an SSE event. */
function frame(json: unknown, sse: boolean, event?: string): Uint8Array {
  const text = JSON.stringify(json);
  if (!sse) return encoder.encode(`${text}\n`);
  const message = json as { result?: { resourceVersion?: string } };
  const id = message.result?.resourceVersion;
  return encoder.encode(
    `${event ? `event: ${event}\n` : ""}${
      id !== undefined ? `id: ${id}\n` : ""
    }data: ${text}\n\n`,
  );
}

/** Whether an Accept header asks for text/event-stream. */
function acceptsEventStream(accept: string | null): boolean {
  return (accept ?? "").split(",").some((part) =>
    part.split(";")[0].trim().toLowerCase() === "text/event-stream"
  );
}
