/**
 * From node:http's request to the HttpRequest the handler takes
 * (http_request.ts): its URL, its headers, its body as a stream the
 * listener can fail, and the peer it came from. Made for the cost per
 * request, which a fetch `Request` multiplies: its URL parsed again, each
 * header checked and copied into native headers (node:http's parser has
 * already refused what `Headers` would). The body is request_body.ts's.
 */
import type http from "node:http";
import type { TLSSocket } from "node:tls";
import type { Socket } from "node:net";
import { certificateIdentity, formatAddress } from "../tls.ts";
import type { Peer } from "../service/call.ts";
import type { HttpRequest, RequestHeaders } from "./http_request.ts";
import type { BodyStream } from "./request_body.ts";

/** The origin request URLs are made on; only their paths are read. */
const ORIGIN = "http://corral.invalid";

/**
 * The HttpRequest of `req`, whose client going away aborts `signal`, with
 * the peer of its connection; throws when its target makes no URL. Its `url`
 * is the one a `Request` would have (dot segments resolved, characters
 * escaped), which the router reads the path of.
 */
export function listenedRequest(
  req: http.IncomingMessage,
  method: string,
  body: BodyStream | undefined,
  signal: AbortSignal,
): HttpRequest {
  return {
    method,
    url: urlOf(req.url ?? "/"),
    headers: new ListenedHeaders(req.rawHeaders),
    body: body?.stream ?? null,
    signal,
    peer: peerOfSocket(req.socket),
  };
}

/**
 * An origin-form target made only of characters the URL standard keeps as
 * they are, with no segment beginning with a dot (nor an escaped one): its
 * URL is the origin and the target, as sent.
 */
const KEPT_AS_SENT = /^\/[A-Za-z0-9\-._~!$&()*+,;=:@\/?%]*$/;
const DOT_SEGMENT = /\/\.|%2e/i;

/**
 * The absolute URL of a request target, as `new Request()` would make it.
 * The host header is the client's to choose: only the path is used, on a
 * fixed origin. Most targets are kept as sent; any other (dot segments,
 * characters to escape, an absolute form) is parsed.
 */
function urlOf(target: string): string {
  if (KEPT_AS_SENT.test(target) && !DOT_SEGMENT.test(target)) {
    return ORIGIN + target;
  }
  return target.startsWith("/")
    ? new URL(ORIGIN + target).href
    : new URL(target, ORIGIN).href;
}

/**
 * The headers of node:http's request, read as `Headers` reads them: by
 * lower-case name, a repeated one's values joined with ", " (so that two
 * Authorization headers make one value no credential parses). Indexed on
 * first read.
 */
class ListenedHeaders implements RequestHeaders {
  readonly #raw: string[];
  #byName: Map<string, string> | undefined;

  constructor(raw: string[]) {
    this.#raw = raw;
  }

  get(name: string): string | null {
    return this.#index().get(name.toLowerCase()) ?? null;
  }

  has(name: string): boolean {
    return this.#index().has(name.toLowerCase());
  }

  [Symbol.iterator](): IterableIterator<[string, string]> {
    return this.#index().entries();
  }

  #index(): Map<string, string> {
    if (this.#byName) return this.#byName;
    const byName = new Map<string, string>();
    const raw = this.#raw;
    for (let i = 0; i + 1 < raw.length; i += 2) {
      const name = raw[i].toLowerCase();
      const before = byName.get(name);
      byName.set(
        name,
        before === undefined ? raw[i + 1] : `${before}, ${raw[i + 1]}`,
      );
    }
    return this.#byName = byName;
  }
}

/** The client's address, and its verified client certificate's subject. */
function peerOfSocket(socket: Socket): Peer {
  const address = formatAddress(socket.remoteAddress, socket.remotePort);
  const secure = socket as TLSSocket;
  const certificate = secure.encrypted
    ? certificateIdentity(secure.authorized, secure.getPeerCertificate())
    : undefined;
  return {
    ...(address ? { address } : {}),
    ...(certificate ? { certificate } : {}),
  };
}
