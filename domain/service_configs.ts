/**
 * KubeRay's UpdateRayServiceConfigs (v0.6.0 to 1.0.0): new replicas and
 * bounds for a service's worker groups, each named. The request is checked
 * as KubeRay checked it (every number greater than 0, min at most max),
 * each group must be one the service has, and Serve's first config format
 * is refused as it is everywhere; the service then changes as
 * UpdateRayService would change it.
 */
import type { FieldViolation } from "./errors.ts";
import type {
  RayService,
  UpdateRayServiceConfigsRequest,
  WorkerGroupUpdateSpec,
} from "./types.ts";

const BODY = "updateService";

/** What is wrong with `request` on its own, before the service is read. */
export function serviceConfigsViolations(
  request: UpdateRayServiceConfigsRequest,
): FieldViolation[] {
  const body = request.updateService;
  if (body == null || body.workerGroupUpdateSpec.length === 0) {
    if (body?.serveDeploymentGraphSpec == null) {
      return [{
        field: BODY,
        description:
          "is required: name the worker groups to change in workerGroupUpdateSpec",
      }];
    }
  }
  const violations: FieldViolation[] = [];
  if (body?.serveDeploymentGraphSpec != null) {
    violations.push({
      field: `${BODY}.serveDeploymentGraphSpec`,
      description:
        "is Serve's first config format, which the operator no longer accepts: set serveConfigV2 with UpdateRayService",
    });
  }
  const seen = new Set<string>();
  (body?.workerGroupUpdateSpec ?? []).forEach((spec, i) => {
    const at = `${BODY}.workerGroupUpdateSpec[${i}]`;
    if (spec.groupName === "") {
      violations.push({ field: `${at}.groupName`, description: "is required" });
    } else if (seen.has(spec.groupName)) {
      violations.push({
        field: `${at}.groupName`,
        description: `names "${spec.groupName}" a second time`,
      });
    }
    seen.add(spec.groupName);
    for (const key of ["replicas", "minReplicas", "maxReplicas"] as const) {
      if (spec[key] <= 0) {
        violations.push({
          field: `${at}.${key}`,
          description: "must be greater than 0",
        });
      }
    }
    if (spec.minReplicas > spec.maxReplicas) {
      violations.push({
        field: `${at}.minReplicas`,
        description: `must not exceed maxReplicas (${spec.maxReplicas})`,
      });
    }
  });
  return violations;
}

/**
 * `current` with the worker groups of `updates` changed; violations
 * naming the groups `current` does not have.
 */
export function withWorkerGroupUpdates(
  current: RayService,
  updates: readonly WorkerGroupUpdateSpec[],
): { service: RayService; violations: FieldViolation[] } {
  const groups = current.clusterSpec?.workerGroupSpec ?? [];
  const violations: FieldViolation[] = [];
  updates.forEach((update, i) => {
    if (!groups.some((group) => group.groupName === update.groupName)) {
      violations.push({
        field: `${BODY}.workerGroupUpdateSpec[${i}].groupName`,
        description: `is not a worker group of service "${current.name}"` +
          ` (it has ${
            groups.map((g) => `"${g.groupName}"`).join(", ") || "none"
          })`,
      });
    }
  });
  const workerGroupSpec = groups.map((group) => {
    const update = updates.find((u) => u.groupName === group.groupName);
    return update === undefined ? group : {
      ...group,
      replicas: update.replicas,
      minReplicas: update.minReplicas,
      maxReplicas: update.maxReplicas,
    };
  });
  const clusterSpec = current.clusterSpec == null
    ? current.clusterSpec
    : { ...current.clusterSpec, workerGroupSpec };
  return { service: { ...current, clusterSpec }, violations };
}
