/**
 * The stand-in's vocabulary: Kubernetes objects as JSON, the served resource
 * types as discovery describes them, and how a resource type is named in
 * paths, errors and type metadata.
 */

import type { JsonSchema } from "./schema.ts";
import type { RequestContext, State } from "./state.ts";

/** The verbs of a stored kind, as discovery lists them. */
export const DEFAULT_VERBS = [
  "create",
  "delete",
  "get",
  "list",
  "patch",
  "update",
  "watch",
];

/** Whether the resource type serves `verb`. */
export function serves(resource: ResourceType, verb: string): boolean {
  return (resource.verbs ?? DEFAULT_VERBS).includes(verb);
}

/** A Kubernetes object as JSON. */
export type KubeObject = Record<string, unknown> & { metadata: ObjectMeta };

/** The metadata fields the stand-in reads or sets. */
export interface ObjectMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  deletionGracePeriodSeconds?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  finalizers?: string[];
  [key: string]: unknown;
}

/** One violated rule of an Invalid (422) Status. */
export interface StatusCause {
  reason: string;
  message: string;
  field: string;
}

/** A served resource type, as discovery describes it. */
export interface ResourceType {
  /** API group; "" for the core group (`/api/v1`). */
  group: string;
  version: string;
  kind: string;
  /** Lower-case plural, the path segment: `configmaps`. */
  plural: string;
  singular: string;
  namespaced: boolean;
  shortNames?: string[];
  categories?: string[];
  /**
   * Custom-resource semantics (as a CRD-backed resource behaves): metadata
   * generation, list items carrying apiVersion and kind, a required
   * resourceVersion on PUT, no strategic merge patch, `Kind` required in
   * bodies.
   */
  custom?: boolean;
  /** Subresources served; only "status" is understood. */
  subresources?: "status"[];
  /**
   * The verbs served, as discovery lists them; the full set (create,
   * delete, get, list, patch, update, watch) when absent. Others are
   * answered 405.
   */
  verbs?: string[];
  /**
   * Subresources that are actions rather than parts of the object, by
   * name: a POST of another kind (`serviceaccounts/token`).
   */
  actions?: Record<string, ActionSubresource>;
  /**
   * Subresources read with GET that are not parts of the object either,
   * by name: what the API server fetches from elsewhere (`pods/log`, from
   * the kubelet).
   */
  reads?: Record<string, ReadSubresource>;
  /**
   * For a kind that is never stored (TokenReview): what answers a POST of
   * the decoded object, in place of storing it.
   */
  answerCreate?(
    state: State,
    object: KubeObject,
    context: RequestContext,
  ): Response;
  /**
   * Field selector labels this type supports, with how to read each. When
   * absent: `metadata.name` and `metadata.namespace`, and an unknown label
   * is answered as the real server's default conversion does; when present,
   * an unknown label is answered `field label not supported: X` as the
   * core types with their own conversion functions do.
   */
  fields?: Record<string, (object: KubeObject) => string | undefined>;
  /** Kind-specific validation, beyond the metadata rules. */
  validate?(object: KubeObject): StatusCause[];
  /** Kind-specific defaults applied on create. */
  prepareForCreate?(object: KubeObject): void;
  /**
   * The structural schema of this version (from its CRD): objects are
   * pruned, defaulted and validated against it.
   */
  schema?: JsonSchema;
  /** A deprecated version's warning, sent with every answer about it. */
  deprecationWarning?: string;
  /** The name of the CustomResourceDefinition that serves this type. */
  definedBy?: string;
}

/**
 * A subresource that is an action (`serviceaccounts/token`): created with a
 * kind of its own, which discovery names.
 */
export interface ActionSubresource {
  group: string;
  version: string;
  kind: string;
  /** Answers a POST to `.../{name}/{subresource}`. */
  create(
    state: State,
    request: Request,
    target: { resource: ResourceType; namespace: string; name: string },
    context: RequestContext,
  ): Promise<Response>;
}

/**
 * A subresource answered to a GET from outside the object (`pods/log`):
 * its answer is its own, text or a stream as it chooses.
 */
export interface ReadSubresource {
  /** Answers a GET of `.../{name}/{subresource}`. */
  get(
    state: State,
    url: URL,
    target: { resource: ResourceType; namespace: string; name: string },
  ): Response;
}

export interface RayClusterResourceOptions {
  group?: string;
  version?: string;
  plural?: string;
}

export function groupVersion(
  resource: { group: string; version: string },
): string {
  return resource.group === ""
    ? resource.version
    : `${resource.group}/${resource.version}`;
}

/** `configmaps`, `rayclusters.ray.io`: how errors name a resource. */
export function qualifiedResource(resource: ResourceType): string {
  return resource.group === ""
    ? resource.plural
    : `${resource.plural}.${resource.group}`;
}

/** `ConfigMap`, `RayCluster.ray.io`: how Invalid errors name a kind. */
export function qualifiedKind(resource: ResourceType): string {
  return resource.group === ""
    ? resource.kind
    : `${resource.kind}.${resource.group}`;
}

/** The object with the apiVersion and kind of its resource type first. */
export function withTypeMeta(
  resource: ResourceType,
  object: KubeObject,
): KubeObject {
  const { apiVersion: _a, kind: _k, ...rest } = object;
  return { apiVersion: groupVersion(resource), kind: resource.kind, ...rest };
}

/** What a resource path names: a collection, an item, or an item's action. */
export type Route =
  | { kind: "collection"; resource: ResourceType; namespace?: string }
  | {
    kind: "item";
    resource: ResourceType;
    namespace: string;
    name: string;
    status: boolean;
  }
  | {
    kind: "action";
    resource: ResourceType;
    namespace: string;
    name: string;
    action: ActionSubresource;
  }
  | {
    kind: "read";
    resource: ResourceType;
    namespace: string;
    name: string;
    read: ReadSubresource;
  };
