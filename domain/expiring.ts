/**
 * What expiry deletes, of the objects that carry an expiry (the annotation
 * corral.dev/expires-at): every cluster Corral writes falls under it, made
 * directly or for a RayJob or a RayService, and what is deleted is the
 * object that owns the cluster:
 *
 * - a RayCluster of its own (CreateCluster);
 * - a RayJob, and its cluster with it (the garbage collector deletes what
 *   the RayJob owns), whether or not it has ended: one that keeps its
 *   cluster after it ends (shutdownAfterJobFinishes false), one that never
 *   ends, one that waits in its queue. Only a job that has ended and holds
 *   no cluster any more is left, with its record: it holds nothing;
 * - a RayService, and its clusters with it.
 *
 * A cluster the operator made for a RayJob or RayService carries the same
 * expiry (KubeRay copies the owner's annotations to it) but is never
 * deleted on its own: the operator would make it again for its owner.
 * It expires on its own only when its owner is gone (an orphan). Its owner
 * is told by the controller ownerReference, or, on what the cache keeps
 * (which trims owner references), by the labels KubeRay puts on the
 * clusters it makes (ray.io/originated-from-crd and -cr-name).
 */
import { expiryOf } from "./expiry.ts";
import type { RayJobResource } from "./job_conversions.ts";
import { KINDS, type WorkloadKindName } from "./kinds.ts";
import type { ObjectMeta, RayCluster } from "./resources.ts";
import type { RayServiceResource } from "./service_resources.ts";

/** KubeRay's label on a cluster it made: the kind of its owner. */
export const ORIGINATED_FROM_CRD = "ray.io/originated-from-crd";
/** KubeRay's label on a cluster it made: its owner's name. */
export const ORIGINATED_FROM_NAME = "ray.io/originated-from-cr-name";

/** A RayJob's deployment states once it has ended. */
const ENDED_JOB = new Set(["Complete", "Failed"]);

/**
 * The objects of the kinds that expire, as listed; a kind whose listing
 * failed is undefined, and nothing is decided on what it would tell (a
 * cluster whose owner is of that kind, a job's cluster).
 */
export interface ExpiryListing {
  clusters?: readonly RayCluster[];
  jobs?: readonly RayJobResource[];
  services?: readonly RayServiceResource[];
}

/** An object expiry governs: its kind, the object as listed, its expiry. */
export interface Expiring {
  kind: WorkloadKindName;
  object: { metadata: ObjectMeta };
  expiresAt: Date;
}

/** The workload kind that owns a cluster: a RayJob's or RayService's. */
export interface ClusterOwner {
  kind: "jobs" | "services";
  name: string;
}

const OWNER_KINDS = ["jobs", "services"] as const;

/**
 * The RayJob or RayService a cluster was made for, by its controller
 * ownerReference (else one naming a RayJob or RayService), else by
 * KubeRay's labels, which a cache keeps where it drops the references
 * (orchestrator/trim.ts); undefined for a cluster of its own.
 */
export function clusterOwner(metadata: ObjectMeta): ClusterOwner | undefined {
  const { ownerReferences } = metadata as {
    ownerReferences?: { kind?: string; name?: string; controller?: boolean }[];
  };
  const refs = ownerReferences ?? [];
  // The controller's, else any of a workload kind (a reference written
  // without the controller flag).
  const controller = refs.find((ref) => ref.controller) ??
    refs.find((ref) =>
      OWNER_KINDS.some((k) => KINDS[k].resource.kind === ref.kind)
    );
  const kind = controller?.kind ?? metadata.labels?.[ORIGINATED_FROM_CRD];
  const name = controller?.name ?? metadata.labels?.[ORIGINATED_FROM_NAME];
  const owner = OWNER_KINDS.find((k) => KINDS[k].resource.kind === kind);
  return owner && name ? { kind: owner, name } : undefined;
}

/**
 * The objects of `listed` whose expiry expiry acts on (module comment):
 * those carrying one, not being deleted, less the clusters whose owner is
 * listed and the jobs that ended holding no cluster.
 */
export function expiringOf(listed: ExpiryListing): Expiring[] {
  const present = new Set<string>();
  for (const kind of OWNER_KINDS) {
    for (const { metadata } of listed[kind] ?? []) {
      present.add(`${kind}/${metadata.namespace}/${metadata.name}`);
    }
  }
  const expiring: Expiring[] = [];
  const add = (kind: WorkloadKindName, object: { metadata: ObjectMeta }) => {
    const expiresAt = expiryOf(object.metadata.annotations);
    if (expiresAt && !object.metadata.deletionTimestamp) {
      expiring.push({ kind, object, expiresAt });
    }
  };
  const owned = new Set<string>();
  for (const cluster of listed.clusters ?? []) {
    const owner = clusterOwner(cluster.metadata);
    if (!owner) {
      add("clusters", cluster);
      continue;
    }
    const key = `${owner.kind}/${cluster.metadata.namespace}/${owner.name}`;
    owned.add(key);
    // An orphan expires on its own; an owner not listed tells nothing.
    if (listed[owner.kind] && !present.has(key)) add("clusters", cluster);
  }
  for (const job of listed.jobs ?? []) {
    const { namespace, name } = job.metadata;
    const ended = ENDED_JOB.has(job.status?.jobDeploymentStatus ?? "");
    const holds = !listed.clusters || owned.has(`jobs/${namespace}/${name}`);
    // Without the clusters listed, an ended job is left until they are.
    if (!ended || (listed.clusters && holds)) add("jobs", job);
  }
  for (const service of listed.services ?? []) add("services", service);
  return expiring;
}
