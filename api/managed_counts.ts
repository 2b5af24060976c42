/**
 * What the gauges of managed objects show (managed_metrics.ts), counted
 * from the workloads a cache holds: clusters by state, jobs by status,
 * services by health, clusters expiring soon, and per namespace the quota
 * limits and what is used of them. Pure: the objects and the clock are
 * parameters.
 *
 * Every count is by namespace and a value of a closed list
 * (domain/managed_states.ts), never by a user's or an object's name, so a
 * series exists per namespace and state however many objects there are.
 * Quotas of users or groups (each member's share) are left out for that
 * reason: their figures are per user.
 */
import { expiryOf } from "../domain/expiry.ts";
import type { RayJobResource } from "../domain/job_conversions.ts";
import {
  CLUSTER_STATES,
  clusterGaugeState,
  jobGaugeStatus,
  SERVICE_HEALTHS,
  serviceHealth,
} from "../domain/managed_states.ts";
import type { ManagedObjects } from "../domain/ports.ts";
import type { RayCluster } from "../domain/resources.ts";
import type { RayServiceResource } from "../domain/service_resources.ts";
import { DEFAULT_ACCELERATORS } from "./auth/accelerators.ts";
import { namesNamespace, namesNoCaller } from "./auth/policy_scope.ts";
import {
  amountOf,
  type Dimension,
  DIMENSIONS,
  holdingsOf,
  limitedBy,
  type Quota,
  sumUsage,
  usageWithAccelerators,
} from "./auth/quota.ts";

/** One series: its labels and its value. */
export interface Sample {
  labels: Record<string, string>;
  value: number;
}

/** How long ahead "expiring soon" looks: an hour. */
export const EXPIRING_WITHIN_MS = 60 * 60_000;

/** The dimension label of a quota's dimensions, as the API names them. */
const DIMENSION_LABELS: Record<Dimension, string> = {
  maxClusters: "clusters",
  maxWorkers: "workers",
  cpu: "cpu",
  gpu: "gpu",
  memory: "memory",
};

/** Adds one to the series of `labels` in `counts`, keyed by its labels. */
function count(counts: Map<string, Sample>, labels: Record<string, string>) {
  const key = JSON.stringify(labels);
  const sample = counts.get(key) ?? { labels, value: 0 };
  sample.value++;
  counts.set(key, sample);
}

/** Zero series for every namespace held and each of `values`. */
function zeros(
  namespaces: Iterable<string>,
  label: string,
  values: readonly string[],
): Map<string, Sample> {
  const counts = new Map<string, Sample>();
  for (const namespace of namespaces) {
    for (const value of values) {
      const labels = { namespace, [label]: value };
      counts.set(JSON.stringify(labels), { labels, value: 0 });
    }
  }
  return counts;
}

function namespacesOf(
  objects: readonly { metadata: { namespace?: string } }[],
): Set<string> {
  return new Set(objects.map((o) => o.metadata.namespace ?? ""));
}

/** Clusters by namespace and state; every state of a namespace held. */
export function clusterCounts(clusters: readonly RayCluster[]): Sample[] {
  const counts = zeros(namespacesOf(clusters), "state", CLUSTER_STATES);
  for (const cluster of clusters) {
    count(counts, {
      namespace: cluster.metadata.namespace ?? "",
      state: clusterGaugeState(cluster),
    });
  }
  return [...counts.values()];
}

/** Jobs by namespace, deployment status and job status, as seen. */
export function jobCounts(jobs: readonly RayJobResource[]): Sample[] {
  const counts = new Map<string, Sample>();
  for (const job of jobs) {
    const status = jobGaugeStatus(job);
    count(counts, {
      namespace: job.metadata.namespace ?? "",
      deployment_status: status.deployment,
      job_status: status.job,
    });
  }
  return [...counts.values()];
}

/** Services by namespace and health; every health of a namespace held. */
export function serviceCounts(
  services: readonly RayServiceResource[],
): Sample[] {
  const counts = zeros(namespacesOf(services), "health", SERVICE_HEALTHS);
  for (const service of services) {
    count(counts, {
      namespace: service.metadata.namespace ?? "",
      health: serviceHealth(service),
    });
  }
  return [...counts.values()];
}

/**
 * Clusters whose expiry (corral.dev/expires-at) is at most an hour from
 * `now`, or past and not yet acted on, by namespace; those being deleted
 * are not counted. Every namespace holding clusters has a series.
 */
export function expiringCounts(
  clusters: readonly RayCluster[],
  now: number,
): Sample[] {
  const counts = new Map<string, Sample>();
  for (const namespace of namespacesOf(clusters)) {
    counts.set(namespace, { labels: { namespace }, value: 0 });
  }
  for (const { metadata } of clusters) {
    const expiresAt = expiryOf(metadata.annotations);
    if (!expiresAt || metadata.deletionTimestamp) continue;
    if (expiresAt.getTime() - now > EXPIRING_WITHIN_MS) continue;
    counts.get(metadata.namespace ?? "")!.value++;
  }
  return [...counts.values()];
}

/** The workloads of each namespace, in one pass over them. */
function byNamespace(objects: ManagedObjects): Map<string, ManagedObjects> {
  const held = new Map<string, {
    clusters: RayCluster[];
    jobs: RayJobResource[];
    services: RayServiceResource[];
  }>();
  const of = (namespace: string | undefined) => {
    const key = namespace ?? "";
    let lists = held.get(key);
    if (!lists) {
      lists = { clusters: [], jobs: [], services: [] };
      held.set(key, lists);
    }
    return lists;
  };
  for (const c of objects.clusters) of(c.metadata.namespace).clusters.push(c);
  for (const j of objects.jobs) of(j.metadata.namespace).jobs.push(j);
  for (const s of objects.services) of(s.metadata.namespace).services.push(s);
  return held;
}

/** Per namespace and dimension, the quota's limit and what is used. */
export interface QuotaFigures {
  limits: Sample[];
  used: Sample[];
}

/**
 * The namespaces' quotas (those that name no user or group: a namespace's
 * total) and what their workloads use, counted as GetQuotaUsage counts it
 * (quota_usage.ts: holdingsOf). Where several quotas limit a dimension of
 * a namespace, the smallest limit is the one that binds. Usage is given
 * for every namespace that holds a workload or has a quota, in the five
 * dimensions and in each accelerator resource a quota names.
 */
export function quotaFigures(
  objects: ManagedObjects,
  quotas: readonly Quota[],
  accelerators: readonly string[] = DEFAULT_ACCELERATORS,
): QuotaFigures {
  const totals = quotas.filter(namesNoCaller);
  const held = byNamespace(objects);
  const namespaces = new Set([
    ...held.keys(),
    ...totals.flatMap((q) => q.namespaces).filter((n) => n !== "*"),
  ]);
  const figures: QuotaFigures = { limits: [], used: [] };
  for (const namespace of [...namespaces].sort()) {
    const { clusters, jobs, services } = held.get(namespace) ??
      { clusters: [], jobs: [], services: [] };
    const holdings = holdingsOf(clusters, jobs, services);
    const used = usageWithAccelerators(sumUsage(holdings), accelerators);
    const limits = new Map<string, number>();
    for (const quota of totals) {
      if (!namesNamespace(quota, namespace)) continue;
      for (const key of limitedBy(quota.limits)) {
        const limit = amountOf(quota.limits, key);
        limits.set(key, Math.min(limit, limits.get(key) ?? Infinity));
      }
    }
    const keys = new Set<string>([...DIMENSIONS, ...limits.keys()]);
    for (const key of keys) {
      const dimension = DIMENSION_LABELS[key as Dimension] ?? key;
      const labels = { namespace, dimension };
      figures.used.push({ labels, value: amountOf(used, key) });
      const limit = limits.get(key);
      if (limit !== undefined) figures.limits.push({ labels, value: limit });
    }
  }
  return figures;
}
