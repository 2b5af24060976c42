/**
 * Corral's composition root: settings, sockets, signals. Nothing else reads
 * the environment or opens ports; settings.ts checks every setting before
 * anything here binds a port.
 */
import { createDispatcher } from "./api/service/dispatcher.ts";
import { createGateway } from "./api/http/gateway.ts";
import { docsPages, loadScalarBundle } from "./api/docs.ts";
import { createGrpcServer } from "./api/grpc/server.ts";
import { grpcServerCredentials } from "./api/grpc/credentials.ts";
import {
  addHealthService,
  healthServiceDefinition,
} from "./api/grpc/health.ts";
import { addReflection } from "./api/grpc/reflection.ts";
import { compileRoutes } from "./api/http/rules.ts";
import { openApiDocument } from "./api/openapi.ts";
import { Health, livenessPage, readinessPage } from "./api/health.ts";
import { createHttpApp } from "./api/http/router.ts";
import { serveHttp } from "./api/http/server.ts";
import { createLogger } from "./api/log.ts";
import { Metrics, metricsPage } from "./api/metrics.ts";
import { loadApiSchema } from "./api/schema.ts";
import {
  type CertificateSource,
  readTlsFiles,
  TlsFileError,
  type TlsFiles,
  watchTlsFiles,
} from "./api/tls.ts";
import { createHandlers } from "./api/service/handlers.ts";
import type { Logger } from "./domain/log.ts";
import {
  createKubernetesOrchestrator,
  loadKubeConfig,
} from "./orchestrator/kubernetes.ts";
import { ENVIRONMENT, parseSettings, type Settings } from "./settings.ts";
import denoJson from "./deno.json" with { type: "json" };
import * as grpc from "@grpc/grpc-js";
import * as k8s from "@kubernetes/client-node";

export const VERSION: string = denoJson.version;

interface Closer {
  close(): Promise<void>;
}

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
  // grpc-js's own diagnostics join the JSON log instead of bare stderr lines.
  grpc.setLogger({
    error: (...args: unknown[]) => log.debug(args.join(" "), { lib: "grpc" }),
  } as Partial<Console>);
  for (const warning of invocation.warnings) log.warn(warning);
  // A bug must not take the service down: log it and keep serving.
  globalThis.addEventListener("unhandledrejection", (event) => {
    event.preventDefault();
    log.error("Unhandled promise rejection", { cause: String(event.reason) });
  });
  globalThis.addEventListener("error", (event) => {
    event.preventDefault();
    log.error("Uncaught exception", { cause: String(event.error) });
  });
  try {
    await run(settings, log);
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

async function run(settings: Settings, log: Logger): Promise<void> {
  const closers: Closer[] = [];
  // First: a certificate that cannot be used stops the start before
  // anything else is set up.
  const certificates = settings.tls
    ? await loadCertificates(settings.tls, log)
    : undefined;
  if (certificates) closers.push(certificates);
  let kubeConfig: k8s.KubeConfig;
  if (settings.orchestrator === "embedded") {
    // Development tooling, loaded only here: `deno task start` never loads it.
    const { startEmbedded } = await import("./orchestrator/embedded.ts");
    const embedded = await startEmbedded({
      crds: settings.crds,
      operatorDelayMs: settings.operatorDelayMs,
      cluster: settings.cluster,
      log,
    });
    closers.push(embedded);
    kubeConfig = new k8s.KubeConfig();
    kubeConfig.loadFromString(embedded.kubeconfig);
    if (settings.writeKubeconfig) {
      await Deno.writeTextFile(settings.writeKubeconfig, embedded.kubeconfig);
      log.info("Wrote kubeconfig for the stand-in", {
        path: settings.writeKubeconfig,
      });
    }
  } else {
    const path = settings.kubeconfig;
    kubeConfig = loadKubeConfig(path ? { path } : { inCluster: true });
  }

  const { group, version, plural } = settings.cluster;
  const orchestrator = createKubernetesOrchestrator({
    kubeConfig,
    group,
    version,
    plural,
    timeoutMs: settings.kubeTimeoutMs,
  });
  const schema = await loadApiSchema();
  const handlers = createHandlers({
    orchestrator,
    namespaces: settings.namespaces,
    clusterApiVersion: `${group}/${version}`,
  });
  const metrics = new Metrics({ version: VERSION });
  const health = new Health({ ping: (options) => orchestrator.ping(options) });
  const dispatcher = createDispatcher({
    handlers,
    log,
    metrics,
    onKubernetesCall: health.observe,
  });
  const { maxBodyBytes } = settings;
  // Compiled once: the gateway routes with them, the document describes them.
  const routes = compileRoutes(schema.services);
  const gateway = createGateway({ schema, routes, dispatcher, maxBodyBytes });
  const app = createHttpApp({
    gateway,
    pages: {
      ...docsPages(openApiDocument(routes), await loadScalarBundle()),
      "/healthz": livenessPage,
      "/readyz": () => readinessPage(health),
      "/metrics": () => metricsPage(metrics),
    },
  });

  const grpcServer = createGrpcServer({
    schema,
    dispatcher,
    maxReceiveBytes: maxBodyBytes,
  });
  const grpcHealth = addHealthService(
    grpcServer,
    schema.services.map((s) => s.fullName.slice(1)),
    { refresh: () => health.readiness() },
  );
  health.onChange = (ready) =>
    grpcHealth.setAll(ready ? "SERVING" : "NOT_SERVING");
  addReflection(
    grpcServer,
    [...schema.services, healthServiceDefinition()],
    schema.root,
  );
  const grpcPort = await bindGrpc(
    grpcServer,
    settings.host,
    settings.grpcPort,
    grpcServerCredentials(certificates),
  ).catch((error) => {
    throw listenError("gRPC", settings.host, settings.grpcPort, error);
  });
  health.listeners.grpc = true;

  const httpServer = await serveHttp({
    hostname: settings.host,
    port: settings.httpPort,
    handler: app,
    log,
    headerTimeoutMs: settings.headerTimeoutMs,
    idleTimeoutMs: settings.idleTimeoutMs,
    tls: certificates,
  }).catch((error) => {
    grpcServer.forceShutdown();
    throw listenError("HTTP", settings.host, settings.httpPort, error);
  });
  health.listeners.http = true;

  const { shutdownDelayMs: delayMs, shutdownGraceMs: graceMs } = settings;
  let stopping = false;
  const stop = async (signal: string) => {
    // `deno task` forwards the terminal's signal to a child that got it
    // already: a second signal changes nothing.
    if (stopping) return;
    stopping = true;
    // Not ready from now on, but still serving for the delay, so that load
    // balancers stop sending before the listeners close (a connection the
    // kernel accepted just before a listener closes is reset). Then both
    // listeners stop accepting, and what they accepted finishes, within
    // the grace period.
    log.info("Stopping", { signal, delayMs, graceMs });
    health.beginShutdown();
    if (delayMs > 0) await new Promise((r) => setTimeout(r, delayMs));
    log.info("Closing listeners", { inFlight: httpServer.inFlight });
    grpcHealth.shutdown(); // ends health Watch streams, which would hold it
    await Promise.all([
      httpServer.shutdown(graceMs),
      shutdownGrpc(grpcServer, graceMs),
    ]);
    for (const closer of closers.reverse()) await closer.close();
    log.info("Stopped");
    Deno.exit(0);
  };
  Deno.addSignalListener("SIGINT", () => stop("SIGINT"));
  Deno.addSignalListener("SIGTERM", () => stop("SIGTERM"));

  // Last, once a signal would stop it cleanly: whoever waits for this line
  // may signal at once.
  const host = ["0.0.0.0", "::", ""].includes(settings.host)
    ? "localhost"
    : settings.host.includes(":")
    ? `[${settings.host}]`
    : settings.host;
  const base = `${
    certificates ? "https" : "http"
  }://${host}:${httpServer.port}`;
  log.info("Corral started", {
    version: VERSION,
    mode: settings.orchestrator,
    api: `${base}/apis/v1alpha2`,
    docs: `${base}/docs`,
    grpc: `${host}:${grpcPort}`,
    httpPort: httpServer.port,
    grpcPort,
    tls: certificates !== undefined,
    ...(settings.tls?.clientCaFile
      ? { clientCaFile: settings.tls.clientCaFile }
      : {}),
    host: settings.host,
    server: kubeConfig.getCurrentCluster()?.server,
    namespaces: settings.namespaces.length > 0 ? settings.namespaces : "all",
  });
}

/**
 * Reads the TLS files once (throwing a TlsFileError naming the flag and
 * file if one cannot be used), then re-reads them while serving: a rotated
 * certificate reaches new connections of both listeners.
 */
async function loadCertificates(
  files: TlsFiles,
  log: Logger,
): Promise<CertificateSource> {
  const material = await readTlsFiles(files);
  log.info("Loaded TLS certificate", {
    certFile: files.certFile,
    ...(files.clientCaFile ? { clientCaFile: files.clientCaFile } : {}),
  });
  return watchTlsFiles(files, material, { log });
}

function bindGrpc(
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

/** "the HTTP address 0.0.0.0:8888 is in use" */
function listenError(
  what: string,
  host: string,
  port: number,
  error: Error,
): Error {
  const inUse = /EADDRINUSE|address already in use/i.test(
    `${(error as { code?: string }).code} ${error.message}`,
  );
  const address = `${host.includes(":") ? `[${host}]` : host}:${port}`;
  return new Error(
    inUse
      ? `the ${what} address ${address} is in use`
      : `cannot listen for ${what} on ${address}: ${error.message}`,
    { cause: error },
  );
}

/** Lets accepted calls finish, at most `graceMs`, then cuts the rest. */
function shutdownGrpc(server: grpc.Server, graceMs: number): Promise<void> {
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

if (import.meta.main) await main();
