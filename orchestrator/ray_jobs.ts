/**
 * RayJobs through CustomObjectsApi: the job operations of the direct
 * orchestrator, one Kubernetes call each (two for a delete), lists
 * selected on the server by the managed-by label, as ray_clusters.ts does
 * for RayClusters.
 */
import type { CallOptions } from "../domain/ports.ts";
import {
  isManagedJob,
  JOB_EVENTS_SELECTOR,
  MANAGED_JOB_SELECTOR,
  type RayJobResource,
} from "../domain/job_conversions.ts";
import type { KubeEvent } from "../domain/resources.ts";
import type {
  CoreV1Port,
  CustomObjectsPort,
  RayClusterCoordinates,
} from "./client_ports.ts";
import { asEvent } from "./json.ts";
import type { KubernetesCall } from "./errors.ts";
import {
  type KubernetesCaller,
  notFound,
  qualified,
} from "./kubernetes_call.ts";

/** The plural RayJobs are served under, in the RayClusters' group and version. */
export const RAY_JOBS = "rayjobs";

/** A call on one job, as error messages describe it. */
function jobCall(
  verb: KubernetesCall["verb"],
  namespace: string,
  name: string,
): KubernetesCall {
  return {
    action: `Cannot ${verb} job "${qualified(namespace, name)}"`,
    verb,
    noun: "job",
  };
}

export class RayJobCalls {
  readonly #caller: KubernetesCaller;
  readonly #api: CustomObjectsPort;
  readonly #group: string;
  readonly #version: string;

  /** `where`: the RayClusters' coordinates; RayJobs share group and version. */
  constructor(
    caller: KubernetesCaller,
    api: CustomObjectsPort,
    where: RayClusterCoordinates,
  ) {
    this.#caller = caller;
    this.#api = api;
    this.#group = where.group;
    this.#version = where.version;
  }

  create(job: RayJobResource, options?: CallOptions): Promise<RayJobResource> {
    const namespace = job.metadata.namespace ?? "";
    return this.#caller.call(
      jobCall("create", namespace, job.metadata.name),
      RAY_JOBS,
      (config) =>
        this.#api.createNamespacedCustomObject(
          { ...this.#where(), namespace, body: job },
          config,
        ),
      options,
    );
  }

  get(
    namespace: string,
    name: string,
    options?: CallOptions,
  ): Promise<RayJobResource> {
    return this.#readManaged(jobCall("get", namespace, name), name, {
      namespace,
      options,
    });
  }

  async list(
    namespace?: string,
    options?: CallOptions,
  ): Promise<RayJobResource[]> {
    const description: KubernetesCall = {
      action: namespace === undefined
        ? "Cannot list jobs"
        : `Cannot list jobs in namespace "${namespace}"`,
      verb: "list",
      noun: "job",
    };
    const labelSelector = MANAGED_JOB_SELECTOR;
    const list: { items?: RayJobResource[] } = await this.#caller.call(
      description,
      RAY_JOBS,
      (config) =>
        namespace === undefined
          ? this.#api.listClusterCustomObject(
            { ...this.#where(), labelSelector },
            config,
          )
          : this.#api.listNamespacedCustomObject(
            { ...this.#where(), namespace, labelSelector },
            config,
          ),
      options,
    );
    return list.items ?? [];
  }

  /** A PUT with the read's resourceVersion: 409 -> ABORTED (as clusters). */
  update(job: RayJobResource, options?: CallOptions): Promise<RayJobResource> {
    const namespace = job.metadata.namespace ?? "";
    const name = job.metadata.name;
    return this.#caller.call(
      jobCall("update", namespace, name),
      RAY_JOBS,
      (config) =>
        this.#api.replaceNamespacedCustomObject(
          { ...this.#where(), namespace, name, body: job },
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
    const description = jobCall("delete", namespace, name);
    const job = await this.#readManaged(description, name, {
      namespace,
      options,
    });
    // The uid precondition makes the delete miss a namesake created
    // between the read and the delete (409 -> ABORTED).
    await this.#caller.call(
      description,
      RAY_JOBS,
      (config) =>
        this.#api.deleteNamespacedCustomObject(
          {
            ...this.#where(),
            namespace,
            name,
            body: { preconditions: { uid: job.metadata.uid } },
          },
          config,
        ),
      options,
    );
  }

  #where(): { group: string; version: string; plural: string } {
    return { group: this.#group, version: this.#version, plural: RAY_JOBS };
  }

  async #readManaged(
    description: KubernetesCall,
    name: string,
    { namespace, options }: { namespace: string; options?: CallOptions },
  ): Promise<RayJobResource> {
    const job: RayJobResource = await this.#caller.call(
      { ...description, verb: "get" },
      RAY_JOBS,
      (config) =>
        this.#api.getNamespacedCustomObject(
          { ...this.#where(), namespace, name },
          config,
        ),
      options,
    );
    // A RayJob Corral does not manage is someone else's: NOT_FOUND.
    if (!isManagedJob(job)) throw notFound(description);
    return job;
  }
}

/**
 * Events whose involvedObject is a RayJob, in `namespace` (all when
 * undefined), of the job `name` when given: one list call, selected on the
 * server as the clusters' events are (cluster_events.ts).
 */
export async function listJobEvents(
  caller: KubernetesCaller,
  core: CoreV1Port,
  namespace?: string,
  name?: string,
  options?: CallOptions,
): Promise<KubeEvent[]> {
  const fieldSelector = [
    JOB_EVENTS_SELECTOR,
    ...(name === undefined ? [] : [`involvedObject.name=${name}`]),
  ].join(",");
  const description: KubernetesCall = {
    action: name === undefined
      ? "Cannot list job events"
      : `Cannot list events of job "${qualified(namespace ?? "", name)}"`,
    verb: "list",
    noun: "event",
  };
  const list = await caller.call(
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
