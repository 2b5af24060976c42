/**
 * A request's id: the caller's x-request-id, cut short, or a new one. It
 * goes back on the answer (success or error) and into the request's log
 * line, so a caller and an operator can name the same request.
 */

/** The id of a request whose x-request-id is `header`. */
export function requestIdFrom(header: string | null | undefined): string {
  return header?.slice(0, 128) || crypto.randomUUID();
}

/** The id of `request`. */
export function requestIdOf(request: Request): string {
  return requestIdFrom(request.headers.get("x-request-id"));
}
