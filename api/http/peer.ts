/**
 * The connection an HTTP request came on, from the listener to the gateway.
 *
 * The gateway is a pure `(Request) => Promise<Response>`, which a test calls
 * with `new Request(...)` and no socket, and the router between them passes
 * the Request through untouched. A WeakMap keyed by that Request carries the
 * peer past the router without widening either signature, and without a
 * header a client could forge: the listener sets it, the gateway reads it,
 * and it goes with the Request. A Request built without a listener simply
 * has no peer.
 */
import type { Peer } from "../service/dispatcher.ts";

const peers = new WeakMap<Request, Peer>();

/** The listener's: `request` came on the connection `peer` describes. */
export function setPeer(request: Request, peer: Peer): void {
  peers.set(request, peer);
}

/** The peer the listener recorded for `request`, if a listener did. */
export function peerOf(request: Request): Peer | undefined {
  return peers.get(request);
}
