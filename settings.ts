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
  boolean,
  bytes,
  closest,
  count,
  duration,
  list,
  listOf,
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
  SPECS,
} from "./settings_flags.ts";

import { authSettings } from "./settings_auth.ts";
import {
  type DashboardProxySettings,
  dashboardProxySettings,
} from "./settings_dashboard.ts";
import { type ExpirySettings, expirySettings } from "./settings_expiry.ts";
import {
  checkFlag,
  type Environment,
  type RawSettings,
  resolve,
} from "./settings_raw.ts";
import { type TlsFiles, tlsFiles } from "./settings_tls.ts";
import { usage } from "./settings_usage.ts";

export { ENVIRONMENT, type Mode };
export type { DashboardProxySettings, Environment, ExpirySettings, TlsFiles };

/** Every setting, typed and checked. Durations are in milliseconds. */
export interface Settings {
  host: string;
  /** What browsers may send: Host names, CORS origins. */
  browsers: BrowserSettings;
  httpPort: number;
  grpcPort: number;
  /** The second gRPC port, KubeRay's current numbering; unset: none. */
  kuberayGrpcPort?: number;
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

/** What the command line asks for. */
export type Invocation =
  | { kind: "run"; settings: Settings; warnings: string[] }
  | { kind: "help"; text: string }
  | { kind: "version" }
  | { kind: "invalid"; problems: string[] };

/** Flags that take no value. */
const SWITCHES = ["help", "version"] as const;

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
    ...(v["kuberay-grpc-port"].trim() === "" ? {} : {
      kuberayGrpcPort: check("kuberay-grpc-port", port, 0),
    }),
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

export { bytes, duration };
