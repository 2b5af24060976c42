/**
 * The `expiry:` section of a policy file: per namespace, the lifetime a
 * cluster gets when its create names none (`default`) and the longest one
 * a create or an extend may ask for (`max`), as durations ("8h", "1h30m").
 *
 * ```yaml
 * expiry:
 *   - namespaces: [team-a, team-b]
 *     default: 8h
 *     max: 72h
 *   - namespaces: ["*"]
 *     max: 24h
 * ```
 *
 * The first entry naming the namespace (or "*") applies; a namespace no
 * entry names has no default and no maximum.
 */
import { type ExpiryLimit, parseDuration } from "../../domain/expiry.ts";

/** One entry of `expiry:`. */
export interface ExpiryRule extends ExpiryLimit {
  namespaces: string[];
}

const KEYS = new Set(["namespaces", "default", "max"]);

/**
 * The `expiry:` section's entries; each problem is told to `problem` with
 * its path (`expiry[1].max`), to which the policy file adds the line.
 */
export function expiryRulesOf(
  value: unknown,
  problem: (field: string, description: string) => void,
): ExpiryRule[] {
  if (!Array.isArray(value)) {
    problem("expiry", "must be a list of {namespaces, default, max}");
    return [];
  }
  const rules: ExpiryRule[] = [];
  value.forEach((item: unknown, i: number) => {
    const at = `expiry[${i}]`;
    if (typeof item !== "object" || item === null || Array.isArray(item)) {
      problem(at, "must be a mapping with namespaces and default or max");
      return;
    }
    const entry = item as Record<string, unknown>;
    for (const key of Object.keys(entry)) {
      if (!KEYS.has(key)) problem(`${at}.${key}`, "unknown key");
    }
    const namespaces = entry.namespaces;
    if (
      !Array.isArray(namespaces) || namespaces.length === 0 ||
      namespaces.some((n) => typeof n !== "string" || n === "")
    ) {
      problem(
        `${at}.namespaces`,
        'must be a non-empty list of namespaces or "*"',
      );
    }
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
    rules.push({
      namespaces: Array.isArray(namespaces) ? namespaces as string[] : [],
      defaultMs,
      maxMs,
    });
  });
  return rules;
}

/** The limit of `namespace`: the first entry naming it or "*"; {} if none. */
export function expiryLimitFor(
  rules: readonly ExpiryRule[],
  namespace: string,
): ExpiryLimit {
  const rule = rules.find((r) =>
    r.namespaces.includes(namespace) || r.namespaces.includes("*")
  );
  return rule ? { defaultMs: rule.defaultMs, maxMs: rule.maxMs } : {};
}
