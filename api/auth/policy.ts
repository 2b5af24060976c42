/**
 * Who may do what: the rules of the --authorization-policy-file (read by
 * policy_document.ts and policy_rules.ts, followed by policy_file.ts) and
 * the decision they make, in the spirit of kube-apiserver's ABAC policy.
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
 * What the pods of a granted request may carry is decided apart, against
 * the rules that granted it (workload_decision.ts).
 */

import type { DenialReason } from "./authorization_error.ts";
import type { Identity } from "./identity.ts";
import { anyGrants, type WorkloadGrants } from "./workload_grants.ts";
import type { GroupRateLimit } from "./rate_limit.ts";
import type { Quota } from "./quota.ts";
import type { ExpiryRule } from "./expiry_policy.ts";
import type { QueueRule } from "./queue_policy.ts";
import { DEFAULT_ACCELERATORS } from "./accelerators.ts";

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
   * What the pods may carry beyond the safe defaults (workload_grants.ts);
   * a key absent keeps its default. Absent when the rule says nothing of it.
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
  /**
   * The accelerators in force (the file's `accelerators:`, accelerators.ts);
   * absent: the defaults.
   */
  accelerators?(): readonly string[];
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
  /** The file's `queues:` (queue_policy.ts). */
  queues?: QueueRule[];
  /** The file's `accelerators:` (accelerators.ts); absent: the defaults. */
  accelerators?: readonly string[];
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
    accelerators: () => options.accelerators ?? DEFAULT_ACCELERATORS,
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
