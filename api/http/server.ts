/**
 * The HTTP listener: serves a `(HttpRequest) => Promise<Response>` handler over
 * node:http, because Deno.serve has no header or idle time-outs and a slow
 * client could otherwise hold a connection forever. Adds what a production
 * listener needs around the handler: time-outs, URL and header size limits,
 * cancellation when the client goes away, and a graceful shutdown that lets
 * accepted requests finish. With a certificate source it serves HTTPS
 * (node:https, the same server with TLS underneath) and takes each new
 * certificate for the connections that follow.
 */
import http from "node:http";
import https from "node:https";
import type { Socket } from "node:net";
import type { Logger } from "../../domain/log.ts";
import {
  type CertificateSource,
  clientCertificateOptions,
  secureContextOptions,
} from "../tls.ts";
import { HttpError } from "../errors.ts";
import { Code } from "../../domain/errors.ts";
import { rawErrorAnswer, writeErrorAnswer } from "./error_answers.ts";
import {
  type AllowedMethods,
  busy,
  invalid,
  methodRefusal,
  type ParseError,
  parseRefusal,
  type Refusal,
  refusalBeforeHandler,
} from "./listener_refusals.ts";
import { BodyBudget } from "./body_budget.ts";
import { type BodyStream, bodyStream, listenedRequest } from "./web_request.ts";
import type { Handler, HttpRequest } from "./http_request.ts";
import { writeResponse } from "./response_writer.ts";
import { TlsConnections } from "./tls_connections.ts";
import { type Deadline, Deadlines } from "./deadlines.ts";
import type { Router } from "./router.ts";
import type { Duplex } from "node:stream";
import { tunnelOf } from "./upgrade.ts";
import { DEFAULT_MAX_HEADER_BYTES } from "../transport_limits.ts";

/**
 * What the listener serves. With `allowed` (the router's), the requests the
 * listener refuses itself for their method get 405 with Allow, or 404.
 */
export type HttpHandler =
  & Handler
  & Partial<Pick<Router, "allowed">>;

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

/** The options' limits and time-outs, their defaults filled in. */
interface Limits {
  headerTimeoutMs: number;
  idleTimeoutMs: number;
  bodyTimeoutMs: number;
  requestTimeoutMs: number;
  maxInflightBodyBytes: number;
  maxUrlBytes: number;
  maxHeaderBytes: number;
}

function limitsOf(options: HttpServerOptions): Limits {
  return {
    headerTimeoutMs: options.headerTimeoutMs ?? 10_000,
    idleTimeoutMs: options.idleTimeoutMs ?? 60_000,
    bodyTimeoutMs: options.bodyTimeoutMs ?? 30_000,
    requestTimeoutMs: options.requestTimeoutMs ?? 60_000,
    maxInflightBodyBytes: options.maxInflightBodyBytes ?? 64 * 1024 ** 2,
    maxUrlBytes: options.maxUrlBytes ?? 8 * 1024,
    maxHeaderBytes: options.maxHeaderBytes ?? DEFAULT_MAX_HEADER_BYTES,
  };
}

export async function serveHttp(
  options: HttpServerOptions,
): Promise<HttpServer> {
  const limits = limitsOf(options);
  const server = createNodeServer(limits.maxHeaderBytes, options.tls);
  const tls = options.tls
    ? new TlsConnections(
      server as https.Server,
      options.tls,
      limits.headerTimeoutMs,
      options.log,
    )
    : undefined;
  const listener = new Listener(options, limits);
  // Advertised to clients (Keep-Alive: timeout=N); the socket time-out
  // (Listener.connected) enforces it.
  server.keepAliveTimeout = limits.idleTimeoutMs;
  // node:http destroys a socket that times out unless someone listens for
  // "timeout": the socket's own handler decides instead.
  server.on("timeout", () => {});
  // With TLS, requests come on the TLS socket, which exists once the
  // handshake is done.
  server.on(
    options.tls ? "secureConnection" : "connection",
    (socket: Socket) => listener.connected(socket),
  );
  server.on(
    "clientError",
    (error: ParseError, socket: Socket) => listener.clientError(error, socket),
  );
  // CONNECT is no request of a resource: Corral is no proxy.
  server.on("connect", (req: http.IncomingMessage, socket: Socket) => {
    socket.end(rawAnswer(listener.methodRefusal(req)));
  });
  server.on(
    "request",
    (req: http.IncomingMessage, res: http.ServerResponse) =>
      listener.request(req, res),
  );
  // Upgrades (WebSocket) go through the same handler (upgrade.ts).
  server.on(
    "upgrade",
    (req: http.IncomingMessage, socket: Duplex, head: Uint8Array) =>
      listener.upgrade(req, socket, head),
  );
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.hostname, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const address = server.address();
  return {
    port: typeof address === "object" && address ? address.port : 0,
    get inFlight() {
      return listener.inFlight;
    },
    drain() {
      listener.draining = true;
    },
    async shutdown(graceMs) {
      listener.closing = true;
      const closed = new Promise<void>((resolve) =>
        server.close(() => resolve())
      );
      await listener.settle(graceMs);
      tls?.close();
      await closed;
    },
  };
}

/** node:http's server, or node:https's with the source's certificate. */
function createNodeServer(
  maxHeaderBytes: number,
  source: CertificateSource | undefined,
): http.Server {
  const serverOptions: http.ServerOptions = {
    maxHeaderSize: maxHeaderBytes,
    // Node answers an HTTP/1.1 request without Host with a bare 400; the
    // listener answers it with the error body.
    requireHostHeader: false,
  };
  return source
    ? https.createServer({
      ...serverOptions,
      ...secureContextOptions(source.current),
      ...clientCertificateOptions(source.current),
    })
    : http.createServer(serverOptions);
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

/**
 * What one listener holds across its connections: their state, the
 * requests in flight, the body budget and the deadlines; and what it does
 * on each event of the node:http server.
 */
class Listener {
  readonly #options: HttpServerOptions;
  readonly #limits: Limits;
  readonly #log: Logger;
  readonly #allowed: AllowedMethods | undefined;
  readonly #sockets = new Map<Socket, SocketState>();
  /** Connections handed to an upgrade: ended at shutdown, as the rest. */
  readonly #upgraded = new Set<Duplex>();
  readonly #budget: BodyBudget;
  readonly #deadlines: Deadlines;
  inFlight = 0;
  /** Every answer closes its connection (drain()). */
  draining = false;
  /** Shutting down: connections close as their requests end. */
  closing = false;
  #drained: (() => void) | undefined;

  constructor(options: HttpServerOptions, limits: Limits) {
    this.#options = options;
    this.#limits = limits;
    this.#log = options.log;
    const { handler } = options;
    this.#allowed = handler.allowed?.bind(handler);
    this.#budget = new BodyBudget(limits.maxInflightBodyBytes);
    this.#deadlines = new Deadlines(deadlineResolutionMs(limits));
  }

  /** A new connection: its request head is due within the header time-out. */
  connected(socket: Socket): void {
    const state: SocketState = { active: 0 };
    this.#sockets.set(socket, state);
    this.#armHeaderTimer(socket, state, this.#limits.headerTimeoutMs);
    // A request still waiting for its answer is --request-timeout's to end
    // (with a 504), not this one's; once its answer has begun, a client
    // that takes nothing for this long is gone.
    socket.setTimeout(this.#limits.idleTimeoutMs, () => {
      if (state.active === 0 || state.current?.res.headersSent) {
        socket.destroy();
      }
    });
    socket.on("close", () => {
      state.headerTimer?.cancel();
      this.#sockets.delete(socket);
    });
  }

  /**
   * What node:http's parser refuses never reaches the handler: Node answers
   * it with a bare 400; here it gets the error body with its status, and
   * the connection closes.
   */
  clientError(error: ParseError, socket: Socket): void {
    const state = this.#sockets.get(socket);
    if (!socket.writable || error.code === "ECONNRESET") {
      socket.destroy();
    } else if (state?.current && !state.current.req.complete) {
      // The body of the request in flight is what broke: it can be read no
      // further. Answered here unless its answer has begun, which then ends
      // the connection.
      if (state.current.res.headersSent) state.broken = true;
      else socket.end(rawAnswer(this.#parseRefusal(error)));
    } else if (state && state.active > 0) {
      // A request pipelined after those in flight: answered after them.
      state.broken = true;
      state.refusal = rawAnswer(this.#parseRefusal(error));
    } else {
      socket.end(rawAnswer(this.#parseRefusal(error)));
    }
  }

  /** What a request with a method `Request` refuses gets (CONNECT). */
  methodRefusal(req: http.IncomingMessage): Refusal {
    return methodRefusal(req.method ?? "CONNECT", req.url, this.#allowed);
  }

  /** A request: counted in flight until its response closes, and handled. */
  request(req: http.IncomingMessage, res: http.ServerResponse): void {
    const socket = req.socket;
    const state = this.#sockets.get(socket) ?? { active: 0 };
    state.headerTimer?.cancel();
    state.active++;
    state.current = { req, res };
    this.inFlight++;
    this.#options.onInFlight?.(1);
    res.on("close", () => this.#answered(socket, state));
    this.#handle(req, res).catch((error) => {
      // Answered already when the listener cut the request short.
      if (res.writableEnded) return;
      this.#log.error("Failed to answer HTTP request", {
        cause: String(error),
      });
      res.destroy();
    });
  }

  /**
   * Closes the connections without requests now, waits for the requests
   * in flight (at most `graceMs`), then closes every connection.
   */
  async settle(graceMs: number): Promise<void> {
    for (const [socket, state] of this.#sockets) {
      if (state.active === 0) socket.destroy();
    }
    if (this.inFlight > 0) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([
        new Promise<void>((resolve) => this.#drained = resolve),
        new Promise<void>((resolve) => timer = setTimeout(resolve, graceMs)),
      ]);
      clearTimeout(timer);
    }
    for (const socket of this.#sockets.keys()) socket.destroy();
    for (const socket of this.#upgraded) socket.destroy();
  }

  /**
   * An `Upgrade:` request, which node:http hands over apart with the raw
   * socket: through the same handler as any request, without a body
   * (upgrade.ts). A tunnel the handler answers with takes the socket over;
   * any other answer is written on the socket, which then closes.
   */
  upgrade(req: http.IncomingMessage, socket: Duplex, head: Uint8Array): void {
    this.#sockets.get(socket as Socket)?.headerTimer?.cancel();
    this.#upgraded.add(socket);
    socket.once("close", () => this.#upgraded.delete(socket));
    socket.on("error", () => socket.destroy());
    this.#answerUpgrade(req, socket, head).catch((error) => {
      this.#log.error("Failed to answer HTTP upgrade", {
        cause: String(error),
      });
      socket.destroy();
    });
  }

  async #answerUpgrade(
    req: http.IncomingMessage,
    socket: Duplex,
    head: Uint8Array,
  ): Promise<void> {
    const refusal = refusalBeforeHandler(
      req,
      this.#limits.maxUrlBytes,
      this.#allowed,
    );
    if (refusal) return void socket.end(rawAnswer(refusal));
    const controller = new AbortController();
    socket.once("close", () => controller.abort());
    let request: HttpRequest;
    try {
      request = listenedRequest(
        req,
        req.method ?? "GET",
        undefined,
        controller.signal,
      );
    } catch {
      return void socket.end(rawAnswer(invalid("Invalid request")));
    }
    const response = await this.#options.handler(request);
    if (socket.destroyed) return void await response.body?.cancel();
    const tunnel = tunnelOf(response);
    if (!tunnel) return await writeRawResponse(socket, response, req.method);
    // The tunnel bounds its own time; the connection's idle time-out is
    // for HTTP requests.
    (socket as Socket).setTimeout?.(0);
    this.#sockets.delete(socket as Socket);
    tunnel(socket, head);
  }

  /** Whether answers close their connections: the server is stopping. */
  get #stopping(): boolean {
    return this.draining || this.closing;
  }

  #parseRefusal(error: ParseError): Refusal {
    return parseRefusal(error, this.#limits.maxHeaderBytes, this.#allowed);
  }

  /** A request of `socket` is answered (or its client went away). */
  #answered(socket: Socket, state: SocketState): void {
    state.active--;
    this.inFlight--;
    this.#options.onInFlight?.(-1);
    if (state.broken && state.active === 0) {
      socket.end(state.refusal ?? "");
    } else if (this.closing) {
      socket.destroy();
      if (this.inFlight === 0) this.#drained?.();
    } else if (state.active === 0) {
      // The next request on this keep-alive connection must arrive, head
      // complete, within the idle time-out.
      this.#armHeaderTimer(socket, state, this.#limits.idleTimeoutMs);
    }
  }

  /** Closes the socket unless a request's headers arrive in time. */
  #armHeaderTimer(socket: Socket, state: SocketState, ms: number): void {
    if (state.headerTimer) state.headerTimer.restart(ms);
    else {
      state.headerTimer = this.#deadlines.add(ms, () => {
        if (state.active === 0) socket.destroy();
      });
    }
  }

  async #handle(
    req: http.IncomingMessage,
    res: http.ServerResponse,
  ): Promise<void> {
    const refusal = refusalBeforeHandler(
      req,
      this.#limits.maxUrlBytes,
      this.#allowed,
    );
    if (refusal) return this.#send(res, refusal);
    const method = req.method ?? "GET";
    const controller = new AbortController();
    res.on("close", () => {
      if (!res.writableFinished) controller.abort();
    });
    let body: BodyStream | undefined;
    if (method !== "GET" && method !== "HEAD") {
      const onChunk = this.#budget.admit(req, res);
      if (onChunk === undefined) return this.#send(res, busy());
      body = bodyStream(req, onChunk);
    }
    const answerTimer = this.#armTimers(req, res, body, controller);
    let request: HttpRequest;
    try {
      request = listenedRequest(req, method, body, controller.signal);
    } catch {
      return this.#send(res, invalid("Invalid request"));
    }
    const response = await this.#options.handler(request);
    // Answered: --request-timeout bounds the wait for an answer, not how
    // long a stream (a watch) then goes on, as in Kubernetes.
    answerTimer.cancel();
    if (res.destroyed || res.headersSent) {
      // The client went away, or the listener answered for the handler.
      await response.body?.cancel();
      return;
    }
    // The parser gave up on what followed: nothing more can be read. Or the
    // server is stopping.
    if (this.#sockets.get(req.socket)?.broken || this.#stopping) {
      res.setHeader("connection", "close");
    }
    return writeResponse(res, response, method === "HEAD");
  }

  /**
   * Starts the request's time-outs, cancelled when its response closes:
   * the request time-out (504), returned, for the handler's answer, and
   * the body time-out (408) for a body still arriving. Past either, the
   * listener answers for the handler, whose own answer is then dropped.
   */
  #armTimers(
    req: http.IncomingMessage,
    res: http.ServerResponse,
    body: BodyStream | undefined,
    controller: AbortController,
  ): Deadline {
    const cutShort = (status: 408 | 504, message: string): void => {
      const error = new HttpError(status, Code.DEADLINE_EXCEEDED, message);
      body?.fail(error);
      controller.abort(error);
      if (res.headersSent) {
        res.destroy();
        return;
      }
      this.#send(res, { error });
      // What the client still sends is not read: the connection closes once
      // the answer is out, at the latest a second later.
      if (!req.complete) {
        setTimeout(() => req.socket.destroy(), 1_000).unref?.();
      }
    };
    const { requestTimeoutMs, bodyTimeoutMs } = this.#limits;
    // Code 4 for both: a time limit passed; the request itself may well be
    // right (3 would tell the client not to send it again as it is).
    const answer = this.#deadlines.add(
      requestTimeoutMs,
      () =>
        cutShort(
          504,
          `Request timed out: not answered within ${requestTimeoutMs} ms`,
        ),
    );
    const arrival = body && !req.complete
      ? this.#deadlines.add(
        bodyTimeoutMs,
        () =>
          cutShort(
            408,
            `Request body timed out: not received in full within ${bodyTimeoutMs} ms`,
          ),
      )
      : undefined;
    if (arrival) req.once("end", () => arrival.cancel());
    res.once("close", () => {
      answer.cancel();
      arrival?.cancel();
    });
    return answer;
  }

  #send(res: http.ServerResponse, refusal: Refusal): void {
    // A body left unread cannot be trusted to end where the next request
    // begins.
    if (!res.req.complete || this.#stopping) {
      res.setHeader("connection", "close");
    }
    writeErrorAnswer(res, refusal.error, refusal);
  }
}

/**
 * How late a deadline may fire: fine enough for the shortest time-out
 * (tests use tens of ms), between 5 and 250 ms.
 */
function deadlineResolutionMs(limits: Limits): number {
  const shortest = Math.min(
    limits.headerTimeoutMs,
    limits.idleTimeoutMs,
    limits.bodyTimeoutMs,
    limits.requestTimeoutMs,
  );
  return Math.min(250, Math.max(5, shortest / 20));
}

/**
 * `response` written on a bare socket as an HTTP/1.1 answer whose body ends
 * where the connection does; the socket ends after it.
 */
async function writeRawResponse(
  socket: Duplex,
  response: Response,
  method: string | undefined,
): Promise<void> {
  const lines = [
    `HTTP/1.1 ${response.status} ${http.STATUS_CODES[response.status] ?? ""}`,
  ];
  for (const [name, value] of response.headers) {
    if (name === "connection" || name === "transfer-encoding") continue;
    lines.push(`${name}: ${value}`);
  }
  lines.push("connection: close", "", "");
  socket.write(lines.join("\r\n"));
  if (method !== "HEAD" && response.body) {
    for await (const chunk of response.body) {
      if (socket.destroyed) break;
      if (!socket.write(chunk)) {
        await new Promise((resolve) => {
          socket.once("drain", resolve);
          socket.once("close", resolve);
        });
      }
    }
  } else await response.body?.cancel();
  socket.end();
}

/** A refusal as a whole HTTP/1.1 message, for a bare socket. */
function rawAnswer(refusal: Refusal): string {
  return rawErrorAnswer(refusal.error, refusal);
}
