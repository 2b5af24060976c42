/**
 * The --authorization-policy-file's text read whole: a YAML mapping of
 * rules (policy.ts says what they grant, policy_rules.ts reads each) and
 * the sections beside them, each read by its own module. Every problem is
 * listed at once, with its path, and the line of the file for the entries
 * of the sections' lists.
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
 *                                      # of workload_grants.ts (WorkloadGrants)
 *         extendedResources: ["example.com/fpga"]  # beyond the accelerators
 *
 *     rateLimits:                    # optional (rate_limit.ts)
 *       - groups: ["batch"]          # the first entry naming one of the
 *         qps: 200                   # caller's groups sets its rate
 *         burst: 400                 # (default: twice qps); qps 0: no limit
 *
 *     quotas:                        # optional (quota.ts)
 *       - namespaces: ["team-a"]     # maxClusters, maxWorkers, cpu, gpu,
 *         gpu: 8                     # memory (GiB), an accelerator's name
 *                                    # ("nvidia.com/mig-1g.10gb": 4);
 *                                    # users/groups: per user
 *
 *     accelerators:                  # optional (accelerators.ts): what
 *       - names: ["nvidia.com/gpu",  # `gpu` counts and pods may ask for;
 *                 "nvidia.com/mig-*"]  # absent: the defaults
 *
 *     expiry: ...                    # optional (expiry_policy.ts)
 *     queues: ...                    # optional (queue_policy.ts)
 */

import { LineCounter, parse as parseYaml, parseDocument } from "yaml";
import type { FieldViolation } from "../../domain/errors.ts";
import type { Rule } from "./policy.ts";
import { rulesOf } from "./policy_rules.ts";
import { isMapping, type Problem } from "./policy_section.ts";
import { type GroupRateLimit, rateLimitsOf } from "./rate_limit.ts";
import { type Quota, quotasOf } from "./quota.ts";
import { acceleratorsOf } from "./accelerators.ts";
import { type ExpiryRule, expiryRulesOf } from "./expiry_policy.ts";
import { type QueueRule, queueRulesOf } from "./queue_policy.ts";

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
  /** The `accelerators:` section (accelerators.ts); the defaults when absent. */
  accelerators: readonly string[];
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
    throw new PolicyError(withSectionLines(text, error.violations));
  }
}

/** The sections whose violations name the line of the file they are on. */
const LOCATED_SECTIONS = ["rateLimits", "expiry", "queues", "accelerators"];

/**
 * The violations, those of `rateLimits:`, `expiry:`, `queues:` and
 * `accelerators:` with the line of the file they are on: an entry of such
 * a list is found by its line sooner than by its index. Made only on the
 * error path, so a good file is parsed once.
 */
function withSectionLines(
  text: string,
  violations: FieldViolation[],
): FieldViolation[] {
  const located = (field: string) =>
    LOCATED_SECTIONS.some((section) => field.startsWith(section));
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
const SECTIONS = new Set<string>([
  "rateLimits",
  "quotas",
  "expiry",
  "queues",
  "accelerators",
]);

/** A parsed policy document checked whole; throws PolicyError. */
export function validatePolicyDocument(document: unknown): PolicyDocument {
  const violations: FieldViolation[] = [];
  const problem: Problem = (field, description) =>
    violations.push({ field, description });

  if (!isMapping(document)) {
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
  const rules = rulesOf(document.rules, problem);
  const rateLimits = optional(document.rateLimits, rateLimitsOf, problem);
  const accelerators = acceleratorsOf(document.accelerators, problem);
  const quotas = optional(
    document.quotas,
    (section, told) => quotasOf(section, told, accelerators),
    problem,
  );
  const expiry = optional(document.expiry, expiryRulesOf, problem);
  const queues = optional(document.queues, queueRulesOf, problem);
  if (violations.length > 0) throw new PolicyError(violations);
  return { rules, rateLimits, quotas, expiry, queues, accelerators };
}

/** An optional section's entries, read by `read`; [] when it is absent. */
function optional<T>(
  section: unknown,
  read: (section: unknown, problem: Problem) => T[],
  problem: Problem,
): T[] {
  return section === undefined ? [] : read(section, problem);
}
