/**
 * What the walk over a workload (admission.ts) and the checks of its parts
 * (admission_pods.ts, admission_volumes.ts, admission_containers.ts,
 * admission_env_sources.ts) share: the Refusal each check makes, and the
 * scope it makes it in. It stands apart so that the checks depend on this
 * small contract rather than on the walk that calls them.
 */
import type { WorkloadGrants } from "./workload_grants.ts";

/** One thing a rule does not allow, with where it is and why. */
export interface Refusal {
  /** The RayCluster field: `spec.workerGroupSpecs[0].template.spec...`. */
  path: string;
  /** The request field it comes from, when there is one. */
  field?: string;
  /**
   * What may not be done: `use the service account "corral"`; of an
   * "extended-resource" refusal, what is wrong (a violation's description).
   */
  what: string;
  /**
   * One word for metrics and audit. "extended-resource": a resource
   * neither an accelerator nor allowed, refused as an invalid argument.
   */
  reason: "image" | "host-path" | "workload" | "extended-resource";
}

/**
 * The walk as a check of one part sees it: one rule's grants, the group
 * walked (its request field, its compute template), and where refusals go.
 */
export interface WalkScope {
  readonly grants: WorkloadGrants;
  /** The policy's accelerators (accelerators.ts): any pod may ask for them. */
  readonly accelerators: readonly string[];
  /** The compute template of the group walked; "" for a submitter. */
  readonly template: string;
  refuse(
    path: string,
    field: string | undefined,
    what: string,
    reason?: Refusal["reason"],
  ): void;
  /** The request field `suffix` of the group walked. */
  field(suffix: string): string;
  /** The request field of the group's image. */
  imageField(): string;
}
