/**
 * The Orchestrator (domain/ports.ts) on @kubernetes/client-node: one port
 * per kind of domain/kinds.ts (managed_objects.ts), each through the API
 * that serves its resource (resource_calls.ts: RayClusters, RayJobs and
 * RayServices through CustomObjectsApi, compute-template ConfigMaps and the
 * Events about each kind through CoreV1Api), and the jobs' logs from their
 * submitter pods (submitter_logs.ts).
 * Every method makes O(1) calls; lists select on the server with label and
 * field selectors. Kubernetes failures are translated once, where the call
 * is made (kubernetes_call.ts), into ServiceError; client-node's
 * ApiException (whose message dumps response headers) is kept only as the
 * cause.
 */

import { type KindName, type KindObjects, KINDS } from "../domain/kinds.ts";
import type { CallOptions, Orchestrator } from "../domain/ports.ts";
import type {
  KubernetesClients,
  RayClusterCoordinates,
  VersionPort,
} from "./client_ports.ts";
import type { KubeFetch } from "./kube_fetch.ts";
import { type CallPolicy, KubernetesCaller } from "./kubernetes_call.ts";
import { ManagedObjectCalls } from "./managed_objects.ts";
import { QuotaRecordCalls } from "./quota_records.ts";
import { resourceCalls } from "./resource_calls.ts";
import { SubmitterLogs } from "./submitter_logs.ts";

/** Every read asks Kubernetes; each kind's calls are one ManagedObjectCalls. */
export class KubernetesOrchestrator implements Orchestrator {
  readonly clusters: ManagedObjectCalls<KindObjects["clusters"]>;
  readonly templates: ManagedObjectCalls<KindObjects["templates"]>;
  readonly jobs: ManagedObjectCalls<KindObjects["jobs"]>;
  readonly services: ManagedObjectCalls<KindObjects["services"]>;
  readonly quotaRecords: QuotaRecordCalls;
  /** With a `fetch` of the API server (a followed log streams over it). */
  readonly jobLogs?: SubmitterLogs;
  readonly #caller: KubernetesCaller;
  readonly #version: VersionPort;

  constructor(
    clients: KubernetesClients,
    rayCluster: RayClusterCoordinates,
    policy: CallPolicy = {},
    fetch?: KubeFetch,
  ) {
    const caller = new KubernetesCaller(policy);
    const port = <K extends KindName>(name: K) =>
      new ManagedObjectCalls<KindObjects[K]>(
        caller,
        resourceCalls(KINDS[name], clients, rayCluster),
        KINDS[name],
        clients.core,
      );
    this.clusters = port("clusters");
    this.templates = port("templates");
    this.jobs = port("jobs");
    this.services = port("services");
    this.quotaRecords = new QuotaRecordCalls(caller, clients.core);
    if (fetch) this.jobLogs = new SubmitterLogs(caller, clients.core, fetch);
    this.#caller = caller;
    this.#version = clients.version;
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
