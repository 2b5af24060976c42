/**
 * The simulated operator's RayService controller: what KubeRay v1.7.0's
 * rayservice_controller.go visibly does for a new service, over the
 * Kubernetes API, with Serve simulated (serve_config.ts):
 *
 * - a pending cluster named `<service>-<5 chars>` (GenerateRayClusterName)
 *   in status.pendingServiceStatus, created from spec.rayClusterConfig,
 *   owned by the service and carrying its labels (CreatedRayCluster);
 * - once that cluster is ready: the Serve applications deployed
 *   (UpdatedServeApplications), the head and serve Services
 *   (CreatedService), and the pending cluster promoted to
 *   activeServiceStatus with its applicationStatuses;
 * - numServeEndpoints (the head pod unless excludeHeadPodFromServeSvc, and
 *   every worker), the Ready and UpgradeInProgress conditions as
 *   calculateConditions sets them, serviceStatus Running when Ready;
 * - a changed serveConfigV2 deployed to the active cluster in place.
 *
 * The controller's finalizer (ray.io/rayservice-finalizer) holds a deleted
 * service until its clusters are deleted.
 *
 * Not modelled: a changed rayClusterConfig (the real operator prepares a
 * new pending cluster and switches over), spec.suspend, the upgrade
 * strategies and their Gateway resources.
 */

import type { Logger } from "../../domain/log.ts";
import { formatKubernetesTime } from "../../domain/timestamps.ts";
import { randomSuffix } from "../json.ts";
import type { ApiClient, KubeResource } from "./api_client.ts";
import type { EventRecorder } from "./events.ts";
import { holds, setFinalizer } from "./finalizers.ts";
import { applicationStatuses, type AppStatus } from "./serve_config.ts";

export const RAY_SERVICES = "rayservices";

/** RayServiceFinalizer: held until the service's clusters are deleted. */
export const FINALIZER = "ray.io/rayservice-finalizer";

/** ServiceDefaultRequeueDuration. */
const REQUEUE_MS = 2000;

/** RayServiceStatus: one cluster's part of a service's status. */
interface ClusterServiceStatus {
  rayClusterName?: string;
  applicationStatuses?: Record<string, AppStatus>;
  rayClusterStatus?: Record<string, unknown>;
  [key: string]: unknown;
}

/** metav1.Condition. */
interface Condition {
  type: string;
  status: "True" | "False" | "Unknown";
  reason: string;
  message: string;
  lastTransitionTime: string;
  observedGeneration?: number;
}

/** RayServiceStatuses (rayservice_types.go). */
interface ServiceStatuses {
  conditions?: Condition[];
  lastUpdateTime?: string;
  serviceStatus?: string;
  activeServiceStatus?: ClusterServiceStatus;
  pendingServiceStatus?: ClusterServiceStatus;
  numServeEndpoints?: number;
  observedGeneration?: number;
}

/** A RayService as the operator reads it. */
interface ObservedService extends KubeResource {
  spec?: {
    serveConfigV2?: string;
    rayClusterConfig?: Record<string, unknown>;
    excludeHeadPodFromServeSvc?: boolean;
  };
  status?: ServiceStatuses;
}

/** meta.SetStatusCondition: the transition time moves with the status. */
function setCondition(
  status: ServiceStatuses,
  condition: Omit<Condition, "lastTransitionTime">,
): void {
  const conditions = status.conditions ?? [];
  const existing = conditions.find((c) => c.type === condition.type);
  const lastTransitionTime = existing && existing.status === condition.status
    ? existing.lastTransitionTime
    : formatKubernetesTime();
  status.conditions = [
    ...conditions.filter((c) => c.type !== condition.type),
    { ...condition, lastTransitionTime },
  ];
}

/** calculateConditions, for the states the simulation reaches. */
function calculateConditions(status: ServiceStatuses): void {
  const observedGeneration = status.observedGeneration;
  const set = (
    type: string,
    value: Condition["status"],
    reason: string,
    message: string,
  ) =>
    setCondition(status, {
      type,
      status: value,
      reason,
      message,
      observedGeneration,
    });
  if (!status.conditions?.length) {
    const message = "RayService is initializing";
    set("Ready", "False", "Initializing", message);
    set("UpgradeInProgress", "False", "Initializing", message);
  }
  const ready = status.conditions?.find((c) => c.type === "Ready");
  if ((status.numServeEndpoints ?? 0) > 0) {
    set(
      "Ready",
      "True",
      "NonZeroServeEndpoints",
      "Number of serve endpoints is greater than 0",
    );
  } else if (ready?.status === "True") {
    set(
      "Ready",
      "False",
      "ZeroServeEndpoints",
      "Number of serve endpoints dropped to 0",
    );
  }
  const active = status.activeServiceStatus?.rayClusterName;
  const pending = status.pendingServiceStatus?.rayClusterName;
  if (active && pending) {
    set(
      "UpgradeInProgress",
      "True",
      "BothActivePendingClustersExist",
      "Both active and pending Ray clusters exist",
    );
  } else if (active) {
    set(
      "UpgradeInProgress",
      "False",
      "NoPendingCluster",
      "Active Ray cluster exists and no pending Ray cluster",
    );
  }
}

/** The ready pods behind the serve Service: head (unless excluded), workers. */
function serveEndpoints(
  service: ObservedService,
  cluster: KubeResource,
): number {
  const spec = (cluster.spec ?? {}) as {
    workerGroupSpecs?: { replicas?: number }[];
  };
  const workers = (spec.workerGroupSpecs ?? []).reduce(
    (sum, group) => sum + Math.max(0, group.replicas ?? 0),
    0,
  );
  return (service.spec?.excludeHeadPodFromServeSvc ? 0 : 1) + workers;
}

function isReady(cluster: KubeResource | undefined): boolean {
  return (cluster?.status as { state?: string } | undefined)?.state ===
    "ready";
}

export class RayServiceController {
  #clusters: ApiClient;
  #events: EventRecorder;
  #log?: Logger;
  /** The serveConfigV2 last deployed, by RayService uid. */
  #deployed = new Map<string, string>();

  /** `clusters` is the client of the RayClusters (same group and version). */
  constructor(clusters: ApiClient, events: EventRecorder, log?: Logger) {
    this.#clusters = clusters;
    this.#events = events;
    this.#log = log;
  }

  /** Reconciles the RayService `namespace/name`; resolves to a requeue. */
  async reconcile(key: string): Promise<number | undefined> {
    const [namespace, name] = key.split("/");
    const { status, object: service } = await this.#clusters.getObject<
      ObservedService
    >(RAY_SERVICES, namespace, name);
    if (status === 404) return undefined;
    if (!service) {
      throw new Error(`Reading RayService ${key} answered HTTP ${status}`);
    }
    if (service.metadata.deletionTimestamp) return await this.#release(service);
    if (!holds(service, FINALIZER)) {
      // The real controller comes back 2 s later; this one at once, which
      // keeps dev mode quick.
      await setFinalizer(
        this.#clusters,
        RAY_SERVICES,
        service,
        FINALIZER,
        true,
      );
      return 0;
    }
    const old = service.status ?? {};
    const next: ServiceStatuses = structuredClone(old);
    next.observedGeneration = service.metadata.generation ?? 1;
    const settled = await this.#reconcileClusters(service, next);
    calculateConditions(next);
    next.serviceStatus = next.conditions?.find((c) => c.type === "Ready")
        ?.status === "True"
      ? "Running"
      : undefined;
    const { lastUpdateTime: _a, ...oldRest } = old;
    const { lastUpdateTime: _b, ...nextRest } = next;
    if (
      JSON.stringify(dropEmpty(oldRest)) === JSON.stringify(dropEmpty(nextRest))
    ) {
      return settled ? undefined : REQUEUE_MS;
    }
    next.lastUpdateTime = formatKubernetesTime();
    const answer = await this.#clusters.replaceStatus(RAY_SERVICES, {
      ...service,
      status: dropEmpty(next),
    });
    if (answer.status === 409) return 0;
    if (answer.status !== 200) {
      throw new Error(
        `Writing RayService ${key} status answered HTTP ${answer.status}`,
      );
    }
    this.#log?.info("Updated service status", {
      namespace,
      name,
      serviceStatus: next.serviceStatus ?? "",
    });
    return settled ? undefined : REQUEUE_MS;
  }

  /**
   * A RayService being deleted: cleanUpRayClusterInstance deletes its
   * clusters (the active and the pending one; DeletedRayCluster), and once
   * they are gone the finalizer is removed.
   */
  async #release(service: ObservedService): Promise<number | undefined> {
    if (!holds(service, FINALIZER)) return undefined;
    const { namespace } = service.metadata;
    const names = [
      service.status?.activeServiceStatus?.rayClusterName,
      service.status?.pendingServiceStatus?.rayClusterName,
    ].filter((name): name is string => Boolean(name));
    let remaining = 0;
    let held = false;
    for (const name of names) {
      const found = await this.#clusters.getCluster(namespace, name);
      const cluster = found.cluster as KubeResource | undefined;
      if (!cluster) continue;
      remaining++;
      // A cluster's own finalizers hold it: come back later, not at once.
      if (cluster.metadata.deletionTimestamp) {
        held = true;
        continue;
      }
      const status = await this.#clusters.deleteObject(
        this.#clusters.plural,
        cluster.metadata,
      );
      if (status === 200 || status === 202) {
        await this.#events.record(
          service,
          "DeletedRayCluster",
          `Deleted the RayCluster ${namespace}/${name}`,
        );
      }
    }
    if (remaining > 0) return held ? REQUEUE_MS : 0;
    await setFinalizer(
      this.#clusters,
      RAY_SERVICES,
      service,
      FINALIZER,
      false,
    );
    this.forget(service.metadata.uid);
    return undefined;
  }

  /** Forgets what was deployed for a RayService gone. */
  forget(uid: string): void {
    this.#deployed.delete(uid);
  }

  /**
   * The pending cluster created, followed and promoted; the active one's
   * applications and endpoints. True when nothing is left to wait for.
   */
  async #reconcileClusters(
    service: ObservedService,
    next: ServiceStatuses,
  ): Promise<boolean> {
    const active = next.activeServiceStatus?.rayClusterName;
    if (!active && !next.pendingServiceStatus?.rayClusterName) {
      next.pendingServiceStatus = {
        rayClusterName: `${service.metadata.name}-${randomSuffix()}`,
      };
    }
    const pendingName = next.pendingServiceStatus?.rayClusterName;
    if (pendingName) {
      const pending = await this.#getOrCreateCluster(service, pendingName);
      next.pendingServiceStatus = {
        ...next.pendingServiceStatus,
        rayClusterStatus: (pending?.status ?? {}) as Record<string, unknown>,
      };
      if (!pending || !isReady(pending)) return false;
      await this.#deploy(service, pending, next.pendingServiceStatus);
      await this.#createServices(service, pending);
      next.activeServiceStatus = next.pendingServiceStatus;
      next.pendingServiceStatus = {};
      next.numServeEndpoints = serveEndpoints(service, pending);
      return true;
    }
    const found = await this.#clusters.getCluster(
      service.metadata.namespace,
      active!,
    );
    const cluster = found.cluster as KubeResource | undefined;
    if (!cluster) {
      // The active cluster is gone: prepare a new one, as the operator does.
      next.pendingServiceStatus = {
        rayClusterName: `${service.metadata.name}-${randomSuffix()}`,
      };
      next.activeServiceStatus = {};
      next.numServeEndpoints = 0;
      return false;
    }
    next.activeServiceStatus = {
      ...next.activeServiceStatus,
      rayClusterStatus: (cluster.status ?? {}) as Record<string, unknown>,
    };
    await this.#deploy(service, cluster, next.activeServiceStatus);
    next.numServeEndpoints = isReady(cluster)
      ? serveEndpoints(service, cluster)
      : 0;
    return true;
  }

  /**
   * Deploys spec.serveConfigV2 to `cluster` unless it is what was last
   * deployed there (UpdatedServeApplications), and writes the
   * applications' statuses into `into`.
   */
  async #deploy(
    service: ObservedService,
    cluster: KubeResource,
    into: ClusterServiceStatus,
  ): Promise<void> {
    const config = service.spec?.serveConfigV2 ?? "";
    const target = `${cluster.metadata.uid}\n${config}`;
    const { namespace, name } = cluster.metadata;
    const read = applicationStatuses(config);
    if ("problem" in read) {
      if (this.#deployed.get(service.metadata.uid) !== target) {
        this.#deployed.set(service.metadata.uid, target);
        await this.#events.record(
          service,
          "FailedToUpdateServeApplications",
          `Failed to update serve applications to the RayCluster ${namespace}/${name}: ${read.problem}`,
          "Warning",
        );
      }
      delete into.applicationStatuses;
      return;
    }
    if (this.#deployed.get(service.metadata.uid) !== target) {
      this.#deployed.set(service.metadata.uid, target);
      await this.#events.record(
        service,
        "UpdatedServeApplications",
        `Updated serve applications to the RayCluster ${namespace}/${name}`,
      );
    }
    into.applicationStatuses = read.applications;
  }

  /** The head and serve Services of a service's first ready cluster. */
  async #createServices(
    service: ObservedService,
    cluster: KubeResource,
  ): Promise<void> {
    const { namespace, name } = service.metadata;
    for (const suffix of ["head-svc", "serve-svc"]) {
      await this.#events.record(
        service,
        "CreatedService",
        `Created the service ${namespace}/${name}-${suffix}`,
      );
    }
    this.#log?.info("Promoted cluster of service", {
      namespace,
      name,
      cluster: cluster.metadata.name,
    });
  }

  /** The cluster `name`, created from spec.rayClusterConfig when missing. */
  async #getOrCreateCluster(
    service: ObservedService,
    name: string,
  ): Promise<KubeResource | undefined> {
    const { namespace } = service.metadata;
    const found = await this.#clusters.getCluster(namespace, name);
    if (found.cluster) return found.cluster as KubeResource;
    if (found.status !== 404) {
      throw new Error(
        `Reading cluster ${namespace}/${name} answered HTTP ${found.status}`,
      );
    }
    const created = await this.#clusters.createObject(
      this.#clusters.plural,
      namespace,
      this.#clusterFor(service, name),
    );
    if (created.status !== 201) {
      const detail = (created.body as { message?: string })?.message ??
        `HTTP ${created.status}`;
      await this.#events.record(
        service,
        "FailedToCreateRayCluster",
        `Failed to create the RayCluster ${namespace}/${name}: ${detail}`,
        "Warning",
      );
      return undefined;
    }
    await this.#events.record(
      service,
      "CreatedRayCluster",
      `Created the RayCluster ${namespace}/${name}`,
    );
    return created.body as KubeResource;
  }

  /** constructRayClusterForRayService: spec, labels, annotations, owner. */
  #clusterFor(
    service: ObservedService,
    name: string,
  ): Record<string, unknown> {
    const { metadata } = service;
    const spec = service.spec?.rayClusterConfig ?? {};
    const workerGroups = (spec.workerGroupSpecs as unknown[] | undefined) ??
      [];
    return {
      apiVersion: this.#clusters.apiVersion,
      kind: "RayCluster",
      metadata: {
        name,
        namespace: metadata.namespace,
        labels: {
          ...metadata.labels,
          "ray.io/originated-from-cr-name": metadata.name,
          "ray.io/originated-from-crd": "RayService",
        },
        annotations: {
          ...metadata.annotations,
          "ray.io/num-worker-groups": String(workerGroups.length),
        },
        ownerReferences: [{
          apiVersion: service.apiVersion ?? this.#clusters.apiVersion,
          kind: "RayService",
          name: metadata.name,
          uid: metadata.uid,
          controller: true,
          blockOwnerDeletion: true,
        }],
      },
      spec: structuredClone(spec),
    };
  }
}

/**
 * The status as Go's encoding/json writes it: empty strings, undefined
 * and empty sub-statuses left out.
 */
function dropEmpty(status: ServiceStatuses): ServiceStatuses {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(status)) {
    if (value === "" || value === undefined) continue;
    out[key] = value;
  }
  return out as ServiceStatuses;
}
