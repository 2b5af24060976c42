/**
 * The `queues:` section of a policy file: per namespace (and optionally per
 * user or group, as quotas), the Kueue LocalQueue a cluster or job goes to
 * when its create names none (`default`), and the queues a create may name
 * (`allowed`; any queue when absent).
 *
 * ```yaml
 * queues:
 *   - namespaces: ["team-a"]
 *     groups: ["interns"]      # with users or groups: only their creates
 *     default: small
 *     allowed: [small]
 *   - namespaces: ["*"]
 *     default: default
 * ```
 *
 * The first entry that names the namespace (or "*") and, when it names
 * users or groups, the caller, applies; a create no entry applies to is
 * not queued unless it names a queue itself. A queue outside `allowed` is
 * refused with PERMISSION_DENIED naming it; `allowed: []` allows none, so
 * a namespace's creates can be kept out of queues.
 */
import { queueNameProblem } from "../../domain/queues.ts";
import type { Identity } from "./identity.ts";
import { AuthorizationError } from "./authorization_error.ts";
import {
  type ListSection,
  listSectionOf,
  namesAt,
  namespacesAt,
  type Problem,
} from "./policy_section.ts";
import { isForCaller, namesNamespace } from "./policy_scope.ts";

/** One entry of `queues:`. */
export interface QueueRule {
  /** Namespace names, or ["*"]. */
  namespaces: string[];
  /** Empty with `groups` empty: everyone's creates in the namespaces. */
  users: string[];
  groups: string[];
  /** The queue of a create that names none; absent: none. */
  default?: string;
  /** The queues a create may name; absent: any. */
  allowed?: string[];
}

/** What applies to one create: its default queue and the queues allowed. */
export interface QueueLimit {
  default?: string;
  allowed?: readonly string[];
}

/** The `queues:` section, as policy_section.ts reads it. */
const QUEUES: ListSection<QueueRule> = {
  name: "queues",
  keys: new Set(["namespaces", "users", "groups", "default", "allowed"]),
  list: "a list of {namespaces, default, allowed}",
  entry: "a mapping with namespaces and default or allowed",
  /** One entry; undefined when a value of it has a problem. */
  read(entry, at, problem) {
    let ok = true;
    const fail = (field: string, description: string) => {
      ok = false;
      problem(field, description);
    };
    const namespaces = namespacesAt(entry, at, fail) ?? [];
    const users = namesAt(entry, "users", at, fail) ?? [];
    const groups = namesAt(entry, "groups", at, fail) ?? [];
    const allowed = namesAt(entry, "allowed", at, fail);
    allowed?.forEach((queue, j) => {
      const why = queueNameProblem(queue);
      if (why) fail(`${at}.allowed[${j}]`, why);
    });
    const queue = entry.default;
    if (queue !== undefined) {
      const why = typeof queue !== "string"
        ? "must be a queue name"
        : queueNameProblem(queue);
      if (why) fail(`${at}.default`, why);
      else if (allowed && !allowed.includes(queue as string)) {
        fail(`${at}.default`, "must be one of allowed");
      }
    }
    if (queue === undefined && allowed === undefined) {
      fail(at, "must give default or allowed");
    }
    if (!ok) return undefined;
    return {
      namespaces,
      users,
      groups,
      ...(queue !== undefined ? { default: queue as string } : {}),
      ...(allowed !== undefined ? { allowed } : {}),
    };
  },
};

/**
 * The `queues:` section's entries; each problem is told to `problem` with
 * its path (`queues[1].default`).
 */
export function queueRulesOf(value: unknown, problem: Problem): QueueRule[] {
  return listSectionOf(QUEUES, value, problem);
}

/**
 * What applies to `identity`'s creates in `namespace`: the first entry
 * naming the namespace (or "*") and, if it names users or groups, the
 * caller; {} when none does.
 */
export function queueLimitFor(
  rules: readonly QueueRule[],
  identity: Identity,
  namespace: string,
): QueueLimit {
  const rule = rules.find((r) =>
    namesNamespace(r, namespace) && isForCaller(r, identity)
  );
  if (!rule) return {};
  return {
    ...(rule.default !== undefined ? { default: rule.default } : {}),
    ...(rule.allowed !== undefined ? { allowed: rule.allowed } : {}),
  };
}

/**
 * The queue a create goes to: the one it names, or the limit's default
 * ("" for none). A queue it names outside the limit's `allowed` is refused
 * with PERMISSION_DENIED naming the queue and the request field; so is the
 * default, should the section allow none (it cannot: checked on reading).
 */
export function queueOnCreate(
  requested: string,
  limit: QueueLimit,
  action: string,
  field: string,
): string {
  const queue = requested || limit.default || "";
  if (
    requested !== "" && limit.allowed && !limit.allowed.includes(requested)
  ) {
    const allowed = limit.allowed.length === 0
      ? "no queue is allowed here"
      : `allowed: ${limit.allowed.map((q) => `"${q}"`).join(", ")}`;
    throw new AuthorizationError(
      "no-rule",
      `${action}: ${field}: queue "${requested}" is not allowed (${allowed})`,
    );
  }
  return queue;
}
