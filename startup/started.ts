/**
 * What Corral says once it has started: a banner for a person at a
 * terminal, else one "Corral started" record for the log, which is also
 * the line tests and scripts wait for. One of the start-up steps main.ts
 * wires together (startup/kubernetes.ts says why they have a folder of
 * their own); main.ts calls it last, once a signal would stop Corral
 * cleanly.
 */
import type { Access } from "../api/auth/access.ts";
import { banner } from "../api/banner.ts";
import { serviceUrls } from "../api/listen.ts";
import type { Logger } from "../domain/log.ts";
import type { Settings } from "../settings.ts";

/** What main.ts knows of the start once both ports are bound. */
export interface Started {
  /** Corral's version (deno.json's). */
  version: string;
  httpPort: number;
  grpcPort: number;
  /** The second gRPC port (--kuberay-grpc-port), if there is one. */
  kuberayGrpcPort?: number;
  tls: boolean;
  /** The Kubernetes API server's URL. */
  server: string | undefined;
  access: Access["summary"];
}

/**
 * "Corral started", with where it listens and what it runs against: a
 * banner for a person at a terminal, else one record for the log.
 */
export function logStarted(
  log: Logger,
  settings: Settings,
  started: Started,
  showBanner: boolean,
): void {
  const { version, httpPort, grpcPort, kuberayGrpcPort, tls } = started;
  const ports = { host: settings.host, httpPort, grpcPort, kuberayGrpcPort };
  const namespaces = settings.namespaces.length > 0
    ? settings.namespaces
    : "all";
  if (showBanner) {
    const lines = banner({
      version,
      mode: settings.orchestrator,
      urls: serviceUrls({ ...ports, tls }),
      server: started.server,
      namespaces,
      authentication: started.access?.authentication ?? [],
      authorization: started.access?.authorization ?? "",
      kubeconfigWritten: settings.writeKubeconfig || undefined,
    });
    for (const line of lines) console.error(line);
    return;
  }
  log.info("Corral started", {
    version,
    mode: settings.orchestrator,
    ...serviceUrls({ ...ports, tls }),
    httpPort,
    grpcPort,
    ...(kuberayGrpcPort === undefined ? {} : { kuberayGrpcPort }),
    tls,
    host: settings.host,
    cache: settings.cache,
    clusterAccess: settings.dashboardProxy.clusterAccess,
    server: started.server,
    namespaces,
    ...started.access,
  });
}
