/**
 * Writes the handler's Response on node:http's ServerResponse: status and
 * headers, then no body for HEAD, a whole answer in one go with its length,
 * or a stream (a watch) chunk by chunk for as long as it lasts and its
 * client takes it.
 */
import { Buffer } from "node:buffer";
import type http from "node:http";
import { isStreamedAnswer, wholeBodyOf } from "./answers.ts";

/**
 * Writes `response` on `res`, without its body for HEAD. A whole answer
 * the gateway made (answers.ts) is written at once, with no promise made
 * for it; any other is read first.
 */
export function writeResponse(
  res: http.ServerResponse,
  response: Response,
  head: boolean,
): Promise<void> | undefined {
  res.statusCode = response.status;
  response.headers.forEach((value, name) => res.setHeader(name, value));
  if (head) return endWithoutBody(res, response);
  // (response.body is not read before: for a whole answer, it would make a
  // stream of it.)
  // A list too large to keep encoded is written as it is made.
  if (isStream(response) || isStreamedAnswer(response)) {
    return writeStream(res, response);
  }
  // A whole answer, written with its length in one go: cheaper than reading
  // it as a stream, chunk by chunk; the gateway's, as it made it.
  const body = wholeBodyOf(response);
  if (body === undefined) return writeRead(res, response);
  writeWhole(res, body);
  return undefined;
}

/** Content types whose answers go on for as long as they last (watches). */
const STREAM_TYPES = ["application/x-ndjson", "text/event-stream"];

/** Whether an answer is a stream, written chunk by chunk as it comes. */
function isStream(response: Response): boolean {
  const type = response.headers.get("content-type") ?? "";
  // startsWith rather than a regular expression: every answer is asked.
  return STREAM_TYPES.some((stream) =>
    type.startsWith(stream) &&
    (type.length === stream.length || !/\w/.test(type[stream.length]))
  );
}

async function endWithoutBody(
  res: http.ServerResponse,
  response: Response,
): Promise<void> {
  await response.body?.cancel();
  res.end();
}

function writeWhole(res: http.ServerResponse, body: string | Uint8Array) {
  res.setHeader(
    "content-length",
    typeof body === "string" ? Buffer.byteLength(body) : body.byteLength,
  );
  res.end(body);
}

/** A whole answer made as any Response: read in full, then written. */
async function writeRead(
  res: http.ServerResponse,
  response: Response,
): Promise<void> {
  writeWhole(res, new Uint8Array(await response.arrayBuffer()));
}

async function writeStream(
  res: http.ServerResponse,
  response: Response,
): Promise<void> {
  if (response.body === null) return void res.end();
  // The status and headers go out at once, as the Kubernetes API server
  // sends a watch's: a client waits for them before it reads, and a watch
  // resumed where nothing has changed since has nothing else to send.
  res.flushHeaders();
  for await (const chunk of response.body) {
    // Leaving the loop cancels the body: a stream stops with its client.
    if (res.destroyed) break;
    if (!res.write(chunk)) {
      // Both listeners go on resuming: a long watch on a slow client
      // stalls many times, and must not pile up "close" listeners.
      await new Promise<void>((resolve) => {
        const resume = () => {
          res.off("drain", resume);
          res.off("close", resume);
          resolve();
        };
        res.on("drain", resume);
        res.on("close", resume);
      });
    }
  }
  res.end();
}
