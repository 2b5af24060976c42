/**
 * A job on an existing cluster runs code there: the cluster must be one
 * Corral manages in the job's namespace, and the caller must be allowed to
 * update it, its owners rule included. One check for every way a job is
 * created (CreateRayJob, a RayJob through the Kubernetes-shaped routes).
 */
import { Code, ServiceError } from "../../domain/errors.ts";
import type { Orchestrator } from "../../domain/ports.ts";
import type { RayCluster } from "../../domain/resources.ts";
import { checkOwner } from "../auth/owners.ts";
import type { CallContext, NamespaceScope } from "./rpcs.ts";

/**
 * FAILED_PRECONDITION when the cluster `name` (what the job's `field`
 * names) is no cluster of Corral's in the call's namespace;
 * PERMISSION_DENIED when the caller may not update it.
 */
export async function checkSelectedCluster(
  orchestrator: Orchestrator,
  name: string,
  field: string,
  { kube, caller, scope, action }: CallContext<NamespaceScope>,
): Promise<void> {
  const rules = caller.authorize(
    `${action}: ${field}`,
    "update",
    "clusters",
    scope.namespace,
  );
  let cluster: RayCluster;
  try {
    cluster = await orchestrator.clusters.get(scope.namespace, name, kube);
  } catch (error) {
    if (error instanceof ServiceError && error.code === Code.NOT_FOUND) {
      throw new ServiceError(
        Code.FAILED_PRECONDITION,
        `${action}: ${field}: cluster "${name}" not found in namespace "${scope.namespace}"`,
        { cause: error },
      );
    }
    throw error;
  }
  // The owner rule of the cluster it runs on: the rules that let the
  // caller update that cluster, not the job's.
  checkOwner(
    {
      caller,
      scope: { namespace: scope.namespace, rules },
      action: `${action}: ${field}`,
    },
    cluster,
    { resource: "clusters", doing: "run jobs on a cluster" },
  );
}
