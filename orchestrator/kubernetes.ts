/**
 * The Orchestrator (domain/ports.ts) on @kubernetes/client-node: one set of
 * calls per kind of domain/kinds.ts (managed_objects.ts), each through the
 * API that serves its resource (resource_calls.ts: RayClusters, RayJobs and
 * RayServices through CustomObjectsApi, compute-template ConfigMaps and the
 * Events about each kind through CoreV1Api).
 * Every method makes O(1) calls; lists select on the server with label and
 * field selectors. Kubernetes failures are translated once, where the call
 * is made (kubernetes_call.ts), into ServiceError; client-node's
 * ApiException (whose message dumps response headers) is kept only as the
 * cause.
 */

import { type KindName, type KindObjects, KINDS } from "../domain/kinds.ts";
import type { CallOptions, Orchestrator } from "../domain/ports.ts";
import type { ConfigMap, RayCluster } from "../domain/resources.ts";
import type { RayJobResource } from "../domain/job_conversions.ts";
import type { RayServiceResource } from "../domain/service_resources.ts";
import type {
  KubernetesClients,
  RayClusterCoordinates,
  VersionPort,
} from "./client_ports.ts";
import { type CallPolicy, KubernetesCaller } from "./kubernetes_call.ts";
import { ManagedObjectCalls } from "./managed_objects.ts";
import { resourceCalls } from "./resource_calls.ts";

/** Every read asks Kubernetes; each kind's calls are one ManagedObjectCalls. */
export class KubernetesOrchestrator implements Orchestrator {
  readonly #caller: KubernetesCaller;
  readonly #clusters: ManagedObjectCalls<RayCluster>;
  readonly #templates: ManagedObjectCalls<ConfigMap>;
  readonly #jobs: ManagedObjectCalls<RayJobResource>;
  readonly #services: ManagedObjectCalls<RayServiceResource>;
  readonly #version: VersionPort;

  constructor(
    clients: KubernetesClients,
    rayCluster: RayClusterCoordinates,
    policy: CallPolicy = {},
  ) {
    const caller = new KubernetesCaller(policy);
    const port = <K extends KindName>(name: K) =>
      new ManagedObjectCalls<KindObjects[K]>(
        caller,
        resourceCalls(KINDS[name], clients, rayCluster),
        KINDS[name],
        clients.core,
      );
    this.#caller = caller;
    this.#clusters = port("clusters");
    this.#templates = port("templates");
    this.#jobs = port("jobs");
    this.#services = port("services");
    this.#version = clients.version;
  }

  createCluster(cluster: RayCluster, options?: CallOptions) {
    return this.#clusters.create(cluster, options);
  }

  getCluster(namespace: string, name: string, options?: CallOptions) {
    return this.#clusters.get(namespace, name, options);
  }

  listClusters(namespace?: string, options?: CallOptions) {
    return this.#clusters.list(namespace, options);
  }

  updateCluster(cluster: RayCluster, options?: CallOptions) {
    return this.#clusters.update(cluster, options);
  }

  deleteCluster(namespace: string, name: string, options?: CallOptions) {
    return this.#clusters.delete(namespace, name, options);
  }

  listClusterEvents(namespace?: string, name?: string, options?: CallOptions) {
    return this.#clusters.events(namespace, name, options);
  }

  createComputeTemplate(configMap: ConfigMap, options?: CallOptions) {
    return this.#templates.create(configMap, options);
  }

  getComputeTemplate(namespace: string, name: string, options?: CallOptions) {
    return this.#templates.get(namespace, name, options);
  }

  listComputeTemplates(
    namespace?: string,
    names?: string[],
    options?: CallOptions,
  ) {
    return this.#templates.list(namespace, { ...options, names });
  }

  deleteComputeTemplate(
    namespace: string,
    name: string,
    options?: CallOptions,
  ) {
    return this.#templates.delete(namespace, name, options);
  }

  createJob(job: RayJobResource, options?: CallOptions) {
    return this.#jobs.create(job, options);
  }

  getJob(namespace: string, name: string, options?: CallOptions) {
    return this.#jobs.get(namespace, name, options);
  }

  listJobs(namespace?: string, options?: CallOptions) {
    return this.#jobs.list(namespace, options);
  }

  updateJob(job: RayJobResource, options?: CallOptions) {
    return this.#jobs.update(job, options);
  }

  deleteJob(namespace: string, name: string, options?: CallOptions) {
    return this.#jobs.delete(namespace, name, options);
  }

  listJobEvents(namespace?: string, name?: string, options?: CallOptions) {
    return this.#jobs.events(namespace, name, options);
  }

  createService(service: RayServiceResource, options?: CallOptions) {
    return this.#services.create(service, options);
  }

  getService(namespace: string, name: string, options?: CallOptions) {
    return this.#services.get(namespace, name, options);
  }

  listServices(namespace?: string, options?: CallOptions) {
    return this.#services.list(namespace, options);
  }

  updateService(service: RayServiceResource, options?: CallOptions) {
    return this.#services.update(service, options);
  }

  deleteService(namespace: string, name: string, options?: CallOptions) {
    return this.#services.delete(namespace, name, options);
  }

  listServiceEvents(namespace?: string, name?: string, options?: CallOptions) {
    return this.#services.events(namespace, name, options);
  }

  async ping(options?: CallOptions): Promise<void> {
    await this.#caller.call(
      { action: "Cannot reach Kubernetes", verb: "get", noun: "version" },
      "version",
      (config) => this.#version.getCode({}, config),
      options,
    );
  }
}
