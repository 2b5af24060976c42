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
 *
 * Everything is denied unless a rule grants it. A rule grants a request when
 * it names the user or one of the user's groups, and its namespaces,
 * resources and verbs each contain the request's (or "*"). There is no "*"
 * for users and groups: the group system:authenticated names every
 * authenticated caller, system:unauthenticated the anonymous ones.
 *
 * Workload checks (host paths, images) are made against the rules that
 * granted the request. When several rules grant it, the workload is allowed
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

import { parse as parseYaml } from "yaml";
import { Code, ServiceError } from "../../domain/errors.ts";
import type { FieldViolation } from "../../domain/errors.ts";
import type { Logger } from "../../domain/log.ts";
import { AUTHENTICATED_GROUP } from "./identity.ts";
import type { Identity } from "./identity.ts";
import { watchFile } from "./watched_file.ts";

/** The verbs of the API; new ones are added here. */
export const VERBS = [
  "get",
  "list",
  "watch",
  "create",
  "update",
  "delete",
] as const;
export type Verb = typeof VERBS[number];

export const RESOURCES = ["clusters", "computetemplates"] as const;
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
}

export interface AuthorizationRequest {
  identity: Identity;
  verb: Verb;
  resource: Resource;
  /** The namespace; undefined asks for every namespace at once. */
  namespace?: string;
}

/** Short words for why a request was denied: a metrics and audit label. */
export type DenialReason = "no-rule" | "host-path" | "image";

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

function grants(rule: Rule, request: AuthorizationRequest): boolean {
  return ruleApplies(rule, request.identity) &&
    covers(rule.verbs, request.verb) &&
    covers(rule.resources, request.resource) &&
    (request.namespace === undefined
      ? rule.namespaces.includes("*")
      : covers(rule.namespaces, request.namespace));
}

/** The decision of a fixed list of rules. */
export function policyOf(rules: Rule[]): Policy {
  return {
    authorize(request) {
      const granting = rules.filter((rule) => grants(rule, request));
      return granting.length > 0
        ? { allowed: true, rules: granting }
        : { allowed: false, rules: [], reason: "no-rule" };
    },
    namespacesFor(identity, verb, resource) {
      const namespaces = new Set<string>();
      for (const rule of rules) {
        if (
          !ruleApplies(rule, identity) || !covers(rule.verbs, verb) ||
          !covers(rule.resources, resource)
        ) continue;
        if (rule.namespaces.includes("*")) return "*";
        for (const namespace of rule.namespaces) namespaces.add(namespace);
      }
      return [...namespaces].sort();
    },
    rules: () => rules,
  };
}

/**
 * The policy without a policy file: every authenticated caller may do
 * everything, host paths and any image included. Anonymous callers (not in
 * system:authenticated) may do nothing.
 */
export function allowAll(): Policy {
  return policyOf([{
    users: [],
    groups: [AUTHENTICATED_GROUP],
    namespaces: ["*"],
    resources: ["*"],
    verbs: ["*"],
    allowHostPath: true,
  }]);
}

/** Whether any of the rules allows the image. */
export function imageAllowed(rules: Rule[], image: string): boolean {
  return rules.some((rule) => ruleAllowsImage(rule, image));
}

/** Whether any of the rules allows HOST_PATH volumes. */
export function hostPathAllowed(rules: Rule[]): boolean {
  return rules.some((rule) => rule.allowHostPath);
}

export interface Workload {
  /** Every container image of the cluster. */
  images: string[];
  /** Whether it mounts a HOST_PATH volume. */
  hostPath: boolean;
}

export type WorkloadDecision =
  | { allowed: true; rule: Rule }
  | { allowed: false; reason: DenialReason; image?: string };

/**
 * Whether one of the granting rules allows the whole workload. When none
 * does, the reason is "host-path" if no rule allows host paths, else
 * "image" with the first image that no rule (allowing host paths, if they
 * are asked for) allows.
 */
export function admitWorkload(
  rules: Rule[],
  workload: Workload,
): WorkloadDecision {
  const rule = rules.find((r) =>
    (!workload.hostPath || r.allowHostPath) &&
    workload.images.every((image) => ruleAllowsImage(r, image))
  );
  if (rule) return { allowed: true, rule };
  if (rules.length === 0) return { allowed: false, reason: "no-rule" };
  const candidates = workload.hostPath
    ? rules.filter((r) => r.allowHostPath)
    : rules;
  if (candidates.length === 0) return { allowed: false, reason: "host-path" };
  const image = workload.images.find((i) => !imageAllowed(candidates, i)) ??
    // Each image is allowed by some rule, but no one rule allows them all.
    workload.images.find((i) =>
      !candidates.every((r) => ruleAllowsImage(r, i))
    );
  return { allowed: false, reason: "image", image };
}

function ruleAllowsImage(rule: Rule, image: string): boolean {
  return rule.images === undefined ||
    rule.images.some((pattern) => globMatches(pattern, image));
}

/** `*` is any run of characters; everything else is itself; whole string. */
export function globMatches(pattern: string, value: string): boolean {
  const parts = pattern.split("*");
  if (parts.length === 1) return pattern === value;
  const first = parts[0];
  const last = parts[parts.length - 1];
  if (
    value.length < first.length + last.length || !value.startsWith(first) ||
    !value.endsWith(last)
  ) return false;
  // Greedy left to right over the middle parts: the leftmost place of each
  // part leaves the most room for the rest, so this finds a match if any.
  let at = first.length;
  const end = value.length - last.length;
  for (const part of parts.slice(1, -1)) {
    const found = value.indexOf(part, at);
    if (found === -1 || found + part.length > end) return false;
    at = found + part.length;
  }
  return true;
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

/** The error for a request that authorize() or admitWorkload() denied. */
export function forbidden(
  request: AuthorizationRequest,
  denial: { reason?: DenialReason; image?: string },
): AuthorizationError {
  const { identity, verb, resource, namespace } = request;
  const where = namespace === undefined
    ? "in every namespace"
    : `in namespace "${namespace}"`;
  const who = `user "${identity.user}"`;
  const reason = denial.reason ?? "no-rule";
  switch (reason) {
    case "host-path":
      return new AuthorizationError(
        reason,
        `Forbidden: ${who} may not ${verb} ${resource} with HOST_PATH volumes ${where}`,
      );
    case "image":
      return new AuthorizationError(
        reason,
        `Forbidden: ${who} may not use the image "${denial.image}" ${where}`,
      );
    case "no-rule":
      return new AuthorizationError(
        reason,
        `Forbidden: ${who} may not ${verb} ${resource} ${where}`,
      );
  }
}

// ---------------------------------------------------------------------------
// Reading

const RULE_KEYS = new Set([
  "users",
  "groups",
  "namespaces",
  "resources",
  "verbs",
  "allowHostPath",
  "images",
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

/** The rules of a policy file's text; throws PolicyError listing every problem. */
export function parsePolicy(text: string): Rule[] {
  let document: unknown;
  try {
    document = parseYaml(text, { uniqueKeys: true });
  } catch (error) {
    const message = error instanceof Error
      ? error.message.split("\n")[0]
      : String(error);
    throw new PolicyError([{ field: "(file)", description: message }]);
  }
  return validatePolicy(document);
}

/** The rules of a parsed policy document; throws PolicyError. */
export function validatePolicy(document: unknown): Rule[] {
  const violations: FieldViolation[] = [];
  const problem = (field: string, description: string) =>
    violations.push({ field, description });

  if (!isObject(document)) {
    problem("(file)", 'must be a mapping with the key "rules"');
    throw new PolicyError(violations);
  }
  for (const key of Object.keys(document)) {
    if (key !== "rules") problem(key, "unknown key");
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
    rules.push({
      users,
      groups,
      namespaces,
      resources,
      verbs,
      allowHostPath: allowHostPath === true,
      ...(images ? { images } : {}),
    });
  }
  if (violations.length > 0) throw new PolicyError(violations);
  return rules;
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
}

export interface PolicyFile extends Policy {
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
    parse: (text) => policyOf(parsePolicy(text)),
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
    reload: () => file.check(),
    close: () => file.close(),
  };
}
