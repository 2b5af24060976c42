/**
 * Binding and stopping the gRPC server: grpc-js's callback API as promises,
 * and a graceful stop with a time limit.
 */
import * as grpc from "@grpc/grpc-js";
import type { Http2Server, ServerHttp2Session } from "node:http2";

/**
 * Binds `host:port` (0 picks a free port); resolves with the bound port. A
 * connection must complete the HTTP/2 handshake (the client's preface and
 * SETTINGS) within `headerTimeoutMs`, or it is closed.
 */
export async function bindGrpc(
  server: grpc.Server,
  host: string,
  port: number,
  credentials: grpc.ServerCredentials,
  headerTimeoutMs = 10_000,
): Promise<number> {
  const bound = await new Promise<number>((resolve, reject) =>
    server.bindAsync(
      `${host}:${port}`,
      credentials,
      (error, bound) => error ? reject(error) : resolve(bound),
    )
  );
  guardHandshakes(server, headerTimeoutMs);
  return bound;
}

/**
 * grpc-js offers no handshake time-out (its idle time-out and keepalive
 * only start with a session that talks), so each of its HTTP/2 servers
 * gets one: a session whose client has not sent its SETTINGS in time is
 * destroyed. grpc-js keeps those servers in a private map, read here.
 */
function guardHandshakes(server: grpc.Server, timeoutMs: number): void {
  const servers = (server as unknown as {
    http2Servers?: Map<Http2Server, unknown>;
  }).http2Servers;
  for (const http2Server of servers?.keys() ?? []) {
    http2Server.on("session", (session: ServerHttp2Session) => {
      const timer = setTimeout(() => session.destroy(), timeoutMs);
      session.once("remoteSettings", () => clearTimeout(timer));
      session.once("close", () => clearTimeout(timer));
    });
  }
}

/** Lets accepted calls finish, at most `graceMs`, then cuts the rest. */
export function shutdownGrpc(
  server: grpc.Server,
  graceMs: number,
): Promise<void> {
  return new Promise<void>((resolve) => {
    const timer = setTimeout(() => {
      server.forceShutdown();
      resolve();
    }, graceMs);
    server.tryShutdown(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}
