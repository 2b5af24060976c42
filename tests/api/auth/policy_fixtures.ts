/**
 * Policies for tests, made by name rather than written out as YAML in each
 * test: who a rule is for (users(), groups()), the few shapes of grant the
 * tests use (allowAll(), allowAllWithProxy(), readOnly(), dashboardAccess(),
 * and allow() for any other), and the policy file those make (policyText(),
 * with any other section: quotas, expiry, queues, rateLimits, accelerators)
 * or the Rule the parser makes of one (ruleOf()).
 *
 * The text is what an operator writes: one mapping per rule, each value in
 * YAML's flow style. Tests of the parser itself (policy_test.ts) keep their
 * own text: its exact form is what they are about.
 *
 * Only the public entry of the policy (parsePolicy and the Rule type) is
 * used here, so that how policy.ts is laid out inside is no test's concern.
 */
import type { Rule } from "../../../api/auth/policy.ts";
import { parsePolicy } from "../../../api/auth/policy_document.ts";

/** Who a rule is for: user names, group names, or both. */
export interface Subject {
  users?: string[];
  groups?: string[];
}

/** A rule of the policy file, as written: a subject and what it may do. */
export interface Grant extends Subject {
  /** Namespace names, or ["*"]. */
  namespaces: string[];
  /** Resource names, or ["*"]. */
  resources: string[];
  /** Verbs, or ["*"]. */
  verbs: string[];
  /**
   * Whatever else the rule says, written as given: allowHostPath, images,
   * owners, and the workload allow-lists (serviceAccounts, tolerations…).
   */
  [more: string]: unknown;
}

/** What a rule says past its subject, namespaces, resources and verbs. */
export type Extras = Record<string, unknown>;

/** A rule for these users. */
export function users(...names: string[]): Subject {
  return { users: names };
}

/** A rule for these groups. */
export function groups(...names: string[]): Subject {
  return { groups: names };
}

/** Every verb on every resource in `namespaces`. */
export function allowAll(
  subject: Subject,
  namespaces: string[],
  extras: Extras = {},
): Grant {
  return allow(subject, namespaces, ["*"], ["*"], extras);
}

/** `verbs` on `resources` in `namespaces`. */
export function allow(
  subject: Subject,
  namespaces: string[],
  resources: string[],
  verbs: string[],
  extras: Extras = {},
): Grant {
  return { ...subject, namespaces, resources, verbs, ...extras };
}

/** Every verb on every resource, and proxy (which "*" does not grant). */
export function allowAllWithProxy(
  subject: Subject,
  namespaces: string[],
): Grant {
  return allow(subject, namespaces, ["*"], ["*", "proxy"]);
}

/** get, list and watch on every resource: one who only looks. */
export function readOnly(subject: Subject, namespaces: string[]): Grant {
  return allow(subject, namespaces, ["*"], ["get", "list", "watch"]);
}

/** get and proxy on clusters: who may open a cluster's dashboard. */
export function dashboardAccess(
  subject: Subject,
  namespaces: string[],
): Grant {
  return allow(subject, namespaces, ["clusters"], ["get", "proxy"]);
}

/** The policy file's other sections, each a list of entries. */
export interface Sections {
  quotas?: Record<string, unknown>[];
  expiry?: Record<string, unknown>[];
  queues?: Record<string, unknown>[];
  rateLimits?: Record<string, unknown>[];
  accelerators?: Record<string, unknown>[];
}

/** The policy file of `rules`, then of `sections`, in YAML. */
export function policyText(rules: Grant[], sections: Sections = {}): string {
  const parts = [rules.length === 0 ? "rules: []\n" : list("rules", rules)];
  for (const [name, entries] of Object.entries(sections)) {
    if (entries) parts.push(list(name, entries));
  }
  return parts.join("");
}

/** The Rule parsePolicy() makes of `grant`, for policyOf(). */
export function ruleOf(grant: Grant): Rule {
  return parsePolicy(policyText([grant]))[0];
}

/** `name:` and its entries, one mapping each, values in flow style. */
function list(name: string, entries: Record<string, unknown>[]): string {
  const lines = [`${name}:`];
  for (const entry of entries) {
    const fields = Object.entries(entry).filter(([, v]) => v !== undefined);
    fields.forEach(([key, value], i) =>
      lines.push(`${i === 0 ? "  - " : "    "}${key}: ${flow(value)}`)
    );
  }
  return lines.join("\n") + "\n";
}

/** `value` in YAML's flow style, as one writes it: `["get", "list"]`. */
function flow(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(flow).join(", ")}]`;
  if (typeof value === "object" && value !== null) {
    const fields = Object.entries(value).map(([key, v]) =>
      `${/^[A-Za-z_][\w-]*$/.test(key) ? key : JSON.stringify(key)}: ${flow(v)}`
    );
    return `{${fields.join(", ")}}`;
  }
  return JSON.stringify(value);
}
