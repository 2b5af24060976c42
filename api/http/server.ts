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
import type { Duplex } from "node:stream";
import {
  type CertificateSource,
  clientCertificateOptions,
  secureContextOptions,
} from "../tls.ts";
import type { ParseError } from "./listener_refusals.ts";
import { TlsConnections } from "./tls_connections.ts";
import { Listener } from "./listener.ts";
import { rawAnswer } from "./raw_answers.ts";
import { type HttpServerOptions, limitsOf } from "./server_options.ts";

export interface HttpServer {
  readonly port: number;
  /** Requests being handled now. */
  readonly inFlight: number;
  /**
   * From now on every answer carries `Connection: close`, and keep-alive
   * connections left idle are closed, so that keep-alive clients move to
   * new connections (which a load balancer sends elsewhere) before the
   * listener closes (listener_stop.ts).
   */
  drain(): void;
  /**
   * Drains, holds new requests until no connection nor request has arrived
   * for the quiet time (quiet.ts says why), stops accepting connections,
   * answers the requests held and lets those in flight finish (at most
   * `graceMs`), then closes every connection.
   */
  shutdown(graceMs: number): Promise<void>;
}

/**
 * The longest wait for arrivals to pause, in quiet times: clients that
 * connect whatever they are answered do not hold the shutdown.
 */
const QUIET_WAIT_LIMIT = 10;

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
      listener.stop.drain();
    },
    async shutdown(graceMs) {
      await listener.stop.quiesce(
        Math.min(graceMs, QUIET_WAIT_LIMIT * limits.quietMs),
      );
      const closed = new Promise<void>((resolve) =>
        server.close(() => resolve())
      );
      await listener.stop.settle(graceMs);
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
  const server = source
    ? https.createServer({
      ...serverOptions,
      ...secureContextOptions(source.current),
      ...clientCertificateOptions(source.current),
    })
    : http.createServer(serverOptions);
  // close() would also destroy each connection that has answered a request
  // and is waiting for the next, which may be on its way (reset): the
  // listener closes idle connections itself (listener_stop.ts).
  server.closeIdleConnections = () => {};
  return server;
}
