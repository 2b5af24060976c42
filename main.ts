/**
 * Corral's composition root: settings, sockets, signals. Nothing else reads
 * the environment or opens ports; settings.ts checks every setting before
 * anything here binds a port.
 */
import { type Access, createAccess } from "./api/auth/access.ts";
import { type Api, createApi } from "./api/mod.ts";
import { bindGrpc } from "./api/grpc/listener.ts";
import { type Closer, stopper, type StopperOptions } from "./api/shutdown.ts";
import { type HttpServer, serveHttp } from "./api/http/server.ts";
import { listenError, serviceUrls } from "./api/listen.ts";
import { createLogger, logFormat, logStrayErrors } from "./api/log.ts";
import { banner } from "./api/banner.ts";
import { grpcServerCredentials } from "./api/grpc/credentials.ts";
import {
  type CertificateSource,
  loadCertificates,
  TlsFileError,
} from "./api/tls.ts";
import type { Logger } from "./domain/log.ts";
import {
  createKubernetesOrchestrator,
  loadKubeConfig,
} from "./orchestrator/mod.ts";
import { tokenReviewClient } from "./orchestrator/token_review.ts";
import {
  apiserverProxyAccess,
  directAccess,
} from "./orchestrator/cluster_access.ts";
import { DashboardSessions } from "./api/auth/dashboard_sessions.ts";
import { loadSessionKeyFile } from "./api/auth/dashboard_session_key.ts";
import {
  ENVIRONMENT,
  type Mode,
  parseSettings,
  type Settings,
} from "./settings.ts";
import { httpTimeouts } from "./settings.ts";
import { SPECS } from "./settings_flags.ts";
import denoJson from "./deno.json" with { type: "json" };
import * as k8s from "@kubernetes/client-node";
import { ExpiryWorker } from "./api/service/expiry_worker.ts";
import type { Orchestrator } from "./domain/ports.ts";
import { KubernetesEventRecorder } from "./orchestrator/expiry_events.ts";
import {
  LeaderElector,
  leaderIdentity,
} from "./orchestrator/leader_election.ts";

export const VERSION: string = denoJson.version;

/** `closer` under `name`, for the log of a stop (api/shutdown.ts). */
function named(name: string, closer: { close(): Promise<void> }): Closer {
  return { name, close: () => closer.close() };
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
  const format = logFormat(settings.logFormat, Deno.stderr.isTerminal());
  const log = createLogger({ level: settings.logLevel, format });
  logStrayErrors(log);
  try {
    await run(settings, log, invocation.warnings, format === "text");
  } catch (error) {
    log.error(
      `Cannot start: ${startMessage(error)}`,
      error instanceof TlsFileError
        ? { flag: error.flag, file: error.file }
        : undefined,
    );
    Deno.exit(1);
  }
}

/**
 * Why the start failed; for a refused permission, without Deno's advice to
 * run again with the flag (a task user cannot) and with what to do instead.
 */
function startMessage(error: unknown): string {
  const message = (error as Error).message;
  const hint = permissionHint(error);
  if (!hint) return message;
  return message.replace(/, run again with the --allow-\w+ flag/, "") + hint;
}

/**
 * What to do about a permission Deno refused (a file outside what `deno
 * task start` may read, say): its own advice, "run again with the
 * --allow-read flag", cannot be followed through a task.
 */
function permissionHint(error: unknown): string {
  let cause = error;
  while (cause instanceof Error && !(cause instanceof Deno.errors.NotCapable)) {
    cause = cause.cause;
  }
  if (!(cause instanceof Deno.errors.NotCapable)) return "";
  const path = /access to "([^"]+)"/.exec(cause.message)?.[1];
  return ". deno task start may read only this directory (./), " +
    "/etc/corral and the service-account token: put the file there " +
    "(e.g. cp ~/.kube/config ./dev.kubeconfig, which git ignores, and --kubeconfig ./dev.kubeconfig), " +
    "or run deno run with the task's flags and " +
    `--allow-read=.,${path ?? "PATH"} instead (README, Configuration)`;
}

async function run(
  settings: Settings,
  log: Logger,
  warnings: string[],
  showBanner: boolean,
): Promise<void> {
  const closers: Closer[] = [];
  // First: a certificate that cannot be used stops the start before
  // anything else is set up.
  const certificates = settings.tls
    ? await loadCertificates(settings.tls, log)
    : undefined;
  if (certificates) closers.push(named("certificates", certificates));
  const { kubeConfig, embedded } = await connectKubernetes(settings, log);
  if (embedded) closers.push(named("embedded Kubernetes", embedded));

  const access = await createAccess({
    ...settings.auth,
    ownNamespace: settings.auth.ownNamespace ||
      podNamespace(settings.orchestrator, settings.kubeconfig, kubeConfig),
  }, {
    log,
    tokenReview: tokenReviewClient(kubeConfig),
  });
  closers.push(named("authentication and policy files", access));
  const { group, version } = settings.cluster;
  const orchestrator = createKubernetesOrchestrator({
    ...settings.cluster,
    kubeConfig,
    timeoutMs: settings.kubeTimeoutMs,
    cache: settings.cache
      ? {
        namespaces: settings.namespaces,
        staleAfterMs: settings.cacheStaleAfterMs,
        misses: { qps: settings.cacheMissQps },
        bookmarkIntervalMs: settings.cacheBookmarkIntervalMs,
        log,
      }
      : undefined,
  });
  closers.push({
    name: "cache",
    close: async () => await orchestrator.close?.(),
  });
  const api = await createApi({
    access,
    metricsRequireAuth: settings.auth.metricsRequireAuth,
    orchestrator,
    clusterApiVersion: `${group}/${version}`,
    namespaces: settings.namespaces,
    maxBodyBytes: settings.maxBodyBytes,
    kuberayJson: settings.kuberayJson,
    browsers: { ...settings.browsers, secure: certificates !== undefined },
    limits: settings.limits,
    idleTimeoutMs: settings.idleTimeoutMs,
    streamMaxDurationMs: settings.watchMaxDurationMs,
    fairUse: settings.fairUse,
    version: VERSION,
    log,
    dashboardProxy: await dashboardProxyOf(settings, kubeConfig, closers, log),
  });
  const { grpcPort, httpServer } = await listen(
    settings,
    api,
    certificates,
    log,
  );
  orchestrator.start?.();
  closers.push(startExpiry(settings, kubeConfig, orchestrator, log));
  // Only now, with both ports bound: a start that fails leaves a kubeconfig
  // written by an earlier, working Corral as it was.
  if (embedded && settings.writeKubeconfig) {
    await writeKubeconfig(settings.writeKubeconfig, embedded.kubeconfig, log);
  }

  stopOnSignals({
    api,
    httpServer,
    closers,
    delayMs: settings.shutdownDelayMs,
    graceMs: settings.shutdownGraceMs,
    log,
  });

  // Last, once a signal would stop it cleanly: whoever waits for this line
  // may signal at once.
  const server = kubeConfig.getCurrentCluster()?.server;
  for (const warning of warnings) log.warn(warning);
  logStarted(log, settings, {
    httpPort: httpServer.port,
    grpcPort,
    tls: certificates !== undefined,
    server,
    access: access.summary,
  }, showBanner);
}

/**
 * A kubeconfig whose API server is http:// without insecure-skip-tls-verify
 * fails the start, saying why: the Kubernetes client refuses every call to
 * it ("HTTP protocol is not allowed"), so Corral could only answer each
 * request "internal error". (With insecure-skip-tls-verify, as the embedded
 * stand-in's kubeconfig has, plaintext is meant and allowed; an http://
 * request to a server that wants HTTPS is then answered 400, which the
 * cache logs and /readyz gives as the reason.)
 */
function checkPlainHttp(kubeConfig: k8s.KubeConfig, path: string): void {
  const cluster = kubeConfig.getCurrentCluster();
  if (!cluster?.server.startsWith("http://") || cluster.skipTLSVerify) return;
  throw new Error(
    `the API server of kubeconfig "${
      path || "in-cluster"
    }" is ${cluster.server}, plain http://, which the Kubernetes client refuses: use its https:// URL (Kubernetes API servers serve HTTPS), or for a plaintext test server set insecure-skip-tls-verify: true in the kubeconfig's cluster`,
  );
}

/** --write-kubeconfig: the stand-in's kubeconfig, for kubectl. */
async function writeKubeconfig(
  path: string,
  kubeconfig: string,
  log: Logger,
): Promise<void> {
  try {
    await Deno.writeTextFile(path, kubeconfig);
  } catch (error) {
    throw new Error(
      `cannot write --write-kubeconfig "${path}": ${(error as Error).message}`,
      { cause: error },
    );
  }
  log.info("Wrote kubeconfig for the stand-in", { path });
}

/**
 * The dashboard proxy's parts: the way to the head services
 * (--cluster-access), closed with the rest, and the sessions of browsers,
 * sealed with the key of --dashboard-session-key-file (re-read as it
 * changes), else with a key made now.
 */
async function dashboardProxyOf(
  settings: Settings,
  kubeConfig: k8s.KubeConfig,
  closers: Closer[],
  log: Logger,
) {
  const proxy = settings.dashboardProxy;
  const keys = proxy.sessionKeyFile
    ? await loadSessionKeyFile({ path: proxy.sessionKeyFile, log })
    : undefined;
  if (keys) closers.push(named("dashboard session keys", keys));
  const clusterAccess = proxy.clusterAccess === "direct"
    ? directAccess()
    : apiserverProxyAccess(kubeConfig);
  closers.push({
    name: "dashboard connections",
    close: () => Promise.resolve(clusterAccess.close()),
  });
  return {
    clusterAccess,
    sessions: new DashboardSessions({
      ttlMs: proxy.sessionTtlMs,
      ...(keys ? { keys } : {}),
    }),
    timeoutMs: proxy.timeoutMs,
    maxRequestBytes: proxy.maxRequestBytes,
    maxResponseBytes: proxy.maxResponseBytes,
  };
}

/**
 * Where Kubernetes is: the embedded stand-in, started here (and to be closed
 * with the rest), or a cluster by kubeconfig or in-cluster config.
 */
async function connectKubernetes(
  settings: Settings,
  log: Logger,
): Promise<
  {
    kubeConfig: k8s.KubeConfig;
    embedded?: { close(): Promise<void>; kubeconfig: string };
  }
> {
  if (settings.orchestrator !== "embedded") {
    const path = settings.kubeconfig;
    const kubeConfig = loadKubeConfig(path ? { path } : { inCluster: true });
    checkPlainHttp(kubeConfig, path);
    return { kubeConfig };
  }
  // Development tooling, loaded only here: the production start path never
  // imports the stand-in (tests/standin/production_imports_test.ts).
  const embedded = (await importStandin()).startEmbedded({
    ...settings.cluster,
    crds: settings.crds,
    operatorDelayMs: settings.operatorDelayMs,
    // Written by run() once the ports are bound, not here.
    logger: log,
  });
  const kubeConfig = new k8s.KubeConfig();
  kubeConfig.loadFromString(embedded.kubeconfig);
  return { kubeConfig, embedded };
}

/**
 * Binds the gRPC port and then the HTTP port, each marked up in health once
 * it listens; a port that cannot be bound fails the start, naming it (and
 * takes the gRPC server down if HTTP's is the one).
 */
async function listen(
  settings: Settings,
  api: Api,
  certificates: CertificateSource | undefined,
  log: Logger,
): Promise<{ grpcPort: number; httpServer: HttpServer }> {
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
    throw listenError("HTTP", settings.host, settings.httpPort, error, {
      flag: "http-port",
      env: SPECS["http-port"].env,
    });
  });
  api.health.listeners.http = true;
  return { grpcPort, httpServer };
}

/** SIGINT and SIGTERM stop Corral as api/shutdown.ts says, once. */
function stopOnSignals(options: StopperOptions): void {
  const stop = stopper(options);
  Deno.addSignalListener("SIGINT", () => stop("SIGINT"));
  Deno.addSignalListener("SIGTERM", () => stop("SIGTERM"));
}

/**
 * "Corral started", with where it listens and what it runs against: a
 * banner for a person at a terminal, else one record for the log.
 */
function logStarted(
  log: Logger,
  settings: Settings,
  started: {
    httpPort: number;
    grpcPort: number;
    tls: boolean;
    /** The Kubernetes API server's URL. */
    server: string | undefined;
    access: Access["summary"];
  },
  showBanner: boolean,
): void {
  const { httpPort, grpcPort, tls } = started;
  const namespaces = settings.namespaces.length > 0
    ? settings.namespaces
    : "all";
  if (showBanner) {
    const lines = banner({
      version: VERSION,
      mode: settings.orchestrator,
      urls: serviceUrls({ host: settings.host, httpPort, grpcPort, tls }),
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
    version: VERSION,
    mode: settings.orchestrator,
    ...serviceUrls({ host: settings.host, httpPort, grpcPort, tls }),
    httpPort,
    grpcPort,
    tls,
    host: settings.host,
    cache: settings.cache,
    clusterAccess: settings.dashboardProxy.clusterAccess,
    server: started.server,
    namespaces,
    ...started.access,
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

/**
 * The namespace of the pod Corral runs in (its service account's), for
 * --own-namespace's default: the in-cluster config's context, which
 * client-node took from the service account's namespace file. "" with a
 * kubeconfig and in embedded mode.
 */
function podNamespace(
  mode: Mode,
  kubeconfigPath: string,
  kubeConfig: k8s.KubeConfig,
): string {
  if (mode !== "kubernetes" || kubeconfigPath !== "") return "";
  const context = kubeConfig.getContextObject(kubeConfig.getCurrentContext());
  return context?.namespace?.trim() ?? "";
}

/**
 * Cluster expiry: the worker that deletes expired clusters, acting only
 * while this replica leads (a Lease in Corral's own namespace, else
 * default), or always with --leader-elect=false. Stopping releases the
 * Lease, so another replica takes over at once during a rollout.
 */
function startExpiry(
  settings: Settings,
  kubeConfig: k8s.KubeConfig,
  orchestrator: Orchestrator,
  log: Logger,
): Closer {
  const expiry = settings.expiry;
  const elector = expiry.leaderElect
    ? new LeaderElector({
      leases: kubeConfig.makeApiClient(k8s.CoordinationV1Api),
      namespace: expiry.leaseNamespace || settings.auth.ownNamespace ||
        podNamespace(settings.orchestrator, settings.kubeconfig, kubeConfig) ||
        "default",
      name: "corral-expiry",
      identity: leaderIdentity(expiry.identity),
      leaseDurationMs: expiry.leaseDurationMs,
      renewDeadlineMs: expiry.renewDeadlineMs,
      retryPeriodMs: expiry.retryPeriodMs,
      log: log.with({ component: "leader-election" }),
    })
    : undefined;
  const worker = new ExpiryWorker({
    orchestrator,
    events: new KubernetesEventRecorder(
      kubeConfig.makeApiClient(k8s.CoreV1Api),
    ),
    leader: elector ?? { isLeader: () => true },
    log: log.with({ component: "expiry" }),
    warningMs: expiry.warningMs,
    intervalMs: expiry.intervalMs,
    namespaces: settings.namespaces,
  });
  elector?.start();
  worker.start();
  return {
    name: "expiry and its lease",
    async close() {
      await worker.stop();
      await elector?.stop({ release: true });
    },
  };
}
