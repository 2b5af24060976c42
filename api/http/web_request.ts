/**
 * From node:http's request to the `Request` the handler takes: its URL, its
 * headers, its body as a stream the listener can fail, and the peer it came
 * from. Tuned for the cost per request (Deno 2.9, measured with a cached
 * GetCluster of about 55 µs): a GET has no init at all, and headers are
 * appended to the Request's own rather than given in an init.
 */
import type http from "node:http";
import type { TLSSocket } from "node:tls";
import type { Socket } from "node:net";
import { Readable } from "node:stream";
import { certificateIdentity, formatAddress } from "../tls.ts";
import type { Peer } from "../service/call.ts";

/** The origin request URLs are made on; only their paths are read. */
const ORIGIN = "http://corral.invalid";

/** A request's body as a stream, and how the listener fails it. */
export interface BodyStream {
  stream: ReadableStream<Uint8Array>;
  /** Errors the stream: the handler reading it stops at once. */
  fail(error: Error): void;
}

/**
 * The Request of `req`, without its headers (copyHeaders() adds them);
 * throws when its target makes no URL.
 */
export function webRequestOf(
  req: http.IncomingMessage,
  method: string,
  body: BodyStream | undefined,
): Request {
  const target = req.url ?? "/";
  // The host header is the client's to choose: only the path is used. An
  // origin-form target (the path) is appended to the base as it is, which
  // also spares parsing the URL twice; an absolute-form one is resolved. A
  // GET has no init at all: each member of one is converted, with a cost on
  // every request.
  const url = target.startsWith("/")
    ? ORIGIN + target
    : new URL(target, ORIGIN).href;
  return method === "GET" ? new Request(url) : new Request(url, {
    method,
    body: body?.stream,
    // @ts-ignore: a streaming body needs half duplex (fetch spec)
    duplex: "half",
  });
}

/**
 * Appends the headers of `req` to `request`'s own: one given in its init
 * is copied into native headers, three times the cost. False when
 * `Headers` refuses one of them.
 */
export function copyHeaders(
  req: http.IncomingMessage,
  request: Request,
): boolean {
  const raw = req.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    try {
      request.headers.append(raw[i], raw[i + 1]);
    } catch {
      return false;
    }
  }
  return true;
}

/**
 * A request's body as a stream the listener can fail: with the error of a
 * time-out, the handler reading it stops at once. Underneath, node:stream's
 * web view of the request, which node:http's keep-alive handling expects.
 */
export function bodyStream(
  req: http.IncomingMessage,
  onChunk: (bytes: number) => void,
): BodyStream {
  const source = (Readable.toWeb(req) as unknown as ReadableStream<
    Uint8Array
  >).getReader();
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  let open = true;
  const stream = new ReadableStream<Uint8Array>({
    start(c) {
      controller = c;
    },
    async pull() {
      try {
        const { done, value } = await source.read();
        if (!open) return;
        if (done) {
          open = false;
          controller.close();
        } else {
          onChunk(value.byteLength);
          controller.enqueue(value);
        }
      } catch (error) {
        if (open) controller.error(error);
        open = false;
      }
    },
    cancel(reason) {
      open = false;
      return source.cancel(reason);
    },
  }, { highWaterMark: 0 });
  return {
    stream,
    fail(error) {
      if (open) controller.error(error);
      open = false;
    },
  };
}

/** The client's address, and its verified client certificate's subject. */
export function peerOfSocket(socket: Socket): Peer {
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
