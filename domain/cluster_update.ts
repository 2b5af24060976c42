/**
 * UpdateCluster (AIP-134) in pure functions: which fields an update mask
 * names, the cluster an update makes of the current one, what of it is
 * invalid, and the RayCluster it becomes.
 *
 * - The fields that can be updated are the worker groups
 *   (`cluster_spec.worker_group_spec`, replaced as a whole: a group left out
 *   is removed) and `envs`. Any other path is refused, named.
 * - An empty update mask stands for the fields the cluster sets, as AIP-134
 *   says: those with a value that is not empty, less `name` and `namespace`
 *   (the request's), `etag` (a precondition) and the output fields. Clearing
 *   `envs` or removing every worker group therefore needs the path named;
 *   a cluster that sets none of the updatable fields is refused rather
 *   than taken as an update of nothing.
 * - The result is validated as a create validates a cluster. A violation
 *   under an updated field is refused; elsewhere only one the update brings
 *   (a group's environment now also in `envs`), so a cluster another writer
 *   made, which Corral would not have written, can still be scaled.
 */
import { fieldMaskPathToProto } from "./message_form.ts";
import { mainContainer, workerGroupToResource } from "./conversions.ts";
import {
  envsAnnotation,
  HEAD_CONTAINER,
  POD_IP_ENV,
  WORKER_CONTAINER,
} from "./env_conversions.ts";
import type { FieldViolation } from "./errors.ts";
import type { Limits } from "./limits.ts";
import { ANNOTATION, type Container, type RayCluster } from "./resources.ts";
import type { Cluster, ComputeTemplate } from "./types.ts";
import { clusterViolations } from "./cluster_validation.ts";

/** The paths an update mask may name (proto form), with their JSON paths. */
export const UPDATABLE_PATHS: Readonly<Record<string, string>> = {
  "cluster_spec.worker_group_spec": "cluster.clusterSpec.workerGroupSpec",
  "envs": "cluster.envs",
};

const UPDATABLE_LIST = Object.keys(UPDATABLE_PATHS).map((p) => `"${p}"`)
  .join(" and ");

/** What an UpdateClusterRequest carries, in message form. */
export interface UpdateRequest {
  cluster?: Cluster;
  updateMask?: { paths: string[] };
  namespace: string;
  name: string;
}

/**
 * The paths (proto form) the update applies, and the violations of the
 * request itself: a path that cannot be updated, a name or namespace in the
 * cluster other than the request's.
 */
export function updatePaths(
  request: UpdateRequest,
): { paths: string[]; violations: FieldViolation[] } {
  const violations: FieldViolation[] = [];
  const cluster = request.cluster;
  if (cluster === undefined || cluster === null) {
    return {
      paths: [],
      violations: [{ field: "cluster", description: "is required" }],
    };
  }
  for (const key of ["name", "namespace"] as const) {
    if (cluster[key] !== "" && cluster[key] !== request[key]) {
      violations.push({
        field: `cluster.${key}`,
        description: `must be empty or equal the request's ${key} "${
          request[key]
        }"`,
      });
    }
  }
  const given = (request.updateMask?.paths ?? []).map(fieldMaskPathToProto);
  if (given.length > 0) {
    for (const path of given) {
      if (!Object.hasOwn(UPDATABLE_PATHS, path)) {
        violations.push({
          field: "updateMask",
          description:
            `path "${path}" cannot be updated: only ${UPDATABLE_LIST} can`,
        });
      }
    }
    return { paths: [...new Set(given)], violations };
  }
  // The implied mask: the fields the cluster sets.
  const spec = cluster.clusterSpec;
  const set: [string, boolean][] = [
    ["cluster.user", cluster.user !== ""],
    ["cluster.version", cluster.version !== ""],
    ["cluster.environment", cluster.environment !== "DEV"],
    ["cluster.clusterSpec.headGroupSpec", spec?.headGroupSpec != null],
    // KubeRay's later fields: none can be updated either.
    ["cluster.annotations", Object.keys(cluster.annotations ?? {}).length > 0],
    [
      "cluster.envsValuesFrom",
      Object.keys(cluster.envsValuesFrom ?? {}).length > 0,
    ],
    [
      "cluster.clusterSpec.enableInTreeAutoscaling",
      spec?.enableInTreeAutoscaling === true,
    ],
    [
      "cluster.clusterSpec.autoscalerOptions",
      spec?.autoscalerOptions != null,
    ],
    [
      "cluster.clusterSpec.headServiceAnnotations",
      Object.keys(spec?.headServiceAnnotations ?? {}).length > 0,
    ],
  ];
  for (const [field, isSet] of set) {
    if (isSet) {
      violations.push({
        field,
        description:
          `cannot be updated: only ${UPDATABLE_LIST} can (name the fields to update in updateMask)`,
      });
    }
  }
  const paths: string[] = [];
  if ((spec?.workerGroupSpec ?? []).length > 0) {
    paths.push("cluster_spec.worker_group_spec");
  }
  if (Object.keys(cluster.envs ?? {}).length > 0) paths.push("envs");
  if (paths.length === 0 && violations.length === 0) {
    violations.push({
      field: "updateMask",
      description:
        `is required when the cluster sets none of ${UPDATABLE_LIST} (to clear one, name it)`,
    });
  }
  return { paths, violations };
}

/** The cluster `current` becomes: the update's values of `paths`. */
export function mergeUpdate(
  current: Cluster,
  update: Cluster,
  paths: string[],
): Cluster {
  const merged = structuredClone(current);
  if (paths.includes("cluster_spec.worker_group_spec")) {
    merged.clusterSpec = {
      enableInTreeAutoscaling: false,
      headServiceAnnotations: {},
      ...merged.clusterSpec,
      headGroupSpec: merged.clusterSpec?.headGroupSpec,
      workerGroupSpec: structuredClone(
        update.clusterSpec?.workerGroupSpec ?? [],
      ),
    };
  }
  if (paths.includes("envs")) merged.envs = { ...update.envs };
  return merged;
}

/**
 * What is wrong with the updated cluster: every violation under an updated
 * field, and those elsewhere that the current cluster does not have.
 */
export function updateViolations(
  current: Cluster,
  merged: Cluster,
  paths: string[],
  namespace: string,
  limits: Limits,
): FieldViolation[] {
  const before = clusterViolations({ cluster: current, namespace }, limits);
  const after = clusterViolations({ cluster: merged, namespace }, limits);
  const prefixes = paths.map((path) => UPDATABLE_PATHS[path]);
  const under = (field: string) =>
    prefixes.some((p) =>
      field === p || field.startsWith(`${p}[`) || field.startsWith(`${p}.`)
    );
  return after.filter((v) =>
    under(v.field) ||
    !before.some((b) => b.field === v.field && b.description === v.description)
  );
}

/**
 * The RayCluster `resource` becomes: the worker groups converted anew when
 * they are updated, the cluster's variables replaced in every group's
 * container when `envs` is; everything else (labels, annotations, the head
 * group, fields other writers set) as it was. `templates` holds the compute
 * templates the worker groups name.
 */
export function updatedResource(
  resource: RayCluster,
  current: Cluster,
  merged: Cluster,
  paths: string[],
  templates: ReadonlyMap<string, ComputeTemplate>,
): RayCluster {
  const next = structuredClone(resource);
  if (paths.includes("cluster_spec.worker_group_spec")) {
    next.spec.workerGroupSpecs = (merged.clusterSpec?.workerGroupSpec ?? [])
      .map((group) =>
        workerGroupToResource(
          group,
          merged,
          group.computeTemplate === ""
            ? undefined
            : templates.get(group.computeTemplate),
        )
      );
  }
  if (paths.includes("envs")) {
    const replaced = new Set([
      ...Object.keys(current.envs),
      ...Object.keys(merged.envs),
    ]);
    const containers = [
      mainContainer(next.spec.headGroupSpec?.template, HEAD_CONTAINER),
      ...(next.spec.workerGroupSpecs ?? []).map((group) =>
        mainContainer(group.template, WORKER_CONTAINER)
      ),
    ];
    for (const container of containers) {
      if (container) replaceEnvs(container, replaced, merged.envs);
    }
  }
  const groups = [
    merged.clusterSpec?.headGroupSpec,
    ...(merged.clusterSpec?.workerGroupSpec ?? []),
  ];
  const annotations = next.metadata.annotations ??= {};
  const envNames = envsAnnotation(merged.envs, merged.envsValuesFrom, groups);
  if (envNames !== undefined) annotations[ANNOTATION.envs] = envNames;
  else delete annotations[ANNOTATION.envs];
  return next;
}

/**
 * The container's variables without those named in `replaced`, the
 * cluster's `envs` (sorted) after MY_POD_IP, where conversions put them.
 */
function replaceEnvs(
  container: Container,
  replaced: ReadonlySet<string>,
  envs: Record<string, string>,
): void {
  const kept = (container.env ?? []).filter((e) =>
    !replaced.has(e.name) || e.valueFrom !== undefined
  );
  const at = kept.findIndex((e) => e.name === POD_IP_ENV) + 1;
  const added = Object.keys(envs).sort().map((name) => ({
    name,
    value: envs[name],
  }));
  container.env = [...kept.slice(0, at), ...added, ...kept.slice(at)];
}
