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
 */
import type { FieldViolation } from "../../domain/errors.ts";
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
