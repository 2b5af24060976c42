/**
 * Services: the RayService message <-> the KubeRay RayService resource.
 *
 * A service's cluster is a cluster: its cluster_spec is rendered by
 * clusterToResource (the same compute templates, pod templates, defaults)
 * into spec.rayClusterConfig, and read back by clusterFromResource, so a
 * service never runs a cluster a cluster request could not describe, and
 * the two never drift apart.
 */
import { NO_ADDRESSES } from "./cluster_addresses.ts";
import {
  clusterFromResource,
  clusterToResource,
  userLabelValue,
} from "./conversions.ts";
import { clusterEventFromResource } from "./event_conversions.ts";
import { expiresAtOf } from "./expiry.ts";
import {
  ANNOTATION,
  APP_NAME,
  type KubeEvent,
  LABEL,
  MANAGED_BY,
  type RayCluster,
} from "./resources.ts";
import type {
  AppStatusResource,
  ConditionResource,
  RayServiceClusterStatus,
  RayServiceResource,
} from "./service_resources.ts";
import type {
  Cluster,
  ComputeTemplate,
  RayService,
  RayServiceCondition,
  RayServiceEvent,
  RayServiceStatus,
  ServeApplicationStatus,
  ServeDeploymentStatus,
} from "./types.ts";

/** `Cannot <verb> service "team-a/web"` (less when name or namespace is unknown). */
export function serviceAction(
  verb: string,
  namespace: string,
  name = "",
): string {
  const what = name !== "" && namespace !== ""
    ? ` "${namespace}/${name}"`
    : name !== ""
    ? ` "${name}"`
    : namespace !== ""
    ? ` in namespace "${namespace}"`
    : "";
  return `Cannot ${verb} service${what}`;
}

/**
 * The cluster a service runs, as a cluster request would describe it: the
 * service's name, namespace, user, version and cluster_spec; no envs of
 * its own (a service's variables are its groups' `environment`).
 */
export function serviceAsCluster(service: RayService): Cluster {
  return {
    name: service.name,
    namespace: service.namespace,
    user: service.user,
    version: service.version,
    environment: "DEV",
    clusterSpec: service.clusterSpec,
    clusterState: "",
    events: [],
    serviceEndpoint: {},
    envs: {},
    envsValuesFrom: {},
    annotations: {},
    etag: "",
    ttl: "",
    ...NO_ADDRESSES,
    // A service is not queued: Kueue admits RayServices by their own
    // integration, which Corral does not write.
    queue: "",
    // Its expiry is the service's: clusterToResource writes the annotation
    // that serviceToResource puts on the RayService.
    ...(service.expiresAt ? { expiresAt: service.expiresAt } : {}),
  };
}

// ---------------------------------------------------------------------------
// RayService -> resource

/**
 * The RayService for a validated service, and the RayCluster its
 * rayClusterConfig is the spec of (what admission decides on). `templates`
 * holds every compute template the cluster_spec names.
 */
export function serviceToResource(
  service: RayService,
  templates: ReadonlyMap<string, ComputeTemplate>,
  options: { apiVersion: string; now: Date },
): { resource: RayServiceResource; cluster: RayCluster } {
  const cluster = clusterToResource(
    serviceAsCluster(service),
    templates,
    { apiVersion: options.apiVersion, now: options.now },
  );
  const annotations = cluster.metadata.annotations ?? {};
  const resource: RayServiceResource = {
    apiVersion: options.apiVersion,
    kind: "RayService",
    metadata: {
      name: service.name,
      namespace: service.namespace,
      labels: {
        [LABEL.user]: userLabelValue(service.user),
        [LABEL.appName]: APP_NAME,
        [LABEL.managedBy]: MANAGED_BY,
      },
      // The cluster's own annotations: when it was asked for, the owner's
      // whole name where a label cannot hold it, which variables are the
      // groups' (read back by clusterFromResource), and the expiry (which
      // the operator copies to the clusters it makes for the service).
      annotations: { ...annotations },
    },
    spec: {
      serveConfigV2: service.serveConfig_V2,
      // KubeRay's deprecated thresholds, when set (its server leaves 0 out).
      ...(service.serviceUnhealthySecondThreshold > 0
        ? {
          serviceUnhealthySecondThreshold:
            service.serviceUnhealthySecondThreshold,
        }
        : {}),
      ...(service.deploymentUnhealthySecondThreshold > 0
        ? {
          deploymentUnhealthySecondThreshold:
            service.deploymentUnhealthySecondThreshold,
        }
        : {}),
      rayClusterConfig: cluster.spec,
    },
  };
  return { resource, cluster };
}

/**
 * The RayCluster a RayService's rayClusterConfig describes, named after
 * the service: what admission decides on, and what reads back as the
 * service's cluster_spec.
 */
export function serviceCluster(resource: RayServiceResource): RayCluster {
  const metadata = resource.metadata ?? { name: "" };
  return {
    apiVersion: resource.apiVersion,
    kind: "RayCluster",
    metadata: {
      name: metadata.name,
      namespace: metadata.namespace,
      labels: { ...metadata.labels },
      // A RayService written by another hand says nothing of which
      // variables are the cluster's: none are, every one is its group's.
      annotations: {
        [ANNOTATION.envs]: "[]",
        ...metadata.annotations,
      },
    },
    // Without a rayClusterConfig (a resource the CRD would not admit), an
    // empty spec: admission and read-back find no groups in it.
    spec: resource.spec?.rayClusterConfig ?? ({} as RayCluster["spec"]),
  };
}

// ---------------------------------------------------------------------------
// Resource -> RayService

/**
 * The service a RayService holds, whoever wrote it, with those of `events`
 * that are about it (eventsOfService). Tolerates missing fields.
 */
export function serviceFromResource(
  resource: RayServiceResource,
  events: readonly KubeEvent[],
): RayService {
  const metadata = resource.metadata ?? { name: "" };
  const spec = resource.spec ?? {};
  const cluster = spec.rayClusterConfig?.headGroupSpec === undefined
    ? undefined
    : clusterFromResource(serviceCluster(resource), []);
  return {
    name: metadata.name ?? "",
    namespace: metadata.namespace ?? "",
    user: metadata.annotations?.[ANNOTATION.user] ??
      metadata.labels?.[LABEL.user] ?? "",
    clusterSpec: cluster?.clusterSpec,
    rayServiceStatus: serviceStatusOf(resource, events),
    createdAt: parseTime(metadata.creationTimestamp),
    deleteAt: parseTime(metadata.deletionTimestamp),
    serveConfig_V2: spec.serveConfigV2 ?? "",
    version: spec.rayClusterConfig?.rayVersion ?? "",
    serviceUnhealthySecondThreshold: positive(
      spec.serviceUnhealthySecondThreshold,
    ),
    deploymentUnhealthySecondThreshold: positive(
      spec.deploymentUnhealthySecondThreshold,
    ),
    ttl: "",
    ...expiresAtOf(metadata.annotations),
  };
}

/**
 * The status as KubeRay's API server reads it (the active cluster's name,
 * state, endpoints and applications; the events), and what it leaves out:
 * the pending cluster, the serving endpoints' count, the conditions.
 */
function serviceStatusOf(
  resource: RayServiceResource,
  events: readonly KubeEvent[],
): RayServiceStatus {
  const status = resource.status ?? {};
  const active = status.activeServiceStatus ?? {};
  const pending = status.pendingServiceStatus ?? {};
  const applications = applicationsOf(active);
  const ready = (status.conditions ?? []).find((c) => c.type === "Ready");
  return {
    applicationStatus: status.serviceStatus ?? "",
    applicationMessage: ready?.message ?? "",
    serveDeploymentStatus: applications.flatMap((app) =>
      app.serveDeploymentStatus
    ),
    rayServiceEvents: eventsOfService(resource, events),
    rayClusterName: active.rayClusterName ?? "",
    rayClusterState: active.rayClusterStatus?.state ?? "",
    serviceEndpoint: { ...active.rayClusterStatus?.endpoints },
    serveApplicationStatus: applications,
    pendingRayClusterName: pending.rayClusterName ?? "",
    pendingServeApplicationStatus: applicationsOf(pending),
    numServeEndpoints: status.numServeEndpoints ?? 0,
    conditions: (status.conditions ?? []).map(conditionOf),
  };
}

/** A cluster's applications and their deployments, each by name. */
function applicationsOf(
  status: RayServiceClusterStatus,
): ServeApplicationStatus[] {
  const entries = Object.entries(status.applicationStatuses ?? {}) as [
    string,
    AppStatusResource,
  ][];
  return entries.sort(([a], [b]) => a < b ? -1 : a > b ? 1 : 0).map((
    [name, app],
  ) => ({
    name,
    status: app?.status ?? "",
    message: app?.message ?? "",
    serveDeploymentStatus: Object.entries(app?.serveDeploymentStatuses ?? {})
      .sort(([a], [b]) => a < b ? -1 : a > b ? 1 : 0)
      .map(([deploymentName, deployment]): ServeDeploymentStatus => ({
        deploymentName,
        status: deployment?.status ?? "",
        message: deployment?.message ?? "",
      })),
  }));
}

function conditionOf(condition: ConditionResource): RayServiceCondition {
  return {
    type: condition.type ?? "",
    status: condition.status ?? "",
    reason: condition.reason ?? "",
    message: condition.message ?? "",
    lastTransitionTime: parseTime(condition.lastTransitionTime),
  };
}

/**
 * The events about this RayService: involvedObject of kind RayService with
 * its namespace and name, and its uid when both carry one (never a deleted
 * namesake's), oldest first.
 */
export function eventsOfService(
  resource: RayServiceResource,
  events: readonly KubeEvent[],
): RayServiceEvent[] {
  const { name, namespace, uid } = resource.metadata ?? { name: "" };
  return events
    .filter((event) => {
      const object = event.involvedObject ?? {};
      return object.kind === "RayService" && object.name === name &&
        (object.namespace ?? "") === (namespace ?? "") &&
        !(object.uid && uid && object.uid !== uid);
    })
    .map(clusterEventFromResource)
    .map((event, index) => ({ event, index }))
    .sort((a, b) => lastSeen(a.event) - lastSeen(b.event) || a.index - b.index)
    .map(({ event }) => event);
}

function lastSeen(event: RayServiceEvent): number {
  return (event.lastTimestamp ?? event.firstTimestamp ?? event.createdAt)
    ?.getTime() ?? 0;
}

function parseTime(value: string | null | undefined): Date | undefined {
  if (!value) return undefined;
  const time = new Date(value);
  return Number.isNaN(time.getTime()) ? undefined : time;
}

/** A whole number above 0 of an object's field; 0 otherwise. */
function positive(value: unknown): number {
  return typeof value === "number" && Number.isInteger(value) && value > 0
    ? value
    : 0;
}
