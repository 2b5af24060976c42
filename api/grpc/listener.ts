/**
 * Binding and stopping the gRPC server: grpc-js's callback API as promises,
 * and a graceful stop with a time limit.
 */
import * as grpc from "@grpc/grpc-js";

/** Binds `host:port` (0 picks a free port); resolves with the bound port. */
export function bindGrpc(
  server: grpc.Server,
  host: string,
  port: number,
  credentials: grpc.ServerCredentials,
): Promise<number> {
  return new Promise((resolve, reject) =>
    server.bindAsync(
      `${host}:${port}`,
      credentials,
      (error, bound) => error ? reject(error) : resolve(bound),
    )
  );
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
