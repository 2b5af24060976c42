/**
 * A workload as admission reads it: the RayCluster or RayJob about to be
 * written, whose values are read loosely (a field of the wrong shape reads
 * as absent: the CRD's own validation refuses it later), and the pod specs
 * it holds.
 */
import type { RayCluster } from "../../domain/resources.ts";
import type { RayJobResource } from "../../domain/job_conversions.ts";

/**
 * What admission decides on: a RayCluster, or a RayJob (its own cluster's
 * spec.rayClusterSpec walked as a cluster's spec, and its submitter pod).
 */
export type Workload = RayCluster | RayJobResource;

export type Obj = Record<string, unknown>;

export function isObj(value: unknown): value is Obj {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** `value` if it is a list, else an empty one. */
export function listOf(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

/** `value` if it is a string, else "". */
export function text(value: unknown): string {
  return typeof value === "string" ? value : "";
}

/** The pod specs of a workload: its groups', and a RayJob's submitter's. */
export function podSpecsOf(resource: Workload): Obj[] {
  const cluster = resource.kind === "RayCluster"
    ? resource.spec
    : resource.spec.rayClusterSpec;
  const templates: unknown[] = [
    cluster?.headGroupSpec?.template,
    ...listOf(cluster?.workerGroupSpecs).map((group) =>
      isObj(group) ? group.template : undefined
    ),
  ];
  if (resource.kind === "RayJob") {
    templates.push(resource.spec.submitterPodTemplate);
  }
  return templates.map((template) =>
    isObj(template) && isObj(template.spec) ? template.spec : {}
  );
}
