/**
 * Who may do what: the --authorization-policy-file, a YAML list of rules in
 * the spirit of kube-apiserver's ABAC policy file, re-read when it changes
 * (a new file that does not validate keeps the previous policy; see
 * watched_file.ts).
 *
 *     rules:
 *       - users: ["alice"]             # and/or groups: ["team-a"]
 *         namespaces: ["team-a"]       # "*" = every namespace
 *         resources: ["*"]             # clusters, computetemplates
 *         verbs: ["*"]                 # get, list, watch, create, update, delete
 *         allowHostPath: false         # HOST_PATH volumes; false when absent
 *         images: ["rayproject/ray:*"] # images it allows; any when absent
 *         owners: only                 # update/delete only one's own clusters
 *         serviceAccounts: ["ray"]     # and the other workload allow-lists
 *                                      # of admission.ts (WorkloadGrants)
 *
 *     rateLimits:                    # optional (rate_limit.ts)
 *       - groups: ["batch"]          # the first entry naming one of the
 *         qps: 200                   # caller's groups sets its rate
 *         burst: 400                 # (default: twice qps); qps 0: no limit
 *
 *     quotas:                        # optional (quota.ts)
 *       - namespaces: ["team-a"]     # maxClusters, maxWorkers, cpu, gpu,
 *         gpu: 8                     # memory (GiB); users/groups: per user
 *
 * Everything is denied unless a rule grants it. A rule grants a request when
 * it names the user or one of the user's groups, and its namespaces,
 * resources and verbs each contain the request's (or "*"). There is no "*"
 * for users and groups: the group system:authenticated names every
 * authenticated caller, system:unauthenticated the anonymous ones.
 *
 * Namespaces: "*" covers every namespace but the reserved ones (kube-* and
 * Corral's own), which only a rule naming them grants. Verbs: "*" covers
 * every verb but `admin` and `proxy` (a cluster's dashboard through Corral),
 * which only a rule naming them grants.
 *
 * Workload checks (admission.ts: what the pods may carry) are made on the
 * RayCluster about to be written, against the rules that granted the
 * request. When several rules grant it, the workload is allowed
 * if ANY ONE of them allows all of it: its host paths and every one of its
 * images. Combining rules (host paths from one, images from another) would
 * allow what no rule says.
 *
 * Image patterns are whole-string globs in which `*` matches any run of
 * characters, `/` and `:` included (as Kyverno's and Gatekeeper's image
 * wildcards): `rayproject/ray:*` matches `rayproject/ray:2.9.0` and
 * `rayproject/ray:2.9.0@sha256:...`, and not `evil/rayproject/ray:2.9.0`
 * (the match is anchored at both ends). Write the separator: `rayproject/ray*`
 * also matches `rayproject/ray-evil`. Images are compared as written, not
 * normalised: `docker.io/rayproject/ray:2.9.0` does not match
 * `rayproject/ray:*`, which can only deny, never allow, too much.
 */

import { LineCounter, parse as parseYaml, parseDocument } from "yaml";
import { Code, ServiceError } from "../../domain/errors.ts";
import type { FieldViolation } from "../../domain/errors.ts";
import type { Logger } from "../../domain/log.ts";
import { AUTHENTICATED_GROUP } from "./identity.ts";
import type { Identity } from "./identity.ts";
import { watchFile } from "./watched_file.ts";
import {
  anyGrants,
  defaultGrants,
  type Refusal,
  type TolerationGrant,
  type Workload,
  type WorkloadGrants,
  workloadRefusals,
} from "./admission.ts";
import { type GroupRateLimit, rateLimitsOf } from "./rate_limit.ts";
import { type Quota, quotasOf } from "./quota.ts";
import { type ExpiryRule, expiryRulesOf } from "./expiry_policy.ts";
import { type QueueRule, queueRulesOf } from "./queue_policy.ts";

/** The verbs of the API; new ones are added here. */
export const VERBS = [
  "get",
  "list",
  "watch",
  "create",
  "update",
  "delete",
  // Not an RPC's verb: with `owners: only`, updating and deleting the
  // clusters of others. Only a rule that names it grants it ("*" does not).
  "admin",
  // Not an RPC's verb: reaching a cluster's Ray dashboard through Corral
  // (api/http/dashboard_proxy.ts). The dashboard runs code in the cluster,
  // as the pods' service account, so it is never implied: "*" does not
  // grant it, only a rule that names it does (unlike Kubernetes, whose "*"
  // covers every verb).
  "proxy",
] as const;
export type Verb = typeof VERBS[number];

export const RESOURCES = [
  "clusters",
  "computetemplates",
  "jobs",
  "services",
  // GetQuotaUsage (quota.ts): `get` on it reads a namespace's usage.
  "quotas",
] as const;
export type Resource = typeof RESOURCES[number];

export interface Rule {
  users: string[];
  groups: string[];
  /** Namespace names, or ["*"]. */
  namespaces: string[];
  /** Resource names, or ["*"]. */
  resources: string[];
  /** Verbs, or ["*"]. */
  verbs: string[];
  allowHostPath: boolean;
  /** Image patterns; undefined allows any image. */
  images?: string[];
  /**
   * What the pods may carry beyond the safe defaults (admission.ts); a key
   * absent keeps its default. Absent when the rule says nothing of it.
   */
  workload?: Partial<WorkloadGrants>;
  /**
   * "only": of the clusters this rule grants, a caller may update or
   * delete only those it owns, unless a rule grants it `admin` there.
   */
  owners?: "only";
}

export interface AuthorizationRequest {
  identity: Identity;
  verb: Verb;
  resource: Resource;
  /** The namespace; undefined asks for every namespace at once. */
  namespace?: string;
}

/** Short words for why a request was denied: a metrics and audit label. */
export type DenialReason =
  | "no-rule"
  | "host-path"
  | "image"
  | "workload"
  | "owner";

export interface Decision {
  allowed: boolean;
  /** The rules that grant the request (empty when denied). */
  rules: Rule[];
  reason?: DenialReason;
}

export interface Policy {
  authorize(request: AuthorizationRequest): Decision;
  /**
   * The namespaces in which the identity may do `verb` on `resource`: "*"
   * for all, or a sorted list (empty for none), to filter a list across
   * namespaces.
   */
  namespacesFor(
    identity: Identity,
    verb: Verb,
    resource: Resource,
  ): "*" | string[];
  /** The rules in force. */
  rules(): Rule[];
  /** The `rateLimits:` in force, in file order; absent or [] for none. */
  rateLimits?(): readonly GroupRateLimit[];
  /** The `quotas:` in force, in file order; absent or [] for none. */
  quotas?(): readonly Quota[];
  /** The `expiry:` entries in force, in file order; absent or [] for none. */
  expiry?(): readonly ExpiryRule[];
  /** The `queues:` entries in force, in file order; absent or [] for none. */
  queues?(): readonly QueueRule[];
}

// ---------------------------------------------------------------------------
// Deciding

function ruleApplies(rule: Rule, identity: Identity): boolean {
  return rule.users.includes(identity.user) ||
    rule.groups.some((g) => identity.groups.includes(g));
}

function covers(list: string[], value: string): boolean {
  return list.includes("*") || list.includes(value);
}

/** Verbs "*" does not cover: a rule grants them only by naming them. */
const EXPLICIT_VERBS: ReadonlySet<Verb> = new Set<Verb>(["admin", "proxy"]);

/** "*" covers every verb but `admin` and `proxy`, which a rule must name. */
function coversVerb(list: string[], verb: Verb): boolean {
  return EXPLICIT_VERBS.has(verb) ? list.includes(verb) : covers(list, verb);
}

/**
 * Whether a namespace is reserved: `kube-*` and Corral's own. "*" does not
 * cover them; only a rule that names one grants it. Corral's service
 * account may write what it runs there, and the control plane runs in
 * kube-system: a cluster there runs with their service accounts.
 */
function reservedNamespace(
  namespace: string,
  ownNamespace = "",
): boolean {
  return namespace.startsWith("kube-") ||
    (ownNamespace !== "" && namespace === ownNamespace);
}

function coversNamespace(
  list: string[],
  namespace: string,
  reserved: (namespace: string) => boolean,
): boolean {
  return list.includes(namespace) ||
    (list.includes("*") && !reserved(namespace));
}

function grants(
  rule: Rule,
  request: AuthorizationRequest,
  reserved: (namespace: string) => boolean,
): boolean {
  return ruleApplies(rule, request.identity) &&
    coversVerb(rule.verbs, request.verb) &&
    covers(rule.resources, request.resource) &&
    (request.namespace === undefined
      ? rule.namespaces.includes("*")
      : coversNamespace(rule.namespaces, request.namespace, reserved));
}

export interface PolicyOptions {
  /** Corral's own namespace, reserved as kube-* are; "" when none. */
  ownNamespace?: string;
  /**
   * False: "*" covers reserved namespaces too. Only for the policies
   * without a policy file, under which every caller may do everything.
   */
  reserveNamespaces?: boolean;
  /** The file's `rateLimits:` (rate_limit.ts). */
  rateLimits?: GroupRateLimit[];
  /** The file's `quotas:` (quota.ts). */
  quotas?: Quota[];
  /** The file's `expiry:` (expiry_policy.ts). */
  expiry?: ExpiryRule[];
  queues?: QueueRule[]; // the file's `queues:` (queue_policy.ts)
}

/**
 * The decision of a fixed list of rules. A "*" of namespacesFor() means
 * every namespace but the reserved ones the caller is not granted by name:
 * a call across namespaces hides those (authorize.ts).
 */
export function policyOf(rules: Rule[], options: PolicyOptions = {}): Policy {
  const own = options.ownNamespace ?? "";
  const reserve = options.reserveNamespaces ?? true;
  const reserved = (namespace: string) =>
    reserve && reservedNamespace(namespace, own);
  return {
    authorize(request) {
      const granting = rules.filter((rule) => grants(rule, request, reserved));
      return granting.length > 0
        ? { allowed: true, rules: granting }
        : { allowed: false, rules: [], reason: "no-rule" };
    },
    namespacesFor(identity, verb, resource) {
      const namespaces = new Set<string>();
      for (const rule of rules) {
        if (
          !ruleApplies(rule, identity) || !coversVerb(rule.verbs, verb) ||
          !covers(rule.resources, resource)
        ) continue;
        if (rule.namespaces.includes("*")) return "*";
        for (const namespace of rule.namespaces) namespaces.add(namespace);
      }
      return [...namespaces].sort();
    },
    rules: () => rules,
    rateLimits: () => options.rateLimits ?? [],
    quotas: () => options.quotas ?? [],
    expiry: () => options.expiry ?? [],
    queues: () => options.queues ?? [],
  };
}

/**
 * The policy without a policy file: the callers in `groups` may do
 * everything, host paths and any image included, and no one else anything.
 * access.ts gives it system:authenticated, and system:unauthenticated too
 * when anonymous callers are let in.
 */
export function allowGroups(groups: string[]): Policy {
  return policyOf([{
    users: [],
    groups,
    namespaces: ["*"],
    resources: ["*"],
    // The dashboards too: without a policy file every caller may do
    // everything (`admin` means nothing without `owners: only`).
    verbs: ["*", "proxy"],
    allowHostPath: true,
    workload: anyGrants(),
  }], { reserveNamespaces: false });
}

/**
 * What one rule lets pods carry: the safe defaults (admission.ts), with
 * the rule's own allow-lists, its `images`, and `allowHostPath` (any host
 * path) over them.
 */
export function grantsOf(rule: Rule): WorkloadGrants {
  const grants: WorkloadGrants = { ...defaultGrants(), ...rule.workload };
  if (rule.allowHostPath) grants.hostPaths = ["*"];
  if (rule.images !== undefined) grants.images = rule.images;
  else delete grants.images;
  return grants;
}

export type WorkloadDecision =
  | { allowed: true; rule: Rule }
  | { allowed: false; refusals: Refusal[] };

/**
 * Whether one of the granting rules allows the whole workload (a
 * RayCluster, or a RayJob with its own cluster and submitter). When none
 * does, the refusals of the rule that comes closest (fewest refusals, the
 * first of equals): what the caller would have to drop.
 */
export function admitWorkload(
  rules: Rule[],
  resource: Workload,
  /** The request field a cluster comes from (workloadRefusals). */
  subject?: string,
): WorkloadDecision {
  let closest: Refusal[] | undefined;
  for (const rule of rules) {
    const refusals = workloadRefusals(resource, grantsOf(rule), subject);
    if (refusals.length === 0) return { allowed: true, rule };
    if (!closest || refusals.length < closest.length) closest = refusals;
  }
  return { allowed: false, refusals: closest ?? [] };
}

/**
 * PERMISSION_DENIED for a denied request, with its reason for metrics and
 * audit. The message names the user, as kube-apiserver's 403 does, and what
 * was refused.
 */
export class AuthorizationError extends ServiceError {
  readonly reason: DenialReason;

  constructor(reason: DenialReason, message: string) {
    super(Code.PERMISSION_DENIED, message);
    this.name = "AuthorizationError";
    this.reason = reason;
  }
}

// ---------------------------------------------------------------------------
// Reading

/** The workload allow-lists that are lists of patterns, as in the file. */
const WORKLOAD_LISTS = [
  "serviceAccounts",
  "imagePullSecrets",
  "nodeSelectors",
  "serviceTypes",
  "annotations",
  "labels",
  "secrets",
  "podFields",
  "containerFields",
] as const;

const RULE_KEYS = new Set<string>([
  "users",
  "groups",
  "namespaces",
  "resources",
  "verbs",
  "allowHostPath",
  "images",
  "owners",
  ...WORKLOAD_LISTS,
  "tolerations",
  "volumes",
  "startParams",
]);

/** A DNS-1123 label, as Kubernetes namespace names are. */
const NAMESPACE = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;

/** Thrown by parsePolicy: every problem with its path. */
export class PolicyError extends Error {
  readonly violations: FieldViolation[];

  constructor(violations: FieldViolation[]) {
    super(violations.map((v) => `${v.field}: ${v.description}`).join("; "));
    this.name = "PolicyError";
    this.violations = violations;
  }
}

/** What a policy file says: its rules and its sections beside them. */
export interface PolicyDocument {
  rules: Rule[];
  rateLimits: GroupRateLimit[];
  quotas: Quota[];
  /** The `expiry:` section (expiry_policy.ts); [] when absent. */
  expiry: ExpiryRule[];
  queues: QueueRule[];
}

/** The rules of a policy file's text; throws PolicyError listing every problem. */
export function parsePolicy(text: string): Rule[] {
  return parsePolicyDocument(text).rules;
}

/** A policy file's text read whole; throws PolicyError listing every problem. */
export function parsePolicyDocument(text: string): PolicyDocument {
  let document: unknown;
  try {
    document = parseYaml(text, { uniqueKeys: true });
  } catch (error) {
    const message = error instanceof Error
      ? error.message.split("\n")[0]
      : String(error);
    throw new PolicyError([{ field: "(file)", description: message }]);
  }
  try {
    return validatePolicyDocument(document);
  } catch (error) {
    if (!(error instanceof PolicyError)) throw error;
    throw new PolicyError(withRateLimitLines(text, error.violations));
  }
}

/**
 * The violations, those of `rateLimits:` and `expiry:` with the line of the file they
 * are on: an entry of that list is found by its line sooner than by its
 * index. Made only on the error path, so a good file is parsed once.
 */
function withRateLimitLines(
  text: string,
  violations: FieldViolation[],
): FieldViolation[] {
  const located = (field: string) =>
    field.startsWith("rateLimits") || field.startsWith("expiry") ||
    field.startsWith("queues");
  if (!violations.some((v) => located(v.field))) return violations;
  const lines = new LineCounter();
  const document = parseDocument(text, { lineCounter: lines });
  return violations.map((violation) => {
    if (!located(violation.field)) return violation;
    // "rateLimits[1].qps" -> ["rateLimits", 1, "qps"]; an unknown key's
    // path ends in the key, whose value is on its line too.
    const path = violation.field.split(/[.[\]]+/).filter(Boolean)
      .map((part) => /^\d+$/.test(part) ? Number(part) : part);
    const node = document.getIn(path, true) as
      | { range?: [number, number, number] }
      | undefined;
    const offset = node?.range?.[0];
    if (offset === undefined) return violation;
    const { line } = lines.linePos(offset);
    return {
      ...violation,
      description: `${violation.description} (line ${line})`,
    };
  });
}

/** The rules of a parsed policy document; throws PolicyError. */
export function validatePolicy(document: unknown): Rule[] {
  return validatePolicyDocument(document).rules;
}

/** Top-level keys of a policy file besides `rules`. */
const SECTIONS = new Set<string>(["rateLimits", "quotas", "expiry", "queues"]);

/** A parsed policy document checked whole; throws PolicyError. */
export function validatePolicyDocument(document: unknown): PolicyDocument {
  const violations: FieldViolation[] = [];
  const problem = (field: string, description: string) =>
    violations.push({ field, description });

  if (!isObject(document)) {
    problem("(file)", 'must be a mapping with the key "rules"');
    throw new PolicyError(violations);
  }
  for (const key of Object.keys(document)) {
    if (key !== "rules" && !SECTIONS.has(key)) problem(key, "unknown key");
  }
  if (!Array.isArray(document.rules)) {
    problem("rules", "must be a list");
    throw new PolicyError(violations);
  }
  const rules: Rule[] = [];
  for (const [i, raw] of (document.rules as unknown[]).entries()) {
    const at = `rules[${i}]`;
    if (!isObject(raw)) {
      problem(at, "must be a mapping");
      continue;
    }
    rules.push(ruleOf(raw, at, problem));
  }
  const rateLimits = document.rateLimits === undefined
    ? []
    : rateLimitsOf(document.rateLimits, problem);
  const quotas = document.quotas === undefined
    ? []
    : quotasOf(document.quotas, problem);
  const expiry = document.expiry === undefined
    ? []
    : expiryRulesOf(document.expiry, problem);
  const queues = document.queues === undefined
    ? []
    : queueRulesOf(document.queues, problem);
  if (violations.length > 0) throw new PolicyError(violations);
  return { rules, rateLimits, quotas, expiry, queues };
}

/** One rule of the file, its problems told to `problem`. */
function ruleOf(
  raw: Record<string, unknown>,
  at: string,
  problem: Problem,
): Rule {
  for (const key of Object.keys(raw)) {
    if (!RULE_KEYS.has(key)) problem(`${at}.${key}`, "unknown key");
  }
  const list = (
    key: string,
    check: (value: string) => string | undefined,
  ) => {
    const value = raw[key];
    if (value === undefined) return [];
    if (!Array.isArray(value)) {
      problem(`${at}.${key}`, "must be a list of strings");
      return [];
    }
    value.forEach((item: unknown, j: number) => {
      const why = typeof item !== "string" ? "must be a string" : check(item);
      if (why) problem(`${at}.${key}[${j}]`, why);
    });
    return value.filter((item): item is string => typeof item === "string");
  };
  const subject = (kind: string) => (name: string) =>
    name === ""
      ? "must not be empty"
      : name === "*"
      ? `"*" is not a ${kind}: name the group "${AUTHENTICATED_GROUP}" for every authenticated caller`
      : undefined;
  const users = list("users", subject("user"));
  const groups = list("groups", subject("group"));
  if (users.length === 0 && groups.length === 0) {
    problem(at, "names no users and no groups");
  }
  const namespaces = list(
    "namespaces",
    (n) =>
      n === "*" || NAMESPACE.test(n)
        ? undefined
        : `"${n}" is not a namespace name`,
  );
  const resources = list(
    "resources",
    (r) =>
      r === "*" || (RESOURCES as readonly string[]).includes(r)
        ? undefined
        : `unknown resource "${r}"`,
  );
  const verbs = list(
    "verbs",
    (v) =>
      v === "*" || (VERBS as readonly string[]).includes(v)
        ? undefined
        : `unknown verb "${v}"`,
  );
  for (
    const [key, value] of [
      ["namespaces", namespaces],
      ["resources", resources],
      ["verbs", verbs],
    ] as const
  ) {
    if (value.length === 0 && raw[key] === undefined) {
      problem(`${at}.${key}`, "is required");
    } else if (value.length === 0 && Array.isArray(raw[key])) {
      problem(`${at}.${key}`, `must not be empty`);
    }
  }
  const allowHostPath = raw.allowHostPath ?? false;
  if (typeof allowHostPath !== "boolean") {
    problem(`${at}.allowHostPath`, "must be true or false");
  }
  const images = raw.images === undefined
    ? undefined
    : list("images", (p) => p === "" ? "must not be empty" : undefined);
  const workload = workloadOf(raw, at, problem);
  if (raw.owners !== undefined && raw.owners !== "only") {
    problem(`${at}.owners`, 'must be "only" (or absent: any member)');
  }
  return {
    users,
    groups,
    namespaces,
    resources,
    verbs,
    allowHostPath: allowHostPath === true,
    ...(images ? { images } : {}),
    ...(workload ? { workload } : {}),
    ...(raw.owners === "only" ? { owners: "only" as const } : {}),
  };
}

type Problem = (field: string, description: string) => void;

/** A list of non-empty strings at `at`, or undefined (with a problem). */
function patterns(
  value: unknown,
  at: string,
  problem: Problem,
): string[] | undefined {
  if (
    !Array.isArray(value) ||
    value.some((item) => typeof item !== "string" || item === "")
  ) {
    problem(at, "must be a list of non-empty strings");
    return undefined;
  }
  return value as string[];
}

/**
 * A rule's workload allow-lists (admission.ts), undefined when it has
 * none: each list of patterns, `tolerations` as [{key, effects}],
 * `volumes` as {hostPaths, persistentVolumeClaims}, `startParams` as a
 * mapping of a parameter to its value patterns.
 */
function workloadOf(
  raw: Record<string, unknown>,
  at: string,
  problem: Problem,
): Partial<WorkloadGrants> | undefined {
  const grants: Partial<WorkloadGrants> = {};
  for (const key of WORKLOAD_LISTS) {
    if (raw[key] === undefined) continue;
    const list = patterns(raw[key], `${at}.${key}`, problem);
    if (list) grants[key] = list;
  }
  if (raw.tolerations !== undefined) {
    grants.tolerations = tolerationGrants(raw.tolerations, at, problem);
  }
  if (raw.volumes !== undefined) {
    const volumes = raw.volumes;
    if (!isObject(volumes)) {
      problem(`${at}.volumes`, "must be a mapping");
    } else {
      for (const key of Object.keys(volumes)) {
        if (key !== "hostPaths" && key !== "persistentVolumeClaims") {
          problem(`${at}.volumes.${key}`, "unknown key");
        }
      }
      const hostPaths = volumes.hostPaths === undefined
        ? undefined
        : patterns(volumes.hostPaths, `${at}.volumes.hostPaths`, problem);
      const claims = volumes.persistentVolumeClaims === undefined
        ? undefined
        : patterns(
          volumes.persistentVolumeClaims,
          `${at}.volumes.persistentVolumeClaims`,
          problem,
        );
      if (hostPaths) grants.hostPaths = hostPaths;
      if (claims) grants.claims = claims;
    }
  }
  if (raw.startParams !== undefined) {
    const params = raw.startParams;
    if (!isObject(params)) {
      problem(
        `${at}.startParams`,
        "must be a mapping of a parameter to value patterns",
      );
    } else {
      grants.startParams = {};
      for (const [key, value] of Object.entries(params)) {
        const list = patterns(value, `${at}.startParams.${key}`, problem);
        if (list) grants.startParams[key] = list;
      }
    }
  }
  return Object.keys(grants).length > 0 ? grants : undefined;
}

function tolerationGrants(
  value: unknown,
  at: string,
  problem: Problem,
): TolerationGrant[] {
  if (!Array.isArray(value)) {
    problem(`${at}.tolerations`, "must be a list of {key, effects}");
    return [];
  }
  const grants: TolerationGrant[] = [];
  value.forEach((item: unknown, i: number) => {
    const where = `${at}.tolerations[${i}]`;
    if (!isObject(item) || typeof item.key !== "string" || item.key === "") {
      problem(where, "must be a mapping with a non-empty key");
      return;
    }
    for (const key of Object.keys(item)) {
      if (key !== "key" && key !== "effects") {
        problem(`${where}.${key}`, "unknown key");
      }
    }
    const effects = item.effects === undefined
      ? undefined
      : patterns(item.effects, `${where}.effects`, problem);
    grants.push({ key: item.key, ...(effects ? { effects } : {}) });
  });
  return grants;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export interface PolicyFileOptions {
  /** --authorization-policy-file */
  path: string;
  log: Logger;
  /** How often the file is read for changes; 5 s by default. */
  intervalMs?: number;
  /** Told after a new policy was taken (open streams are checked again). */
  onReload?: () => void;
  /** Corral's own namespace, reserved (policyOf). */
  ownNamespace?: string;
}

export interface PolicyFile extends Policy {
  rateLimits(): readonly GroupRateLimit[];
  expiry(): readonly ExpiryRule[];
  /** Reads the file now; resolves true when a new policy was taken. */
  reload(): Promise<boolean>;
  close(): Promise<void>;
}

/**
 * The policy of a file, followed as it changes. Rejects with
 * INVALID_ARGUMENT listing every problem if the file does not validate.
 */
export async function policyFile(
  options: PolicyFileOptions,
): Promise<PolicyFile> {
  const log = options.log.with({ component: "authorization" });
  const file = await watchFile({
    path: options.path,
    kind: "authorization policy file",
    intervalMs: options.intervalMs,
    log,
    parse: (text) => {
      const { rules, rateLimits, quotas, expiry, queues } = parsePolicyDocument(
        text,
      );
      return policyOf(rules, {
        ownNamespace: options.ownNamespace,
        rateLimits,
        quotas,
        expiry,
        queues,
      });
    },
    onReload: (policy) => {
      log.info("Loaded authorization policy", {
        path: options.path,
        rules: policy.rules().length,
      });
      options.onReload?.();
    },
  });
  log.info("Loaded authorization policy", {
    path: options.path,
    rules: file.current().rules().length,
  });
  return {
    authorize: (request) => file.current().authorize(request),
    namespacesFor: (identity, verb, resource) =>
      file.current().namespacesFor(identity, verb, resource),
    rules: () => file.current().rules(),
    rateLimits: () => file.current().rateLimits?.() ?? [],
    quotas: () => file.current().quotas?.() ?? [],
    expiry: () => file.current().expiry?.() ?? [],
    queues: () => file.current().queues?.() ?? [],
    reload: () => file.check(),
    close: () => file.close(),
  };
}
