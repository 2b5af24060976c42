/**
 * The limits both transports hold a request to, so that a call is refused
 * alike whichever way it came: the HTTP gateway and listener
 * (api/http/) and the gRPC server (api/grpc/) each take their defaults
 * from here rather than from one another.
 */

/**
 * The largest request body (HTTP) or message (gRPC) when
 * --max-body-bytes is not given: 3 MiB, as its flag's default.
 */
export const DEFAULT_MAX_BODY_BYTES = 3 * 1024 * 1024;

/** The largest request head (HTTP) or metadata (gRPC): 16 KiB. */
export const DEFAULT_MAX_HEADER_BYTES = 16 * 1024;
