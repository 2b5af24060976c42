/**
 * The gateway's answer to a unary call: the JSON of its result, as text,
 * or from COMPRESS_MIN_BYTES on as bytes, gzip-compressed for a client
 * that accepts it. A kept answer's body and compressed body are made once
 * (kept_encodings.ts); any other's for its request alone.
 *
 * A kept answer larger than KEEP_MAX_BYTES (an unpaginated list of 50,000
 * clusters is 75 MB) is not kept encoded: it stays complete, but its text
 * is streamed, made a batch of items at a time for each request
 * (json_chunks.ts), so that neither the kept text nor a request's holds a
 * second copy of the whole answer. Its compressed form, a tenth of it, is
 * kept: made once from the same chunks, for every client that takes gzip.
 */
import { gzip } from "node:zlib";
import { streamedResponse, wholeResponse } from "./answers.ts";
import { acceptedEncodings } from "./encoding.ts";
import { estimatedJsonBytes, jsonChunks } from "./json_chunks.ts";
import type { KeptEncodings } from "./kept_encodings.ts";
import type { HttpRequest } from "./http_request.ts";

/**
 * Answers at least this long are gzip-compressed for clients that accept
 * it, as the Kubernetes API server compresses its large answers: a list of
 * 10,000 clusters is 15 MB of JSON and about a tenth of that compressed.
 */
export const COMPRESS_MIN_BYTES = 128 * 1024;

/**
 * Kept answers up to this size keep their text: a list of 10,000 clusters
 * (15 MB) is written from it at 16 connections without encoding it again.
 * Larger ones are streamed (see above).
 */
export const KEEP_MAX_BYTES = 32 * 1024 * 1024;

/**
 * The answer of `json` to `request`; `kept` when the result it encodes is
 * a kept answer, whose encodings `encodings` keeps (but its text beyond
 * `keepMaxBytes`).
 */
export function jsonAnswer(
  json: unknown,
  kept: boolean,
  request: HttpRequest,
  requestId: string,
  encodings: KeptEncodings,
  keepMaxBytes = KEEP_MAX_BYTES,
): Response | Promise<Response> {
  let body = kept ? encodings.body(json as object) : undefined;
  if (body === undefined && kept && estimatedJsonBytes(json) > keepMaxBytes) {
    return streamedAnswer(json as object, request, requestId, encodings);
  }
  if (body === undefined) {
    body = bodyOf(JSON.stringify(json));
    if (kept) encodings.setBody(json as object, body);
  }
  if (
    typeof body === "string" ||
    !acceptedEncodings(request.headers.get("accept-encoding")).has("gzip")
  ) {
    return textResponse(body, requestId, typeof body !== "string");
  }
  let compressed = kept ? encodings.compressed(json as object) : undefined;
  if (compressed === undefined) {
    compressed = gzipped(body);
    if (kept) encodings.setCompressed(json as object, compressed);
  }
  return compressed.then((bytes) => gzipResponse(bytes, requestId));
}

const encoder = new TextEncoder();

/**
 * A kept answer too large to keep encoded: its text streamed, or its
 * compressed form, kept.
 */
function streamedAnswer(
  json: object,
  request: HttpRequest,
  requestId: string,
  encodings: KeptEncodings,
): Response | Promise<Response> {
  if (!acceptedEncodings(request.headers.get("accept-encoding")).has("gzip")) {
    return streamedResponse(jsonChunks(json), {
      "content-type": "application/json",
      vary: "accept-encoding",
      "x-request-id": requestId,
    });
  }
  let compressed = encodings.compressed(json);
  if (compressed === undefined) {
    compressed = gzippedChunks(jsonChunks(json));
    encodings.setCompressed(json, compressed);
  }
  return compressed.then((bytes) => gzipResponse(bytes, requestId));
}

/** The chunks' text gzip-compressed, chunk by chunk. */
async function gzippedChunks(chunks: Iterable<string>): Promise<Uint8Array> {
  const text = ReadableStream.from(chunks).pipeThrough(new TextEncoderStream());
  const bytes = await new Response(
    text.pipeThrough(new CompressionStream("gzip")),
  ).arrayBuffer();
  return new Uint8Array(bytes);
}

/**
 * An answer's body: its text, or, from COMPRESS_MIN_BYTES on, its bytes
 * (which may be compressed, and which a kept list of 10,000 writes 15 MB
 * of on every answer without encoding them again).
 */
function bodyOf(text: string): string | Uint8Array {
  return text.length < COMPRESS_MIN_BYTES ? text : encoder.encode(text);
}

/** gzip on the thread pool: a 15 MB list does not hold up other requests. */
function gzipped(bytes: Uint8Array): Promise<Uint8Array> {
  return new Promise((resolve, reject) =>
    gzip(
      bytes,
      { level: 4 },
      (error, bytes) => error ? reject(error) : resolve(new Uint8Array(bytes)),
    )
  );
}

function textResponse(
  text: string | Uint8Array,
  requestId: string,
  compressible: boolean,
): Response {
  return wholeResponse(
    text,
    compressible
      ? {
        "content-type": "application/json",
        vary: "accept-encoding",
        "x-request-id": requestId,
      }
      : { "content-type": "application/json", "x-request-id": requestId },
  );
}

function gzipResponse(bytes: Uint8Array, requestId: string): Response {
  return wholeResponse(bytes, {
    "content-type": "application/json",
    "content-encoding": "gzip",
    vary: "accept-encoding",
    "x-request-id": requestId,
  });
}
