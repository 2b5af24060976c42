/**
 * The Call (api/service/call.ts) an HTTP request is to the chain: Corral's
 * own new request id, the caller's beside it, and the connection's peer.
 * Shared by the gateway's routes and the HTTP units (units.ts).
 */
import type { Call } from "../service/call.ts";
import { clientRequestIdOf, newRequestId } from "../request_id.ts";
import type { HttpRequest } from "./http_request.ts";

/** The Call of `request` under `key`, on `route` ("GET /apis/..."). */
export function httpCall(
  request: HttpRequest,
  key: string,
  route: string,
): Call {
  const clientRequestId = clientRequestIdOf(request);
  return {
    transport: "http",
    requestId: newRequestId(),
    ...(clientRequestId ? { clientRequestId } : {}),
    key,
    route,
    peer: request.peer,
  };
}
