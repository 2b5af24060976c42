/**
 * What the cache keeps of each object it stores: what reads use, and
 * nothing more (client-go calls this an informer's transform, SetTransform).
 * An API server's objects carry much that no read of Corral's ever looks at:
 * metadata.managedFields (who set which field, often the larger part of an
 * object), kubectl's last-applied-configuration annotation (a second copy
 * of the whole object as it was applied), and status and event fields that
 * the API does not return. Held for every cluster, they are most of the
 * cache's memory on a real cluster.
 *
 * One function per resource (KEPT: per kind, and trimEvent), applied once
 * where a change enters the stores (cache_stores.ts). What each keeps is
 * what the read-back reads (domain/conversions.ts: clusterFromResource,
 * clusterEventFromResource, computeTemplateFromConfigMap), what the store
 * compares (uid, resourceVersion) and what its indexes key on (the event's
 * involvedObject).
 * Writes are unaffected: an update builds on the cluster read fresh from
 * Kubernetes (CallOptions.fresh), never on what the cache holds.
 *
 * A trimmed object is a new object; what it keeps whole (labels, a
 * ConfigMap's data) is shared with the object it came from, which the
 * store never changes. A cluster's groups are shared further: clusters
 * made from the same compute templates and images have groups equal to
 * the letter, and the cache holds one of each (SharedParts), frozen.
 */
import type { KindName, KindObjects } from "../domain/kinds.ts";
import type {
  ConfigMap,
  KubeEvent,
  ObjectMeta,
  RayCluster,
  RayClusterStatus,
} from "../domain/resources.ts";
import { SharedParts } from "../domain/shared_parts.ts";

/** kubectl apply's copy of what it applied: never read by Corral. */
export const LAST_APPLIED_ANNOTATION =
  "kubectl.kubernetes.io/last-applied-configuration";

/** The metadata reads use; managedFields, owners, finalizers and the rest go. */
const KEPT_METADATA = [
  "name",
  "namespace",
  "uid",
  "resourceVersion",
  "generation",
  "creationTimestamp",
  "deletionTimestamp",
  "labels",
] as const satisfies readonly (keyof ObjectMeta)[];

/** What a cluster's read-back takes from its status (clusterState, serviceEndpoint). */
const KEPT_STATUS = ["state", "endpoints"] as const satisfies readonly (
  keyof RayClusterStatus
)[];

/** What an event's read-back (ClusterEvent) and the events index use. */
const KEPT_EVENT = [
  "reason",
  "message",
  "type",
  "count",
  "firstTimestamp",
  "lastTimestamp",
  "eventTime",
] as const satisfies readonly (keyof KubeEvent)[];

const KEPT_INVOLVED_OBJECT = ["kind", "namespace", "name", "uid"] as const;

/**
 * A RayCluster as the cache keeps it: its spec whole (the read-back reads
 * most of it), its metadata as KEPT_METADATA says with the annotations but
 * kubectl's last-applied one, and of its status only the state and the
 * endpoints.
 */
export function trimCluster(
  cluster: RayCluster,
  shared?: SharedParts,
): RayCluster {
  const trimmed: RayCluster = {
    apiVersion: cluster.apiVersion,
    kind: cluster.kind,
    metadata: trimMetadata(cluster.metadata),
    spec: shared === undefined ? cluster.spec : sharedSpec(cluster, shared),
  };
  if (cluster.status !== undefined && cluster.status !== null) {
    trimmed.status = picked(cluster.status, KEPT_STATUS);
  }
  return trimmed;
}

/** `cluster`'s spec with its groups as `shared` holds them. */
function sharedSpec(
  cluster: RayCluster,
  shared: SharedParts,
): RayCluster["spec"] {
  const spec = cluster.spec;
  if (spec === undefined || spec === null) return spec;
  const { headGroupSpec, workerGroupSpecs } = spec;
  return {
    ...spec,
    ...(headGroupSpec === undefined
      ? {}
      : { headGroupSpec: shared.share(headGroupSpec) }),
    ...(Array.isArray(workerGroupSpecs)
      ? { workerGroupSpecs: workerGroupSpecs.map((g) => shared.share(g)) }
      : {}),
  };
}

/**
 * An Event as the cache keeps it: what a ClusterEvent is made of, and the
 * cluster it is about (the events index's key, and the uid the read-back
 * matches); its source, reporting controller, series and related object go.
 */
export function trimEvent(event: KubeEvent): KubeEvent {
  return {
    apiVersion: "v1",
    kind: "Event",
    metadata: trimMetadata(event.metadata),
    involvedObject: picked(
      event.involvedObject ?? {},
      KEPT_INVOLVED_OBJECT,
    ),
    ...picked(event, KEPT_EVENT),
  };
}

/** A compute template's ConfigMap as the cache keeps it: its data whole. */
export function trimConfigMap(configMap: ConfigMap): ConfigMap {
  const trimmed: ConfigMap = {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: trimMetadata(configMap.metadata),
  };
  if (configMap.data !== undefined) trimmed.data = configMap.data;
  return trimmed;
}

/**
 * KEPT_METADATA of `metadata`, with its annotations but the last-applied
 * one (none at all when that was the only one).
 */
function trimMetadata(metadata: ObjectMeta | undefined): ObjectMeta {
  const trimmed = picked(metadata ?? { name: "" }, KEPT_METADATA) as ObjectMeta;
  const annotations = metadata?.annotations;
  if (annotations === undefined || annotations === null) return trimmed;
  if (!(LAST_APPLIED_ANNOTATION in annotations)) {
    trimmed.annotations = annotations;
    return trimmed;
  }
  const { [LAST_APPLIED_ANNOTATION]: _, ...rest } = annotations;
  if (Object.keys(rest).length > 0) trimmed.annotations = rest;
  return trimmed;
}

/** The members `keys` names that `source` has (undefined ones left out). */
function picked<T extends object, K extends keyof T>(
  source: T,
  keys: readonly K[],
): Partial<Pick<T, K>> {
  const out: Partial<Pick<T, K>> = {};
  for (const key of keys) {
    if (source[key] !== undefined) out[key] = source[key];
  }
  return out;
}

/**
 * A RayJob or RayService as the cache keeps it: its metadata as
 * KEPT_METADATA says (kubectl's last-applied annotation gone), its spec and
 * status whole, since their read-backs use most of both.
 */
export function trimMetadataOnly<T extends { metadata: ObjectMeta }>(
  object: T,
): T {
  return { ...object, metadata: trimMetadata(object.metadata) };
}

/** What the cache keeps of an object of each kind (domain/kinds.ts). */
export const KEPT: {
  readonly [K in KindName]: (
    object: KindObjects[K],
    shared: SharedParts,
  ) => KindObjects[K];
} = {
  clusters: trimCluster,
  templates: trimConfigMap,
  jobs: trimMetadataOnly,
  services: trimMetadataOnly,
};
