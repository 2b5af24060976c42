/**
 * Quotas: the policy file's `quotas:` section, and what the clusters of a
 * namespace use of them. Pure: no I/O (quota_guard.ts reads Kubernetes and
 * serialises the writes).
 *
 *     quotas:
 *       - namespaces: ["team-a"]     # the namespace's total ("*": each
 *         maxClusters: 10            # namespace its own total)
 *         maxWorkers: 40             # sum of worker groups' maxReplicas
 *         cpu: 64                    # CPUs
 *         gpu: 8                     # GPUs (any resource named like gpu)
 *         memory: 256                # GiB
 *       - namespaces: ["*"]
 *         groups: ["interns"]        # with users or groups: each matching
 *         maxClusters: 2             # user's own clusters, per namespace
 *
 * Usage is counted from the pods Corral writes (their containers' limits,
 * which are the compute templates' figures), head included, each worker
 * group at its maxReplicas (what an autoscaler may grow it to), over
 * RayClusters, the clusters of RayJobs that bring one (while the job has
 * not finished) and the clusters of RayServices. Every quota that applies
 * to a request is checked; a missing dimension is no limit.
 */
import type { FieldViolation } from "../../domain/errors.ts";
import type { RayJobResource } from "../../domain/job_conversions.ts";
import {
  ANNOTATION,
  LABEL,
  type ObjectMeta,
  type RayCluster,
} from "../../domain/resources.ts";
import type { RayServiceResource } from "../../domain/service_resources.ts";
import type { Identity } from "./identity.ts";
import {
  type ListSection,
  listSectionOf,
  namesAt,
  type Problem,
} from "./policy_section.ts";
import { namesCaller, namesNamespace, namesNoCaller } from "./policy_scope.ts";

/** The dimensions of a quota, as the file names them. */
export const DIMENSIONS = [
  "maxClusters",
  "maxWorkers",
  "cpu",
  "gpu",
  "memory",
] as const;
export type Dimension = typeof DIMENSIONS[number];

/** What some clusters use, by dimension (memory in GiB). */
export type Usage = Record<Dimension, number>;

/** One entry of `quotas:`. */
export interface Quota {
  /** Namespace names, or ["*"]: each namespace counted on its own. */
  namespaces: string[];
  /** Empty with `groups` empty: the namespace's total. */
  users: string[];
  groups: string[];
  /** The limits; an absent dimension is not limited. */
  limits: Partial<Usage>;
}

/** One cluster as quotas see it: who owns it and what it uses. */
export interface Holding {
  /** "RayCluster/blue", "RayJob/train", "RayService/fruit". */
  key: string;
  owner: string;
  usage: Usage;
}

export function zeroUsage(): Usage {
  return { maxClusters: 0, maxWorkers: 0, cpu: 0, gpu: 0, memory: 0 };
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
// Counting

/** CPUs of a Kubernetes quantity: "2", "500m", "1.5". */
function cpuOf(quantity: string): number {
  return quantity.endsWith("m")
    ? Number(quantity.slice(0, -1)) / 1000
    : Number(quantity);
}

const BYTES: Record<string, number> = {
  Ki: 2 ** 10,
  Mi: 2 ** 20,
  Gi: 2 ** 30,
  Ti: 2 ** 40,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
};

/** GiB of a Kubernetes memory quantity: "4Gi", "512Mi", "4G", bytes. */
function gibOf(quantity: string): number {
  const match = /^([0-9.]+)([A-Za-z]*)$/.exec(quantity);
  if (!match) return 0;
  const scale = BYTES[match[2]] ?? 1;
  return (Number(match[1]) * scale) / 2 ** 30;
}

/** What one pod of a template asks for: its containers' limits (else requests). */
function podUsage(
  template: RayCluster["spec"]["headGroupSpec"]["template"] | undefined,
): Pick<Usage, "cpu" | "gpu" | "memory"> {
  const usage = { cpu: 0, gpu: 0, memory: 0 };
  for (const container of template?.spec?.containers ?? []) {
    const resources = container.resources as
      | { limits?: Record<string, string>; requests?: Record<string, string> }
      | undefined;
    const figures = resources?.limits ?? resources?.requests ?? {};
    for (const [name, value] of Object.entries(figures)) {
      const quantity = String(value);
      if (name === "cpu") usage.cpu += cpuOf(quantity) || 0;
      else if (name === "memory") usage.memory += gibOf(quantity);
      // nvidia.com/gpu, amd.com/gpu, a template's own accelerator name.
      else if (/gpu/i.test(name)) usage.gpu += Number(quantity) || 0;
    }
  }
  return usage;
}

/** What one RayCluster spec uses: one cluster, its head and workers at max. */
export function clusterUsage(spec: RayCluster["spec"] | undefined): Usage {
  const usage = zeroUsage();
  if (!spec) return usage;
  usage.maxClusters = 1;
  const add = (pods: number, template: Parameters<typeof podUsage>[0]) => {
    const pod = podUsage(template);
    usage.cpu += pods * pod.cpu;
    usage.gpu += pods * pod.gpu;
    usage.memory += pods * pod.memory;
  };
  add(1, spec.headGroupSpec?.template);
  for (const group of spec.workerGroupSpecs ?? []) {
    const pods = Math.max(group.replicas ?? 0, group.maxReplicas ?? 0);
    usage.maxWorkers += pods;
    add(pods, group.template);
  }
  return usage;
}

/** Who created an object, as recorded then; "" when nothing says. */
export function ownerOf(metadata: ObjectMeta | undefined): string {
  return metadata?.annotations?.[ANNOTATION.user] ??
    metadata?.labels?.[LABEL.user] ?? "";
}

/** A RayJob's deployment states after which its own cluster is gone. */
const FINISHED_JOB = new Set(["Complete", "Failed"]);

/**
 * The clusters of one namespace as quotas count them. A RayCluster that a
 * RayJob or RayService owns is counted through its owner's spec, never
 * twice; a job counts while it brings a cluster and has not finished,
 * suspended or not (so UpdateRayJob's suspend and resume change nothing
 * quotas count: job_update.ts).
 */
export function holdingsOf(
  clusters: readonly RayCluster[],
  jobs: readonly RayJobResource[],
  services: readonly RayServiceResource[],
): Holding[] {
  const holdings: Holding[] = [];
  for (const cluster of clusters) {
    const { ownerReferences } = cluster.metadata as {
      ownerReferences?: { kind?: string }[];
    };
    const owned = (ownerReferences ?? []).some((ref) =>
      ref.kind === "RayJob" || ref.kind === "RayService"
    );
    if (owned) continue;
    holdings.push({
      key: `RayCluster/${cluster.metadata.name}`,
      owner: ownerOf(cluster.metadata),
      usage: clusterUsage(cluster.spec),
    });
  }
  for (const job of jobs) {
    const state = job.status?.jobDeploymentStatus ?? "";
    if (!job.spec.rayClusterSpec || FINISHED_JOB.has(state)) continue;
    holdings.push({
      key: `RayJob/${job.metadata.name}`,
      owner: ownerOf(job.metadata),
      usage: clusterUsage(job.spec.rayClusterSpec),
    });
  }
  for (const service of services) {
    holdings.push({
      key: `RayService/${service.metadata.name}`,
      owner: ownerOf(service.metadata),
      usage: clusterUsage(service.spec.rayClusterConfig),
    });
  }
  return holdings;
}

/** The sum of some holdings' usage. */
export function sumUsage(holdings: readonly Holding[]): Usage {
  const total = zeroUsage();
  for (const { usage } of holdings) {
    for (const dimension of DIMENSIONS) total[dimension] += usage[dimension];
  }
  return total;
}

/** Dimension by dimension, the larger of two usages. */
export function largerUsage(a: Usage, b: Usage): Usage {
  const larger = { ...a };
  for (const dimension of Object.keys(b) as Dimension[]) {
    larger[dimension] = Math.max(a[dimension] ?? 0, b[dimension] ?? 0);
  }
  return larger;
}

// ---------------------------------------------------------------------------
// Deciding

/** A quota as it applies to one caller in one namespace. */
export interface AppliedQuota {
  /** "team-a", or `user "ada" in team-a`. */
  scope: string;
  /** Empty: every holding of the namespace; else only this user's. */
  user?: string;
  limits: Partial<Usage>;
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
    if (namesNoCaller(quota)) {
      applied.push({ scope: namespace, limits: quota.limits });
      continue;
    }
    if (!namesCaller(quota, identity)) continue;
    applied.push({
      scope: `user "${identity.user}" in ${namespace}`,
      user: identity.user,
      limits: quota.limits,
    });
  }
  return applied;
}

/** What a quota counts of the namespace's holdings. */
export function usageUnder(
  quota: AppliedQuota,
  holdings: readonly Holding[],
): Usage {
  return sumUsage(
    quota.user === undefined
      ? holdings
      : holdings.filter((holding) => holding.owner === quota.user),
  );
}

/** A number as a message shows it: whole, or to two decimals. */
function shown(value: number): string {
  return Number.isInteger(value) ? String(value) : value.toFixed(2)
    .replace(/0+$/, "");
}

/**
 * Why a write exceeds a quota, or undefined when it fits every one:
 * `team-a: GPUs 6 of 8 used, this cluster asks for 4`. `holding` is the
 * cluster as it would be written; the namespace's other holdings count
 * as they are, and the same key's current usage is replaced (an update).
 * Only a dimension the write grows is refused: a quota lowered below what
 * is held does not block a scale-down.
 */
export function quotaExcess(
  quotas: readonly AppliedQuota[],
  holdings: readonly Holding[],
  holding: Holding,
  /** "this cluster", "this job's cluster", "this update". */
  what: string,
): string | undefined {
  const before = holdings.find((h) => h.key === holding.key);
  const others = holdings.filter((h) => h.key !== holding.key);
  for (const quota of quotas) {
    if (quota.user !== undefined && holding.owner !== quota.user) continue;
    const used = usageUnder(quota, before ? [...others, before] : others);
    const previous = before?.usage ?? zeroUsage();
    for (const dimension of DIMENSIONS) {
      const limit = quota.limits[dimension];
      if (limit === undefined) continue;
      const asks = holding.usage[dimension] - previous[dimension];
      if (asks <= 0) continue;
      // A little slack for sums of fractions (0.1 CPU + 0.2 CPU).
      if (used[dimension] + asks <= limit + 1e-9) continue;
      const { name, unit } = WORDS[dimension];
      const more = before ? " more" : "";
      return `${quota.scope}: ${name} ${shown(used[dimension])} of ${
        shown(limit)
      }${unit} used, ${what} asks for ${shown(asks)}${unit}${more}`;
    }
  }
  return undefined;
}

// ---------------------------------------------------------------------------
// Reading

const NAMESPACE = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;

/** The `quotas:` section, as policy_section.ts reads it. */
const QUOTAS: ListSection<Quota> = {
  name: "quotas",
  keys: new Set<string>(["namespaces", "users", "groups", ...DIMENSIONS]),
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
      if (typeof limit !== "number" || !(limit >= 0) || !isFinite(limit)) {
        problem(`${at}.${dimension}`, "must be a number, 0 or more");
        continue;
      }
      limits[dimension] = limit;
    }
    if (Object.keys(limits).length === 0) {
      problem(at, `limits nothing: give one of ${DIMENSIONS.join(", ")}`);
    }
    return {
      namespaces,
      users: namesAt(raw, "users", at, problem) ?? [],
      groups: namesAt(raw, "groups", at, problem) ?? [],
      limits,
    };
  },
};

/** The `quotas:` section of a policy file, its problems told to `problem`. */
export function quotasOf(value: unknown, problem: Problem): Quota[] {
  return listSectionOf(QUOTAS, value, problem);
}

/** The violations of quotasOf as a list (for tests and callers that collect). */
export function quotaViolations(value: unknown): FieldViolation[] {
  const violations: FieldViolation[] = [];
  quotasOf(
    value,
    (field, description) => violations.push({ field, description }),
  );
  return violations;
}
