/**
 * A GET of a file a handler serves compressed as asked (api/http/assets.ts):
 * what came, and what it is once decoded.
 */
import assert from "node:assert/strict";
import { brotliDecompressSync, gunzipSync } from "node:zlib";

export interface Decoded {
  /** The Content-Encoding answered: "br", "gzip" or null. */
  encoding: string | null;
  /** The body's size as sent. */
  size: number;
  /** The body decoded. */
  plain: Uint8Array;
}

export async function getDecoded(
  handler: (request: Request) => Promise<Response>,
  path: string,
  accept: string,
): Promise<Decoded> {
  const response = await handler(
    new Request(`http://corral.test${path}`, {
      headers: { "accept-encoding": accept },
    }),
  );
  assert.equal(response.headers.get("vary"), "accept-encoding", path);
  const encoding = response.headers.get("content-encoding");
  const body = new Uint8Array(await response.arrayBuffer());
  const plain = encoding === "br"
    ? brotliDecompressSync(body)
    : encoding === "gzip"
    ? gunzipSync(body)
    : body;
  return { encoding, size: body.byteLength, plain: new Uint8Array(plain) };
}
