/**
 * What the operator's reconcile of a RayCluster visibly does, in two steps:
 *
 * - makeReady, its first reconcile: starts the cluster's simulated Ray
 *   dashboard, creates the head Service (head_service.ts) and records
 *   `CreatedService`, records `CreatedHeadPod` and a `CreatedWorkerPod`
 *   per worker pod, then sets `status.state` to `ready` with the
 *   endpoints, replica counts, head (pod and service names, and their IP:
 *   127.0.0.1, where everything runs in dev mode) and observedGeneration.
 *   Events go before the status, so a client that sees `ready` also sees
 *   the events.
 * - scale, the reconcile of a ready cluster whose worker groups changed:
 *   records `CreatedWorkerPod` or `DeletedWorkerPod` for each pod added or
 *   removed and writes the status' replica counts and observedGeneration;
 *   the state stays `ready`.
 *
 * Each re-reads the cluster first and leaves it alone when it is gone or
 * replaced by a namesake; every status write tests the uid it read.
 */

import type { Logger } from "../../domain/log.ts";
import { formatKubernetesTime } from "../../domain/timestamps.ts";
import type { DashboardPool } from "../dashboard/pool.ts";
import type { ApiClient, ObservedCluster } from "./api_client.ts";
import { endpointsFor, type NodePortPool } from "./endpoints.ts";
import type { EventRecorder } from "./events.ts";
import { headService, headServiceName } from "./head_service.ts";
import { randomSuffix } from "../json.ts";
import { replicaStatus, scalePods, type WorkerPods } from "./workers.ts";

/** Bounds the Events written per cluster, whatever its replica counts. */
const MAX_WORKER_POD_EVENTS = 10;

/**
 * How a reconcile ended: ready (status written), skipped (gone, replaced by
 * a namesake, or, for makeReady, given a state meanwhile) or failed (status
 * write refused).
 */
export type Outcome = "ready" | "skipped" | "failed";

/** The status of a cluster made ready at `now`. */
function readyStatus(
  cluster: ObservedCluster,
  endpoints: Record<string, string>,
  now: string,
): Record<string, unknown> {
  const { name } = cluster.metadata;
  return {
    state: "ready",
    endpoints,
    ...replicaStatus(cluster),
    head: {
      podName: `${name}-head`,
      podIP: "127.0.0.1",
      serviceName: headServiceName(name),
      // A headless head service's IP is its head pod's (KubeRay's
      // getHeadServiceIPAndName); the stand-in gives others 127.0.0.1 too.
      serviceIP: "127.0.0.1",
    },
    lastUpdateTime: now,
    stateTransitionTimes: { ready: now },
    observedGeneration: cluster.metadata.generation ?? 1,
  };
}

export class RayClusterReconciler {
  #api: ApiClient;
  #events: EventRecorder;
  #nodePorts: NodePortPool;
  #dashboards: DashboardPool;
  #log?: Logger;

  constructor(
    api: ApiClient,
    events: EventRecorder,
    nodePorts: NodePortPool,
    dashboards: DashboardPool,
    log?: Logger,
  ) {
    this.#api = api;
    this.#events = events;
    this.#nodePorts = nodePorts;
    this.#dashboards = dashboards;
    this.#log = log;
  }

  /**
   * The first reconcile of `cluster`, as seen without a state. NodePorts
   * it allocates are appended to `nodePorts`; `pods` is the cluster's
   * worker pods when the outcome is ready.
   */
  async makeReady(
    cluster: ObservedCluster,
    nodePorts: number[],
  ): Promise<{ outcome: Outcome; pods?: WorkerPods }> {
    const { namespace, name, uid } = cluster.metadata;
    const { cluster: latest } = await this.#api.getCluster(namespace, name);
    // A suspended one (state "suspended") is made ready once resumed.
    const state = latest?.status?.state;
    if (
      latest?.metadata?.uid !== uid || latest.spec?.suspend ||
      (state && state !== "suspended")
    ) return { outcome: "skipped" };
    const endpoints = endpointsFor(latest, this.#nodePorts, nodePorts);
    await this.#createHeadService(latest, endpoints);
    await this.#events.record(
      latest,
      "CreatedHeadPod",
      `Created head Pod ${namespace}/${name}-head-${randomSuffix()}`,
    );
    const pods: WorkerPods = new Map();
    await this.#scaleWorkers(latest, pods);
    const now = formatKubernetesTime();
    const status = readyStatus(latest, endpoints, now);
    const patched = await this.#api.patchStatus(latest.metadata, [
      { op: "add", path: "/status", value: status },
    ]);
    if (patched !== 200) return this.#failed(latest, patched);
    this.#log?.info("Marked cluster ready", {
      namespace,
      name,
      endpoints: status.endpoints,
    });
    return { outcome: "ready", pods };
  }

  /**
   * Marks a suspended cluster as KubeRay v1.7.0 does: state `suspended`
   * and the condition RayClusterSuspended; no pod is created.
   */
  async markSuspended(cluster: ObservedCluster): Promise<Outcome> {
    const now = formatKubernetesTime();
    const patched = await this.#api.patchStatus(cluster.metadata, [
      // Not over a cluster resumed meanwhile (made ready next).
      { op: "test", path: "/spec/suspend", value: true },
      {
        op: "add",
        path: "/status",
        value: {
          state: "suspended",
          conditions: [{
            type: "RayClusterSuspended",
            status: "True",
            reason: "RayClusterSuspended",
            message: "RayCluster is suspended",
            lastTransitionTime: now,
          }],
          lastUpdateTime: now,
          stateTransitionTimes: { suspended: now },
          observedGeneration: cluster.metadata.generation ?? 1,
        },
      },
    ]);
    if (patched !== 200) return this.#failed(cluster, patched).outcome;
    await this.#events.record(cluster, "Suspended", "Suspended RayCluster");
    return "ready";
  }

  /** Brings a ready cluster's `pods` and status to its changed spec. */
  async scale(
    cluster: ObservedCluster,
    pods: WorkerPods,
  ): Promise<{ outcome: Outcome }> {
    const { namespace, name, uid } = cluster.metadata;
    const { cluster: latest } = await this.#api.getCluster(namespace, name);
    if (latest?.metadata?.uid !== uid) return { outcome: "skipped" };
    await this.#scaleWorkers(latest, pods);
    const counts = {
      ...replicaStatus(latest),
      lastUpdateTime: formatKubernetesTime(),
      observedGeneration: latest.metadata.generation ?? 1,
    };
    const patched = await this.#api.patchStatus(
      latest.metadata,
      Object.entries(counts).map(([key, value]) => ({
        op: "add",
        path: `/status/${key}`,
        value,
      })),
    );
    if (patched !== 200) return this.#failed(latest, patched);
    this.#log?.info("Scaled cluster", {
      namespace,
      name,
      ...replicaStatus(latest),
    });
    return { outcome: "ready" };
  }

  /**
   * Starts the cluster's simulated dashboard and creates its head Service
   * pointing at it, then records `CreatedService`. A Service already there
   * (the operator restarted between the two) is left as it is.
   */
  async #createHeadService(
    cluster: ObservedCluster,
    endpoints: Record<string, string>,
  ): Promise<void> {
    const { namespace, name, uid } = cluster.metadata;
    const dashboard = this.#dashboards.start(uid, `${namespace}/${name}`);
    const service = headService(
      cluster,
      cluster.apiVersion ?? this.#api.apiVersion,
      endpoints,
      dashboard.port,
    );
    const created = await this.#api.createCoreObject(
      "services",
      namespace,
      service,
    );
    if (created.status !== 201 && created.status !== 409) {
      this.#log?.error("Failed to create head service", {
        namespace,
        name: headServiceName(name),
        status: created.status,
      });
      return;
    }
    this.#log?.info("Started simulated Ray dashboard", {
      namespace,
      name,
      url: `http://127.0.0.1:${dashboard.port}`,
    });
    await this.#events.record(
      cluster,
      "CreatedService",
      `Created service ${namespace}/${headServiceName(name)}`,
    );
  }

  /**
   * Creates and deletes worker pods until `pods` matches the spec,
   * recording an Event for each (at most MAX_WORKER_POD_EVENTS).
   */
  async #scaleWorkers(
    cluster: ObservedCluster,
    pods: WorkerPods,
  ): Promise<void> {
    let events = 0;
    for (const { reason, message } of scalePods(cluster, pods)) {
      if (events++ < MAX_WORKER_POD_EVENTS) {
        await this.#events.record(cluster, reason, message);
      }
    }
  }

  #failed(cluster: ObservedCluster, status: number): { outcome: Outcome } {
    const { namespace, name } = cluster.metadata;
    this.#log?.error("Failed to update cluster status", {
      namespace,
      name,
      status,
    });
    return { outcome: "failed" };
  }
}
