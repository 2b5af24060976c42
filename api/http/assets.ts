/**
 * Files served as they are: the console's, the API reference page's (with
 * Scalar's 4.3 MB bundle) and the OpenAPI document. Each is answered
 * Brotli- or gzip-compressed when the client accepts it; each compressed
 * form is made once, on the thread pool, when a client first asks for it,
 * and kept (start-up compresses nothing). Answers reach the listener as
 * their bytes (answers.ts), which a Response would otherwise copy on every
 * request.
 */
import { brotliCompress, constants, gzip } from "node:zlib";
import { wholeResponse } from "./answers.ts";
import { acceptedEncodings } from "./encoding.ts";
import type { PageHandler } from "./router.ts";

type Encoding = "br" | "gzip";

/** The encoding to answer with, from Accept-Encoding: br, gzip or none. */
function encodingFor(accept: string | null): Encoding | undefined {
  const accepted = acceptedEncodings(accept);
  if (accepted.has("br")) return "br";
  if (accepted.has("gzip")) return "gzip";
  return undefined;
}

function compress(bytes: Uint8Array, encoding: Encoding): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    const done = (error: Error | null, out: Uint8Array) =>
      error ? reject(error) : resolve(new Uint8Array(out));
    if (encoding === "gzip") gzip(bytes, { level: 9 }, done);
    else {
      // Quality 9, not 11: 11 is several times slower for a few per cent fewer bytes.
      brotliCompress(bytes, {
        params: { [constants.BROTLI_PARAM_QUALITY]: 9 },
      }, done);
    }
  });
}

/**
 * The handler of a file: `body` with `headers` (its content type, caching
 * and the like), compressed as the client accepts.
 */
export function assetHandler(
  body: string | Uint8Array,
  headers: Record<string, string>,
): PageHandler {
  const identity = typeof body === "string"
    ? new TextEncoder().encode(body)
    : body;
  const compressed: Partial<Record<Encoding, Promise<Uint8Array>>> = {};
  return async (request) => {
    const encoding = encodingFor(request.headers.get("accept-encoding"));
    if (encoding === undefined) {
      return wholeResponse(identity, { ...headers, vary: "accept-encoding" });
    }
    const bytes = await (compressed[encoding] ??= compress(identity, encoding));
    return wholeResponse(bytes, {
      ...headers,
      vary: "accept-encoding",
      "content-encoding": encoding,
    });
  };
}
