/**
 * The port through which the service reaches Kubernetes. Implementations
 * translate every Kubernetes failure into a ServiceError (domain/errors.ts):
 * NotFound -> NOT_FOUND, AlreadyExists -> ALREADY_EXISTS, Conflict on
 * update/delete -> ABORTED, Invalid -> INVALID_ARGUMENT with the causes'
 * fields, 401 -> UNAUTHENTICATED, 403 -> PERMISSION_DENIED, 429/5xx/network ->
 * UNAVAILABLE, time-out -> DEADLINE_EXCEEDED. Each method makes O(1)
 * Kubernetes calls.
 */
import type { ConfigMap, KubeEvent, RayCluster } from "./resources.ts";

export interface Orchestrator {
  /** Creates the RayCluster in metadata.namespace; returns it as stored. */
  createCluster(cluster: RayCluster): Promise<RayCluster>;
  /**
   * The RayCluster, if it exists and carries the managed-by label;
   * NOT_FOUND otherwise.
   */
  getCluster(namespace: string, name: string): Promise<RayCluster>;
  /** Managed RayClusters of one namespace, or of all when undefined. */
  listClusters(namespace?: string): Promise<RayCluster[]>;
  /** Deletes a managed RayCluster; NOT_FOUND when missing or unmanaged. */
  deleteCluster(namespace: string, name: string): Promise<void>;
  /**
   * Events whose involvedObject is a RayCluster, in one namespace (or all
   * when undefined), optionally narrowed to one cluster name. Callers still
   * match each event to its cluster by namespace, name and uid.
   */
  listClusterEvents(namespace?: string, name?: string): Promise<KubeEvent[]>;

  /** Creates a compute-template ConfigMap; ALREADY_EXISTS on a name clash. */
  createComputeTemplate(configMap: ConfigMap): Promise<ConfigMap>;
  /** The compute-template ConfigMap; NOT_FOUND for any other ConfigMap. */
  getComputeTemplate(namespace: string, name: string): Promise<ConfigMap>;
  /**
   * Compute-template ConfigMaps of one namespace (or all when undefined),
   * optionally only those with the given template names, in one call.
   */
  listComputeTemplates(
    namespace?: string,
    names?: string[],
  ): Promise<ConfigMap[]>;
  /** Deletes a compute-template ConfigMap; NOT_FOUND for any other. */
  deleteComputeTemplate(namespace: string, name: string): Promise<void>;
}
