/**
 * The HTTP listener: serves a `(Request) => Promise<Response>` handler over
 * node:http, because Deno.serve has no header or idle time-outs and a slow
 * client could otherwise hold a connection forever. Adds what a production
 * listener needs around the handler: time-outs, URL and header size limits,
 * cancellation when the client goes away, and a graceful shutdown that lets
 * accepted requests finish. With a certificate source it serves HTTPS
 * (node:https, the same server with TLS underneath) and takes each new
 * certificate for the connections that follow.
 */
import { Buffer } from "node:buffer";
import http from "node:http";
import https from "node:https";
import type { TLSSocket } from "node:tls";
import type { Socket } from "node:net";
import { Readable } from "node:stream";
import { Code, ServiceError } from "../../domain/errors.ts";
import type { Logger } from "../../domain/log.ts";
import { HttpError } from "../errors.ts";
import { rawErrorAnswer, writeErrorAnswer } from "./error_answers.ts";
import {
  certificateIdentity,
  type CertificateSource,
  clientCertificateOptions,
  formatAddress,
  secureContextOptions,
} from "../tls.ts";
import type { Peer } from "../service/dispatcher.ts";
import { wholeBodyOf } from "./answers.ts";
import { setListened } from "./peer.ts";
import { type Deadline, Deadlines } from "./deadlines.ts";

/**
 * What the listener serves. With `allowed` (the router's), the requests the
 * listener refuses itself for their method get 405 with Allow, or 404.
 */
export type HttpHandler = ((request: Request) => Promise<Response>) & {
  allowed?: (pathname: string) => string[];
};

export interface HttpServerOptions {
  hostname: string;
  port: number;
  handler: HttpHandler;
  log: Logger;
  /** A connection must deliver a request's headers within this; 10 s. */
  headerTimeoutMs?: number;
  /** A connection with no traffic for this long is closed; 60 s. */
  idleTimeoutMs?: number;
  /**
   * A request's body must arrive in full within this of its headers; 30 s.
   * Past it: 408 code 4, and the connection closes.
   */
  bodyTimeoutMs?: number;
  /**
   * Longest a request may take, headers to the end of its answer; 60 s, as
   * the Kubernetes API server's --request-timeout. Past it: 504 code 4.
   */
  requestTimeoutMs?: number;
  /**
   * Request bodies being received at once, in bytes: 64 MiB. A body counts
   * by its Content-Length from its headers on, or chunk by chunk as it
   * arrives, until its request is answered. Past it, a new body gets 429
   * code 8 with Retry-After before any of it is read.
   */
  maxInflightBodyBytes?: number;
  /** Told when a request arrives (+1) and when it is done (-1). */
  onInFlight?: (delta: 1 | -1) => void;
  /** Longest request line URL; 8 KiB. Longer: 414. */
  maxUrlBytes?: number;
  /** Largest request head; 16 KiB. Larger: 431. */
  maxHeaderBytes?: number;
  /**
   * Serve HTTPS with this source's certificate, and each new one it gives
   * from then on. A plaintext request is then refused in the handshake: the
   * client gets a TLS alert and the connection closes (Deno's node:tls
   * consumes the first bytes before the server could tell them apart, so
   * there is no Go-style "400 Client sent an HTTP request to an HTTPS
   * server").
   */
  tls?: CertificateSource;
}

export interface HttpServer {
  readonly port: number;
  /** Requests being handled now. */
  readonly inFlight: number;
  /**
   * From now on every answer carries `Connection: close`, so that
   * keep-alive clients move to new connections (which a load balancer sends
   * elsewhere) before the listener closes.
   */
  drain(): void;
  /**
   * Stops accepting connections, lets the requests in flight finish (at
   * most `graceMs`), then closes every connection.
   */
  shutdown(graceMs: number): Promise<void>;
}

interface SocketState {
  /** Requests of this socket being handled. */
  active: number;
  /** The request of this socket handled last, and its response. */
  current?: { req: http.IncomingMessage; res: http.ServerResponse };
  /** Set when the parser gave up on this socket: close it once answered. */
  broken?: boolean;
  /** The answer to a malformed request pipelined after those in flight. */
  refusal?: string;
  headerTimer?: Deadline;
}

export async function serveHttp(
  options: HttpServerOptions,
): Promise<HttpServer> {
  const headerTimeoutMs = options.headerTimeoutMs ?? 10_000;
  const idleTimeoutMs = options.idleTimeoutMs ?? 60_000;
  const bodyTimeoutMs = options.bodyTimeoutMs ?? 30_000;
  const requestTimeoutMs = options.requestTimeoutMs ?? 60_000;
  const maxInflightBodyBytes = options.maxInflightBodyBytes ?? 64 * 1024 ** 2;
  const maxUrlBytes = options.maxUrlBytes ?? 8 * 1024;
  const maxHeaderBytes = options.maxHeaderBytes ?? 16 * 1024;
  const { log } = options;
  const sockets = new Map<Socket, SocketState>();
  // Fine enough for the shortest time-out (tests use tens of ms).
  const deadlines = new Deadlines(
    Math.min(
      250,
      Math.max(
        5,
        Math.min(
          headerTimeoutMs,
          idleTimeoutMs,
          bodyTimeoutMs,
          requestTimeoutMs,
        ) / 20,
      ),
    ),
  );
  let inFlight = 0;
  /** Bytes of the request bodies counted against the budget now. */
  let bodyBytes = 0;
  let closing = false;
  let draining = false;
  let drained: (() => void) | undefined;

  const serverOptions: http.ServerOptions = {
    maxHeaderSize: maxHeaderBytes,
    // Node answers an HTTP/1.1 request without Host with a bare 400; the
    // handler below answers it with the error body.
    requireHostHeader: false,
  };
  const source = options.tls;
  const server: http.Server = source
    ? https.createServer({
      ...serverOptions,
      ...secureContextOptions(source.current),
      ...clientCertificateOptions(source.current),
    })
    : http.createServer(serverOptions);
  // setSecureContext replaces what new handshakes use; the connections
  // open keep theirs. (An SNICallback returning the context in force works
  // as well under Deno; this is the one call made for it.)
  const unsubscribe = source?.subscribe((material) =>
    (server as https.Server).setSecureContext(secureContextOptions(material))
  );
  /**
   * With TLS, the TCP connections, by remote address: each must complete
   * its handshake within the header time-out (Deno's node:tls does not
   * enforce `handshakeTimeout`), and shutdown closes those that have not.
   */
  const raw = new Map<
    string,
    { socket: Socket; timer: ReturnType<typeof setTimeout> }
  >();
  if (source) {
    server.on("connection", (socket: Socket) => {
      const key = remoteKey(socket);
      const entry = {
        socket,
        timer: setTimeout(() => socket.destroy(), headerTimeoutMs),
      };
      raw.set(key, entry);
      socket.on("close", () => {
        clearTimeout(entry.timer);
        if (raw.get(key) === entry) raw.delete(key);
      });
    });
    server.on("secureConnection", (socket: Socket) => {
      clearTimeout(raw.get(remoteKey(socket))?.timer);
    });
    // A failed handshake (a plaintext request, a scanner) is the client's
    // problem; node:tls closes the connection.
    server.on("tlsClientError", (error: Error) => {
      log.debug("Refused TLS handshake", { cause: error.message });
    });
  }
  // Advertised to clients (Keep-Alive: timeout=N); the socket time-out
  // below enforces it.
  server.keepAliveTimeout = idleTimeoutMs;
  // node:http destroys a socket that times out unless someone listens for
  // "timeout": the socket's own handler below decides instead.
  server.on("timeout", () => {});

  /** Closes the socket unless a request's headers arrive in time. */
  function armHeaderTimer(socket: Socket, state: SocketState, ms: number) {
    if (state.headerTimer) state.headerTimer.restart(ms);
    else {
      state.headerTimer = deadlines.add(ms, () => {
        if (state.active === 0) socket.destroy();
      });
    }
  }

  // With TLS, requests come on the TLS socket, which exists once the
  // handshake is done.
  server.on(source ? "secureConnection" : "connection", (socket: Socket) => {
    const state: SocketState = { active: 0 };
    sockets.set(socket, state);
    armHeaderTimer(socket, state, headerTimeoutMs);
    // A request still waiting for its answer is --request-timeout's to end
    // (with a 504), not this one's; once its answer has begun, a client
    // that takes nothing for this long is gone.
    socket.setTimeout(idleTimeoutMs, () => {
      if (state.active === 0 || state.current?.res.headersSent) {
        socket.destroy();
      }
    });
    socket.on("close", () => {
      state.headerTimer?.cancel();
      sockets.delete(socket);
    });
  });

  // What node:http's parser refuses never reaches the handler: a request
  // line or header that is not HTTP/1.1, a method the parser does not know,
  // a request head over the limit. Node answers those with a bare 400; here
  // they get the error body with their status, and the connection closes.
  server.on("clientError", (error: ParseError, socket: Socket) => {
    const state = sockets.get(socket);
    if (!socket.writable || error.code === "ECONNRESET") {
      socket.destroy();
    } else if (state?.current && !state.current.req.complete) {
      // The body of the request in flight is what broke: it can be read no
      // further. Answered here unless its answer has begun, which then ends
      // the connection.
      if (state.current.res.headersSent) state.broken = true;
      else socket.end(rawAnswer(parseRefusal(error)));
    } else if (state && state.active > 0) {
      // A request pipelined after those in flight: answered after them.
      state.broken = true;
      state.refusal = rawAnswer(parseRefusal(error));
    } else {
      socket.end(rawAnswer(parseRefusal(error)));
    }
  });

  // CONNECT is no request of a resource: Corral is no proxy.
  server.on("connect", (req: http.IncomingMessage, socket: Socket) => {
    socket.end(rawAnswer(methodRefusal(req.method ?? "CONNECT", req.url)));
  });

  function parseRefusal(error: ParseError): Refusal {
    if (error.code === "HPE_HEADER_OVERFLOW") {
      // Code 8, as for a body over the limit (413) and as gRPC answers
      // metadata over its limit: the request is not wrong, only too large
      // for this server, and the same call with a smaller head would work.
      return {
        error: new HttpError(
          431,
          Code.RESOURCE_EXHAUSTED,
          `Request headers too large: the limit is ${maxHeaderBytes} bytes`,
        ),
      };
    }
    // llhttp knows a fixed list of methods; another one fails within its
    // first token, in a request line that is otherwise well formed.
    const line = REQUEST_LINE.exec(String(error.rawPacket ?? ""));
    if (
      line &&
      (error.code === "HPE_INVALID_METHOD" ||
        (error.bytesParsed ?? Infinity) < line[1].length)
    ) {
      return methodRefusal(line[1], line[2]);
    }
    return {
      error: new ServiceError(
        Code.INVALID_ARGUMENT,
        `Invalid request: not HTTP/1.1 (${error.code ?? "parse error"})`,
      ),
    };
  }

  /**
   * A method the listener cannot hand to the router (unknown to the parser,
   * or one `Request` refuses: CONNECT, TRACE, TRACK): what the router would
   * answer, 405 with Allow or 404, when it says what the path serves.
   */
  function methodRefusal(method: string, target = ""): Refusal {
    const allowed = target.startsWith("/") && options.handler.allowed
      ? options.handler.allowed(target.split(/[?#]/)[0])
      : undefined;
    if (allowed && allowed.length === 0) {
      return { error: new ServiceError(Code.NOT_FOUND, "Not Found") };
    }
    if (allowed) {
      return {
        error: new HttpError(405, Code.UNIMPLEMENTED, "Method Not Allowed"),
        allow: allowed.join(", "),
      };
    }
    // CONNECT's host:port names no resource of Corral's: 405, with an empty
    // Allow (RFC 9110: nothing is allowed there), as TRACE gets.
    if (FORBIDDEN_METHODS.has(method.toUpperCase())) {
      return {
        error: new HttpError(405, Code.UNIMPLEMENTED, "Method Not Allowed"),
        allow: "",
      };
    }
    // No router to ask: a method Corral serves nowhere.
    return {
      error: new ServiceError(
        Code.UNIMPLEMENTED,
        `Method ${JSON.stringify(method.slice(0, 32))} is not implemented`,
      ),
    };
  }

  server.on(
    "request",
    (req: http.IncomingMessage, res: http.ServerResponse) => {
      const socket = req.socket;
      const state = sockets.get(socket) ?? { active: 0 };
      state.headerTimer?.cancel();
      state.active++;
      state.current = { req, res };
      inFlight++;
      options.onInFlight?.(1);
      res.on("close", () => {
        state.active--;
        inFlight--;
        options.onInFlight?.(-1);
        if (state.broken && state.active === 0) {
          socket.end(state.refusal ?? "");
        } else if (closing) {
          socket.destroy();
          if (inFlight === 0) drained?.();
        } else if (state.active === 0) {
          // The next request on this keep-alive connection must arrive, head
          // complete, within the idle time-out.
          armHeaderTimer(socket, state, idleTimeoutMs);
        }
      });
      handle(req, res).catch((error) => {
        // Answered already when the listener cut the request short.
        if (res.writableEnded) return;
        log.error("Failed to answer HTTP request", { cause: String(error) });
        res.destroy();
      });
    },
  );

  async function handle(req: http.IncomingMessage, res: http.ServerResponse) {
    const target = req.url ?? "/";
    const method = req.method ?? "GET";
    if (target.length > maxUrlBytes) {
      return send(res, {
        error: new HttpError(
          414,
          Code.INVALID_ARGUMENT,
          "Request URL too long",
        ),
      });
    }
    if (req.httpVersion === "1.1" && req.headers.host === undefined) {
      return send(
        res,
        invalid("Invalid request: HTTP/1.1 needs a Host header"),
      );
    }
    if (FORBIDDEN_METHODS.has(method)) {
      return send(res, methodRefusal(method, target));
    }
    const controller = new AbortController();
    res.on("close", () => {
      if (!res.writableFinished) controller.abort();
    });
    const hasBody = method !== "GET" && method !== "HEAD";
    let counted = 0;
    if (hasBody && !req.complete) {
      // Refused before a byte of it is read: the budget would be exceeded
      // by what it declares, or is exhausted by bodies streaming in. One
      // body alone always fits, so that the handler can say 413 itself.
      const declared = Number(req.headers["content-length"]);
      const over = Number.isFinite(declared)
        ? bodyBytes > 0 && bodyBytes + declared > maxInflightBodyBytes
        : bodyBytes >= maxInflightBodyBytes;
      if (over) return send(res, busy());
      counted = Number.isFinite(declared) ? declared : 0;
      bodyBytes += counted;
      res.once("close", () => bodyBytes -= counted);
    }
    const body = hasBody
      ? bodyStream(req, (chunk) => {
        // A chunked body counts as it arrives.
        if (req.headers["content-length"] !== undefined) return;
        counted += chunk;
        bodyBytes += chunk;
      })
      : undefined;
    // The listener answers for the handler when the client is too slow or
    // the request too long; the handler's own answer is then dropped.
    const cutShort = (status: 408 | 504, message: string): void => {
      const error = new HttpError(status, Code.DEADLINE_EXCEEDED, message);
      body?.fail(error);
      controller.abort(error);
      if (res.headersSent) {
        res.destroy();
        return;
      }
      send(res, { error });
      // What the client still sends is not read: the connection closes once
      // the answer is out, at the latest a second later.
      if (!req.complete) {
        setTimeout(() => req.socket.destroy(), 1_000).unref?.();
      }
    };
    // Code 4 for both: a time limit passed; the request itself may well be
    // right (3 would tell the client not to send it again as it is).
    const timers = [
      deadlines.add(
        requestTimeoutMs,
        () =>
          cutShort(
            504,
            `Request timed out: not answered within ${requestTimeoutMs} ms`,
          ),
      ),
      body && !req.complete
        ? deadlines.add(
          bodyTimeoutMs,
          () =>
            cutShort(
              408,
              `Request body timed out: not received in full within ${bodyTimeoutMs} ms`,
            ),
        )
        : undefined,
    ];
    req.once("end", () => timers[1]?.cancel());
    res.once("close", () => timers.forEach((timer) => timer?.cancel()));
    let request: Request;
    try {
      // The host header is the client's to choose: only the path is used.
      // An origin-form target (the path) is appended to the base as it
      // is, which also spares parsing the URL twice; an absolute-form
      // one is resolved. A GET has no init at all: each member of one is
      // converted, with a cost on every request.
      const url = target.startsWith("/")
        ? ORIGIN + target
        : new URL(target, ORIGIN).href;
      request = method === "GET" ? new Request(url) : new Request(url, {
        method,
        body: body?.stream,
        // @ts-ignore: a streaming body needs half duplex (fetch spec)
        duplex: "half",
      });
    } catch {
      return send(res, invalid("Invalid request"));
    }
    // Headers are appended to the Request's own: one given in its init is
    // copied into native headers, three times the cost.
    for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) {
      try {
        request.headers.append(req.rawHeaders[i], req.rawHeaders[i + 1]);
      } catch {
        await request.body?.cancel();
        return send(res, invalid("Invalid request header"));
      }
    }
    setListened(request, peerOfSocket(req.socket), controller.signal);
    const response = await options.handler(request);
    // Answered: --request-timeout bounds the wait for an answer, not how
    // long a stream (a watch) then goes on, as in Kubernetes.
    timers[0]?.cancel();
    if (res.destroyed || res.headersSent) {
      // The client went away, or the listener answered for the handler.
      await response.body?.cancel();
      return;
    }
    // The parser gave up on what followed: nothing more can be read. Or the
    // server is stopping.
    if (sockets.get(req.socket)?.broken || draining || closing) {
      res.setHeader("connection", "close");
    }
    res.statusCode = response.status;
    response.headers.forEach((value, name) => res.setHeader(name, value));
    if (method === "HEAD") {
      await response.body?.cancel();
      res.end();
      return;
    }
    // (response.body is not read before: for a whole answer, it would make
    // a stream of it.)
    if (!isStream(response)) {
      // A whole answer, written with its length in one go: cheaper than
      // reading it as a stream, chunk by chunk; the gateway's, as it made
      // it (answers.ts).
      const body = wholeBodyOf(response) ??
        new Uint8Array(await response.arrayBuffer());
      res.setHeader(
        "content-length",
        typeof body === "string" ? Buffer.byteLength(body) : body.byteLength,
      );
      res.end(body);
      return;
    }
    if (response.body === null) return void res.end();
    for await (const chunk of response.body) {
      // Leaving the loop cancels the body: a stream stops with its client.
      if (res.destroyed) break;
      if (!res.write(chunk)) {
        await new Promise((resolve) => {
          res.once("drain", resolve);
          res.once("close", resolve);
        });
      }
    }
    res.end();
  }

  function send(res: http.ServerResponse, refusal: Refusal) {
    // A body left unread cannot be trusted to end where the next request
    // begins.
    if (!res.req.complete || draining || closing) {
      res.setHeader("connection", "close");
    }
    writeErrorAnswer(res, refusal.error, refusal);
  }

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.hostname, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;

  return {
    port,
    get inFlight() {
      return inFlight;
    },
    drain() {
      draining = true;
    },
    async shutdown(graceMs) {
      closing = true;
      const closed = new Promise<void>((resolve) =>
        server.close(() => resolve())
      );
      for (const [socket, state] of sockets) {
        if (state.active === 0) socket.destroy();
      }
      if (inFlight > 0) {
        let timer: ReturnType<typeof setTimeout> | undefined;
        await Promise.race([
          new Promise<void>((resolve) => drained = resolve),
          new Promise<void>((resolve) => timer = setTimeout(resolve, graceMs)),
        ]);
        clearTimeout(timer);
      }
      for (const socket of sockets.keys()) socket.destroy();
      for (const { socket } of raw.values()) socket.destroy();
      unsubscribe?.();
      await closed;
    },
  };
}

/**
 * A request's body as a stream the listener can fail: with the error of a
 * time-out, the handler reading it stops at once. Underneath, node:stream's
 * web view of the request, which node:http's keep-alive handling expects.
 */
function bodyStream(
  req: http.IncomingMessage,
  onChunk: (bytes: number) => void,
): {
  stream: ReadableStream<Uint8Array>;
  fail(error: Error): void;
} {
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

/** The origin request URLs are made on; only their paths are read. */
const ORIGIN = "http://corral.invalid";

/** Content types whose answers go on for as long as they last (watches). */
const STREAM_TYPES = /^(application\/x-ndjson|text\/event-stream)\b/;

/** Whether an answer is a stream, written chunk by chunk as it comes. */
function isStream(response: Response): boolean {
  return STREAM_TYPES.test(response.headers.get("content-type") ?? "");
}

/** The remote end of a connection: the same for its TCP and TLS sockets. */
function remoteKey(socket: Socket): string {
  return `${socket.remoteAddress}|${socket.remotePort}`;
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

/** node:http's parse error, as its clientError event gives it. */
type ParseError = Error & {
  code?: string;
  bytesParsed?: number;
  rawPacket?: unknown;
};

/** An answer the listener gives itself: the error, and Allow on a 405. */
interface Refusal {
  error: ServiceError;
  allow?: string;
  /** Seconds, for a 429. */
  retryAfter?: string;
}

/** Methods `new Request()` refuses (fetch's forbidden methods). */
const FORBIDDEN_METHODS = new Set(["CONNECT", "TRACE", "TRACK"]);

/** method SP request-target SP HTTP-version CRLF (RFC 9112, 3). */
const REQUEST_LINE = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+) (\S+) HTTP\/\d\.\d\r\n/;

/**
 * Too many request bodies on their way in: code 8, as for a body over the
 * limit, since the same request a moment later may well be taken.
 */
function busy(): Refusal {
  return {
    error: new HttpError(
      429,
      Code.RESOURCE_EXHAUSTED,
      "Too many request bodies in flight: try again later",
    ),
    retryAfter: "1",
  };
}

function invalid(message: string): Refusal {
  return { error: new ServiceError(Code.INVALID_ARGUMENT, message) };
}

/** A refusal as a whole HTTP/1.1 message, for a bare socket. */
function rawAnswer(refusal: Refusal): string {
  return rawErrorAnswer(refusal.error, refusal);
}
