/**
 * The start-up step that binds Corral's two ports, gRPC's then HTTP's, on
 * the host and ports of the settings main.ts parsed. One of the steps
 * main.ts wires together (startup/kubernetes.ts says why they have a folder
 * of their own); main.ts calls it once the API is built, and handles the
 * signals that close the listeners.
 */
import type { Api } from "../api/mod.ts";
import { bindGrpc } from "../api/grpc/listener.ts";
import { grpcServerCredentials } from "../api/grpc/credentials.ts";
import { type HttpServer, serveHttp } from "../api/http/server.ts";
import { listenError } from "../api/listen.ts";
import type { CertificateSource } from "../api/tls.ts";
import type { Logger } from "../domain/log.ts";
import { httpTimeouts, type Settings } from "../settings.ts";
import { SPECS } from "../settings_flags.ts";

/**
 * Binds the gRPC port, the second gRPC port if there is one, and then the
 * HTTP port, each marked up in health once it listens; a port that cannot
 * be bound fails the start, naming it (and takes the gRPC servers down if
 * another is the one).
 */
export async function listen(
  settings: Settings,
  api: Api,
  certificates: CertificateSource | undefined,
  log: Logger,
): Promise<
  { grpcPort: number; kuberayGrpcPort?: number; httpServer: HttpServer }
> {
  const grpcPort = await bindGrpc(
    api.grpc,
    settings.host,
    settings.grpcPort,
    grpcServerCredentials(certificates),
    settings.headerTimeoutMs,
  ).catch((error) => {
    throw listenError("gRPC", settings.host, settings.grpcPort, error, {
      flag: "grpc-port",
      env: SPECS["grpc-port"].env,
    });
  });
  api.health.listeners.grpc = true;
  const kuberayGrpcPort = await bindKubeRayGrpc(settings, api, certificates);

  const httpServer = await serveHttp({
    hostname: settings.host,
    port: settings.httpPort,
    handler: api.http,
    log,
    ...httpTimeouts(settings),
    onInFlight: api.httpInFlight,
    tls: certificates,
  }).catch((error) => {
    api.grpc.forceShutdown();
    api.kuberayGrpc?.forceShutdown();
    throw listenError("HTTP", settings.host, settings.httpPort, error, {
      flag: "http-port",
      env: SPECS["http-port"].env,
    });
  });
  api.health.listeners.http = true;
  return { grpcPort, kuberayGrpcPort, httpServer };
}

/**
 * Binds the second gRPC port (--kuberay-grpc-port) as the first: the same
 * host, credentials and handshake time-out. None without the flag.
 */
async function bindKubeRayGrpc(
  settings: Settings,
  api: Api,
  certificates: CertificateSource | undefined,
): Promise<number | undefined> {
  const port = settings.kuberayGrpcPort;
  if (!api.kuberayGrpc || port === undefined) return undefined;
  return await bindGrpc(
    api.kuberayGrpc,
    settings.host,
    port,
    grpcServerCredentials(certificates),
    settings.headerTimeoutMs,
  ).catch((error) => {
    api.grpc.forceShutdown();
    throw listenError("KubeRay gRPC", settings.host, port, error, {
      flag: "kuberay-grpc-port",
      env: SPECS["kuberay-grpc-port"].env,
    });
  });
}
