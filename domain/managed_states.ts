/**
 * The few states a gauge of managed objects counts them by, read from the
 * objects as the cache holds them. Each is a short, closed list (a label's
 * values must be few): what the operator writes is mapped onto it, and a
 * value no version of the operator is known to write counts as "other",
 * never as a label value of its own.
 *
 * A cluster's state is the one Corral answers in `cluster_state`
 * (conversions.ts: the operator's status.state, "waiting for capacity"
 * while Kueue holds it, queues.ts), folded into four: ready, failed,
 * waiting_for_capacity, pending (everything else: no state yet, or
 * suspended by hand).
 */
import type { RayJobResource } from "./job_conversions.ts";
import {
  isWaitingInQueue,
  queuedClusterState,
  WAITING_FOR_CAPACITY,
} from "./queues.ts";
import type { RayCluster } from "./resources.ts";
import type { RayServiceResource } from "./service_resources.ts";

/** A cluster's state, as the managed clusters' gauge counts it. */
export const CLUSTER_STATES = [
  "ready",
  "failed",
  "waiting_for_capacity",
  "pending",
] as const;
export type ClusterGaugeState = typeof CLUSTER_STATES[number];

/** The state a cluster is counted in (module comment). */
export function clusterGaugeState(cluster: RayCluster): ClusterGaugeState {
  const state = queuedClusterState(
    cluster.metadata.labels,
    cluster.spec,
    cluster.status?.state ?? "",
  );
  if (state === "ready" || state === "failed") return state;
  return state === WAITING_FOR_CAPACITY ? "waiting_for_capacity" : "pending";
}

/**
 * KubeRay's jobDeploymentStatus values (v1.0 to v1.7), in snake case as a
 * label shows them; "" is "pending" (the operator has not seen the job).
 */
const DEPLOYMENT_STATUSES: Record<string, string> = {
  "": "pending",
  New: "new",
  Initializing: "initializing",
  Running: "running",
  Complete: "complete",
  Failed: "failed",
  Suspending: "suspending",
  Suspended: "suspended",
  Retrying: "retrying",
  Waiting: "waiting",
  ValidationFailed: "validation_failed",
};

/** Ray's job statuses (the submission's, status.jobStatus). */
const JOB_STATUSES: Record<string, string> = {
  "": "none",
  PENDING: "pending",
  RUNNING: "running",
  STOPPED: "stopped",
  SUCCEEDED: "succeeded",
  FAILED: "failed",
};

/**
 * A job's deployment status and its Ray job's status, as the managed jobs'
 * gauge counts them: "waiting_for_capacity" while Kueue holds it, as a
 * cluster's.
 */
export function jobGaugeStatus(
  job: RayJobResource,
): { deployment: string; job: string } {
  const status = job.status ?? {};
  const deployment = isWaitingInQueue(job.metadata.labels, job.spec)
    ? "waiting_for_capacity"
    : DEPLOYMENT_STATUSES[status.jobDeploymentStatus ?? ""] ?? "other";
  return {
    deployment,
    job: JOB_STATUSES[status.jobStatus ?? ""] ?? "other",
  };
}

/** A service's health, as the managed services' gauge counts it. */
export const SERVICE_HEALTHS = ["healthy", "unhealthy", "pending"] as const;
export type ServiceHealth = typeof SERVICE_HEALTHS[number];

/**
 * A RayService's health: its Ready condition (KubeRay v1.3 on), else its
 * serviceStatus as older operators wrote it ("Running" is healthy); with
 * neither, pending.
 */
export function serviceHealth(service: RayServiceResource): ServiceHealth {
  const status = service.status ?? {};
  const ready = (status.conditions ?? []).find((c) => c.type === "Ready");
  if (ready) return ready.status === "True" ? "healthy" : "unhealthy";
  const serving = status.serviceStatus ?? "";
  if (serving === "") return "pending";
  return serving === "Running" ? "healthy" : "unhealthy";
}
