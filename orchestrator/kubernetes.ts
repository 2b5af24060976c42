/**
 * The Orchestrator (domain/ports.ts) on @kubernetes/client-node: RayClusters
 * through CustomObjectsApi (ray_clusters.ts), compute-template ConfigMaps
 * (compute_templates.ts) and Events (cluster_events.ts) through CoreV1Api.
 * Every method makes O(1) calls; lists select on the server with label and
 * field selectors. Kubernetes failures are translated once, where the call
 * is made (kubernetes_call.ts), into ServiceError; client-node's
 * ApiException (whose message dumps response headers) is kept only as the
 * cause.
 */

import type { CallOptions, Orchestrator } from "../domain/ports.ts";
import type { ConfigMap, KubeEvent, RayCluster } from "../domain/resources.ts";
import type {
  CoreV1Port,
  KubernetesClients,
  RayClusterCoordinates,
  VersionPort,
} from "./client_ports.ts";
import { listClusterEvents } from "./cluster_events.ts";
import { ComputeTemplateCalls } from "./compute_templates.ts";
import { type CallPolicy, KubernetesCaller } from "./kubernetes_call.ts";
import { RayClusterCalls } from "./ray_clusters.ts";
import { listJobEvents, RayJobCalls } from "./ray_jobs.ts";
import type { RayJobResource } from "../domain/job_conversions.ts";
import { RayServiceCalls } from "./ray_services.ts";
import type { RayServiceResource } from "../domain/service_resources.ts";

/** Every read asks Kubernetes; each resource's calls live in its module. */
export class KubernetesOrchestrator implements Orchestrator {
  readonly #caller: KubernetesCaller;
  readonly #clusters: RayClusterCalls;
  readonly #templates: ComputeTemplateCalls;
  readonly #jobs: RayJobCalls;
  readonly #services: RayServiceCalls;
  readonly #core: CoreV1Port;
  readonly #version: VersionPort;

  constructor(
    clients: KubernetesClients,
    rayCluster: RayClusterCoordinates,
    policy: CallPolicy = {},
  ) {
    this.#caller = new KubernetesCaller(policy);
    this.#clusters = new RayClusterCalls(
      this.#caller,
      clients.customObjects,
      rayCluster,
    );
    this.#templates = new ComputeTemplateCalls(this.#caller, clients.core);
    this.#jobs = new RayJobCalls(
      this.#caller,
      clients.customObjects,
      rayCluster,
    );
    this.#services = new RayServiceCalls(
      this.#caller,
      clients.customObjects,
      clients.core,
      rayCluster,
    );
    this.#core = clients.core;
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

  listClusterEvents(
    namespace?: string,
    name?: string,
    options?: CallOptions,
  ): Promise<KubeEvent[]> {
    return listClusterEvents(
      this.#caller,
      this.#core,
      namespace,
      name,
      options,
    );
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
    return this.#templates.list(namespace, names, options);
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
    return this.#services.listEvents(namespace, name, options);
  }

  listJobEvents(namespace?: string, name?: string, options?: CallOptions) {
    return listJobEvents(this.#caller, this.#core, namespace, name, options);
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
