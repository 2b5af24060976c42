/**
 * Reads a request body up to a size limit, refusing a larger one as soon as
 * its Content-Length or its bytes so far say so, never after reading it in
 * full. Corral's gateway and the Kubernetes API stand-in both read bodies
 * this way; each says "too large" in its own words.
 */
import type { HttpRequest } from "./http_request.ts";
export async function readLimitedBody(
  request: HttpRequest,
  limit: number,
  tooLarge: () => Error,
): Promise<Uint8Array> {
  const declared = Number(request.headers.get("content-length"));
  if (declared > limit) throw tooLarge();
  const chunks: Uint8Array[] = [];
  let size = 0;
  if (request.body) {
    const reader = request.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > limit) {
        await reader.cancel();
        throw tooLarge();
      }
      chunks.push(value);
    }
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}
