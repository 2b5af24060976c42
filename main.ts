/**
 * Corral's composition root: settings, sockets, signals. Nothing else reads
 * the environment or opens ports; settings.ts checks every setting before
 * anything here binds a port.
 */
import { createAccess } from "./api/auth/access.ts";
import { createApi } from "./api/mod.ts";
import { bindGrpc } from "./api/grpc/listener.ts";
import { stopper } from "./api/shutdown.ts";
import { serveHttp } from "./api/http/server.ts";
import { listenError, serviceUrls } from "./api/listen.ts";
import { createLogger, logStrayErrors } from "./api/log.ts";
import { grpcServerCredentials } from "./api/grpc/credentials.ts";
import { loadCertificates, TlsFileError } from "./api/tls.ts";
import type { Logger } from "./domain/log.ts";
import {
  createKubernetesOrchestrator,
  loadKubeConfig,
} from "./orchestrator/kubernetes.ts";
import { tokenReviewClient } from "./orchestrator/token_review.ts";
import { ENVIRONMENT, parseSettings, type Settings } from "./settings.ts";
import { httpTimeouts } from "./settings.ts";
import denoJson from "./deno.json" with { type: "json" };
import * as k8s from "@kubernetes/client-node";

export const VERSION: string = denoJson.version;

async function main(): Promise<void> {
  const env = Object.fromEntries(ENVIRONMENT.map((n) => [n, Deno.env.get(n)]));
  const invocation = parseSettings(Deno.args, env);
  switch (invocation.kind) {
    case "help":
      return console.log(invocation.text);
    case "version":
      return console.log(`corral ${VERSION} (deno ${Deno.version.deno})`);
    case "invalid":
      for (const problem of invocation.problems) console.error(problem);
      console.error("Run with --help to see every flag");
      return Deno.exit(2);
  }
  const { settings } = invocation;
  const log = createLogger({ level: settings.logLevel });
  logStrayErrors(log);
  try {
    await run(settings, log, invocation.warnings);
  } catch (error) {
    log.error(
      `Cannot start: ${(error as Error).message}`,
      error instanceof TlsFileError
        ? { flag: error.flag, file: error.file }
        : undefined,
    );
    Deno.exit(1);
  }
}

async function run(
  settings: Settings,
  log: Logger,
  warnings: string[],
): Promise<void> {
  const closers: { close(): Promise<void> }[] = [];
  // First: a certificate that cannot be used stops the start before
  // anything else is set up.
  const certificates = settings.tls
    ? await loadCertificates(settings.tls, log)
    : undefined;
  if (certificates) closers.push(certificates);
  let kubeConfig: k8s.KubeConfig;
  if (settings.orchestrator === "embedded") {
    // Development tooling, loaded only here: the production start path never
    // imports the stand-in (tests/standin/production_imports_test.ts).
    const embedded = (await importStandin()).startEmbedded({
      ...settings.cluster,
      crds: settings.crds,
      operatorDelayMs: settings.operatorDelayMs,
      writeKubeconfig: settings.writeKubeconfig,
      logger: log,
    });
    closers.push(embedded);
    kubeConfig = new k8s.KubeConfig();
    kubeConfig.loadFromString(embedded.kubeconfig);
  } else {
    const path = settings.kubeconfig;
    kubeConfig = loadKubeConfig(path ? { path } : { inCluster: true });
  }

  const access = await createAccess(settings.auth, {
    log,
    tokenReview: tokenReviewClient(kubeConfig),
  });
  closers.push(access);
  const { group, version } = settings.cluster;
  const orchestrator = createKubernetesOrchestrator({
    ...settings.cluster,
    kubeConfig,
    timeoutMs: settings.kubeTimeoutMs,
    cache: settings.cache
      ? {
        namespaces: settings.namespaces,
        staleAfterMs: settings.cacheStaleAfterMs,
        log,
      }
      : undefined,
  });
  closers.push({ close: async () => await orchestrator.close?.() });
  const api = await createApi({
    access,
    metricsRequireAuth: settings.auth.metricsRequireAuth,
    orchestrator,
    clusterApiVersion: `${group}/${version}`,
    namespaces: settings.namespaces,
    maxBodyBytes: settings.maxBodyBytes,
    kuberayJson: settings.kuberayJson,
    limits: settings.limits,
    idleTimeoutMs: settings.idleTimeoutMs,
    version: VERSION,
    log,
  });
  const grpcPort = await bindGrpc(
    api.grpc,
    settings.host,
    settings.grpcPort,
    grpcServerCredentials(certificates),
    settings.headerTimeoutMs,
  ).catch((error) => {
    throw listenError("gRPC", settings.host, settings.grpcPort, error);
  });
  api.health.listeners.grpc = true;

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
    throw listenError("HTTP", settings.host, settings.httpPort, error);
  });
  api.health.listeners.http = true;
  orchestrator.start?.();

  const stop = stopper({
    api,
    httpServer,
    closers,
    delayMs: settings.shutdownDelayMs,
    graceMs: settings.shutdownGraceMs,
    log,
  });
  Deno.addSignalListener("SIGINT", () => stop("SIGINT"));
  Deno.addSignalListener("SIGTERM", () => stop("SIGTERM"));

  // Last, once a signal would stop it cleanly: whoever waits for this line
  // may signal at once.
  for (const warning of warnings) log.warn(warning);
  log.info("Corral started", {
    version: VERSION,
    mode: settings.orchestrator,
    ...serviceUrls({
      host: settings.host,
      httpPort: httpServer.port,
      grpcPort,
      tls: certificates !== undefined,
    }),
    httpPort: httpServer.port,
    grpcPort,
    tls: certificates !== undefined,
    host: settings.host,
    cache: settings.cache,
    server: kubeConfig.getCurrentCluster()?.server,
    namespaces: settings.namespaces.length > 0 ? settings.namespaces : "all",
    ...access.summary,
  });
}

/** The stand-in, which an installation without standin/ (the image) lacks. */
async function importStandin() {
  try {
    return await import("./standin/mod.ts");
  } catch (error) {
    throw new Error(
      "embedded mode needs the Kubernetes API stand-in (standin/), development tooling this installation does not include: run it from a source checkout with deno task dev",
      { cause: error },
    );
  }
}

if (import.meta.main) await main();
