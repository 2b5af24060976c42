/**
 * Corral's settings: every flag, its environment variable and its default,
 * parsed by one pure function that returns typed, checked values or every
 * problem at once (the Kubernetes API server's `Options.Validate() []error`).
 * Nothing here reads the environment or opens a port: main.ts hands in
 * `Deno.args` and the environment, and binds nothing until this has passed.
 */
import { parseArgs } from "node:util";
import type { AuthSettings } from "./api/auth/access.ts";
import type { FairUseSettings } from "./api/auth/rate_limit.ts";
import {
  allowedHostPattern,
  type BrowserSettings,
  corsOrigin,
} from "./api/http/browser_guard.ts";
import {
  type Level,
  LEVELS,
  LOG_FORMATS,
  type LogFormatSetting,
} from "./api/log.ts";
import type { Limits } from "./domain/limits.ts";
import {
  CLUSTER_ACCESS_MODES,
  type ClusterAccessMode,
} from "./domain/dashboard_ports.ts";
import {
  boolean,
  bytes,
  closest,
  count,
  duration,
  list,
  listOf,
  namespaceOrNone,
  namespaces,
  nonEmpty,
  oneOf,
  port,
  positive,
  someOf,
} from "./settings_values.ts";
import {
  ENVIRONMENT,
  type Flag,
  FLAGS,
  type Mode,
  MODES,
  type Spec,
  SPECS,
} from "./settings_flags.ts";

export { ENVIRONMENT, type Mode };

/** Every setting, typed and checked. Durations are in milliseconds. */
export interface Settings {
  host: string;
  /** What browsers may send: Host names, CORS origins. */
  browsers: BrowserSettings;
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
  /** Lookups a second of names the cache misses (--cache-miss-qps). */
  cacheMissQps: number;
  /** The API server's BOOKMARK interval; a watch silent twice this is restarted. */
  cacheBookmarkIntervalMs: number;
  /** The longest a watch stream lasts, jittered below it (--watch-max-duration). */
  watchMaxDurationMs: number;
  /** Each caller's request rate and open watches (--rate-limit and co). */
  fairUse: FairUseSettings;
  /** The dashboard proxy: how it reaches clusters, its bounds, its cookies. */
  dashboardProxy: DashboardProxySettings;
  /** Cluster expiry and its leader election (--expiry-*, --leader-elect*). */
  expiry: ExpirySettings;
  headerTimeoutMs: number;
  idleTimeoutMs: number;
  bodyTimeoutMs: number;
  requestTimeoutMs: number;
  maxInflightBodyBytes: number;
  shutdownDelayMs: number;
  shutdownGraceMs: number;
  logLevel: Level;
  /** json, text, or auto (text on a terminal): resolved by main.ts. */
  logFormat: LogFormatSetting;
  /** Serve HTTPS and gRPC over TLS with these files; absent: plaintext. */
  tls?: TlsFiles;
  auth: AuthSettings;
}

/** The dashboard proxy's settings (--cluster-access, --dashboard-*). */
export interface ExpirySettings {
  warningMs: number;
  intervalMs: number;
  /** False: this replica always acts. */
  leaderElect: boolean;
  leaseDurationMs: number;
  renewDeadlineMs: number;
  retryPeriodMs: number;
  /** "": Corral's own namespace, else default. */
  leaseNamespace: string;
  identity: string;
}

export interface DashboardProxySettings {
  clusterAccess: ClusterAccessMode;
  timeoutMs: number;
  maxRequestBytes: number;
  maxResponseBytes: number;
  sessionTtlMs: number;
  /** The key dashboard cookies are sealed with; "": one made at start. */
  sessionKeyFile: string;
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

/**
 * One flag's value parsed, or `fallback` with the problem recorded, naming
 * the environment variable when the value came from there.
 */
function checkFlag<T>(
  raw: RawSettings,
  problems: string[],
  flag: Flag,
  parse: (text: string) => T,
  fallback: T,
): T {
  try {
    return parse(raw.values[flag].trim());
  } catch (error) {
    const source = raw.sources[flag] === "env"
      ? ` (from ${SPECS[flag].env})`
      : "";
    problems.push(`--${flag}${source} ${(error as Error).message}`);
    return fallback;
  }
}

function checkSettings(raw: RawSettings, problems: string[]): Settings {
  const v = raw.values;
  const check = <T>(flag: Flag, parse: (text: string) => T, fallback: T) =>
    checkFlag(raw, problems, flag, parse, fallback);
  return {
    host: check("host", nonEmpty, ""),
    browsers: {
      allowedHosts: check("allowed-hosts", someOf(allowedHostPattern), []),
      corsAllowedOrigins: check("cors-allowed-origins", listOf(corsOrigin), []),
    },
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
    cacheMissQps: check("cache-miss-qps", count(0), 0),
    cacheBookmarkIntervalMs: check(
      "cache-bookmark-interval",
      positive(duration),
      0,
    ),
    watchMaxDurationMs: check("watch-max-duration", positive(duration), 0),
    fairUse: {
      rate: {
        perSecond: check("rate-limit", count(0), 0),
        burst: check("rate-limit-burst", count(1), 0),
      },
      maxStreams: check("max-watches-per-user", count(0), 0),
      anonymous: check("rate-limit-anonymous", boolean, false),
    },
    dashboardProxy: dashboardProxySettings(raw, problems),
    expiry: expirySettings(raw, problems),
    headerTimeoutMs: check("header-timeout", positive(duration), 0),
    idleTimeoutMs: check("idle-timeout", positive(duration), 0),
    bodyTimeoutMs: check("body-timeout", positive(duration), 0),
    requestTimeoutMs: check("request-timeout", positive(duration), 0),
    maxInflightBodyBytes: check("max-inflight-body-bytes", bytes, 0),
    shutdownDelayMs: check("shutdown-delay", duration, 0),
    shutdownGraceMs: check("shutdown-grace", duration, 0),
    logLevel: check("log-level", oneOf(LEVELS), "info"),
    logFormat: check("log-format", oneOf(LOG_FORMATS), "auto"),
    ...tlsFiles(raw, problems),
    auth: authSettings(raw, problems),
  };
}

/**
 * The dashboard proxy's flags. --cluster-access defaults to direct where
 * Corral runs in a pod (kubernetes mode without a kubeconfig: the in-cluster
 * service account), where the head services' names resolve; elsewhere, dev
 * mode included, to the API server's service proxy, which reaches them from
 * anywhere Corral reaches the API.
 */
function dashboardProxySettings(
  raw: RawSettings,
  problems: string[],
): DashboardProxySettings {
  const check = <T>(flag: Flag, parse: (text: string) => T, fallback: T) =>
    checkFlag(raw, problems, flag, parse, fallback);
  const inPod = raw.mode === "kubernetes" &&
    raw.values.kubeconfig.trim() === "";
  const asked = raw.values["cluster-access"].trim();
  return {
    clusterAccess: asked === ""
      ? (inPod ? "direct" : "apiserver-proxy")
      : check("cluster-access", oneOf(CLUSTER_ACCESS_MODES), "direct"),
    timeoutMs: check("dashboard-proxy-timeout", positive(duration), 0),
    maxRequestBytes: check("dashboard-proxy-max-request-bytes", bytes, 0),
    maxResponseBytes: check("dashboard-proxy-max-response-bytes", bytes, 0),
    sessionTtlMs: check("dashboard-session-ttl", positive(duration), 0),
    sessionKeyFile: raw.values["dashboard-session-key-file"].trim(),
  };
}

/**
 * The expiry's flags; the leader election's three durations checked
 * together, as client-go's NewLeaderElector does.
 */
function expirySettings(raw: RawSettings, problems: string[]): ExpirySettings {
  const check = <T>(flag: Flag, parse: (text: string) => T, fallback: T) =>
    checkFlag(raw, problems, flag, parse, fallback);
  const settings = {
    warningMs: check("expiry-warning", duration, 0),
    intervalMs: check("expiry-interval", positive(duration), 0),
    leaderElect: check("leader-elect", boolean, false),
    leaseDurationMs: check(
      "leader-elect-lease-duration",
      positive(duration),
      0,
    ),
    renewDeadlineMs: check(
      "leader-elect-renew-deadline",
      positive(duration),
      0,
    ),
    retryPeriodMs: check("leader-elect-retry-period", positive(duration), 0),
    leaseNamespace: check("leader-elect-namespace", namespaceOrNone, ""),
    identity: raw.values["leader-elect-identity"].trim(),
  };
  if (
    settings.leaderElect && settings.leaseDurationMs > 0 &&
    settings.renewDeadlineMs > 0 && settings.retryPeriodMs > 0 &&
    !(settings.retryPeriodMs < settings.renewDeadlineMs &&
      settings.renewDeadlineMs < settings.leaseDurationMs)
  ) {
    problems.push(
      "--leader-elect-renew-deadline: must be shorter than --leader-elect-lease-duration and longer than --leader-elect-retry-period",
    );
  }
  return settings;
}

/**
 * Kubernetes mode never serves everyone unless told to in so many words;
 * embedded mode (loopback development) does when no authenticator is set.
 */
function authSettings(raw: RawSettings, problems: string[]): AuthSettings {
  const v = raw.values;
  const flag = (name: Flag) => v[name].trim();
  const check = <T>(name: Flag, parse: (text: string) => T, fallback: T) =>
    checkFlag(raw, problems, name, parse, fallback);
  const bool = (name: Flag) => check(name, boolean, false);
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
          usernameClaim: flag("oidc-username-claim"),
          groupsClaim: flag("oidc-groups-claim"),
          usernamePrefix: v["oidc-username-prefix"],
          groupsPrefix: v["oidc-groups-prefix"],
        },
      }
      : {}),
    tokenReview: bool("authentication-token-review"),
    anonymous: bool("allow-anonymous"),
    policyFile: flag("authorization-policy-file"),
    ownNamespace: check("own-namespace", namespaceOrNone, ""),
    auditLogPath: flag("audit-log-path"),
    metricsRequireAuth: bool("metrics-require-auth"),
    failureLimit: {
      perSecond: check("auth-failure-rate", count(0), 0),
      burst: check("auth-failure-burst", count(1), 0),
    },
  };
  const authenticates = auth.tokenAuthFile !== "" || issuerUrl !== "" ||
    auth.tokenReview || flag("client-ca-file") !== "";
  if (!authenticates) {
    if (raw.mode === "embedded") {
      auth.anonymous = true;
    } else if (!auth.anonymous && raw.mode === "kubernetes") {
      // An unknown --orchestrator is reported on its own: whether it needs
      // an authenticator depends on the mode meant.
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
