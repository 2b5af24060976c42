/**
 * The FAILED_PRECONDITION errors of compute templates: a cluster that
 * names templates the namespace does not have, and a template that
 * clusters still use.
 */
import { clusterAction, computeTemplateAction } from "./actions.ts";
import { Code, ServiceError } from "./errors.ts";
import type { Cluster } from "./types.ts";

/**
 * The FAILED_PRECONDITION error of a cluster whose compute templates do not
 * exist, naming them: `Cannot create cluster "team-a/blue": compute template
 * "big" not found in namespace "team-a"`.
 */
export function missingTemplatesError(
  cluster: Cluster,
  namespace: string,
  missing: string[],
  verb = "create",
): ServiceError {
  const names = missing.map((name) => `"${name}"`).join(", ");
  const noun = missing.length === 1 ? "compute template" : "compute templates";
  return new ServiceError(
    Code.FAILED_PRECONDITION,
    `${
      clusterAction(verb, namespace, cluster.name)
    }: ${noun} ${names} not found in namespace "${namespace}"`,
  );
}

/** How many clusters a template-in-use refusal names before "and N more". */
const CLUSTERS_NAMED = 5;

/**
 * The FAILED_PRECONDITION error of deleting a compute template that
 * clusters use: `Cannot delete compute template "team-a/small": clusters
 * "a", "b", "c", "d", "e" and 3 more use it`.
 */
export function templateInUseError(
  namespace: string,
  name: string,
  clusters: string[],
): ServiceError {
  const named = clusters.slice(0, CLUSTERS_NAMED).map((c) => `"${c}"`);
  const more = clusters.length - named.length;
  const list = more > 0
    ? `${named.join(", ")} and ${more} more`
    : named.length > 1
    ? `${named.slice(0, -1).join(", ")} and ${named[named.length - 1]}`
    : named[0];
  const subject = clusters.length === 1
    ? `cluster ${list} uses`
    : `clusters ${list} use`;
  return new ServiceError(
    Code.FAILED_PRECONDITION,
    `${computeTemplateAction("delete", namespace, name)}: ${subject} it`,
  );
}
