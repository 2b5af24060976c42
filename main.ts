/**
 * Corral's composition root: configuration, sockets, signals. Nothing else
 * reads the environment or opens ports.
 */
import { parseArgs } from "node:util";
import { createDispatcher } from "./api/calls.ts";
import { createGateway } from "./api/gateway.ts";
import { docsPages, loadScalarBundle } from "./api/docs.ts";
import { createGrpcServer } from "./api/grpc.ts";
import {
  addHealthService,
  healthServiceDefinition,
} from "./api/grpc_health.ts";
import { addReflection } from "./api/grpc_reflection.ts";
import { compileRoutes } from "./api/http_rules.ts";
import { openApiDocument } from "./api/openapi.ts";
import { Health, livenessPage, readinessPage } from "./api/health.ts";
import { createHttpApp } from "./api/http.ts";
import { serveHttp } from "./api/http_server.ts";
import { createLogger, type Level, LEVELS } from "./api/log.ts";
import { Metrics } from "./api/metrics.ts";
import { loadApiSchema } from "./api/schema.ts";
import { createHandlers } from "./api/service.ts";
import type { Logger } from "./domain/log.ts";
import { validateNamespace } from "./domain/validation.ts";
import {
  createKubernetesOrchestrator,
  loadKubeConfig,
} from "./orchestrator/kubernetes.ts";
import * as grpc from "@grpc/grpc-js";
import * as k8s from "@kubernetes/client-node";

/** Every setting: its flag, its environment variable, default and help. */
const SETTINGS = {
  "http-port": {
    env: "CORRAL_HTTP_PORT",
    default: "8888",
    help: "HTTP/JSON port (0 picks a free one)",
  },
  "grpc-port": {
    env: "CORRAL_GRPC_PORT",
    default: "8887",
    help: "gRPC port (0 picks a free one)",
  },
  host: {
    env: "CORRAL_HOST",
    default: "0.0.0.0",
    help: "address both listeners bind",
  },
  orchestrator: {
    env: "CORRAL_ORCHESTRATOR",
    default: "kubernetes",
    help:
      "kubernetes: the cluster of --kubeconfig or the in-cluster service account; embedded: a local Kubernetes API stand-in with a simulated operator",
  },
  kubeconfig: {
    env: "KUBECONFIG",
    default: "",
    help:
      "kubeconfig file (kubernetes mode); without one, the in-cluster service account",
  },
  "write-kubeconfig": {
    env: "CORRAL_WRITE_KUBECONFIG",
    default: "",
    help:
      "embedded mode: write a kubeconfig for the stand-in to this path, for kubectl and other clients",
  },
  "operator-delay": {
    env: "CORRAL_OPERATOR_DELAY",
    default: "2s",
    help:
      "embedded mode: how long the simulated operator waits before a new cluster turns ready (e.g. 500ms, 2s)",
  },
  crd: {
    env: "CORRAL_CRDS",
    default: "",
    multiple: true,
    help:
      "embedded mode: a CustomResourceDefinition file (YAML or JSON) to install into the stand-in, which then validates and prunes custom objects as a real API server; repeatable (env: comma-separated)",
  },
  "cluster-group": {
    env: "CORRAL_CLUSTER_GROUP",
    default: "ray.io",
    help: "API group of the cluster custom resource",
  },
  "cluster-version": {
    env: "CORRAL_CLUSTER_VERSION",
    default: "v1",
    help: "API version of the cluster custom resource",
  },
  "cluster-plural": {
    env: "CORRAL_CLUSTER_PLURAL",
    default: "rayclusters",
    help: "plural resource name of the cluster custom resource",
  },
  namespaces: {
    env: "CORRAL_NAMESPACES",
    default: "",
    help:
      "comma-separated namespaces to serve, for a namespaced install (others get code 7); empty serves all",
  },
  "max-body-bytes": {
    env: "CORRAL_MAX_BODY_BYTES",
    default: "3Mi",
    help:
      "largest request body (HTTP) or message (gRPC); larger ones are refused with code 8 (e.g. 3Mi, 512Ki)",
  },
  "kube-timeout": {
    env: "CORRAL_KUBE_TIMEOUT",
    default: "10s",
    help:
      "time limit of each Kubernetes API call; past it the request fails with code 4",
  },
  "header-timeout": {
    env: "CORRAL_HEADER_TIMEOUT",
    default: "10s",
    help: "an HTTP client must send a request's headers within this",
  },
  "idle-timeout": {
    env: "CORRAL_IDLE_TIMEOUT",
    default: "60s",
    help: "an HTTP connection without traffic for this long is closed",
  },
  "shutdown-grace": {
    env: "CORRAL_SHUTDOWN_GRACE",
    default: "20s",
    help:
      "on SIGTERM or SIGINT, how long requests in flight may take to finish",
  },
  "log-level": {
    env: "CORRAL_LOG_LEVEL",
    default: "info",
    help: LEVELS.join(", "),
  },
} as const;

type Setting = keyof typeof SETTINGS;
type Config = Record<Setting, string>;

function usage(): string {
  const lines = [
    "Usage: deno task start [-- OPTIONS]   (deno task dev for embedded mode)",
    "",
    "Options (each also read from the environment variable shown):",
  ];
  for (const [flag, s] of Object.entries(SETTINGS)) {
    lines.push(
      `  --${flag} VALUE`.padEnd(28) +
        `${s.help}\n${"".padEnd(28)}env ${s.env}${
          s.default ? `, default ${s.default}` : ""
        }`,
    );
  }
  lines.push("  --help".padEnd(28) + "show this help");
  return lines.join("\n");
}

/** Flags win over environment variables, which win over defaults. */
function readConfig(args: string[]): Config {
  const { values } = parseArgs({
    // `deno task dev -- --flag` passes the "--" through: it separates
    // nothing here.
    args: args.filter((arg) => arg !== "--"),
    strict: true,
    allowPositionals: false,
    options: {
      help: { type: "boolean" },
      ...Object.fromEntries(
        Object.entries(SETTINGS).map((
          [flag, s],
        ) => [flag, { type: "string" as const, multiple: "multiple" in s }]),
      ),
    },
  });
  if (values.help) {
    console.log(usage());
    Deno.exit(0);
  }
  const config = {} as Config;
  for (
    const [flag, s] of Object.entries(SETTINGS) as [
      Setting,
      typeof SETTINGS[Setting],
    ][]
  ) {
    const value = (values as Record<string, unknown>)[flag];
    // A repeatable flag keeps its environment variable's form: a,b.
    const given = Array.isArray(value) ? value.join(",") : value;
    config[flag] = typeof given === "string"
      ? given
      : Deno.env.get(s.env) ?? s.default;
  }
  return config;
}

function port(config: Config, flag: "http-port" | "grpc-port"): number {
  const n = Number(config[flag]);
  if (!Number.isInteger(n) || n < 0 || n > 65535) {
    throw new ConfigError(
      `--${flag} must be a port from 0 to 65535, got "${config[flag]}"`,
    );
  }
  return n;
}

function duration(
  config: Config,
  flag:
    | "operator-delay"
    | "kube-timeout"
    | "header-timeout"
    | "idle-timeout"
    | "shutdown-grace",
): number {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m)?$/.exec(config[flag].trim());
  if (!match) {
    throw new ConfigError(
      `--${flag} must be a duration such as 500ms or 2s, got "${config[flag]}"`,
    );
  }
  const unit = { ms: 1, s: 1000, m: 60_000 }[match[2] ?? "ms"]!;
  return Number(match[1]) * unit;
}

function bytes(config: Config, flag: "max-body-bytes"): number {
  const match = /^(\d+)(Ki|Mi|Gi)?$/.exec(config[flag].trim());
  const n = match
    ? Number(match[1]) * { "": 1, Ki: 1024, Mi: 1024 ** 2, Gi: 1024 ** 3 }[
      match[2] ?? ""
    ]!
    : NaN;
  if (!(n > 0)) {
    throw new ConfigError(
      `--${flag} must be a size such as 3Mi, 512Ki or 1048576, got "${
        config[flag]
      }"`,
    );
  }
  return n;
}

/** `--namespaces a,b` as a list; empty means every namespace. */
function namespaceList(config: Config): string[] {
  const names = config.namespaces.split(",").map((n) => n.trim()).filter(
    Boolean,
  );
  for (const name of names) {
    try {
      validateNamespace(
        name,
        `--namespaces has an invalid namespace "${name}"`,
      );
    } catch (error) {
      throw new ConfigError((error as Error).message);
    }
  }
  return names;
}

/** `--crd a --crd b` (or CORRAL_CRDS=a,b) as a list of files. */
function crdFiles(config: Config): string[] {
  return config.crd.split(",").map((path) => path.trim()).filter(Boolean);
}

class ConfigError extends Error {}

interface Closer {
  close(): Promise<void>;
}

async function main(): Promise<void> {
  let config: Config;
  try {
    config = readConfig(Deno.args);
  } catch (error) {
    console.error(`${(error as Error).message}\n\n${usage()}`);
    Deno.exit(2);
  }
  const level = config["log-level"] as Level;
  if (!LEVELS.includes(level)) {
    console.error(`--log-level must be one of ${LEVELS.join(", ")}`);
    Deno.exit(2);
  }
  const log = createLogger({ level });
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
    await run(config, log);
  } catch (error) {
    if (error instanceof ConfigError) {
      log.error(`Cannot start: ${error.message}`);
      Deno.exit(2);
    }
    log.error("Cannot start", { cause: String(error) });
    Deno.exit(1);
  }
}

async function run(config: Config, log: Logger): Promise<void> {
  const httpPort = port(config, "http-port");
  const grpcPort = port(config, "grpc-port");
  const namespaces = namespaceList(config);
  const mode = config.orchestrator;
  const closers: Closer[] = [];

  let kubeConfig: k8s.KubeConfig;
  if (mode === "embedded") {
    // Development tooling, loaded only here: the production start path never
    // imports the stand-in (tests/standin/production_imports_test.ts).
    const { startEmbedded } = await import("./standin/mod.ts");
    const operatorDelayMs = duration(config, "operator-delay");
    let embedded;
    try {
      embedded = startEmbedded({
        group: config["cluster-group"],
        version: config["cluster-version"],
        plural: config["cluster-plural"],
        crds: crdFiles(config),
        operatorDelayMs,
        logger: log,
      });
    } catch (error) {
      throw new ConfigError((error as Error).message);
    }
    closers.push(embedded);
    kubeConfig = new k8s.KubeConfig();
    kubeConfig.loadFromString(embedded.kubeconfig);
    if (config["write-kubeconfig"]) {
      await Deno.writeTextFile(config["write-kubeconfig"], embedded.kubeconfig);
      log.info("Wrote kubeconfig for the stand-in", {
        path: config["write-kubeconfig"],
      });
    }
  } else if (mode === "kubernetes") {
    if (crdFiles(config).length > 0) {
      log.warn("Ignored --crd: it applies to embedded mode only");
    }
    const path = config.kubeconfig;
    kubeConfig = loadKubeConfig(path ? { path } : { inCluster: true });
  } else {
    throw new ConfigError(
      `--orchestrator must be kubernetes or embedded, got "${mode}"`,
    );
  }

  const orchestrator = createKubernetesOrchestrator({
    kubeConfig,
    group: config["cluster-group"],
    version: config["cluster-version"],
    plural: config["cluster-plural"],
    timeoutMs: duration(config, "kube-timeout"),
  });
  const schema = await loadApiSchema();
  const handlers = createHandlers({
    orchestrator,
    namespaces,
    clusterApiVersion: `${config["cluster-group"]}/${
      config["cluster-version"]
    }`,
  });
  const metrics = new Metrics();
  const health = new Health({ ping: (options) => orchestrator.ping(options) });
  const dispatcher = createDispatcher({
    handlers,
    log,
    metrics,
    onKubernetesCall: health.observe,
  });
  const maxBodyBytes = bytes(config, "max-body-bytes");
  // Compiled once: the gateway routes with them, the document describes them.
  const routes = compileRoutes(schema.services);
  const gateway = createGateway({ schema, routes, dispatcher, maxBodyBytes });
  const app = createHttpApp({
    gateway,
    pages: {
      ...docsPages(
        openApiDocument(routes),
        await loadScalarBundle(),
      ),
      "/healthz": livenessPage,
      "/readyz": () => readinessPage(health),
      "/metrics": () =>
        new Response(metrics.render(), {
          headers: { "content-type": "text/plain; version=0.0.4" },
        }),
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
  const boundGrpcPort = await new Promise<number>((resolve, reject) =>
    grpcServer.bindAsync(
      `${config.host}:${grpcPort}`,
      grpc.ServerCredentials.createInsecure(),
      (error, bound) => error ? reject(error) : resolve(bound),
    )
  );
  health.listeners.grpc = true;

  const httpServer = await serveHttp({
    hostname: config.host,
    port: httpPort,
    handler: app,
    log,
    headerTimeoutMs: duration(config, "header-timeout"),
    idleTimeoutMs: duration(config, "idle-timeout"),
  });
  health.listeners.http = true;

  const graceMs = duration(config, "shutdown-grace");
  let stopping = false;
  const stop = async (signal: string) => {
    // `deno task` forwards the terminal's signal to a child that got it
    // already: a second signal changes nothing.
    if (stopping) return;
    stopping = true;
    log.info("Stopping", { signal, graceMs, inFlight: httpServer.inFlight });
    // Not ready from now on; both listeners stop accepting at once, and
    // what they accepted finishes, within the grace period.
    health.beginShutdown();
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
  log.info("Corral started", {
    mode,
    httpPort: httpServer.port,
    grpcPort: boundGrpcPort,
    host: config.host,
    server: kubeConfig.getCurrentCluster()?.server,
    namespaces: namespaces.length > 0 ? namespaces : "all",
  });
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
