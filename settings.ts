/**
 * Corral's settings: every flag, its environment variable and its default,
 * parsed by one pure function that returns typed, checked values or every
 * problem at once (the Kubernetes API server's `Options.Validate() []error`).
 * Nothing here reads the environment or opens a port: main.ts hands in
 * `Deno.args` and the environment, and binds nothing until this has passed.
 */
import { parseArgs } from "node:util";
import type { AuthSettings } from "./api/auth/access.ts";
import { type Level, LEVELS } from "./api/log.ts";
import { DEFAULT_LIMITS, type Limits } from "./domain/limits.ts";
import {
  boolean,
  bytes,
  closest,
  count,
  duration,
  list,
  namespaces,
  nonEmpty,
  oneOf,
  port,
  positive,
} from "./settings_values.ts";

export type Mode = "kubernetes" | "embedded";
const MODES: readonly Mode[] = ["kubernetes", "embedded"];

/** Every setting, typed and checked. Durations are in milliseconds. */
export interface Settings {
  host: string;
  httpPort: number;
  grpcPort: number;
  orchestrator: Mode;
  /** Empty: the in-cluster service account. */
  kubeconfig: string;
  writeKubeconfig: string;
  operatorDelayMs: number;
  crds: string[];
  cluster: { group: string; version: string; plural: string };
  /** Empty: every namespace. */
  namespaces: string[];
  /** HTTP speaks KubeRay's JSON dialect (--kuberay-json). */
  kuberayJson: boolean;
  maxBodyBytes: number;
  /** Upper bounds of what one request may ask for. */
  limits: Limits;
  kubeTimeoutMs: number;
  /** Reads from a watch-backed cache; stale after cacheStaleAfterMs. */
  cache: boolean;
  cacheStaleAfterMs: number;
  /** The longest a watch stream lasts, jittered below it (--watch-max-duration). */
  watchMaxDurationMs: number;
  headerTimeoutMs: number;
  idleTimeoutMs: number;
  bodyTimeoutMs: number;
  requestTimeoutMs: number;
  maxInflightBodyBytes: number;
  shutdownDelayMs: number;
  shutdownGraceMs: number;
  logLevel: Level;
  /** Serve HTTPS and gRPC over TLS with these files; absent: plaintext. */
  tls?: TlsFiles;
  auth: AuthSettings;
}

/** The HTTP listener's time-outs and budget, as serveHttp() takes them. */
export function httpTimeouts(settings: Settings): {
  headerTimeoutMs: number;
  idleTimeoutMs: number;
  bodyTimeoutMs: number;
  requestTimeoutMs: number;
  maxInflightBodyBytes: number;
} {
  const { headerTimeoutMs, idleTimeoutMs, bodyTimeoutMs, requestTimeoutMs } =
    settings;
  return {
    headerTimeoutMs,
    idleTimeoutMs,
    bodyTimeoutMs,
    requestTimeoutMs,
    maxInflightBodyBytes: settings.maxInflightBodyBytes,
  };
}

/** The certificate files of both listeners, as the flags name them. */
export interface TlsFiles {
  /** PEM certificate chain, the server's certificate first. */
  certFile: string;
  /** PEM private key of that certificate. */
  keyFile: string;
  /** PEM certificates that client certificates are verified against. */
  clientCaFile?: string;
}

/** What the command line asks for. */
export type Invocation =
  | { kind: "run"; settings: Settings; warnings: string[] }
  | { kind: "help"; text: string }
  | { kind: "version" }
  | { kind: "invalid"; problems: string[] };

interface Spec {
  env: string;
  /** A default per mode where dev mode differs. */
  default: string | Record<Mode, string>;
  help: string;
  /** The value's name in --help. */
  value: string;
  multiple?: true;
  /** A switch: `--flag` is `--flag=true`; its variable is true or false. */
  boolean?: true;
}

/**
 * The flags, in --help order. The shutdown delay follows the Kubernetes API
 * server's --shutdown-delay-duration; its default in kubernetes mode covers
 * deploy/'s readiness probe (periodSeconds 5 x failureThreshold 2): by then
 * every endpoint controller and load balancer has stopped sending. A dev
 * server has no load balancer to wait for.
 */
const SPECS = {
  "http-port": {
    env: "CORRAL_HTTP_PORT",
    default: "8888",
    value: "PORT",
    help: "HTTP/JSON port (0 picks a free one)",
  },
  "grpc-port": {
    env: "CORRAL_GRPC_PORT",
    default: "8887",
    value: "PORT",
    help: "gRPC port (0 picks a free one)",
  },
  host: {
    env: "CORRAL_HOST",
    default: "0.0.0.0",
    value: "ADDRESS",
    help: "address both listeners bind",
  },
  orchestrator: {
    env: "CORRAL_ORCHESTRATOR",
    default: "kubernetes",
    value: "MODE",
    help:
      "kubernetes: the cluster of --kubeconfig or the in-cluster service account; embedded: a local Kubernetes API stand-in with a simulated operator",
  },
  kubeconfig: {
    env: "KUBECONFIG",
    default: "",
    value: "FILE",
    help:
      "kubeconfig file (kubernetes mode); without one, the in-cluster service account",
  },
  "write-kubeconfig": {
    env: "CORRAL_WRITE_KUBECONFIG",
    default: "",
    value: "FILE",
    help:
      "embedded mode: write a kubeconfig for the stand-in to this path, for kubectl and other clients",
  },
  "operator-delay": {
    env: "CORRAL_OPERATOR_DELAY",
    default: "2s",
    value: "DURATION",
    help:
      "embedded mode: how long the simulated operator waits before a new cluster turns ready",
  },
  crd: {
    env: "CORRAL_CRDS",
    default: "",
    value: "FILE",
    multiple: true,
    help:
      "embedded mode: a CustomResourceDefinition file (YAML or JSON) to install into the stand-in, which then validates and prunes custom objects as a real API server; repeatable (env: comma-separated)",
  },
  "cluster-group": {
    env: "CORRAL_CLUSTER_GROUP",
    default: "ray.io",
    value: "GROUP",
    help: "API group of the cluster custom resource",
  },
  "cluster-version": {
    env: "CORRAL_CLUSTER_VERSION",
    default: "v1",
    value: "VERSION",
    help: "API version of the cluster custom resource",
  },
  "cluster-plural": {
    env: "CORRAL_CLUSTER_PLURAL",
    default: "rayclusters",
    value: "PLURAL",
    help: "plural resource name of the cluster custom resource",
  },
  namespaces: {
    env: "CORRAL_NAMESPACES",
    default: "",
    value: "LIST",
    help:
      "comma-separated namespaces to serve, for a namespaced install (others get code 7); empty serves all",
  },
  "kuberay-json": {
    env: "CORRAL_KUBERAY_JSON",
    default: "false",
    value: "BOOL",
    boolean: true,
    help:
      "HTTP answers in the JSON KubeRay's API server writes (enums as numbers, unpopulated fields left out) and request fields the API does not know are dropped with a warning instead of refused",
  },
  "max-body-bytes": {
    env: "CORRAL_MAX_BODY_BYTES",
    default: "3Mi",
    value: "SIZE",
    help:
      "largest request body (HTTP) or message (gRPC); larger ones are refused with code 8 (e.g. 3Mi, 512Ki)",
  },
  "max-replicas": {
    env: "CORRAL_MAX_REPLICAS",
    default: String(DEFAULT_LIMITS.maxReplicas),
    value: "N",
    help:
      "most replicas, minReplicas and maxReplicas of one worker group; more is refused with code 3",
  },
  "max-worker-groups": {
    env: "CORRAL_MAX_WORKER_GROUPS",
    default: String(DEFAULT_LIMITS.maxWorkerGroups),
    value: "N",
    help: "most worker groups of one cluster; more is refused with code 3",
  },
  "max-template-cpu": {
    env: "CORRAL_MAX_TEMPLATE_CPU",
    default: String(DEFAULT_LIMITS.maxTemplateCpu),
    value: "N",
    help: "most CPU cores of a compute template; more is refused with code 3",
  },
  "max-template-memory": {
    env: "CORRAL_MAX_TEMPLATE_MEMORY",
    default: String(DEFAULT_LIMITS.maxTemplateMemory),
    value: "GIB",
    help:
      "most memory of a compute template, in GiB; more is refused with code 3",
  },
  "max-template-gpu": {
    env: "CORRAL_MAX_TEMPLATE_GPU",
    default: String(DEFAULT_LIMITS.maxTemplateGpu),
    value: "N",
    help:
      "most GPUs of a compute template (0 allows none); more is refused with code 3",
  },
  "max-map-entries": {
    env: "CORRAL_MAX_MAP_ENTRIES",
    default: String(DEFAULT_LIMITS.maxMapEntries),
    value: "N",
    help:
      "most entries of each map field (envs, engineStartParams); more is refused with code 3",
  },
  "kube-timeout": {
    env: "CORRAL_KUBE_TIMEOUT",
    default: "10s",
    value: "DURATION",
    help:
      "time limit of each Kubernetes API call; past it the request fails with code 4",
  },
  cache: {
    env: "CORRAL_CACHE",
    default: "on",
    value: "on|off",
    help:
      "on: reads come from a watch-backed cache of the clusters, templates and events (list once, then watch); off: every read asks Kubernetes",
  },
  "cache-stale-after": {
    env: "CORRAL_CACHE_STALE_AFTER",
    default: "30s",
    value: "DURATION",
    help:
      "a cache whose watch has been down this long is stale: not ready, and reads go to Kubernetes until it is back",
  },
  "watch-max-duration": {
    env: "CORRAL_WATCH_MAX_DURATION",
    default: "30m",
    value: "DURATION",
    help:
      "the longest a watch stream lasts: each ends, cleanly and after a BOOKMARK to resume from, at a random time between half this and this, so that clients reconnect and are authorized again",
  },
  "header-timeout": {
    env: "CORRAL_HEADER_TIMEOUT",
    default: "10s",
    value: "DURATION",
    help: "an HTTP client must send a request's headers within this",
  },
  "idle-timeout": {
    env: "CORRAL_IDLE_TIMEOUT",
    default: "60s",
    value: "DURATION",
    help: "an HTTP connection without traffic for this long is closed",
  },
  "body-timeout": {
    env: "CORRAL_BODY_TIMEOUT",
    default: "30s",
    value: "DURATION",
    help:
      "an HTTP request's body must arrive in full within this of its headers; past it: 408 code 4, connection closed",
  },
  "request-timeout": {
    env: "CORRAL_REQUEST_TIMEOUT",
    default: "60s",
    value: "DURATION",
    help:
      "longest an HTTP request may take, from its headers to the end of its answer; past it: 504 code 4",
  },
  "max-inflight-body-bytes": {
    env: "CORRAL_MAX_INFLIGHT_BODY_BYTES",
    default: "64Mi",
    value: "SIZE",
    help:
      "request bodies being received at once, in bytes (by Content-Length, or as chunks arrive); past it new bodies get 429 code 8 with Retry-After",
  },
  "shutdown-delay": {
    env: "CORRAL_SHUTDOWN_DELAY",
    default: { kubernetes: "10s", embedded: "0s" },
    value: "DURATION",
    help:
      "on SIGTERM or SIGINT, how long to keep serving while reporting not ready, so load balancers stop sending before the listeners close",
  },
  "shutdown-grace": {
    env: "CORRAL_SHUTDOWN_GRACE",
    default: "20s",
    value: "DURATION",
    help:
      "after the shutdown delay, how long requests in flight may take to finish",
  },
  "tls-cert-file": {
    env: "CORRAL_TLS_CERT_FILE",
    default: "",
    value: "FILE",
    help:
      "PEM certificate (chain) for HTTPS and gRPC over TLS on both ports, with --tls-private-key-file; re-read when it changes. Without it both ports are plaintext",
  },
  "tls-private-key-file": {
    env: "CORRAL_TLS_PRIVATE_KEY_FILE",
    default: "",
    value: "FILE",
    help: "PEM private key of --tls-cert-file",
  },
  "client-ca-file": {
    env: "CORRAL_CLIENT_CA_FILE",
    default: "",
    value: "FILE",
    help:
      "with TLS: PEM certificate authorities to verify client certificates against; a client may present one (a verified one identifies the caller), or none",
  },
  "token-auth-file": {
    env: "CORRAL_TOKEN_AUTH_FILE",
    default: "",
    value: "FILE",
    help:
      'static bearer tokens in the Kubernetes API server\'s CSV format (token,user,uid,"group1,group2"); re-read when it changes',
  },
  "oidc-issuer-url": {
    env: "CORRAL_OIDC_ISSUER_URL",
    default: "",
    value: "URL",
    help:
      "accept OIDC ID tokens of this issuer (https://), found by discovery; needs --oidc-client-id",
  },
  "oidc-client-id": {
    env: "CORRAL_OIDC_CLIENT_ID",
    default: "",
    value: "ID",
    help: "the audience an ID token must be issued for",
  },
  "oidc-ca-file": {
    env: "CORRAL_OIDC_CA_FILE",
    default: "",
    value: "FILE",
    help: "PEM certificate authorities trusted for the issuer's TLS",
  },
  "oidc-username-claim": {
    env: "CORRAL_OIDC_USERNAME_CLAIM",
    default: "sub",
    value: "CLAIM",
    help: "the ID token claim that is the username",
  },
  "oidc-groups-claim": {
    env: "CORRAL_OIDC_GROUPS_CLAIM",
    default: "groups",
    value: "CLAIM",
    help: "the ID token claim that lists the user's groups",
  },
  "oidc-username-prefix": {
    env: "CORRAL_OIDC_USERNAME_PREFIX",
    default: "",
    value: "PREFIX",
    help:
      'put before every OIDC username (e.g. oidc:); by default the issuer URL and "#", unless the claim is email; "-" for none',
  },
  "oidc-groups-prefix": {
    env: "CORRAL_OIDC_GROUPS_PREFIX",
    default: "",
    value: "PREFIX",
    help: "put before every OIDC group (e.g. oidc:); none by default",
  },
  "auth-failure-rate": {
    env: "CORRAL_AUTH_FAILURE_RATE",
    default: "10",
    value: "N",
    help: "failed authentications per second per source address; 0: no limit",
  },
  "auth-failure-burst": {
    env: "CORRAL_AUTH_FAILURE_BURST",
    default: "20",
    value: "N",
    help: "failed authentications a source address may make in a row",
  },
  "authentication-token-review": {
    env: "CORRAL_AUTHENTICATION_TOKEN_REVIEW",
    default: "false",
    value: "BOOL",
    boolean: true,
    help:
      "ask the Kubernetes API server (TokenReview) about tokens no other authenticator knows: service-account tokens of in-cluster workloads",
  },
  "allow-anonymous": {
    env: "CORRAL_ALLOW_ANONYMOUS",
    default: "false",
    value: "BOOL",
    boolean: true,
    help:
      "serve requests without credentials as system:anonymous; embedded mode does so when no authenticator is configured",
  },
  "authorization-policy-file": {
    env: "CORRAL_AUTHORIZATION_POLICY_FILE",
    default: "",
    value: "FILE",
    help:
      "YAML rules of who may do what where (deny unless a rule grants); re-read when it changes. Without it every authenticated caller may do everything",
  },
  "audit-log-path": {
    env: "CORRAL_AUDIT_LOG_PATH",
    default: "",
    value: "FILE",
    help:
      "append the audit trail (one JSON line per mutating or denied request) to this file; standard error by default",
  },
  "metrics-require-auth": {
    env: "CORRAL_METRICS_REQUIRE_AUTH",
    default: "false",
    value: "BOOL",
    boolean: true,
    help: "/metrics needs credentials, as the API does",
  },
  "log-level": {
    env: "CORRAL_LOG_LEVEL",
    default: "info",
    value: "LEVEL",
    help: LEVELS.join(", "),
  },
} as const satisfies Record<string, Spec>;

type Flag = keyof typeof SPECS;
const FLAGS = Object.keys(SPECS) as Flag[];

/** The environment variables the settings are read from. */
export const ENVIRONMENT: readonly string[] = FLAGS.map((f) => SPECS[f].env);
/** Flags that take no value. */
const SWITCHES = ["help", "version"] as const;

/** The environment as main.ts hands it in. */
export type Environment = Readonly<Record<string, string | undefined>>;

/**
 * Reads the command line and the environment: flags win over environment
 * variables, which win over defaults. Pure: the same input, the same answer.
 */
export function parseSettings(args: string[], env: Environment): Invocation {
  const problems: string[] = [];
  const given = readFlags(args, problems);
  if (given.switches.has("help")) {
    return { kind: "help", text: usage(resolve(given.values, env)) };
  }
  if (given.switches.has("version")) return { kind: "version" };
  const raw = resolve(given.values, env);
  const settings = checkSettings(raw, problems);
  if (problems.length > 0) return { kind: "invalid", problems };
  const warnings: string[] = [];
  if (settings.orchestrator === "kubernetes") {
    for (const flag of ["crd", "write-kubeconfig"] as const) {
      if (raw.values[flag]) {
        warnings.push(`Ignored --${flag}: it applies to embedded mode only`);
      }
    }
  }
  if (settings.orchestrator === "kubernetes" && settings.auth.anonymous) {
    warnings.push(
      "Serving requests without credentials as system:anonymous (--allow-anonymous)",
    );
  }
  return { kind: "run", settings, warnings };
}

interface GivenFlags {
  values: Partial<Record<Flag, string>>;
  switches: Set<string>;
}

function readFlags(args: string[], problems: string[]): GivenFlags {
  const values: Partial<Record<Flag, string>> = {};
  const switches = new Set<string>();
  const { tokens } = parseArgs({
    // `deno task dev -- --flag` passes the "--" through: it separates
    // nothing here.
    args: args.filter((arg) => arg !== "--"),
    strict: false,
    allowPositionals: true,
    tokens: true,
    options: {
      ...Object.fromEntries(SWITCHES.map((s) => [s, { type: "boolean" }])),
      ...Object.fromEntries(
        FLAGS.map((flag) => [flag, {
          type: "boolean" in SPECS[flag]
            ? "boolean" as const
            : "string" as const,
        }]),
      ),
    },
  });
  // The value after an unknown flag belongs to it, not to the positionals.
  let unknownFlagValue = -1;
  for (const token of tokens) {
    if (token.kind === "positional") {
      if (token.index === unknownFlagValue) continue;
      problems.push(
        `Unexpected argument "${token.value}": flags start with --`,
      );
      continue;
    }
    if (token.kind !== "option") continue;
    const name = token.name;
    if ((SWITCHES as readonly string[]).includes(name)) {
      switches.add(name);
      continue;
    }
    if (!(name in SPECS)) {
      if (token.value === undefined) unknownFlagValue = token.index + 1;
      const guess = closest(name, [...FLAGS, ...SWITCHES]);
      problems.push(
        `Unknown flag ${token.rawName}${
          guess ? `: did you mean --${guess}?` : ""
        }`,
      );
      continue;
    }
    const flag = name as Flag;
    if ("boolean" in SPECS[flag]) {
      values[flag] = token.value ?? "true";
      continue;
    }
    if (token.value === undefined) {
      problems.push(`--${flag} needs a value (${SPECS[flag].value})`);
      continue;
    }
    // A repeatable flag keeps its environment variable's form: a,b.
    values[flag] = "multiple" in SPECS[flag] && values[flag]
      ? `${values[flag]},${token.value}`
      : token.value;
  }
  return { values, switches };
}

interface RawSettings {
  mode: string;
  values: Record<Flag, string>;
  /** Where each value came from, for --help. */
  sources: Record<Flag, "flag" | "env" | "default">;
}

function resolve(
  flags: Partial<Record<Flag, string>>,
  env: Environment,
): RawSettings {
  const pick = (flag: Flag, mode: string) => {
    if (flags[flag] !== undefined) return [flags[flag], "flag"] as const;
    const fromEnv = env[SPECS[flag].env];
    if (fromEnv !== undefined) return [fromEnv, "env"] as const;
    return [defaultOf(flag, mode), "default"] as const;
  };
  const [mode] = pick("orchestrator", "kubernetes");
  const values = {} as Record<Flag, string>;
  const sources = {} as RawSettings["sources"];
  for (const flag of FLAGS) [values[flag], sources[flag]] = pick(flag, mode);
  return { mode, values, sources };
}

function defaultOf(flag: Flag, mode: string): string {
  const value: Spec["default"] = SPECS[flag].default;
  if (typeof value === "string") return value;
  return value[mode as Mode] ?? value.kubernetes;
}

function checkSettings(raw: RawSettings, problems: string[]): Settings {
  const v = raw.values;
  const check = <T>(flag: Flag, parse: (text: string) => T, fallback: T) => {
    try {
      return parse(v[flag].trim());
    } catch (error) {
      const source = raw.sources[flag] === "env"
        ? ` (from ${SPECS[flag].env})`
        : "";
      problems.push(`--${flag}${source} ${(error as Error).message}`);
      return fallback;
    }
  };
  return {
    host: check("host", nonEmpty, ""),
    httpPort: check("http-port", port, 0),
    grpcPort: check("grpc-port", port, 0),
    orchestrator: check("orchestrator", oneOf(MODES), "kubernetes"),
    kubeconfig: v.kubeconfig.trim(),
    writeKubeconfig: v["write-kubeconfig"].trim(),
    operatorDelayMs: check("operator-delay", duration, 0),
    crds: list(v.crd),
    cluster: {
      group: check("cluster-group", nonEmpty, ""),
      version: check("cluster-version", nonEmpty, ""),
      plural: check("cluster-plural", nonEmpty, ""),
    },
    namespaces: check("namespaces", namespaces, []),
    kuberayJson: check("kuberay-json", boolean, false),
    maxBodyBytes: check("max-body-bytes", bytes, 0),
    limits: {
      maxReplicas: check("max-replicas", count(1), 0),
      maxWorkerGroups: check("max-worker-groups", count(1), 0),
      maxTemplateCpu: check("max-template-cpu", count(1), 0),
      maxTemplateMemory: check("max-template-memory", count(1), 0),
      maxTemplateGpu: check("max-template-gpu", count(0), 0),
      maxMapEntries: check("max-map-entries", count(1), 0),
    },
    kubeTimeoutMs: check("kube-timeout", positive(duration), 0),
    cache: check("cache", oneOf(["on", "off"] as const), "on") === "on",
    cacheStaleAfterMs: check("cache-stale-after", positive(duration), 0),
    watchMaxDurationMs: check("watch-max-duration", positive(duration), 0),
    headerTimeoutMs: check("header-timeout", positive(duration), 0),
    idleTimeoutMs: check("idle-timeout", positive(duration), 0),
    bodyTimeoutMs: check("body-timeout", positive(duration), 0),
    requestTimeoutMs: check("request-timeout", positive(duration), 0),
    maxInflightBodyBytes: check("max-inflight-body-bytes", bytes, 0),
    shutdownDelayMs: check("shutdown-delay", duration, 0),
    shutdownGraceMs: check("shutdown-grace", duration, 0),
    logLevel: check("log-level", oneOf(LEVELS), "info"),
    ...tlsFiles(raw, problems),
    auth: authSettings(raw, problems),
  };
}

/**
 * Kubernetes mode never serves everyone unless told to in so many words;
 * embedded mode (loopback development) does when no authenticator is set.
 */
function authSettings(raw: RawSettings, problems: string[]): AuthSettings {
  const v = raw.values;
  const flag = (name: Flag) => v[name].trim();
  const bool = (name: Flag) => {
    try {
      return boolean(flag(name));
    } catch (error) {
      problems.push(`--${name} ${(error as Error).message}`);
      return false;
    }
  };
  const checked = (name: Flag, parse: (text: string) => number) => {
    try {
      return parse(flag(name));
    } catch (error) {
      problems.push(`--${name} ${(error as Error).message}`);
      return 0;
    }
  };
  const issuerUrl = flag("oidc-issuer-url");
  const clientId = flag("oidc-client-id");
  if (issuerUrl) {
    if (!/^https:\/\/[^\s/?#]+/.test(issuerUrl) || /[?#]/.test(issuerUrl)) {
      problems.push(
        `--oidc-issuer-url must be an https:// URL without query or fragment, got "${issuerUrl}"`,
      );
    }
    if (!clientId) problems.push("--oidc-issuer-url needs --oidc-client-id");
  } else {
    for (
      const name of [
        "oidc-client-id",
        "oidc-ca-file",
        "oidc-username-prefix",
        "oidc-groups-prefix",
      ] as const
    ) {
      if (flag(name)) problems.push(`--${name} needs --oidc-issuer-url`);
    }
  }
  const auth: AuthSettings = {
    tokenAuthFile: flag("token-auth-file"),
    ...(issuerUrl
      ? {
        oidc: {
          issuerUrl,
          clientId,
          caFile: flag("oidc-ca-file"),
          usernameClaim: flag("oidc-username-claim") || "sub",
          groupsClaim: flag("oidc-groups-claim") || "groups",
          usernamePrefix: v["oidc-username-prefix"],
          groupsPrefix: v["oidc-groups-prefix"],
        },
      }
      : {}),
    tokenReview: bool("authentication-token-review"),
    anonymous: bool("allow-anonymous"),
    policyFile: flag("authorization-policy-file"),
    auditLogPath: flag("audit-log-path"),
    metricsRequireAuth: bool("metrics-require-auth"),
    failureLimit: {
      perSecond: checked("auth-failure-rate", count(0)),
      burst: checked("auth-failure-burst", count(1)),
    },
  };
  const authenticates = auth.tokenAuthFile !== "" || issuerUrl !== "" ||
    auth.tokenReview || flag("client-ca-file") !== "";
  if (!authenticates) {
    if (raw.mode === "embedded") {
      auth.anonymous = true;
    } else if (!auth.anonymous) {
      problems.push(
        "Kubernetes mode needs an authenticator: --token-auth-file, --oidc-issuer-url, --authentication-token-review or --client-ca-file; or --allow-anonymous to serve every caller as system:anonymous",
      );
    }
  }
  return auth;
}

/**
 * Both TLS files or neither, and a client CA only with them. Only the names
 * are checked here: main.ts reads the files, once, before binding.
 */
function tlsFiles(raw: RawSettings, problems: string[]): { tls?: TlsFiles } {
  const certFile = raw.values["tls-cert-file"].trim();
  const keyFile = raw.values["tls-private-key-file"].trim();
  const clientCaFile = raw.values["client-ca-file"].trim();
  if (certFile && !keyFile) {
    problems.push("--tls-cert-file needs --tls-private-key-file");
  } else if (keyFile && !certFile) {
    problems.push("--tls-private-key-file needs --tls-cert-file");
  } else if (clientCaFile && !certFile) {
    problems.push(
      "--client-ca-file needs --tls-cert-file and --tls-private-key-file: client certificates are only sent over TLS",
    );
  }
  if (!certFile || !keyFile) return {};
  return {
    tls: { certFile, keyFile, ...(clientCaFile ? { clientCaFile } : {}) },
  };
}

/**
 * --help: each flag with its environment variable, its default, and the
 * value this command line would run with where that differs (so --help
 * under `deno task dev` shows dev mode's settings).
 */
function usage(raw: RawSettings): string {
  const pad = 30;
  const lines = [
    "Usage: deno task start [-- OPTIONS]   (deno task dev for embedded mode)",
    "",
    "Options (each also read from the environment variable shown):",
  ];
  for (const flag of FLAGS) {
    const spec: Spec = SPECS[flag];
    const facts = [`env ${spec.env}`];
    if (typeof spec.default === "string") {
      if (spec.default) facts.push(`default ${spec.default}`);
    } else {
      facts.push(
        `default ${spec.default.kubernetes}, ${spec.default.embedded} in embedded mode`,
      );
    }
    const source = raw.sources[flag];
    const now = raw.values[flag];
    if (source !== "default" || now !== defaultOf(flag, "kubernetes")) {
      facts.push(
        `now ${now || '""'} (${
          source === "env"
            ? spec.env
            : source === "flag"
            ? `--${flag}`
            : `${raw.mode} mode`
        })`,
      );
    }
    lines.push(
      `  --${flag} ${spec.value}`.padEnd(pad) + spec.help,
      "".padEnd(pad) + facts.join(", "),
    );
  }
  lines.push(
    "  --version".padEnd(pad) + "print the version and exit",
    "  --help".padEnd(pad) + "show this help",
  );
  return lines.join("\n");
}

export { bytes, duration };
