/**
 * What Corral's HTTP code reads of a request: its method, URL, headers and
 * body. A fetch `Request` has all of it, and is what tests and in-process
 * callers hand the router; the listener hands it a ListenedRequest
 * (web_request.ts), made from node:http's request for a fraction of the
 * cost of a `Request` (measured under Deno 2.9: building a `Request` and
 * appending each header to it was about a tenth of a cached GetCluster).
 */
import type { Peer } from "../service/call.ts";

/** A request's headers, read as `Headers` reads them. */
export interface RequestHeaders {
  /** The value of `name` (any case); repeated ones joined with ", ". */
  get(name: string): string | null;
  has(name: string): boolean;
  /** Every header as [lower-case name, value], repeated ones joined. */
  [Symbol.iterator](): IterableIterator<[string, string]>;
}

export interface HttpRequest {
  readonly method: string;
  /** Absolute: the listener's are made on http://corral.invalid. */
  readonly url: string;
  readonly headers: RequestHeaders;
  readonly body: ReadableStream<Uint8Array> | null;
  /**
   * Aborts when the client goes away: the listener's, which the request's
   * Kubernetes calls and a stream's end follow; a `Request`'s own.
   */
  readonly signal: AbortSignal;
  /**
   * The connection the listener took the request on (address, verified
   * client certificate); none for a request made in process. The
   * listener's to set, never read from a header a client could forge.
   */
  readonly peer?: Peer;
}

/** What answers a request of the HTTP port. */
export type Handler = (request: HttpRequest) => Promise<Response>;
