/**
 * The gateway's answer to a unary call: the JSON of its result, as text,
 * or from COMPRESS_MIN_BYTES on as bytes, gzip-compressed for a client
 * that accepts it. A kept answer's body and compressed body are made once
 * (kept_encodings.ts); any other's for its request alone.
 */
import { gzip } from "node:zlib";
import { wholeResponse } from "./answers.ts";
import { acceptedEncodings } from "./encoding.ts";
import type { KeptEncodings } from "./kept_encodings.ts";

/**
 * Answers at least this long are gzip-compressed for clients that accept
 * it, as the Kubernetes API server compresses its large answers: a list of
 * 10,000 clusters is 15 MB of JSON and about a tenth of that compressed.
 */
export const COMPRESS_MIN_BYTES = 128 * 1024;

/**
 * The answer of `json` to `request`; `kept` when the result it encodes is
 * a kept answer, whose encodings `encodings` keeps.
 */
export function jsonAnswer(
  json: unknown,
  kept: boolean,
  request: Request,
  requestId: string,
  encodings: KeptEncodings,
): Response | Promise<Response> {
  let body = kept ? encodings.body(json as object) : undefined;
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
