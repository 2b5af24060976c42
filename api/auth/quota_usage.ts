/**
 * What workloads use, as quotas count it (quota.ts decides with it): every
 * pod Corral writes, by its containers' limits (else requests), over the
 * RayClusters, RayJobs and RayServices of a namespace. Pure.
 *
 * A Usage is plain JSON: it may be stored and summed later (sumUsage), and
 * a usage stored before per-name counting (no `extended`) still sums and
 * compares.
 */
import type { RayJobResource } from "../../domain/job_conversions.ts";
import { clusterOwner } from "../../domain/expiring.ts";
import {
  AUTOSCALER_DEFAULT_CPU,
  AUTOSCALER_DEFAULT_MEMORY,
} from "../../domain/autoscaler_conversions.ts";
import { cpusOf, gibOf, quantityValue } from "../../domain/quantities.ts";
import {
  ANNOTATION,
  LABEL,
  type ObjectMeta,
  type PodTemplateSpec,
  type RayCluster,
} from "../../domain/resources.ts";
import type { RayServiceResource } from "../../domain/service_resources.ts";
import {
  DEFAULT_ACCELERATORS,
  isAccelerator,
  isExtendedResource,
} from "./accelerators.ts";

/** The dimensions of a quota, as the file names them. */
export const DIMENSIONS = [
  "maxClusters",
  "maxWorkers",
  "cpu",
  "gpu",
  "memory",
] as const;
export type Dimension = typeof DIMENSIONS[number];

/** What some workloads use, by dimension (memory in GiB). */
export interface Usage extends Record<Dimension, number> {
  /**
   * Their pods' extended resources by name (`{"nvidia.com/mig-7g.80gb":
   * 8}`), accelerators or not; absent when there are none. `gpu` is the
   * sum of those the default accelerators name; a quota recounts it under
   * the policy's list (usageWithAccelerators).
   */
  extended?: Record<string, number>;
}

/** One workload as quotas see it: who owns it and what it uses. */
export interface Holding {
  /** "RayCluster/blue", "RayJob/train", "RayService/fruit". */
  key: string;
  owner: string;
  usage: Usage;
}

export function zeroUsage(): Usage {
  return { maxClusters: 0, maxWorkers: 0, cpu: 0, gpu: 0, memory: 0 };
}

/** `into` plus `times` x `usage`, extended resources by name. */
function addUsage(into: Usage, usage: Usage, times = 1): Usage {
  for (const dimension of DIMENSIONS) {
    into[dimension] += times * (usage[dimension] ?? 0);
  }
  for (const [name, amount] of Object.entries(usage.extended ?? {})) {
    if (times * amount === 0) continue;
    into.extended ??= {};
    into.extended[name] = (into.extended[name] ?? 0) + times * amount;
  }
  return into;
}

/**
 * `usage` with `gpu` counted under `accelerators` (the policy's list):
 * the sum of its extended resources the list names. A usage without
 * per-name figures keeps its `gpu`.
 */
export function usageWithAccelerators(
  usage: Usage,
  accelerators: readonly string[] = DEFAULT_ACCELERATORS,
): Usage {
  if (usage.extended === undefined) return usage;
  let gpu = 0;
  for (const [name, amount] of Object.entries(usage.extended)) {
    if (isAccelerator(name, accelerators)) gpu += amount;
  }
  return { ...usage, gpu };
}

type Figures = Record<string, string | number | undefined>;

/** What one container asks for: each resource's limit, else its request. */
function containerFigures(container: unknown): Figures {
  const resources = (container as {
    resources?: { limits?: Figures; requests?: Figures };
  } | undefined)?.resources;
  return { ...resources?.requests, ...resources?.limits };
}

/** One pod's usage of what `figures` ask for (cpu, memory, extended). */
function figuresUsage(figures: Figures): Usage {
  const usage = zeroUsage();
  for (const [name, value] of Object.entries(figures)) {
    const quantity = String(value ?? "");
    if (name === "cpu") usage.cpu += cpusOf(quantity);
    else if (name === "memory") usage.memory += gibOf(quantity);
    else if (isExtendedResource(name)) {
      const amount = Math.max(quantityValue(quantity) ?? 0, 0);
      if (amount === 0) continue;
      usage.extended ??= {};
      usage.extended[name] = (usage.extended[name] ?? 0) + amount;
    }
  }
  return usageWithAccelerators(usage);
}

/**
 * What one pod of a template asks for, as the scheduler reckons it: its
 * containers and sidecars (init containers that keep running) together,
 * or its largest init container if that is more, resource by resource.
 */
export function podUsage(template: PodTemplateSpec | undefined): Usage {
  const spec = template?.spec;
  const running = zeroUsage();
  const inits: Usage[] = [];
  for (const container of spec?.containers ?? []) {
    addUsage(running, figuresUsage(containerFigures(container)));
  }
  const initContainers = Array.isArray(spec?.initContainers)
    ? spec.initContainers
    : [];
  for (const container of initContainers) {
    const usage = figuresUsage(containerFigures(container));
    const sidecar =
      (container as { restartPolicy?: string })?.restartPolicy === "Always";
    if (sidecar) addUsage(running, usage);
    else inits.push(usage);
  }
  return inits.reduce(largerUsage, running);
}

/** Resource by resource, the larger of two pods' usage. */
/**
 * Dimension by dimension and extended resource by name, the larger of two
 * usages: what a workload holds while it is between the two (a service's
 * upgrade, a write in flight that the quota ledger charged).
 */
export function largerUsage(a: Usage, b: Usage): Usage {
  const most = zeroUsage();
  for (const dimension of DIMENSIONS) {
    most[dimension] = Math.max(a[dimension], b[dimension]);
  }
  const names = new Set([
    ...Object.keys(a.extended ?? {}),
    ...Object.keys(b.extended ?? {}),
  ]);
  for (const name of names) {
    most.extended ??= {};
    most.extended[name] = Math.max(
      a.extended?.[name] ?? 0,
      b.extended?.[name] ?? 0,
    );
  }
  // Each accelerator at its larger figure: gpu is their sum again.
  return usageWithAccelerators(most);
}

/** What one RayCluster spec uses: one cluster, its head and workers at max. */
export function clusterUsage(spec: RayCluster["spec"] | undefined): Usage {
  const usage = zeroUsage();
  if (!spec) return usage;
  usage.maxClusters = 1;
  addUsage(usage, podUsage(spec.headGroupSpec?.template));
  if (spec.enableInTreeAutoscaling === true) {
    addUsage(usage, figuresUsage(autoscalerFigures(spec.autoscalerOptions)));
  }
  for (const group of spec.workerGroupSpecs ?? []) {
    const pods = Math.max(group.replicas ?? 0, group.maxReplicas ?? 0);
    usage.maxWorkers += pods;
    addUsage(usage, podUsage(group.template), pods);
  }
  return usage;
}

/**
 * What the autoscaler container the operator adds to the head pod asks
 * for (KubeRay's BuildAutoscalerContainer and its options' resources): its
 * limits, else its requests, else 500m CPU and 512Mi.
 */
function autoscalerFigures(options: unknown): Figures {
  const given = containerFigures(options);
  return Object.keys(given).length > 0
    ? given
    : { cpu: AUTOSCALER_DEFAULT_CPU, memory: AUTOSCALER_DEFAULT_MEMORY };
}

/**
 * The submitter the operator runs for a RayJob that names none (KubeRay's
 * GetDefaultSubmitterTemplate): its limits, 1 CPU and 1 GiB.
 */
const DEFAULT_SUBMITTER: PodTemplateSpec = {
  spec: {
    containers: [{
      name: "ray-job-submitter",
      image: "",
      resources: { limits: { cpu: "1", memory: "1Gi" } },
    }],
  },
};

/** The submission modes in which no submitter pod runs. */
const NO_SUBMITTER = new Set(["HTTPMode", "InteractiveMode"]);

/**
 * What a RayJob uses: its own cluster when it brings one, and its
 * submitter pod, which runs whichever cluster the job chose (a job on an
 * existing cluster holds no cluster, but its submitter's CPUs and memory).
 */
export function jobUsage(spec: RayJobResource["spec"]): Usage {
  const usage = clusterUsage(spec.rayClusterSpec);
  if (NO_SUBMITTER.has(String(spec.submissionMode ?? ""))) return usage;
  const submitter = spec.submitterPodTemplate ?? DEFAULT_SUBMITTER;
  return addUsage(usage, podUsage(submitter));
}

/** What a RayCluster, RayJob or RayService about to be written uses. */
export function workloadUsage(
  object: RayCluster | RayJobResource | RayServiceResource,
): Usage {
  return object.kind === "RayCluster"
    ? clusterUsage(object.spec)
    : object.kind === "RayJob"
    ? jobUsage(object.spec)
    : clusterUsage(object.spec.rayClusterConfig);
}

/** Who created an object, as recorded then; "" when nothing says. */
export function ownerOf(metadata: ObjectMeta | undefined): string {
  return metadata?.annotations?.[ANNOTATION.user] ??
    metadata?.labels?.[LABEL.user] ?? "";
}

/** A RayJob's deployment states after which its submitter is gone. */
const FINISHED_JOB = new Set(["Complete", "Failed"]);

/**
 * The workloads of one namespace as quotas count them. A RayCluster that a
 * RayJob or RayService owns (by its ownerReference, else KubeRay's
 * originated-from labels, which a cache keeps: domain/expiring.ts) is
 * counted through its owner, never twice. A job counts its spec while it
 * has not finished, suspended or not (so UpdateRayJob's suspend and resume
 * change nothing quotas count: job_update.ts); once finished, the cluster
 * it keeps (shutdownAfterJobFinishes false), while that stands. A
 * RayService counts its spec's cluster, or the clusters it owns when they
 * hold more (the pending cluster of an upgrade beside the active one).
 */
export function holdingsOf(
  clusters: readonly RayCluster[],
  jobs: readonly RayJobResource[],
  services: readonly RayServiceResource[],
): Holding[] {
  const holdings: Holding[] = [];
  const owned = {
    jobs: new Map<string, Usage>(),
    services: new Map<string, Usage>(),
  };
  for (const cluster of clusters) {
    const owner = clusterOwner(cluster.metadata);
    if (owner) {
      const held = owned[owner.kind].get(owner.name) ?? zeroUsage();
      owned[owner.kind].set(
        owner.name,
        addUsage(held, clusterUsage(cluster.spec)),
      );
      continue;
    }
    holdings.push({
      key: `RayCluster/${cluster.metadata.name}`,
      owner: ownerOf(cluster.metadata),
      usage: clusterUsage(cluster.spec),
    });
  }
  for (const job of jobs) {
    const state = job.status?.jobDeploymentStatus ?? "";
    const kept = owned.jobs.get(job.metadata.name);
    if (FINISHED_JOB.has(state) && kept === undefined) continue;
    holdings.push({
      key: `RayJob/${job.metadata.name}`,
      owner: ownerOf(job.metadata),
      usage: FINISHED_JOB.has(state) ? kept! : jobUsage(job.spec),
    });
  }
  for (const service of services) {
    const spec = clusterUsage(service.spec.rayClusterConfig);
    const running = owned.services.get(service.metadata.name);
    holdings.push({
      key: `RayService/${service.metadata.name}`,
      owner: ownerOf(service.metadata),
      usage: running ? largerUsage(spec, running) : spec,
    });
  }
  return holdings;
}

/** The sum of some holdings' usage. */
export function sumUsage(holdings: readonly Holding[]): Usage {
  const total = zeroUsage();
  for (const { usage } of holdings) addUsage(total, usage);
  return total;
}
