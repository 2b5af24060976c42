/**
 * The listener's side of each node:http server event: the connections'
 * state and their idle and header deadlines, the requests in flight with
 * their time-outs and body budget, and upgrades. How it stops (drain,
 * quiesce, settle) is listener_stop.ts's.
 */
import type http from "node:http";
import type { Socket } from "node:net";
import type { Duplex } from "node:stream";
import type { Logger } from "../../domain/log.ts";
import { HttpError } from "../errors.ts";
import { Code } from "../../domain/errors.ts";
import { writeErrorAnswer } from "./error_answers.ts";
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
import { listenedRequest } from "./web_request.ts";
import { type BodyStream, bodyStream } from "./request_body.ts";
import type { HttpRequest } from "./http_request.ts";
import { writeResponse } from "./response_writer.ts";
import { type Deadline, Deadlines } from "./deadlines.ts";
import { tunnelOf } from "./upgrade.ts";
import { rawAnswer, writeRawResponse } from "./raw_answers.ts";
import { type ConnectionUse, ListenerStop } from "./listener_stop.ts";
import {
  deadlineResolutionMs,
  type HttpServerOptions,
  type Limits,
} from "./server_options.ts";

interface SocketState extends ConnectionUse {
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
export class Listener {
  readonly #options: HttpServerOptions;
  readonly #limits: Limits;
  readonly #log: Logger;
  readonly #allowed: AllowedMethods | undefined;
  readonly #sockets = new Map<Socket, SocketState>();
  /** Connections handed to an upgrade: ended at shutdown, as the rest. */
  readonly #upgraded = new Set<Duplex>();
  readonly #budget: BodyBudget;
  readonly #deadlines: Deadlines;
  /** How it stops: drain(), quiesce(), settle(). */
  readonly stop: ListenerStop;
  inFlight = 0;

  constructor(options: HttpServerOptions, limits: Limits) {
    this.#options = options;
    this.#limits = limits;
    this.#log = options.log;
    const { handler } = options;
    this.#allowed = handler.allowed?.bind(handler);
    this.#budget = new BodyBudget(limits.maxInflightBodyBytes);
    this.#deadlines = new Deadlines(deadlineResolutionMs(limits));
    this.stop = new ListenerStop(this.#sockets, this.#upgraded, limits.quietMs);
  }

  /** A new connection: its request head is due within the header time-out. */
  connected(socket: Socket): void {
    const state: SocketState = {
      active: 0,
      idleSince: performance.now(),
      readAtIdle: 0,
    };
    this.#sockets.set(socket, state);
    this.stop.arrived();
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
      this.stop.closed();
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
    const state = this.#sockets.get(socket) ??
      { active: 0, idleSince: 0, readAtIdle: 0 };
    state.headerTimer?.cancel();
    state.active++;
    state.current = { req, res };
    this.inFlight++;
    this.#options.onInFlight?.(1);
    this.stop.arrived();
    res.on("close", () => this.#answered(socket, state));
    this.stop.start(() => this.#start(req, res));
  }

  /** Hands `req` to the handler, unless its client has gone. */
  #start(req: http.IncomingMessage, res: http.ServerResponse): void {
    if (res.destroyed) return;
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

  #parseRefusal(error: ParseError): Refusal {
    return parseRefusal(error, this.#limits.maxHeaderBytes, this.#allowed);
  }

  /** A request of `socket` is answered (or its client went away). */
  #answered(socket: Socket, state: SocketState): void {
    state.active--;
    this.inFlight--;
    this.#options.onInFlight?.(-1);
    if (state.active > 0) return;
    state.idleSince = performance.now();
    state.readAtIdle = socket.bytesRead;
    if (state.broken) return void socket.end(state.refusal ?? "");
    // The next request on this keep-alive connection must arrive, head
    // complete, within the idle time-out; stopping, within the quiet time.
    this.#armHeaderTimer(socket, state, this.#limits.idleTimeoutMs);
    this.stop.idle();
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
    // The connection carries no more requests when the body is still
    // arriving (#send says why: a body the handler cancelled is discarded
    // only until this answer is out); when the parser gave up on what
    // followed (the refusal of what broke it, if any, comes next and closes
    // the connection: #answered); or when the server is stopping.
    const state = this.#sockets.get(req.socket);
    if (
      !req.complete || (state?.broken && state.refusal === undefined) ||
      this.stop.stopping
    ) {
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
    if (!res.req.complete || this.stop.stopping) {
      res.setHeader("connection", "close");
    }
    writeErrorAnswer(res, refusal.error, refusal);
  }
}
