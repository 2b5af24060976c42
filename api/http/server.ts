/**
 * The HTTP listener: serves a `(Request) => Promise<Response>` handler over
 * node:http, because Deno.serve has no header or idle time-outs and a slow
 * client could otherwise hold a connection forever. Adds what a production
 * listener needs around the handler: time-outs, URL and header size limits,
 * cancellation when the client goes away, and a graceful shutdown that lets
 * accepted requests finish.
 */
import http from "node:http";
import type { Socket } from "node:net";
import { Readable } from "node:stream";
import { Code, ServiceError } from "../../domain/errors.ts";
import type { Logger } from "../../domain/log.ts";
import { errorBody } from "../errors.ts";

export interface HttpServerOptions {
  hostname: string;
  port: number;
  handler: (request: Request) => Promise<Response>;
  log: Logger;
  /** A connection must deliver a request's headers within this; 10 s. */
  headerTimeoutMs?: number;
  /** A connection with no traffic for this long is closed; 60 s. */
  idleTimeoutMs?: number;
  /** Longest request line URL; 8 KiB. Longer: 414. */
  maxUrlBytes?: number;
  /** Largest request head; 16 KiB. Larger: 431. */
  maxHeaderBytes?: number;
}

export interface HttpServer {
  readonly port: number;
  /** Requests being handled now. */
  readonly inFlight: number;
  /**
   * Stops accepting connections, lets the requests in flight finish (at
   * most `graceMs`), then closes every connection.
   */
  shutdown(graceMs: number): Promise<void>;
}

interface SocketState {
  /** Requests of this socket being handled. */
  active: number;
  headerTimer?: ReturnType<typeof setTimeout>;
}

export async function serveHttp(
  options: HttpServerOptions,
): Promise<HttpServer> {
  const headerTimeoutMs = options.headerTimeoutMs ?? 10_000;
  const idleTimeoutMs = options.idleTimeoutMs ?? 60_000;
  const maxUrlBytes = options.maxUrlBytes ?? 8 * 1024;
  const { log } = options;
  const sockets = new Map<Socket, SocketState>();
  let inFlight = 0;
  let closing = false;
  let drained: (() => void) | undefined;

  const server = http.createServer({
    maxHeaderSize: options.maxHeaderBytes ?? 16 * 1024,
  });
  // Advertised to clients (Keep-Alive: timeout=N); the socket time-out
  // below enforces it.
  server.keepAliveTimeout = idleTimeoutMs;

  /** Closes the socket unless a request's headers arrive in time. */
  function armHeaderTimer(socket: Socket, state: SocketState, ms: number) {
    clearTimeout(state.headerTimer);
    state.headerTimer = setTimeout(() => {
      if (state.active === 0) socket.destroy();
    }, ms);
  }

  server.on("connection", (socket: Socket) => {
    const state: SocketState = { active: 0 };
    sockets.set(socket, state);
    armHeaderTimer(socket, state, headerTimeoutMs);
    socket.setTimeout(idleTimeoutMs, () => socket.destroy());
    socket.on("close", () => {
      clearTimeout(state.headerTimer);
      sockets.delete(socket);
    });
  });

  server.on(
    "request",
    (req: http.IncomingMessage, res: http.ServerResponse) => {
      const socket = req.socket;
      const state = sockets.get(socket) ?? { active: 0 };
      clearTimeout(state.headerTimer);
      state.active++;
      inFlight++;
      res.on("close", () => {
        state.active--;
        inFlight--;
        if (closing) {
          socket.destroy();
          if (inFlight === 0) drained?.();
        } else if (state.active === 0) {
          // The next request on this keep-alive connection must arrive, head
          // complete, within the idle time-out.
          armHeaderTimer(socket, state, idleTimeoutMs);
        }
      });
      handle(req, res).catch((error) => {
        log.error("Failed to answer HTTP request", { cause: String(error) });
        res.destroy();
      });
    },
  );

  async function handle(req: http.IncomingMessage, res: http.ServerResponse) {
    if (closing) res.setHeader("connection", "close");
    const target = req.url ?? "/";
    if (target.length > maxUrlBytes) {
      return send(res, 414, "Request URL too long");
    }
    const controller = new AbortController();
    res.on("close", () => {
      if (!res.writableFinished) controller.abort();
    });
    const headers = new Headers();
    for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) {
      try {
        headers.append(req.rawHeaders[i], req.rawHeaders[i + 1]);
      } catch {
        return send(res, 400, "Invalid request header");
      }
    }
    const method = req.method ?? "GET";
    const hasBody = method !== "GET" && method !== "HEAD";
    let request: Request;
    try {
      // The host header is the client's to choose: only the path is used.
      request = new Request(new URL(target, "http://corral.invalid"), {
        method,
        headers,
        body: hasBody
          ? Readable.toWeb(req) as unknown as ReadableStream<Uint8Array>
          : undefined,
        signal: controller.signal,
        // @ts-ignore: a streaming body needs half duplex (fetch spec)
        duplex: "half",
      });
    } catch {
      return send(res, 400, "Invalid request");
    }
    const response = await options.handler(request);
    res.statusCode = response.status;
    response.headers.forEach((value, name) => res.setHeader(name, value));
    if (!response.body || method === "HEAD") {
      await response.body?.cancel();
      res.end();
      return;
    }
    for await (const chunk of response.body) {
      if (!res.write(chunk)) {
        await new Promise((resolve) => res.once("drain", resolve));
      }
    }
    res.end();
  }

  function send(res: http.ServerResponse, status: number, message: string) {
    res.statusCode = status;
    res.setHeader("content-type", "application/json");
    res.end(JSON.stringify(
      errorBody(new ServiceError(Code.INVALID_ARGUMENT, message)),
    ));
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
      await closed;
    },
  };
}
