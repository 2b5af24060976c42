/**
 * A cluster's simulated worker pods: their names, kept per group by the
 * operator, follow the worker groups' replicas as the operator's pods do,
 * and the status' replica counts follow the spec.
 */

import { randomSuffix } from "../json.ts";
import type { ObservedCluster } from "./api_client.ts";

/** Worker pod names by group name. */
export type WorkerPods = Map<string, string[]>;

/** A pod created or deleted, as the Event the operator records for it. */
export interface PodChange {
  reason: "CreatedWorkerPod" | "DeletedWorkerPod";
  message: string;
}

function workerPodName(cluster: ObservedCluster, group: string): string {
  return `${cluster.metadata.name}-${group}-worker-${randomSuffix()}`;
}

/** Desired worker pods by group name. */
function desiredPods(cluster: ObservedCluster): Map<string, number> {
  const desired = new Map<string, number>();
  for (const worker of cluster.spec?.workerGroupSpecs ?? []) {
    const name = worker.groupName ?? "workergroup";
    desired.set(name, Math.max(0, worker.replicas ?? 0));
  }
  return desired;
}

/** Whether the pods differ from what the spec asks for. */
export function needsScale(
  pods: WorkerPods,
  cluster: ObservedCluster,
): boolean {
  const desired = desiredPods(cluster);
  if (
    [...pods.keys()].some((g) => !desired.has(g) && pods.get(g)!.length > 0)
  ) {
    return true;
  }
  return [...desired].some(([g, n]) => (pods.get(g)?.length ?? 0) !== n);
}

/** The status counts of the worker groups. */
export function replicaStatus(
  cluster: ObservedCluster,
): Record<string, number> {
  const workers = cluster.spec?.workerGroupSpecs ?? [];
  const sum = (pick: (w: (typeof workers)[number]) => number | undefined) =>
    workers.reduce((total, w) => total + Math.max(0, pick(w) ?? 0), 0);
  const desired = sum((w) => w.replicas);
  return {
    desiredWorkerReplicas: desired,
    availableWorkerReplicas: desired,
    readyWorkerReplicas: desired,
    minWorkerReplicas: sum((w) => w.minReplicas),
    maxWorkerReplicas: sum((w) => w.maxReplicas),
  };
}

/**
 * The pods the operator made before it was (re)started: as many as the
 * spec asks for, under new names.
 */
export function adoptedPods(cluster: ObservedCluster): WorkerPods {
  const pods: WorkerPods = new Map();
  for (const [group, count] of desiredPods(cluster)) {
    pods.set(
      group,
      Array.from({ length: count }, () => workerPodName(cluster, group)),
    );
  }
  return pods;
}

/**
 * Creates and deletes pods in `pods` until it matches the spec, yielding
 * each change as it makes it: first the deletions (the newest pod of a
 * group first, every pod of a group gone from the spec), then the
 * creations. `pods` changes only as the changes are taken.
 */
export function* scalePods(
  cluster: ObservedCluster,
  pods: WorkerPods,
): Generator<PodChange> {
  const { namespace } = cluster.metadata;
  const desired = desiredPods(cluster);
  for (const [group, names] of pods) {
    const keep = desired.get(group) ?? 0;
    while (names.length > keep) {
      const pod = names.pop()!;
      yield {
        reason: "DeletedWorkerPod",
        message: `Deleted Pod ${namespace}/${pod}`,
      };
    }
    if (!desired.has(group)) pods.delete(group);
  }
  for (const [group, count] of desired) {
    const names = pods.get(group) ?? [];
    pods.set(group, names);
    while (names.length < count) {
      const pod = workerPodName(cluster, group);
      names.push(pod);
      yield {
        reason: "CreatedWorkerPod",
        message: `Created worker Pod ${namespace}/${pod}`,
      };
    }
  }
}
