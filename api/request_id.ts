/**
 * A request's ids. Corral makes its own for every call (newRequestId): it
 * goes back on the answer as `x-request-id` (success or error, both
 * transports) and into the request's log line and audit record, so a caller
 * who quotes it names exactly one request. A caller's own `x-request-id` is
 * never taken as Corral's: it could repeat another's, or be made to look
 * like one, and the audit trail must not be written by callers. It is kept
 * beside it as `clientRequestId` (clientRequestIdOf), cut short and
 * sanitised, so a caller's tracing can still be matched with Corral's log.
 */
/** The longest client request id kept, in characters. */
const MAX_CLIENT_REQUEST_ID = 128;

/** A new request id: Corral's for a call, whatever the caller sends. */
export function newRequestId(): string {
  return crypto.randomUUID();
}

/**
 * The caller's request id as it may be logged: visible ASCII only (no
 * spaces, control characters or escapes that could forge or garble a log
 * line in a terminal), cut to MAX_CLIENT_REQUEST_ID; undefined for none,
 * or for one that keeps nothing.
 */
export function clientRequestIdFrom(
  header: string | null | undefined,
): string | undefined {
  if (!header) return undefined;
  const kept = header.replace(/[^\x21-\x7e]/g, "").slice(
    0,
    MAX_CLIENT_REQUEST_ID,
  );
  return kept === "" ? undefined : kept;
}

/**
 * The caller's x-request-id of `request` (an HTTP request: any whose
 * headers read as `Headers` reads them), sanitised; undefined for none.
 */
export function clientRequestIdOf(
  request: { headers: { get(name: string): string | null } },
): string | undefined {
  return clientRequestIdFrom(request.headers.get("x-request-id"));
}
