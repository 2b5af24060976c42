/**
 * What UpdateRayJob may change: `suspend` only. The operator acts on
 * nothing else of a RayJob once it runs (v1.7.0 reconciles suspend, and
 * its webhook re-validates the spec as on create), so any other field the
 * update gives is refused, naming it, unless it equals the job as it is
 * (a client may send back the whole job it read). Fields left empty and
 * output fields are ignored.
 *
 * No quota check: quota.ts counts a job's own cluster for as long as the
 * job has not finished, suspended or not (the operator deletes a suspended
 * job's cluster, but the job keeps its quota, so it can always come
 * back), so resuming (suspend true -> false) adds nothing a quota
 * counts, and suspending frees nothing. Were suspended jobs to stop
 * counting, a resume would grow the namespace like a create and would have
 * to go through the quota guard (quota_guard.ts) as a scale-up does.
 *
 * A queued job that waits (labelled with its queue and suspended) is
 * resumed by Kueue only, when its queue admits it: an update that would
 * clear its suspend is refused (queuedResumeRefusal), whatever the queue
 * (one that does not exist never admits anything). Suspending it, or a
 * queued job Kueue admitted, is an update like any other.
 */
import {
  Code,
  type FieldViolation,
  ServiceError,
} from "../../domain/errors.ts";
import type { RayJobResource } from "../../domain/job_conversions.ts";
import { isWaitingInQueue, queueOf } from "../../domain/queues.ts";
import type { RayJob, UpdateRayJobRequest } from "../../domain/types.ts";

/** The fields of RayJob the operator writes, never compared. */
const OUTPUT_FIELDS = new Set<keyof RayJob>([
  "createdAt",
  "deleteAt",
  "jobStatus",
  "jobDeploymentStatus",
  "message",
  "startTime",
  "endTime",
  "rayClusterName",
  "events",
]);

/** Every violation of `request` against the job as it is, `current`. */
export function jobUpdateViolations(
  request: UpdateRayJobRequest,
  current: RayJob,
): FieldViolation[] {
  const job = request.job;
  if (job === undefined || job === null) {
    return [{ field: "job", description: "is required" }];
  }
  const v: FieldViolation[] = [];
  for (const key of ["name", "namespace"] as const) {
    if (job[key] !== "" && job[key] !== request[key]) {
      v.push({
        field: `job.${key}`,
        description: `must be empty or equal the request's ${key} "${
          request[key]
        }"`,
      });
    }
  }
  for (const key of Object.keys(job) as (keyof RayJob)[]) {
    if (key === "name" || key === "namespace" || key === "suspend") continue;
    if (OUTPUT_FIELDS.has(key) || isEmpty(job[key])) continue;
    if (sameValue(job[key], current[key])) continue;
    v.push({
      field: `job.${key}`,
      description:
        "cannot be changed after the job is created: only suspend may",
    });
  }
  if (job.suspend && !current.shutdownAfterJobFinishes) {
    v.push({
      field: "job.suspend",
      description:
        "needs shutdownAfterJobFinishes: the operator suspends only a job whose cluster it may delete",
    });
  }
  if (job.suspend && Object.keys(current.clusterSelector).length > 0) {
    v.push({
      field: "job.suspend",
      description: "must be false for a job on an existing cluster",
    });
  }
  return v;
}

/**
 * FAILED_PRECONDITION for an update that would resume `current` while it
 * waits in its queue (suspend false, or left out: proto3's false); undefined
 * for any other. Only Kueue clears a queued object's suspend: a release by
 * hand would run the job past its queue's quota, or from a queue that does
 * not exist.
 */
export function queuedResumeRefusal(
  request: UpdateRayJobRequest,
  current: RayJobResource,
  action: string,
): ServiceError | undefined {
  const { labels } = current.metadata;
  if (request.job?.suspend || !isWaitingInQueue(labels, current.spec)) {
    return undefined;
  }
  return new ServiceError(
    Code.FAILED_PRECONDITION,
    `${action}: job.suspend: the job waits in queue "${
      queueOf(labels)
    }": only Kueue resumes it, when the queue admits it`,
  );
}

/** A proto3 default: what a client that does not set a field sends. */
function isEmpty(value: unknown): boolean {
  if (value === undefined || value === null) return true;
  if (value === "" || value === 0 || value === false) return true;
  if (typeof value === "object" && !(value instanceof Date)) {
    return Object.keys(value).length === 0;
  }
  return false;
}

/**
 * Whether `given` says nothing the job as it is does not: each field it
 * sets (not empty) equals current's, in nested messages and list items
 * too, so a job read back and sent again (or a part of it) is no change.
 */
function sameValue(given: unknown, current: unknown): boolean {
  if (given instanceof Date || current instanceof Date) {
    return given instanceof Date && current instanceof Date &&
      given.getTime() === current.getTime();
  }
  if (Array.isArray(given)) {
    return Array.isArray(current) && given.length === current.length &&
      given.every((item, i) => sameValue(item, current[i]));
  }
  if (given !== null && typeof given === "object") {
    if (current === null || typeof current !== "object") return false;
    const held = current as Record<string, unknown>;
    return Object.entries(given).every(([key, value]) =>
      isEmpty(value) || sameValue(value, held[key])
    );
  }
  return given === current;
}
