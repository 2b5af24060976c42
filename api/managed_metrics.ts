/**
 * Gauges of what Corral manages, computed when /metrics is read from what
 * the cache holds (managed_counts.ts): no Kubernetes call per scrape, and
 * no gauge kept up to date between scrapes.
 *
 * Without a cache (--cache=off) these gauges are not registered: each
 * scrape would have to list every workload of every namespace from the
 * API server. While the cache is out of step they show what it last held
 * (corral_cache_in_step says so). Every replica holds the same cache, so
 * every replica reports the same figures: queries take `max by
 * (namespace, ...)`, never a sum over replicas.
 */
import { Gauge, type Registry } from "prom-client";
import type { ManagedObjects } from "../domain/ports.ts";
import type { Quota } from "./auth/quota.ts";
import {
  clusterCounts,
  expiringCounts,
  jobCounts,
  type QuotaFigures,
  quotaFigures,
  type Sample,
  serviceCounts,
} from "./managed_counts.ts";

export interface ManagedMetricsOptions {
  /** The workloads the cache holds now. */
  objects: () => ManagedObjects;
  /** The policy's quotas in force; none when absent. */
  quotas?: () => readonly Quota[];
  /** The policy's accelerators; absent: the defaults. */
  accelerators?: () => readonly string[];
  /** The clock, in ms since the epoch; Date.now(). */
  now?: () => number;
}

/** Registers one gauge whose series `read` gives at each scrape. */
function samplesGauge(
  registry: Registry,
  name: string,
  help: string,
  labelNames: readonly string[],
  read: () => Sample[],
): void {
  new Gauge({
    name,
    help,
    labelNames,
    registers: [registry],
    collect() {
      // Series of namespaces no longer held go: each scrape starts anew.
      this.reset();
      for (const { labels, value } of read()) this.set(labels, value);
    },
  });
}

/** The gauges of managed objects, in `registry`. */
export function registerManagedMetrics(
  registry: Registry,
  options: ManagedMetricsOptions,
): void {
  const { objects } = options;
  const now = options.now ?? Date.now;
  samplesGauge(
    registry,
    "corral_managed_clusters",
    "RayClusters Corral manages, by namespace and state (ready, failed, waiting_for_capacity while Kueue holds it, pending for any other), jobs' and services' clusters included; from the cache.",
    ["namespace", "state"],
    () => clusterCounts(objects().clusters),
  );
  samplesGauge(
    registry,
    "corral_managed_jobs",
    "RayJobs Corral manages, by namespace, deployment status (the operator's jobDeploymentStatus in snake case, waiting_for_capacity while Kueue holds it) and Ray job status; from the cache.",
    ["namespace", "deployment_status", "job_status"],
    () => jobCounts(objects().jobs),
  );
  samplesGauge(
    registry,
    "corral_managed_services",
    "RayServices Corral manages, by namespace and health (healthy, unhealthy, pending); from the cache.",
    ["namespace", "health"],
    () => serviceCounts(objects().services),
  );
  samplesGauge(
    registry,
    "corral_clusters_expiring_within_hour",
    "RayClusters whose expiry is at most an hour away (or past and not yet acted on), by namespace; from the cache.",
    ["namespace"],
    () => expiringCounts(objects().clusters, now()),
  );
  const figures = lastFigures(options);
  samplesGauge(
    registry,
    "corral_quota_limit",
    "The policy's quota of a namespace's total, by namespace and dimension (clusters, workers, cpu, gpu, memory in GiB, or an accelerator resource's name); the smallest where several apply.",
    ["namespace", "dimension"],
    () => figures().limits,
  );
  samplesGauge(
    registry,
    "corral_quota_used",
    "What a namespace's workloads use as quotas count it (each worker group at its maxReplicas), by namespace and dimension, as corral_quota_limit; from the cache.",
    ["namespace", "dimension"],
    () => figures().used,
  );
}

/**
 * quotaFigures of what `options` read, computed again only when that
 * changed: both quota gauges read them at each scrape, and computing them
 * goes over every workload held. The lists read are readonly: a store's
 * list is the same array until the store changes, and a policy's quotas
 * the same items until it is reloaded, so comparing them costs little.
 */
function lastFigures(options: ManagedMetricsOptions): () => QuotaFigures {
  let last: { read: ReadLists; figures: QuotaFigures } | undefined;
  return () => {
    const objects = options.objects();
    const quotas = options.quotas?.() ?? [];
    const accelerators = options.accelerators?.();
    const read: ReadLists = [
      objects.clusters,
      objects.jobs,
      objects.services,
      quotas,
      accelerators ?? [],
    ];
    if (
      last === undefined || !last.read.every((l, i) => sameItems(l, read[i]))
    ) {
      last = { read, figures: quotaFigures(objects, quotas, accelerators) };
    }
    return last.figures;
  };
}

type ReadLists = readonly (readonly unknown[])[];

/** Whether two lists hold the same items in the same order. */
function sameItems(a: readonly unknown[], b: readonly unknown[]): boolean {
  return a === b ||
    (a.length === b.length && a.every((item, i) => item === b[i]));
}
