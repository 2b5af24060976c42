/**
 * What KubeRay v1.7.0's RayJob controller decides without I/O: the spec
 * rules it fails a job on (ValidationFailed), the status of a new job
 * (initRayJobStatusIfNeed), the active deadline, what a status write
 * carries (updateRayJobStatus, checkBackoffLimitAndUpdateStatusIfNeeded),
 * and the simulated Ray job a running RayJob follows: PENDING, RUNNING,
 * then SUCCEEDED, or FAILED when the entrypoint ends in `exit <non-zero>`
 * (the dev-mode convention docs/development.md documents), one step per operator
 * delay, with the messages Ray's job manager gives.
 */

import { formatKubernetesTime } from "../../domain/timestamps.ts";
import { randomSuffix } from "../json.ts";
import type { KubeResource } from "./api_client.ts";

/** The selector key naming an existing cluster (RayJobClusterSelectorKey). */
export const CLUSTER_SELECTOR_KEY = "ray.io/cluster";

/** RayJobSpec, as far as the simulated operator reads it. */
export interface RayJobSpec {
  entrypoint?: string;
  jobId?: string;
  submissionMode?: string;
  rayClusterSpec?: Record<string, unknown>;
  clusterSelector?: Record<string, string>;
  shutdownAfterJobFinishes?: boolean;
  ttlSecondsAfterFinished?: number;
  activeDeadlineSeconds?: number;
  suspend?: boolean;
}

/** RayJobStatus (rayjob_types.go), every field optional as written. */
export interface RayJobStatus {
  jobId?: string;
  rayClusterName?: string;
  dashboardURL?: string;
  jobStatus?: string;
  jobDeploymentStatus?: string;
  reason?: string;
  message?: string;
  startTime?: string;
  endTime?: string;
  succeeded?: number;
  failed?: number;
  rayClusterStatus?: Record<string, unknown>;
  rayJobInfo?: { startTime?: string; endTime?: string };
  [key: string]: unknown;
}

/** A RayJob as the operator reads it. */
export interface ObservedJob extends KubeResource {
  spec?: RayJobSpec;
  status?: RayJobStatus;
}

/** The terminal JobDeploymentStatus values (IsJobDeploymentTerminal). */
export function isDeploymentTerminal(status: string | undefined): boolean {
  return status === "Complete" || status === "Failed";
}

/** Whether the job runs on an existing cluster (clusterSelector mode). */
export function usesClusterSelector(job: ObservedJob): boolean {
  return Object.keys(job.spec?.clusterSelector ?? {}).length > 0;
}

/**
 * The first spec rule the job breaks (utils.ValidateRayJobSpec, the rules
 * for the fields the simulated operator reads), or undefined.
 */
export function jobSpecProblem(job: ObservedJob): string | undefined {
  const spec = job.spec ?? {};
  const selector = usesClusterSelector(job);
  if (spec.suspend && !spec.shutdownAfterJobFinishes) {
    return "The RayJob spec is invalid: a RayJob with shutdownAfterJobFinishes set to false is not allowed to be suspended";
  }
  if ((spec.ttlSecondsAfterFinished ?? 0) < 0) {
    return "The RayJob spec is invalid: TTLSecondsAfterFinished must be a non-negative integer";
  }
  if (spec.suspend && selector) {
    return "The RayJob spec is invalid: the ClusterSelector mode doesn't support the suspend operation";
  }
  if (!spec.rayClusterSpec && !selector) {
    return "The RayJob spec is invalid: one of RayClusterSpec or ClusterSelector must be set";
  }
  if (selector && !spec.clusterSelector?.[CLUSTER_SELECTOR_KEY]) {
    return "cluster name in ClusterSelector should not be empty";
  }
  return undefined;
}

/**
 * initRayJobStatusIfNeed: the job id (the spec's or generated), the
 * cluster's name (the selector's, or `<job>-<5 chars>`), Initializing and
 * the start time the active deadline counts from.
 */
export function initialStatus(job: ObservedJob, now: Date): RayJobStatus {
  const status: RayJobStatus = { ...job.status };
  const name = job.metadata.name;
  if (spec(job).submissionMode !== "InteractiveMode" && !status.jobId) {
    status.jobId = spec(job).jobId || `${name}-${randomSuffix()}`;
  }
  if (!status.rayClusterName) {
    status.rayClusterName = spec(job).clusterSelector?.[CLUSTER_SELECTOR_KEY] ||
      `${name}-${randomSuffix()}`;
  }
  status.jobStatus ??= "";
  status.jobDeploymentStatus = "Initializing";
  status.startTime = formatKubernetesTime(now);
  return status;
}

function spec(job: ObservedJob): RayJobSpec {
  return job.spec ?? {};
}

/**
 * Milliseconds left before the active deadline, from status.startTime;
 * undefined without a deadline.
 */
export function deadlineLeftMs(
  job: ObservedJob,
  now: Date,
): number | undefined {
  const seconds = job.spec?.activeDeadlineSeconds;
  const start = Date.parse(job.status?.startTime ?? "");
  if (seconds === undefined || Number.isNaN(start)) return undefined;
  return start + seconds * 1000 - now.getTime();
}

/** checkActiveDeadlineAndUpdateStatusIfNeeded's Failed status. */
export function deadlineExceeded(job: ObservedJob): RayJobStatus {
  return {
    ...job.status,
    jobDeploymentStatus: "Failed",
    reason: "DeadlineExceeded",
    message:
      `The RayJob has passed the activeDeadlineSeconds. StartTime: ${job.status?.startTime}. ActiveDeadlineSeconds: ${job.spec?.activeDeadlineSeconds}`,
  };
}

/**
 * The status the Suspending step leaves once the cluster is gone: the
 * cluster and Ray job fields reset, JobStatus New, Suspended (New after
 * Retrying).
 */
export function suspendedStatus(status: RayJobStatus): RayJobStatus {
  const {
    rayClusterName: _c,
    dashboardURL: _d,
    jobId: _j,
    message: _m,
    reason: _r,
    ...kept
  } = status;
  return {
    ...kept,
    rayClusterStatus: {},
    rayJobInfo: {},
    jobStatus: "",
    jobDeploymentStatus: status.jobDeploymentStatus === "Retrying"
      ? ""
      : "Suspended",
  };
}

/**
 * What updateRayJobStatus writes, or undefined when it writes nothing:
 * only a change of jobStatus, jobDeploymentStatus or rayClusterStatus is
 * written; a terminal deployment status gets endTime; the succeeded and
 * failed counts are those checkBackoffLimitAndUpdateStatusIfNeeded keeps.
 * Empty strings are left out, as Go's omitempty does.
 */
export function statusToWrite(
  old: RayJobStatus,
  next: RayJobStatus,
  now: Date,
): RayJobStatus | undefined {
  const changed = (old.jobStatus ?? "") !== (next.jobStatus ?? "") ||
    (old.jobDeploymentStatus ?? "") !== (next.jobDeploymentStatus ?? "") ||
    JSON.stringify(old.rayClusterStatus ?? {}) !==
      JSON.stringify(next.rayClusterStatus ?? {});
  if (!changed) return undefined;
  const written: RayJobStatus = {
    rayJobInfo: {},
    rayClusterStatus: {},
    ...next,
    failed: (old.failed ?? 0) + (next.jobDeploymentStatus === "Failed" ? 1 : 0),
    succeeded: (old.succeeded ?? 0) +
      (next.jobStatus === "SUCCEEDED" && next.jobDeploymentStatus === "Complete"
        ? 1
        : 0),
  };
  if (isDeploymentTerminal(next.jobDeploymentStatus)) {
    written.endTime = formatKubernetesTime(now);
  }
  for (const [key, value] of Object.entries(written)) {
    if (value === "" || value === undefined) delete written[key];
  }
  return written;
}

/** A Ray job of the simulated dashboard: its status and since when. */
export interface SimulatedRayJob {
  status: "PENDING" | "RUNNING" | "SUCCEEDED" | "FAILED";
  /** When the job reached `status`, in ms since the epoch. */
  since: number;
  startTime?: number;
  endTime?: number;
  message: string;
}

/**
 * The exit code an entrypoint asks to end with: `exit <n>` as its last
 * command (the dev-mode convention), else 0.
 */
export function requestedExitCode(entrypoint: string | undefined): number {
  const match = /(?:^|[;&|\s])exit\s+(\d+)\s*;?\s*$/.exec(entrypoint ?? "");
  return match ? Number(match[1]) : 0;
}

/**
 * The Ray job one step on, after `delayMs` in its status: submitted
 * PENDING, then RUNNING, then SUCCEEDED, or FAILED with the exit code the
 * entrypoint asks for. Messages are those of Ray's job manager.
 */
export function advanceRayJob(
  job: SimulatedRayJob | undefined,
  entrypoint: string | undefined,
  delayMs: number,
  now: number,
): SimulatedRayJob {
  if (!job) {
    return {
      status: "PENDING",
      since: now,
      message:
        "Job has not started yet. It may be waiting for the runtime environment to be set up.",
    };
  }
  if (now - job.since < delayMs) return job;
  if (job.status === "PENDING") {
    return {
      status: "RUNNING",
      since: now,
      startTime: now,
      message: "Job is currently running.",
    };
  }
  if (job.status !== "RUNNING") return job;
  const code = requestedExitCode(entrypoint);
  return {
    ...job,
    since: now,
    endTime: now,
    ...(code === 0
      ? { status: "SUCCEEDED", message: "Job finished successfully." }
      : {
        status: "FAILED",
        message:
          `Job entrypoint command failed with exit code ${code}, last available logs (truncated to 20,000 chars):\n`,
      }),
  };
}

/** The RayJob status fields a Ray job's state fills. */
export function statusFromRayJob(
  status: RayJobStatus,
  rayJob: SimulatedRayJob,
): RayJobStatus {
  const terminal = rayJob.status === "SUCCEEDED" || rayJob.status === "FAILED";
  return {
    ...status,
    jobStatus: rayJob.status,
    jobDeploymentStatus: !terminal
      ? "Running"
      : rayJob.status === "FAILED"
      ? "Failed"
      : "Complete",
    reason: rayJob.status === "FAILED" ? "AppFailed" : "",
    message: rayJob.message,
    rayJobInfo: {
      ...(rayJob.startTime
        ? { startTime: formatKubernetesTime(new Date(rayJob.startTime)) }
        : {}),
      ...(rayJob.endTime
        ? { endTime: formatKubernetesTime(new Date(rayJob.endTime)) }
        : {}),
    },
  };
}
