/**
 * The `expiry:` section of a policy file: per namespace, the lifetime a
 * workload (a cluster, a job, a service: every cluster Corral writes) gets
 * when its create names none (`default`, else `max`) and the longest one a
 * create or an extend may ask for (`max`), as durations ("8h", "1h30m").
 * `services: exempt` leaves the namespace's services out: they serve until
 * deleted, unless their create asks for a lifetime.
 *
 * ```yaml
 * expiry:
 *   - namespaces: [team-a, team-b]
 *     default: 8h
 *     max: 72h
 *     services: exempt
 *   - namespaces: ["*"]
 *     max: 24h
 * ```
 *
 * The first entry naming the namespace (or "*") applies; a namespace no
 * entry names has no default and no maximum.
 */
import { type ExpiryLimit, parseDuration } from "../../domain/expiry.ts";
import {
  type ListSection,
  listSectionOf,
  namespacesAt,
  type Problem,
} from "./policy_section.ts";
import { namesNamespace } from "./policy_scope.ts";

/** One entry of `expiry:`. */
export interface ExpiryRule extends ExpiryLimit {
  namespaces: string[];
}

/** The kinds an entry may exempt, by key: `services: exempt`. */
const EXEMPTABLE = ["services"] as const;

/** What an exemptable kind's key may say. */
const EXEMPT = "exempt";

/** The `expiry:` section, as policy_section.ts reads it. */
const EXPIRY: ListSection<ExpiryRule> = {
  name: "expiry",
  keys: new Set(["namespaces", "default", "max", ...EXEMPTABLE]),
  list: "a list of {namespaces, default, max}",
  entry: "a mapping with namespaces and default or max",
  read(entry, at, problem) {
    const namespaces = namespacesAt(entry, at, problem) ?? [];
    const durationOf = (key: "default" | "max") => {
      const raw = entry[key];
      if (raw === undefined) return undefined;
      const ms = typeof raw === "string" ? parseDuration(raw) : undefined;
      if (ms === undefined || ms <= 0) {
        problem(
          `${at}.${key}`,
          'must be a duration of hours, minutes and seconds more than zero, such as "8h" or "1h30m"',
        );
      }
      return ms;
    };
    const defaultMs = durationOf("default");
    const maxMs = durationOf("max");
    if (defaultMs === undefined && maxMs === undefined) {
      problem(at, "must give default or max");
    }
    if (
      defaultMs !== undefined && maxMs !== undefined && defaultMs > maxMs
    ) problem(`${at}.default`, "must not be longer than max");
    const exempt = EXEMPTABLE.filter((kind) => {
      const raw = entry[kind];
      if (raw === undefined) return false;
      if (raw !== EXEMPT) {
        problem(`${at}.${kind}`, `must be "${EXEMPT}" (or left out)`);
      }
      return raw === EXEMPT;
    });
    return {
      namespaces,
      defaultMs,
      maxMs,
      ...(exempt.length > 0 ? { exempt } : {}),
    };
  },
};

/**
 * The `expiry:` section's entries; each problem is told to `problem` with
 * its path (`expiry[1].max`), to which the policy file adds the line.
 */
export function expiryRulesOf(value: unknown, problem: Problem): ExpiryRule[] {
  return listSectionOf(EXPIRY, value, problem);
}

/** The limit of `namespace`: the first entry naming it or "*"; {} if none. */
export function expiryLimitFor(
  rules: readonly ExpiryRule[],
  namespace: string,
): ExpiryLimit {
  const rule = rules.find((r) => namesNamespace(r, namespace));
  if (!rule) return {};
  return {
    defaultMs: rule.defaultMs,
    maxMs: rule.maxMs,
    ...(rule.exempt ? { exempt: rule.exempt } : {}),
  };
}
