/**
 * RayServices through CustomObjectsApi, and the Events about them through
 * CoreV1Api: the service operations of the direct orchestrator, one
 * Kubernetes call each (two for a delete), lists selected on the server by
 * the managed-by label, events by the involved object's kind.
 */
import type { CallOptions } from "../domain/ports.ts";
import type { KubeEvent } from "../domain/resources.ts";
import {
  isManagedService,
  MANAGED_SERVICE_SELECTOR,
  type RayServiceResource,
  SERVICE_EVENTS_SELECTOR,
} from "../domain/service_resources.ts";
import type {
  CoreV1Port,
  CustomObjectsPort,
  RayClusterCoordinates,
} from "./client_ports.ts";
import type { KubernetesCall } from "./errors.ts";
import { asEvent } from "./json.ts";
import {
  type KubernetesCaller,
  notFound,
  qualified,
} from "./kubernetes_call.ts";

/** The plural of RayServices, beside the RayClusters' group and version. */
export const RAY_SERVICE_PLURAL = "rayservices";

/** A call on one service, as error messages describe it. */
function serviceCall(
  verb: KubernetesCall["verb"],
  namespace: string,
  name: string,
): KubernetesCall {
  return {
    action: `Cannot ${verb} service "${qualified(namespace, name)}"`,
    verb,
    noun: "service",
  };
}

export class RayServiceCalls {
  readonly #caller: KubernetesCaller;
  readonly #api: CustomObjectsPort;
  readonly #core: CoreV1Port;
  readonly #where: RayClusterCoordinates;

  /** `rayCluster`: the RayClusters' group and version, which RayServices share. */
  constructor(
    caller: KubernetesCaller,
    api: CustomObjectsPort,
    core: CoreV1Port,
    rayCluster: RayClusterCoordinates,
  ) {
    this.#caller = caller;
    this.#api = api;
    this.#core = core;
    this.#where = { ...rayCluster, plural: RAY_SERVICE_PLURAL };
  }

  create(
    service: RayServiceResource,
    options?: CallOptions,
  ): Promise<RayServiceResource> {
    const { group, version, plural } = this.#where;
    const namespace = service.metadata.namespace ?? "";
    return this.#caller.call(
      serviceCall("create", namespace, service.metadata.name),
      plural,
      (config) =>
        this.#api.createNamespacedCustomObject(
          { group, version, namespace, plural, body: service },
          config,
        ),
      options,
    );
  }

  get(
    namespace: string,
    name: string,
    options?: CallOptions,
  ): Promise<RayServiceResource> {
    return this.#readManaged(
      serviceCall("get", namespace, name),
      namespace,
      name,
      options,
    );
  }

  async list(
    namespace?: string,
    options?: CallOptions,
  ): Promise<RayServiceResource[]> {
    const { group, version, plural } = this.#where;
    const description: KubernetesCall = {
      action: namespace === undefined
        ? "Cannot list services"
        : `Cannot list services in namespace "${namespace}"`,
      verb: "list",
      noun: "service",
    };
    const labelSelector = MANAGED_SERVICE_SELECTOR;
    const list: { items?: RayServiceResource[] } = await this.#caller.call(
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

  /**
   * Replaces the RayService (PUT): its metadata.resourceVersion is the
   * precondition, as a cluster update's (ray_clusters.ts).
   */
  update(
    service: RayServiceResource,
    options?: CallOptions,
  ): Promise<RayServiceResource> {
    const { group, version, plural } = this.#where;
    const namespace = service.metadata.namespace ?? "";
    const name = service.metadata.name;
    return this.#caller.call(
      serviceCall("update", namespace, name),
      plural,
      (config) =>
        this.#api.replaceNamespacedCustomObject(
          { group, version, namespace, plural, name, body: service },
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
    const description = serviceCall("delete", namespace, name);
    const service = await this.#readManaged(
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
            body: { preconditions: { uid: service.metadata.uid } },
          },
          config,
        ),
      options,
    );
  }

  /**
   * Events whose involvedObject is a RayService, in `namespace` (all when
   * undefined), of the service `name` when given.
   */
  async listEvents(
    namespace?: string,
    name?: string,
    options?: CallOptions,
  ): Promise<KubeEvent[]> {
    const fieldSelector = [
      SERVICE_EVENTS_SELECTOR,
      ...(name === undefined ? [] : [`involvedObject.name=${name}`]),
    ].join(",");
    const description: KubernetesCall = {
      action: name === undefined
        ? "Cannot list service events"
        : `Cannot list events of service "${qualified(namespace ?? "", name)}"`,
      verb: "list",
      noun: "event",
    };
    const core = this.#core;
    const list = await this.#caller.call(
      description,
      "events",
      (config) =>
        namespace === undefined
          ? core.listEventForAllNamespaces({ fieldSelector }, config)
          : core.listNamespacedEvent({ namespace, fieldSelector }, config),
      options,
    );
    return list.items.map(asEvent);
  }

  async #readManaged(
    description: KubernetesCall,
    namespace: string,
    name: string,
    options?: CallOptions,
  ): Promise<RayServiceResource> {
    const { group, version, plural } = this.#where;
    const service: RayServiceResource = await this.#caller.call(
      { ...description, verb: "get" },
      plural,
      (config) =>
        this.#api.getNamespacedCustomObject(
          { group, version, namespace, plural, name },
          config,
        ),
      options,
    );
    // A RayService Corral (or the KubeRay API server) does not manage is
    // someone else's: as far as callers can tell, it does not exist.
    if (!isManagedService(service)) throw notFound(description);
    return service;
  }
}
