/**
 * RayClusters through CustomObjectsApi: the cluster operations of the
 * direct orchestrator, one Kubernetes call each (two for a delete), lists
 * selected on the server by the managed-by label.
 */
import type { CallOptions } from "../domain/ports.ts";
import {
  isManagedCluster,
  MANAGED_CLUSTER_SELECTOR,
  type RayCluster,
} from "../domain/resources.ts";
import type {
  CustomObjectsPort,
  RayClusterCoordinates,
} from "./client_ports.ts";
import type { KubernetesCall } from "./errors.ts";
import {
  type KubernetesCaller,
  notFound,
  qualified,
} from "./kubernetes_call.ts";

/** A call on one cluster, as error messages describe it. */
function clusterCall(
  verb: KubernetesCall["verb"],
  namespace: string,
  name: string,
): KubernetesCall {
  return {
    action: `Cannot ${verb} cluster "${qualified(namespace, name)}"`,
    verb,
    noun: "cluster",
  };
}

export class RayClusterCalls {
  readonly #caller: KubernetesCaller;
  readonly #api: CustomObjectsPort;
  readonly #where: RayClusterCoordinates;

  constructor(
    caller: KubernetesCaller,
    api: CustomObjectsPort,
    where: RayClusterCoordinates,
  ) {
    this.#caller = caller;
    this.#api = api;
    this.#where = where;
  }

  create(cluster: RayCluster, options?: CallOptions): Promise<RayCluster> {
    const { group, version, plural } = this.#where;
    const namespace = cluster.metadata.namespace ?? "";
    return this.#caller.call(
      clusterCall("create", namespace, cluster.metadata.name),
      plural,
      (config) =>
        this.#api.createNamespacedCustomObject(
          { group, version, namespace, plural, body: cluster },
          config,
        ),
      options,
    );
  }

  get(
    namespace: string,
    name: string,
    options?: CallOptions,
  ): Promise<RayCluster> {
    return this.#readManaged(
      clusterCall("get", namespace, name),
      namespace,
      name,
      options,
    );
  }

  async list(
    namespace?: string,
    options?: CallOptions,
  ): Promise<RayCluster[]> {
    const { group, version, plural } = this.#where;
    const description: KubernetesCall = {
      action: namespace === undefined
        ? "Cannot list clusters"
        : `Cannot list clusters in namespace "${namespace}"`,
      verb: "list",
      noun: "cluster",
    };
    const labelSelector = MANAGED_CLUSTER_SELECTOR;
    const list: { items?: RayCluster[] } = await this.#caller.call(
      description,
      plural,
      (config) =>
        namespace === undefined
          ? this.#api.listClusterCustomObject(
            { group, version, plural, labelSelector },
            config,
          )
          : this.#api.listNamespacedCustomObject(
            { group, version, namespace, plural, labelSelector },
            config,
          ),
      options,
    );
    return list.items ?? [];
  }

  update(cluster: RayCluster, options?: CallOptions): Promise<RayCluster> {
    const { group, version, plural } = this.#where;
    const namespace = cluster.metadata.namespace ?? "";
    const name = cluster.metadata.name;
    // An update (PUT) of the whole object rather than a patch: its
    // metadata.resourceVersion is a precondition the API server checks
    // atomically (409 Conflict -> ABORTED when another write came
    // between), which is the etag check of UpdateCluster for free, and
    // the object sent is exactly the one validated and converted from
    // what was read, with every label, annotation and field others set
    // kept. A JSON merge patch would replace the container lists whole
    // anyway (envs live in every container's env list), and a strategic
    // merge patch is not served for custom resources.
    return this.#caller.call(
      clusterCall("update", namespace, name),
      plural,
      (config) =>
        this.#api.replaceNamespacedCustomObject(
          { group, version, namespace, plural, name, body: cluster },
          config,
        ),
      options,
    );
  }

  async delete(
    namespace: string,
    name: string,
    options?: CallOptions,
  ): Promise<void> {
    const { group, version, plural } = this.#where;
    const description = clusterCall("delete", namespace, name);
    const cluster = await this.#readManaged(
      description,
      namespace,
      name,
      options,
    );
    // The uid precondition makes the delete miss a namesake created
    // between the read and the delete (answered 409 -> ABORTED).
    await this.#caller.call(
      description,
      plural,
      (config) =>
        this.#api.deleteNamespacedCustomObject(
          {
            group,
            version,
            namespace,
            plural,
            name,
            body: { preconditions: { uid: cluster.metadata.uid } },
          },
          config,
        ),
      options,
    );
  }

  async #readManaged(
    description: KubernetesCall,
    namespace: string,
    name: string,
    options?: CallOptions,
  ): Promise<RayCluster> {
    const { group, version, plural } = this.#where;
    // A read, whatever the caller's action: observed and retried as a get.
    const cluster: RayCluster = await this.#caller.call(
      { ...description, verb: "get" },
      plural,
      (config) =>
        this.#api.getNamespacedCustomObject(
          { group, version, namespace, plural, name },
          config,
        ),
      options,
    );
    // A RayCluster Corral (or the KubeRay API server) does not manage is
    // someone else's: as far as callers can tell, it does not exist.
    if (!isManagedCluster(cluster)) throw notFound(description);
    return cluster;
  }
}
