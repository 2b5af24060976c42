/**
 * Corral's composition root: settings, sockets, signals. Nothing else reads
 * the environment or handles signals, and nothing else decides to open a
 * port; settings.ts checks every setting before anything here binds a port.
 * The steps of the start it wires together live in startup/, one a file,
 * each given the settings and parts it needs.
 */
import { createAccess } from "./api/auth/access.ts";
import { createApi } from "./api/mod.ts";
import type { SignInSettings } from "./api/auth_config.ts";
import {
  type Closer,
  named,
  stopper,
  type StopperOptions,
} from "./api/shutdown.ts";
import { createLogger, logFormat, logStrayErrors } from "./api/log.ts";
import { loadCertificates } from "./api/tls.ts";
import type { Logger } from "./domain/log.ts";
import { createKubernetesOrchestrator } from "./orchestrator/mod.ts";
import { tokenReviewClient } from "./orchestrator/token_review.ts";
import { ENVIRONMENT, parseSettings, type Settings } from "./settings.ts";
import denoJson from "./deno.json" with { type: "json" };
import {
  connectKubernetes,
  podNamespace,
  writeKubeconfig,
} from "./startup/kubernetes.ts";
import { dashboardProxyOf } from "./startup/dashboard_proxy.ts";
import { startExpiry } from "./startup/expiry.ts";
import { listen } from "./startup/listen.ts";
import { logStarted } from "./startup/started.ts";
import { logStartFailure } from "./startup/start_failure.ts";

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
  const format = logFormat(settings.logFormat, Deno.stderr.isTerminal());
  const log = createLogger({ level: settings.logLevel, format });
  logStrayErrors(log);
  try {
    await run(settings, log, invocation.warnings, format === "text");
  } catch (error) {
    logStartFailure(log, error);
    Deno.exit(1);
  }
}

/**
 * Starts Corral with checked settings: each part built and wired, both
 * ports bound, then "Corral started". A step that fails throws, and what
 * was started before it is left to the process's exit.
 */
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
    signIn: signInOf(settings),
    orchestrator,
    clusterApiVersion: `${group}/${version}`,
    namespaces: settings.namespaces,
    maxBodyBytes: settings.maxBodyBytes,
    kuberayJson: settings.kuberayJson,
    kuberayGrpc: settings.kuberayGrpcPort !== undefined,
    browsers: { ...settings.browsers, secure: certificates !== undefined },
    limits: settings.limits,
    idleTimeoutMs: settings.idleTimeoutMs,
    streamMaxDurationMs: settings.watchMaxDurationMs,
    fairUse: settings.fairUse,
    version: VERSION,
    log,
    dashboardProxy: await dashboardProxyOf(settings, kubeConfig, closers, log),
  });
  const { grpcPort, kuberayGrpcPort, httpServer } = await listen(
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
    version: VERSION,
    httpPort: httpServer.port,
    grpcPort,
    kuberayGrpcPort,
    tls: certificates !== undefined,
    server,
    access: access.summary,
  }, showBanner);
}

/** What clients are told of the OIDC issuer, when there is one. */
function signInOf(settings: Settings): SignInSettings | undefined {
  const oidc = settings.auth.oidc;
  return oidc
    ? {
      issuerUrl: oidc.issuerUrl,
      clientId: oidc.clientId,
      scopes: oidc.scopes ?? ["openid"],
    }
    : undefined;
}

/** SIGINT and SIGTERM stop Corral as api/shutdown.ts says, once. */
function stopOnSignals(options: StopperOptions): void {
  const stop = stopper(options);
  Deno.addSignalListener("SIGINT", () => stop("SIGINT"));
  Deno.addSignalListener("SIGTERM", () => stop("SIGTERM"));
}

if (import.meta.main) await main();
