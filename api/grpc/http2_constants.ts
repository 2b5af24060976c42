/**
 * A gap in Deno 2.9's node:http2 that grpc-js falls into: its `constants`
 * has no HTTP_STATUS_UNSUPPORTED_MEDIA_TYPE, the status grpc-js answers a
 * request with when its Content-Type is not application/grpc*. Without it
 * such a request is still refused (its method never runs), but its answer
 * is a bare 200 with no grpc-status, which tells the client nothing.
 */
import http2 from "node:http2";

/** Gives node:http2's constants the 415 grpc-js reads, where it lacks it. */
export function completeHttp2Constants(): void {
  const constants = http2.constants as Record<string, unknown>;
  constants.HTTP_STATUS_UNSUPPORTED_MEDIA_TYPE ??= 415;
}
