/**
 * Quotas: the policy file's `quotas:` section, and what the workloads of a
 * namespace use of them. Pure: no I/O (quota_guard.ts reads Kubernetes and
 * serialises the writes).
 *
 *     quotas:
 *       - namespaces: ["team-a"]     # the namespace's total ("*": each
 *         maxClusters: 10            # namespace its own total)
 *         maxWorkers: 40             # sum of worker groups' maxReplicas
 *         cpu: 64                    # CPUs
 *         gpu: 8                     # accelerators (accelerators.ts), all
 *         memory: 256                # GiB
 *         "nvidia.com/mig-7g.80gb": 2  # one accelerator resource by name
 *       - namespaces: ["*"]
 *         groups: ["interns"]        # with users or groups: each matching
 *         maxClusters: 2             # user's own clusters, per namespace
 *
 * Usage is counted (quota_usage.ts) from every pod Corral writes (their
 * containers' limits, else requests, which are the compute templates'
 * figures and the submitter's): the head, each worker group at its
 * maxReplicas (what an autoscaler may grow it to), over RayClusters,
 * RayJobs (their own cluster, and their submitter pod, the operator's
 * default when the job names none, on an existing cluster too) while the
 * job has not finished, and RayServices (their clusters: two while an
 * upgrade runs). `gpu` counts the accelerators of the policy's
 * `accelerators:` (a MIG slice, a TPU: each device one); a quota may also
 * limit one accelerator resource by its name. Every quota that applies to
 * a request is checked; a missing dimension is no limit.
 */
import type { FieldViolation } from "../../domain/errors.ts";
import type { Identity } from "./identity.ts";
import {
  type ListSection,
  listSectionOf,
  namesAt,
  type Problem,
} from "./policy_section.ts";
import { namesCaller, namesNamespace, namesNoCaller } from "./policy_scope.ts";
import { DEFAULT_ACCELERATORS, isAccelerator } from "./accelerators.ts";
import {
  type Dimension,
  DIMENSIONS,
  type Holding,
  sumUsage,
  type Usage,
  usageWithAccelerators,
  zeroUsage,
} from "./quota_usage.ts";

export {
  clusterUsage,
  type Dimension,
  DIMENSIONS,
  type Holding,
  holdingsOf,
  largerUsage,
  ownerOf,
  sumUsage,
  type Usage,
  usageWithAccelerators,
  workloadUsage,
  zeroUsage,
} from "./quota_usage.ts";

/** One entry of `quotas:`. */
export interface Quota {
  /** Namespace names, or ["*"]: each namespace counted on its own. */
  namespaces: string[];
  /** Empty with `groups` empty: the namespace's total. */
  users: string[];
  groups: string[];
  /**
   * The limits; an absent dimension is not limited. `extended` limits
   * accelerator resources by name (`{"nvidia.com/mig-7g.80gb": 2}`).
   */
  limits: Partial<Usage>;
  /**
   * The accelerators `gpu` counts: the policy's `accelerators:` where the
   * quota was read (accelerators.ts); absent, the defaults.
   */
  accelerators?: readonly string[];
}

/** How a dimension reads in a message, and its unit. */
const WORDS: Record<Dimension, { name: string; unit: string }> = {
  maxClusters: { name: "clusters", unit: "" },
  maxWorkers: { name: "workers", unit: "" },
  cpu: { name: "CPUs", unit: "" },
  gpu: { name: "GPUs", unit: "" },
  memory: { name: "memory", unit: " GiB" },
};

// ---------------------------------------------------------------------------
// Deciding

/** A quota as it applies to one caller in one namespace. */
export interface AppliedQuota {
  /** "team-a", or `user "ada" in team-a`. */
  scope: string;
  /** Empty: every holding of the namespace; else only this user's. */
  user?: string;
  limits: Partial<Usage>;
  /** The accelerators `gpu` counts (Quota); absent, the defaults. */
  accelerators?: readonly string[];
}

/** The quotas that apply to `identity` in `namespace`, in file order. */
export function quotasFor(
  quotas: readonly Quota[],
  namespace: string,
  identity: Identity,
): AppliedQuota[] {
  const applied: AppliedQuota[] = [];
  for (const quota of quotas) {
    if (!namesNamespace(quota, namespace)) continue;
    const { limits, accelerators } = quota;
    const counts = accelerators ? { accelerators } : {};
    if (namesNoCaller(quota)) {
      applied.push({ scope: namespace, limits, ...counts });
      continue;
    }
    if (!namesCaller(quota, identity)) continue;
    applied.push({
      scope: `user "${identity.user}" in ${namespace}`,
      user: identity.user,
      limits,
      ...counts,
    });
  }
  return applied;
}

/**
 * What a quota counts of the namespace's holdings: the holdings of its
 * user, if it has one, and `gpu` under its accelerators.
 */
export function usageUnder(
  quota: AppliedQuota,
  holdings: readonly Holding[],
): Usage {
  const counted = quota.user === undefined
    ? holdings
    : holdings.filter((holding) => holding.owner === quota.user);
  return usageWithAccelerators(sumUsage(counted), quota.accelerators);
}

/**
 * What a quota limits, in the order a refusal looks: its dimensions
 * (DIMENSIONS), then the accelerator resources it names.
 */
export function limitedBy(limits: Partial<Usage>): string[] {
  return [
    ...DIMENSIONS.filter((dimension) => limits[dimension] !== undefined),
    ...Object.keys(limits.extended ?? {}),
  ];
}

/** A usage's figure of a dimension, or of an extended resource by name. */
export function amountOf(usage: Partial<Usage>, key: string): number {
  return (DIMENSIONS as readonly string[]).includes(key)
    ? usage[key as Dimension] ?? 0
    : usage.extended?.[key] ?? 0;
}

/** A number as a message shows it: whole, or to two decimals. */
function shown(value: number): string {
  return Number.isInteger(value) ? String(value) : value.toFixed(2)
    .replace(/0+$/, "");
}

/**
 * Why a write exceeds a quota, or undefined when it fits every one:
 * `team-a: GPUs 6 of 8 used, this cluster asks for 4`. `holding` is the
 * workload as it would be written; the namespace's other holdings count
 * as they are, and the same key's current usage is replaced (an update).
 * Only a dimension the write grows is refused: a quota lowered below what
 * is held does not block a scale-down.
 */
export function quotaExcess(
  quotas: readonly AppliedQuota[],
  holdings: readonly Holding[],
  holding: Holding,
  /** "this cluster", "this job", "this update". */
  what: string,
): string | undefined {
  const before = holdings.find((h) => h.key === holding.key);
  const others = holdings.filter((h) => h.key !== holding.key);
  for (const quota of quotas) {
    if (quota.user !== undefined && holding.owner !== quota.user) continue;
    const used = usageUnder(quota, before ? [...others, before] : others);
    const counted = (usage: Usage) =>
      usageWithAccelerators(usage, quota.accelerators);
    const after = counted(holding.usage);
    const previous = counted(before?.usage ?? zeroUsage());
    for (const key of limitedBy(quota.limits)) {
      const limit = amountOf(quota.limits, key);
      const asks = amountOf(after, key) - amountOf(previous, key);
      if (asks <= 0) continue;
      // A little slack for sums of fractions (0.1 CPU + 0.2 CPU).
      if (amountOf(used, key) + asks <= limit + 1e-9) continue;
      const { name, unit } = WORDS[key as Dimension] ?? { name: key, unit: "" };
      const more = before ? " more" : "";
      return `${quota.scope}: ${name} ${shown(amountOf(used, key))} of ${
        shown(limit)
      }${unit} used, ${what} asks for ${shown(asks)}${unit}${more}`;
    }
  }
  return undefined;
}

// ---------------------------------------------------------------------------
// Reading

const NAMESPACE = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;

/** Whether `limit` is a quota's figure: a number, 0 or more. */
function isLimit(limit: unknown): limit is number {
  return typeof limit === "number" && limit >= 0 && isFinite(limit);
}

/**
 * The `quotas:` section, as policy_section.ts reads it, under the policy's
 * `accelerators` (a quota's key with a "/" names one of them).
 */
function quotasSection(accelerators: readonly string[]): ListSection<Quota> {
  return {
    name: "quotas",
    keys: new Set<string>(["namespaces", "users", "groups", ...DIMENSIONS]),
    otherKey: (key) => key.includes("/"),
    list: "a list",
    entry: "a mapping",
    read(raw, at, problem) {
      const namespaces = namesAt(raw, "namespaces", at, problem) ?? [];
      namespaces.forEach((n, j) => {
        if (n !== "*" && !NAMESPACE.test(n)) {
          problem(`${at}.namespaces[${j}]`, `"${n}" is not a namespace name`);
        }
      });
      if (namespaces.length === 0) {
        problem(`${at}.namespaces`, 'is required ("*" for each namespace)');
      }
      const limits: Partial<Usage> = {};
      for (const dimension of DIMENSIONS) {
        const limit = raw[dimension];
        if (limit === undefined) continue;
        if (!isLimit(limit)) {
          problem(`${at}.${dimension}`, "must be a number, 0 or more");
          continue;
        }
        limits[dimension] = limit;
      }
      const named = acceleratorLimits(raw, at, accelerators, problem);
      if (named) limits.extended = named;
      if (Object.keys(limits).length === 0) {
        problem(
          at,
          `limits nothing: give one of ${
            DIMENSIONS.join(", ")
          } or an accelerator resource's name`,
        );
      }
      return {
        namespaces,
        users: namesAt(raw, "users", at, problem) ?? [],
        groups: namesAt(raw, "groups", at, problem) ?? [],
        limits,
        ...(accelerators === DEFAULT_ACCELERATORS ? {} : { accelerators }),
      };
    },
  };
}

/**
 * An entry's limits of accelerator resources by name (its keys with a
 * "/"), each an accelerator of the policy; undefined when it has none.
 */
function acceleratorLimits(
  raw: Record<string, unknown>,
  at: string,
  accelerators: readonly string[],
  problem: Problem,
): Record<string, number> | undefined {
  let limits: Record<string, number> | undefined;
  for (const [key, limit] of Object.entries(raw)) {
    if (!key.includes("/")) continue;
    const field = `${at}["${key}"]`;
    if (key.includes("*")) {
      problem(field, "must name one accelerator resource, not a pattern");
    } else if (!isAccelerator(key, accelerators)) {
      problem(
        field,
        "is not an accelerator of the policy (accelerators): a quota counts accelerators only",
      );
    } else if (!isLimit(limit)) {
      problem(field, "must be a number, 0 or more");
    } else {
      limits = { ...limits, [key]: limit };
    }
  }
  return limits;
}

/**
 * The `quotas:` section of a policy file, its problems told to `problem`;
 * `accelerators` are the policy's (its `accelerators:`, else the defaults).
 */
export function quotasOf(
  value: unknown,
  problem: Problem,
  accelerators: readonly string[] = DEFAULT_ACCELERATORS,
): Quota[] {
  return listSectionOf(quotasSection(accelerators), value, problem);
}

/** The violations of quotasOf as a list (for tests and callers that collect). */
export function quotaViolations(
  value: unknown,
  accelerators?: readonly string[],
): FieldViolation[] {
  const violations: FieldViolation[] = [];
  quotasOf(
    value,
    (field, description) => violations.push({ field, description }),
    accelerators,
  );
  return violations;
}
