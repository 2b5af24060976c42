/**
 * Which of the rules that granted a request lets its workload be written.
 *
 * Workload checks (admission.ts: what the pods may carry) are made on the
 * RayCluster about to be written, against the rules that granted the
 * request. When several rules grant it, the workload is allowed
 * if ANY ONE of them allows all of it: its host paths and every one of its
 * images. Combining rules (host paths from one, images from another) would
 * allow what no rule says.
 *
 * Image patterns are whole-string globs in which `*` matches any run of
 * characters, `/` and `:` included (as Kyverno's and Gatekeeper's image
 * wildcards): `rayproject/ray:*` matches `rayproject/ray:2.9.0` and
 * `rayproject/ray:2.9.0@sha256:...`, and not `evil/rayproject/ray:2.9.0`
 * (the match is anchored at both ends). Write the separator: `rayproject/ray*`
 * also matches `rayproject/ray-evil`. Images are compared as written, not
 * normalised: `docker.io/rayproject/ray:2.9.0` does not match
 * `rayproject/ray:*`, which can only deny, never allow, too much.
 */
import { workloadRefusals } from "./admission.ts";
import type { Refusal } from "./admission_walk.ts";
import type { Workload } from "./workload.ts";
import {
  defaultGrants,
  matchesAny,
  type WorkloadGrants,
} from "./workload_grants.ts";
import { isAccelerator, isExtendedResource } from "./accelerators.ts";
import type { Rule } from "./policy.ts";

/**
 * What one rule lets pods carry: the safe defaults (workload_grants.ts),
 * with the rule's own allow-lists, its `images`, and `allowHostPath` (any
 * host path) over them.
 */
export function grantsOf(rule: Rule): WorkloadGrants {
  const grants: WorkloadGrants = { ...defaultGrants(), ...rule.workload };
  if (rule.allowHostPath) grants.hostPaths = ["*"];
  if (rule.images !== undefined) grants.images = rule.images;
  else delete grants.images;
  return grants;
}

export type WorkloadDecision =
  | { allowed: true; rule: Rule }
  | { allowed: false; refusals: Refusal[] };

/**
 * Whether one of the granting rules allows the whole workload (a
 * RayCluster, or a RayJob with its own cluster and submitter). When none
 * does, the refusals of the rule that comes closest (fewest refusals, the
 * first of equals): what the caller would have to drop.
 */
export function admitWorkload(
  rules: Rule[],
  resource: Workload,
  /** The request field a cluster comes from (workloadRefusals). */
  subject?: string,
  /** The policy's accelerators (workloadRefusals). */
  accelerators?: readonly string[],
): WorkloadDecision {
  let closest: Refusal[] | undefined;
  for (const rule of rules) {
    const refusals = workloadRefusals(
      resource,
      grantsOf(rule),
      subject,
      accelerators,
    );
    if (refusals.length === 0) return { allowed: true, rule };
    if (!closest || refusals.length < closest.length) closest = refusals;
  }
  return { allowed: false, refusals: closest ?? [] };
}

/**
 * Whether a pod may ask for the extended resource `name` under `rules` (a
 * compute template's accelerator, before any cluster uses it): it is one
 * of the policy's accelerators, or one of the rules allows it.
 */
export function allowsExtendedResource(
  rules: readonly Rule[],
  name: string,
  accelerators?: readonly string[],
): boolean {
  return !isExtendedResource(name) || isAccelerator(name, accelerators) ||
    rules.some((rule) => matchesAny(grantsOf(rule).extendedResources, name));
}
