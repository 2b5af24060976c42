/**
 * The Orchestrator (domain/ports.ts) on @kubernetes/client-node: RayClusters,
 * RayJobs and RayServices through CustomObjectsApi (managed_objects.ts),
 * compute-template ConfigMaps (compute_templates.ts) and the Events about
 * each kind (managed_objects.ts) through CoreV1Api.
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
import { ComputeTemplateCalls } from "./compute_templates.ts";
import { type CallPolicy, KubernetesCaller } from "./kubernetes_call.ts";
import {
  CLUSTER_EVENTS,
  clusterKind,
  type EventsAbout,
  JOB_EVENTS,
  JOB_KIND,
  listEventsAbout,
  type ManagedKind,
  ManagedObjectCalls,
  SERVICE_EVENTS,
  SERVICE_KIND,
} from "./managed_objects.ts";
import type { RayJobResource } from "../domain/job_conversions.ts";
import type { RayServiceResource } from "../domain/service_resources.ts";

/** Every read asks Kubernetes; each resource's calls live in its module. */
export class KubernetesOrchestrator implements Orchestrator {
  readonly #caller: KubernetesCaller;
  readonly #clusters: ManagedObjectCalls<RayCluster>;
  readonly #templates: ComputeTemplateCalls;
  readonly #jobs: ManagedObjectCalls<RayJobResource>;
  readonly #services: ManagedObjectCalls<RayServiceResource>;
  readonly #core: CoreV1Port;
  readonly #version: VersionPort;

  constructor(
    clients: KubernetesClients,
    rayCluster: RayClusterCoordinates,
    policy: CallPolicy = {},
  ) {
    this.#caller = new KubernetesCaller(policy);
    const objects = <T extends { metadata: { name: string } }>(
      kind: ManagedKind<T>,
    ) =>
      new ManagedObjectCalls<T>(
        this.#caller,
        clients.customObjects,
        rayCluster,
        kind,
      );
    this.#clusters = objects(clusterKind(rayCluster.plural));
    this.#templates = new ComputeTemplateCalls(this.#caller, clients.core);
    this.#jobs = objects(JOB_KIND);
    this.#services = objects(SERVICE_KIND);
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
    return this.#events(CLUSTER_EVENTS, namespace, name, options);
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
    return this.#events(SERVICE_EVENTS, namespace, name, options);
  }

  listJobEvents(namespace?: string, name?: string, options?: CallOptions) {
    return this.#events(JOB_EVENTS, namespace, name, options);
  }

  #events(
    about: EventsAbout,
    namespace: string | undefined,
    name: string | undefined,
    options: CallOptions | undefined,
  ): Promise<KubeEvent[]> {
    return listEventsAbout(
      this.#caller,
      this.#core,
      about,
      { namespace, name },
      options,
    );
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
