/**
 * Side channel: what the listener knows of an HTTP request and a `Request`
 * cannot carry.
 *
 * - What is kept: the peer of the connection the request came on (address,
 *   verified client certificate), and the signal that aborts when its
 *   client goes away.
 * - Keyed by: the Request the listener made, in a WeakMap.
 * - Who writes it: the listener (server.ts, setListened()).
 * - Who reads it: the gateway and the pages (peerOf(), signalOf()).
 * - Why not a field: see below.
 *
 * The gateway is a pure `(Request) => Promise<Response>`, which a test calls
 * with `new Request(...)` and no socket, and the router between them passes
 * the Request through untouched. A WeakMap keyed by that Request carries
 * these past the router without widening either signature, and without a
 * header a client could forge: the listener sets them, the gateway reads
 * them, and they go with the Request. A Request built without a listener
 * has no peer, and its own signal.
 *
 * The signal travels here rather than as the Request's `signal` because
 * `new Request(url, { signal })` makes a dependent signal: 3.6 µs of a
 * GetCluster's 55 under Deno 2.9, measured; a fifteenth of its time.
 *
 * Both belong to the very Request the listener made: code between the
 * listener and the gateway must pass it on as it is. A Request made anew
 * from it (`new Request(request, ...)`, `clone()`) has neither, and its
 * signal never aborts; nothing in Corral does that, and
 * tests/api/http/server_test.ts checks that nothing reads `request.signal`.
 */
import type { Peer } from "../service/call.ts";

interface Listened {
  peer: Peer;
  signal: AbortSignal;
}

const listened = new WeakMap<Request, Listened>();

/**
 * The listener's: `request` came on the connection `peer` describes, and
 * `signal` aborts when its client goes away.
 */
export function setListened(
  request: Request,
  peer: Peer,
  signal: AbortSignal,
): void {
  listened.set(request, { peer, signal });
}

/** The peer the listener recorded for `request`, if a listener did. */
export function peerOf(request: Request): Peer | undefined {
  return listened.get(request)?.peer;
}

/**
 * Aborts when the client of `request` goes away: the listener's signal, or
 * the Request's own.
 */
export function signalOf(request: Request): AbortSignal {
  return listened.get(request)?.signal ?? request.signal;
}
