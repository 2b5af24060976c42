/**
 * The resource types the stand-in serves by default (ConfigMap, Event,
 * Namespace, Pod, ServiceAccount, TokenReview, CustomResourceDefinition,
 * batch/v1 Job, RayCluster, RayJob and RayService) with their kind-specific rules as hooks; serving another kind
 * is one more entry.
 */

import { CUSTOM_RESOURCE_DEFINITION } from "./crd.ts";
import { field, isRecord } from "./json.ts";
import { POD } from "./pods.ts";
import { SERVICE_ACCOUNT } from "./service_accounts.ts";
import { SERVICE } from "./services.ts";
import { invalidCause } from "./status.ts";
import { TOKEN_REVIEW } from "./token_review.ts";
import type {
  KubeObject,
  ObjectMeta,
  RayClusterResourceOptions,
  ResourceType,
  StatusCause,
} from "./types.ts";

function metadataOf(object: KubeObject): ObjectMeta {
  return object.metadata;
}

/** ConfigMap data keys and values (pkg/apis/core/validation). */
function validateConfigMap(object: KubeObject): StatusCause[] {
  const causes: StatusCause[] = [];
  for (const key of ["data", "binaryData"]) {
    const data = object[key];
    if (data === undefined || data === null) continue;
    for (const name of Object.keys(data as Record<string, unknown>)) {
      if (!/^[-._a-zA-Z0-9]+$/.test(name) || name.length > 253) {
        causes.push(invalidCause(
          `${key}[${name}]`,
          name,
          "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')",
        ));
      }
    }
  }
  return causes;
}

/** An Event lives in the namespace of the object it is about. */
function validateEvent(object: KubeObject): StatusCause[] {
  const involved = isRecord(object.involvedObject) ? object.involvedObject : {};
  const involvedNamespace = typeof involved.namespace === "string"
    ? involved.namespace
    : "";
  const namespace = metadataOf(object).namespace ?? "";
  const mismatch = involvedNamespace === ""
    ? namespace !== "" && namespace !== "default"
    : involvedNamespace !== namespace;
  return mismatch
    ? [invalidCause(
      "involvedObject.namespace",
      involvedNamespace,
      "does not match event.namespace",
    )]
    : [];
}

function prepareNamespace(object: KubeObject): void {
  const name = metadataOf(object).name ?? "";
  object.metadata.labels = {
    ...object.metadata.labels,
    "kubernetes.io/metadata.name": name,
  };
  object.spec = { finalizers: ["kubernetes"] };
  object.status = { phase: "Active" };
}

const CONFIG_MAP: ResourceType = {
  group: "",
  version: "v1",
  kind: "ConfigMap",
  plural: "configmaps",
  singular: "configmap",
  namespaced: true,
  shortNames: ["cm"],
  validate: validateConfigMap,
};

const EVENT: ResourceType = {
  group: "",
  version: "v1",
  kind: "Event",
  plural: "events",
  singular: "event",
  namespaced: true,
  shortNames: ["ev"],
  // pkg/apis/core/v1/conversion.go AddFieldLabelConversionsForEvent
  fields: {
    "involvedObject.kind": (o) => field(o, "involvedObject.kind"),
    "involvedObject.namespace": (o) => field(o, "involvedObject.namespace"),
    "involvedObject.name": (o) => field(o, "involvedObject.name"),
    "involvedObject.uid": (o) => field(o, "involvedObject.uid"),
    "involvedObject.apiVersion": (o) => field(o, "involvedObject.apiVersion"),
    "involvedObject.resourceVersion": (o) =>
      field(o, "involvedObject.resourceVersion"),
    "involvedObject.fieldPath": (o) => field(o, "involvedObject.fieldPath"),
    "reason": (o) => field(o, "reason"),
    "reportingComponent": (o) => field(o, "reportingComponent"),
    "source": (o) => field(o, "source.component"),
    "type": (o) => field(o, "type"),
    "metadata.namespace": (o) => o.metadata.namespace,
    "metadata.name": (o) => o.metadata.name,
  },
  validate: validateEvent,
};

const NAMESPACE: ResourceType = {
  group: "",
  version: "v1",
  kind: "Namespace",
  plural: "namespaces",
  singular: "namespace",
  namespaced: false,
  shortNames: ["ns"],
  // pkg/apis/core/v1/conversion.go AddFieldLabelConversionsForNamespace
  fields: {
    "status.phase": (o) => field(o, "status.phase"),
    "metadata.name": (o) => o.metadata.name,
  },
  prepareForCreate: prepareNamespace,
};

/**
 * coordination.k8s.io/v1 Lease, for Corral's leader election: stored like
 * any kind, so a replace carrying a stale resourceVersion is a 409 Conflict
 * and a create of a name that exists is a 409 AlreadyExists, which is all
 * client-go's leaderelection relies on.
 */
const LEASE: ResourceType = {
  group: "coordination.k8s.io",
  version: "v1",
  kind: "Lease",
  plural: "leases",
  singular: "lease",
  namespaced: true,
};

/**
 * batch/v1 Job: stored like any kind, with its status subresource; no Job
 * controller runs, so a Job's pods and status are its writer's (the
 * simulated operator's RayJob submitter).
 */
const JOB: ResourceType = {
  group: "batch",
  version: "v1",
  kind: "Job",
  plural: "jobs",
  singular: "job",
  namespaced: true,
  categories: ["all"],
  subresources: ["status"],
};

/** RayCluster, as the KubeRay CRD defines it, with configurable coordinates. */
export function rayClusterResource(
  options: RayClusterResourceOptions = {},
): ResourceType {
  return {
    group: options.group ?? "ray.io",
    version: options.version ?? "v1",
    kind: "RayCluster",
    plural: options.plural ?? "rayclusters",
    singular: "raycluster",
    namespaced: true,
    categories: ["all"],
    custom: true,
    subresources: ["status"],
  };
}

/**
 * A KubeRay kind beside RayCluster, as its CRD serves it (namespaced, in
 * category all, a status subresource), at the RayCluster's group and
 * version: KubeRay serves its three kinds in one group version.
 */
function kubeRayResource(
  kind: "RayJob" | "RayService",
  options: RayClusterResourceOptions,
): ResourceType {
  const singular = kind.toLowerCase();
  return {
    group: options.group ?? "ray.io",
    version: options.version ?? "v1",
    kind,
    plural: `${singular}s`,
    singular,
    namespaced: true,
    categories: ["all"],
    custom: true,
    subresources: ["status"],
  };
}

/** RayJob (rayjobs), at the group and version of `options`. */
export function rayJobResource(
  options: RayClusterResourceOptions = {},
): ResourceType {
  return kubeRayResource("RayJob", options);
}

/** RayService (rayservices), at the group and version of `options`. */
export function rayServiceResource(
  options: RayClusterResourceOptions = {},
): ResourceType {
  return kubeRayResource("RayService", options);
}

/**
 * The resource types Corral uses (ConfigMap, Event, Namespace, RayCluster,
 * RayJob, RayService; the RayJob submitter's batch/v1 Job and its Pod,
 * whose log Corral reads; ServiceAccount tokens and TokenReview for
 * --authentication-token-review; Service, the head services and their
 * proxy; Lease, for leader election), and CustomResourceDefinition to add more. RayJob and RayService share the RayCluster's group and version.
 */
export function defaultResources(
  rayCluster: RayClusterResourceOptions = {},
): ResourceType[] {
  return [
    CONFIG_MAP,
    EVENT,
    NAMESPACE,
    POD,
    SERVICE_ACCOUNT,
    SERVICE,
    TOKEN_REVIEW,
    CUSTOM_RESOURCE_DEFINITION,
    LEASE,
    JOB,
    rayClusterResource(rayCluster),
    rayJobResource(rayCluster),
    rayServiceResource(rayCluster),
  ];
}

export function findResource(
  resources: readonly ResourceType[],
  group: string,
  version: string,
  plural: string,
): ResourceType | undefined {
  return resources.find((r) =>
    r.group === group && r.version === version && r.plural === plural
  );
}
