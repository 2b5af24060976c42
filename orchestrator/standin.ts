/**
 * The local Kubernetes API stand-in: a real HTTP server on 127.0.0.1 that
 * speaks the subset of the Kubernetes REST API Corral uses, with the real
 * server's semantics where Corral (or kubectl, or client-node) can observe
 * them: server-set metadata, a global monotonic resourceVersion, optimistic
 * concurrency, label and field selectors, the status subresource, delete
 * preconditions, finalizers, discovery documents, and `Status` error bodies
 * with the real reasons, codes and messages.
 *
 * Built around a registry of resource types and one generic in-memory store:
 * serving another kind is one more entry in the registry. Kind-specific rules
 * (ConfigMap data keys, Event namespaces, Namespace phases) are hooks on the
 * entry.
 *
 * Namespaces are implicit by default: writing into a namespace that does not
 * exist creates it (a Namespace object appears, as `kubectl create ns` would
 * have made it). A real cluster answers 404 `namespaces "x" not found`
 * instead; that behaviour is `implicitNamespaces: false`. Implicit is the
 * default because Corral never creates namespaces (on a real cluster they
 * exist before Corral is used), and requiring them in dev mode would only add
 * a manual step.
 *
 * Not modelled (yet): watch, server-side apply, dryRun (rejected with 400
 * rather than silently writing), managedFields, strategic merge patch for
 * lists with merge keys (it is treated as a JSON merge patch), Table output
 * (kubectl falls back to its client-side columns), CRD schemas, and protobuf:
 * bodies are JSON only, so kubectl can read everything and write custom
 * resources, but its writes of built-in kinds (`kubectl create configmap`,
 * which sends protobuf) are answered 415.
 */

import {
  dns1123LabelErrors,
  dns1123SubdomainErrors,
  labelValueError,
  matchesFields,
  matchesLabels,
  parseFieldSelector,
  parseLabelSelector,
  qualifiedNameError,
  SelectorError,
} from "./selectors.ts";

// ---------------------------------------------------------------------------
// Public types

/** A structured logger (one line of JSON per call in the service). */
export interface Logger {
  info(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
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
}

export interface RayClusterResourceOptions {
  group?: string;
  version?: string;
  plural?: string;
}

export interface StandinOptions {
  /** Defaults to 127.0.0.1. */
  hostname?: string;
  /** Defaults to 0 (a free port). */
  port?: number;
  /** The served resource types; defaults to `defaultResources()`. */
  resources?: ResourceType[];
  /** Group, version and plural of RayCluster when `resources` is not given. */
  rayCluster?: RayClusterResourceOptions;
  /** Create namespaces on first write (default true); see the module doc. */
  implicitNamespaces?: boolean;
  /** Largest accepted request body; the real server's limit is 3 MiB. */
  maxBodyBytes?: number;
  logger?: Logger;
}

export interface Standin {
  /** Base URL, e.g. `http://127.0.0.1:43123`. */
  readonly url: string;
  readonly port: number;
  /** The served resource types. */
  readonly resources: readonly ResourceType[];
  /** Stops listening and waits for open requests to finish. */
  close(): Promise<void>;
}

// ---------------------------------------------------------------------------
// Resource registry

function metadataOf(object: KubeObject): ObjectMeta {
  return object.metadata;
}

function field(object: unknown, path: string): string | undefined {
  let current: unknown = object;
  for (const part of path.split(".")) {
    if (!isRecord(current)) return undefined;
    current = current[part];
  }
  if (current === undefined || current === null) return undefined;
  return String(current);
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

/** The resource types Corral uses: ConfigMap, Event, Namespace, RayCluster. */
export function defaultResources(
  rayCluster: RayClusterResourceOptions = {},
): ResourceType[] {
  return [CONFIG_MAP, EVENT, NAMESPACE, rayClusterResource(rayCluster)];
}

function groupVersion(resource: { group: string; version: string }): string {
  return resource.group === ""
    ? resource.version
    : `${resource.group}/${resource.version}`;
}

/** `configmaps`, `rayclusters.ray.io`: how errors name a resource. */
function qualifiedResource(resource: ResourceType): string {
  return resource.group === ""
    ? resource.plural
    : `${resource.plural}.${resource.group}`;
}

/** `ConfigMap`, `RayCluster.ray.io`: how Invalid errors name a kind. */
function qualifiedKind(resource: ResourceType): string {
  return resource.group === ""
    ? resource.kind
    : `${resource.kind}.${resource.group}`;
}

// ---------------------------------------------------------------------------
// Status errors

interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  uid?: string;
  causes?: Partial<StatusCause>[];
  retryAfterSeconds?: number;
}

interface StatusBody {
  kind: "Status";
  apiVersion: "v1";
  metadata: Record<string, never>;
  status: "Failure" | "Success";
  message?: string;
  reason?: string;
  details?: StatusDetails;
  code?: number;
}

/** A failure answered with a Status body; thrown inside request handling. */
class StatusError extends Error {
  readonly code: number;
  readonly reason: string;
  readonly details?: StatusDetails;

  constructor(
    code: number,
    reason: string,
    message: string,
    details?: StatusDetails,
  ) {
    super(message);
    this.name = "StatusError";
    this.code = code;
    this.reason = reason;
    this.details = details;
  }

  toStatus(): StatusBody {
    return {
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message: this.message,
      reason: this.reason,
      ...(this.details ? { details: this.details } : {}),
      code: this.code,
    };
  }
}

function resourceDetails(
  resource: ResourceType,
  name: string,
): StatusDetails {
  return {
    name,
    ...(resource.group ? { group: resource.group } : {}),
    kind: resource.plural,
  };
}

function notFound(resource: ResourceType, name: string): StatusError {
  return new StatusError(
    404,
    "NotFound",
    `${qualifiedResource(resource)} "${name}" not found`,
    resourceDetails(resource, name),
  );
}

function alreadyExists(resource: ResourceType, name: string): StatusError {
  return new StatusError(
    409,
    "AlreadyExists",
    `${qualifiedResource(resource)} "${name}" already exists`,
    resourceDetails(resource, name),
  );
}

const MODIFIED =
  "the object has been modified; please apply your changes to the latest version and try again";

function conflict(
  resource: ResourceType,
  name: string,
  detail: string,
): StatusError {
  return new StatusError(
    409,
    "Conflict",
    `Operation cannot be fulfilled on ${
      qualifiedResource(resource)
    } "${name}": ${detail}`,
    resourceDetails(resource, name),
  );
}

function invalidCause(
  fieldPath: string,
  value: unknown,
  detail: string,
): StatusCause {
  const shown = typeof value === "string" ? `"${value}"` : String(value);
  return {
    reason: "FieldValueInvalid",
    message: `Invalid value: ${shown}: ${detail}`,
    field: fieldPath,
  };
}

function requiredCause(fieldPath: string, detail: string): StatusCause {
  return {
    reason: "FieldValueRequired",
    message: `Required value: ${detail}`,
    field: fieldPath,
  };
}

function invalid(
  resource: ResourceType,
  name: string,
  causes: StatusCause[],
): StatusError {
  const listed = causes.map((c) => `${c.field}: ${c.message}`);
  const summary = listed.length === 1 ? listed[0] : `[${listed.join(", ")}]`;
  return new StatusError(
    422,
    "Invalid",
    `${qualifiedKind(resource)} "${name}" is invalid: ${summary}`,
    {
      name,
      ...(resource.group ? { group: resource.group } : {}),
      kind: resource.kind,
      causes,
    },
  );
}

function badRequest(message: string): StatusError {
  return new StatusError(400, "BadRequest", message);
}

function unknownPath(): StatusError {
  return new StatusError(
    404,
    "NotFound",
    "the server could not find the requested resource",
    {},
  );
}

function methodNotAllowed(): StatusError {
  return new StatusError(
    405,
    "MethodNotAllowed",
    "the server does not allow this method on the requested resource",
    {},
  );
}

function unsupportedMediaType(accepted: string[]): StatusError {
  return new StatusError(
    415,
    "UnsupportedMediaType",
    `the body of the request was in an unknown format - accepted media types include: ${
      accepted.join(", ")
    }`,
  );
}

// ---------------------------------------------------------------------------
// Store

/** A change to a stored object; what a future watch will stream. */
export interface StoreEvent {
  type: "ADDED" | "MODIFIED" | "DELETED";
  resource: ResourceType;
  object: KubeObject;
}

function storeKey(resource: ResourceType): string {
  return `${resource.plural}.${resource.group}`;
}

function objectKey(namespace: string, name: string): string {
  return `${namespace}/${name}`;
}

/**
 * All objects of all types, keyed by resource and namespace/name, with one
 * global resourceVersion counter (as etcd's revision). Objects go in and out
 * as deep copies, so callers can never mutate what is stored.
 */
class ObjectStore {
  #revision = 0;
  #objects = new Map<string, Map<string, KubeObject>>();
  #listeners = new Set<(event: StoreEvent) => void>();

  get revision(): string {
    return String(this.#revision);
  }

  nextRevision(): string {
    this.#revision += 1;
    return String(this.#revision);
  }

  #table(resource: ResourceType): Map<string, KubeObject> {
    const key = storeKey(resource);
    let table = this.#objects.get(key);
    if (!table) {
      table = new Map();
      this.#objects.set(key, table);
    }
    return table;
  }

  get(
    resource: ResourceType,
    namespace: string,
    name: string,
  ): KubeObject | undefined {
    const found = this.#table(resource).get(objectKey(namespace, name));
    return found ? structuredClone(found) : undefined;
  }

  /** Objects of one namespace (or all), sorted as etcd keys sort. */
  list(resource: ResourceType, namespace?: string): KubeObject[] {
    return [...this.#table(resource).entries()]
      .filter(([, o]) =>
        namespace === undefined || (o.metadata.namespace ?? "") === namespace
      )
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([, o]) => structuredClone(o));
  }

  put(resource: ResourceType, object: KubeObject): void {
    const key = objectKey(
      object.metadata.namespace ?? "",
      object.metadata.name ?? "",
    );
    const table = this.#table(resource);
    const type = table.has(key) ? "MODIFIED" : "ADDED";
    table.set(key, structuredClone(object));
    this.#emit({ type, resource, object });
  }

  remove(resource: ResourceType, object: KubeObject): void {
    const key = objectKey(
      object.metadata.namespace ?? "",
      object.metadata.name ?? "",
    );
    if (this.#table(resource).delete(key)) {
      this.#emit({ type: "DELETED", resource, object });
    }
  }

  subscribe(listener: (event: StoreEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  #emit(event: StoreEvent): void {
    for (const listener of this.#listeners) {
      listener({ ...event, object: structuredClone(event.object) });
    }
  }
}

// ---------------------------------------------------------------------------
// JSON helpers

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b)) {
    return a.length === b.length && a.every((x, i) => deepEqual(x, b[i]));
  }
  if (isRecord(a) && isRecord(b)) {
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length &&
      keys.every((k) => Object.hasOwn(b, k) && deepEqual(a[k], b[k]));
  }
  return false;
}

/** RFC 3339 with second precision, as metav1.Time serializes. */
function timestamp(date = new Date()): string {
  return date.toISOString().replace(/\.\d{3}Z$/, "Z");
}

const NAME_SUFFIX_ALPHABET = "bcdfghjklmnpqrstvwxz2456789";

/** The 5-character suffix the real server appends to generateName. */
function randomSuffix(length = 5): string {
  const bytes = crypto.getRandomValues(new Uint8Array(length));
  return [...bytes].map((b) =>
    NAME_SUFFIX_ALPHABET[b % NAME_SUFFIX_ALPHABET.length]
  ).join("");
}

/** RFC 7386 JSON merge patch. */
function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isRecord(patch)) return structuredClone(patch);
  const result: Record<string, unknown> = isRecord(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    else result[key] = mergePatch(result[key], value);
  }
  return result;
}

class PatchError extends Error {}

function pointerTokens(pointer: unknown): string[] {
  if (typeof pointer !== "string") {
    throw new PatchError("operation is missing a path");
  }
  if (pointer === "") return [];
  if (!pointer.startsWith("/")) {
    throw new PatchError(`invalid JSON pointer: "${pointer}"`);
  }
  return pointer.slice(1).split("/").map((t) =>
    t.replaceAll("~1", "/").replaceAll("~0", "~")
  );
}

function arrayIndex(
  array: unknown[],
  token: string,
  forInsert: boolean,
): number {
  if (forInsert && token === "-") return array.length;
  if (!/^(0|[1-9]\d*)$/.test(token)) {
    throw new PatchError(`invalid array index: "${token}"`);
  }
  const index = Number(token);
  if (index > array.length || (!forInsert && index === array.length)) {
    throw new PatchError(`array index out of bounds: ${index}`);
  }
  return index;
}

function resolvePointer(document: unknown, tokens: string[]): unknown {
  let current = document;
  for (const token of tokens) {
    if (Array.isArray(current)) {
      current = current[arrayIndex(current, token, false)];
    } else if (isRecord(current) && Object.hasOwn(current, token)) {
      current = current[token];
    } else {
      throw new PatchError(`path "/${tokens.join("/")}" does not exist`);
    }
  }
  return current;
}

function removeAt(document: unknown, tokens: string[]): unknown {
  if (tokens.length === 0) throw new PatchError("cannot remove the root");
  const parent = resolvePointer(document, tokens.slice(0, -1));
  const last = tokens[tokens.length - 1];
  if (Array.isArray(parent)) {
    return parent.splice(arrayIndex(parent, last, false), 1)[0];
  }
  if (isRecord(parent) && Object.hasOwn(parent, last)) {
    const removed = parent[last];
    delete parent[last];
    return removed;
  }
  throw new PatchError(`path "/${tokens.join("/")}" does not exist`);
}

function addAt(document: unknown, tokens: string[], value: unknown): unknown {
  if (tokens.length === 0) return value;
  const parent = resolvePointer(document, tokens.slice(0, -1));
  const last = tokens[tokens.length - 1];
  if (Array.isArray(parent)) {
    parent.splice(arrayIndex(parent, last, true), 0, value);
  } else if (isRecord(parent)) {
    parent[last] = value;
  } else {
    throw new PatchError(`path "/${tokens.join("/")}" has no parent object`);
  }
  return document;
}

/** RFC 6902 JSON patch; throws PatchError when an operation cannot apply. */
function jsonPatch(document: unknown, operations: unknown): unknown {
  if (!Array.isArray(operations)) {
    throw new PatchError("a JSON patch must be an array of operations");
  }
  let result = structuredClone(document);
  for (const operation of operations) {
    if (!isRecord(operation)) {
      throw new PatchError("a JSON patch operation must be an object");
    }
    const path = pointerTokens(operation.path);
    const value = structuredClone(operation.value);
    switch (operation.op) {
      case "add":
        result = addAt(result, path, value);
        break;
      case "remove":
        removeAt(result, path);
        break;
      case "replace":
        resolvePointer(result, path);
        if (path.length === 0) {
          result = value;
        } else {
          removeAt(result, path);
          result = addAt(result, path, value);
        }
        break;
      case "move": {
        const moved = removeAt(result, pointerTokens(operation.from));
        result = addAt(result, path, moved);
        break;
      }
      case "copy": {
        const copied = structuredClone(
          resolvePointer(result, pointerTokens(operation.from)),
        );
        result = addAt(result, path, copied);
        break;
      }
      case "test":
        if (!deepEqual(resolvePointer(result, path), operation.value)) {
          throw new PatchError(
            `testing value ${
              String(operation.path)
            } failed: the value differs from the expected one`,
          );
        }
        break;
      default:
        throw new PatchError(
          `unexpected operation: ${JSON.stringify(operation.op)}`,
        );
    }
  }
  return result;
}

// ---------------------------------------------------------------------------
// Routing

type Route =
  | { kind: "collection"; resource: ResourceType; namespace?: string }
  | {
    kind: "item";
    resource: ResourceType;
    namespace: string;
    name: string;
    status: boolean;
  };

function findResource(
  resources: readonly ResourceType[],
  group: string,
  version: string,
  plural: string,
): ResourceType | undefined {
  return resources.find((r) =>
    r.group === group && r.version === version && r.plural === plural
  );
}

/**
 * The route of a resource path below `/api/v1` or `/apis/{group}/{version}`.
 * `rest` is what follows the group version.
 */
function resolveResourcePath(
  resources: readonly ResourceType[],
  group: string,
  version: string,
  rest: string[],
): Route {
  if (rest[0] === "namespaces" && rest.length >= 3) {
    const [, namespace, plural, name, subresource, ...extra] = rest;
    const resource = findResource(resources, group, version, plural);
    if (resource?.namespaced && extra.length === 0) {
      if (name === undefined) {
        return { kind: "collection", resource, namespace };
      }
      if (subresource === undefined) {
        return { kind: "item", resource, namespace, name, status: false };
      }
      if (
        subresource === "status" && resource.subresources?.includes("status")
      ) {
        return { kind: "item", resource, namespace, name, status: true };
      }
    }
  }
  const [plural, name, subresource, ...extra] = rest;
  const resource = plural === undefined
    ? undefined
    : findResource(resources, group, version, plural);
  if (!resource || extra.length > 0) throw unknownPath();
  if (name === undefined) return { kind: "collection", resource };
  if (resource.namespaced) throw unknownPath();
  if (subresource === undefined) {
    return { kind: "item", resource, namespace: "", name, status: false };
  }
  if (subresource === "status" && resource.subresources?.includes("status")) {
    return { kind: "item", resource, namespace: "", name, status: true };
  }
  throw unknownPath();
}

// ---------------------------------------------------------------------------
// Server

interface State {
  resources: readonly ResourceType[];
  store: ObjectStore;
  implicitNamespaces: boolean;
  maxBodyBytes: number;
  logger?: Logger;
  namespaceResource?: ResourceType;
}

const DEFAULT_MAX_BODY_BYTES = 3 * 1024 * 1024;
const PROTECTED_NAMESPACES = ["default", "kube-system", "kube-public"];
const INITIAL_NAMESPACES = [
  "default",
  "kube-node-lease",
  "kube-public",
  "kube-system",
];

/** The Kubernetes version discovery reports. */
const SERVER_VERSION = {
  major: "1",
  minor: "32",
  gitVersion: "v1.32.0+corral-standin",
  gitCommit: "",
  gitTreeState: "clean",
  buildDate: "2025-01-01T00:00:00Z",
  goVersion: "",
  compiler: "deno",
  platform: "linux/amd64",
};

/** Starts the stand-in; it is listening when this returns. */
export function startStandin(options: StandinOptions = {}): Standin {
  const resources = options.resources ?? defaultResources(options.rayCluster);
  const state: State = {
    resources,
    store: new ObjectStore(),
    implicitNamespaces: options.implicitNamespaces ?? true,
    maxBodyBytes: options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
    logger: options.logger,
    namespaceResource: findResource(resources, "", "v1", "namespaces"),
  };
  if (state.namespaceResource) {
    for (const name of INITIAL_NAMESPACES) {
      createNamespace(state, state.namespaceResource, name);
    }
  }
  const hostname = options.hostname ?? "127.0.0.1";
  const server = Deno.serve(
    { hostname, port: options.port ?? 0, onListen() {} },
    (request) => handle(state, request),
  );
  const port = server.addr.port;
  const url = `http://${hostname}:${port}`;
  state.logger?.info("Started Kubernetes API stand-in", { url });
  return {
    url,
    port,
    resources,
    async close() {
      await server.shutdown();
    },
  };
}

/**
 * A kubeconfig (YAML) whose current context points at the stand-in, for
 * kubectl and client-node. The stand-in has no TLS and no authentication;
 * `insecure-skip-tls-verify` is what client-node requires to accept an
 * http:// server.
 */
export function kubeconfigFor(url: string, namespace = "default"): string {
  const quoted = (s: string) => JSON.stringify(s);
  return [
    "apiVersion: v1",
    "kind: Config",
    "clusters:",
    "- name: corral-standin",
    "  cluster:",
    `    server: ${quoted(url)}`,
    "    insecure-skip-tls-verify: true",
    "users:",
    "- name: corral-standin",
    "  user: {}",
    "contexts:",
    "- name: corral-standin",
    "  context:",
    "    cluster: corral-standin",
    "    user: corral-standin",
    `    namespace: ${quoted(namespace)}`,
    "current-context: corral-standin",
    "preferences: {}",
    "",
  ].join("\n");
}

function json(body: unknown, status = 200): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json" },
  });
}

async function handle(state: State, request: Request): Promise<Response> {
  const url = new URL(request.url);
  try {
    return await route(state, request, url);
  } catch (error) {
    if (error instanceof StatusError) {
      return json(error.toStatus(), error.code);
    }
    state.logger?.error("Failed to serve request", {
      method: request.method,
      path: url.pathname,
      error: error instanceof Error ? error.message : String(error),
    });
    return json(
      new StatusError(
        500,
        "InternalError",
        "Internal error occurred: the stand-in failed to serve the request",
      ).toStatus(),
      500,
    );
  }
}

function pathSegments(pathname: string): string[] {
  const trimmed = pathname.replace(/^\/+/, "").replace(/\/+$/, "");
  if (trimmed === "") return [];
  return trimmed.split("/").map((segment) => {
    try {
      return decodeURIComponent(segment);
    } catch {
      throw unknownPath();
    }
  });
}

function route(
  state: State,
  request: Request,
  url: URL,
): Response | Promise<Response> {
  const segments = pathSegments(url.pathname);
  const [root] = segments;
  if (root === "version" && segments.length === 1) {
    return onlyGet(request, () => json(SERVER_VERSION));
  }
  if (
    (root === "healthz" || root === "livez" || root === "readyz") &&
    segments.length === 1
  ) {
    return onlyGet(request, () => new Response("ok"));
  }
  if (root === "api") {
    if (segments.length === 1) {
      return onlyGet(request, () => json(apiVersions(url)));
    }
    if (segments[1] !== "v1") throw unknownPath();
    return resourceRequest(state, request, url, "", "v1", segments.slice(2));
  }
  if (root === "apis") {
    if (segments.length === 1) {
      return onlyGet(request, () => json(apiGroupList(state.resources)));
    }
    const group = segments[1];
    if (!state.resources.some((r) => r.group === group)) throw unknownPath();
    if (segments.length === 2) {
      return onlyGet(request, () => json(apiGroup(state.resources, group)));
    }
    const version = segments[2];
    if (
      !state.resources.some((r) => r.group === group && r.version === version)
    ) {
      throw unknownPath();
    }
    return resourceRequest(
      state,
      request,
      url,
      group,
      version,
      segments.slice(3),
    );
  }
  // Outside the API paths the real server answers in plain text.
  return new Response("404 page not found\n", {
    status: 404,
    headers: { "content-type": "text/plain; charset=utf-8" },
  });
}

function onlyGet(request: Request, answer: () => Response): Response {
  if (request.method !== "GET" && request.method !== "HEAD") {
    throw methodNotAllowed();
  }
  return answer();
}

async function resourceRequest(
  state: State,
  request: Request,
  url: URL,
  group: string,
  version: string,
  rest: string[],
): Promise<Response> {
  if (rest.length === 0) {
    return onlyGet(
      request,
      () => json(apiResourceList(state.resources, group, version)),
    );
  }
  const target = resolveResourcePath(state.resources, group, version, rest);
  if (url.searchParams.has("dryRun")) {
    throw badRequest("the Kubernetes API stand-in does not support dryRun");
  }
  const method = request.method;
  if (target.kind === "collection") {
    if (method === "GET") {
      return list(state, target.resource, target.namespace, url.searchParams);
    }
    const canCreate = target.namespace !== undefined ||
      !target.resource.namespaced;
    if (method === "POST" && canCreate) {
      const body = await readObject(state, request, target.resource);
      return create(state, target.resource, target.namespace ?? "", body);
    }
    throw methodNotAllowed();
  }
  switch (method) {
    case "GET":
      return json(withTypeMeta(
        target.resource,
        getOrNotFound(state, target.resource, target.namespace, target.name),
      ));
    case "PUT": {
      const body = await readObject(state, request, target.resource);
      return update(state, target, body);
    }
    case "PATCH":
      return patch(state, target, request);
    case "DELETE":
      if (target.status) throw methodNotAllowed();
      return remove(state, target, await readDeleteOptions(state, request));
    default:
      throw methodNotAllowed();
  }
}

// ---------------------------------------------------------------------------
// Discovery

function apiVersions(url: URL) {
  return {
    kind: "APIVersions",
    versions: ["v1"],
    serverAddressByClientCIDRs: [{
      clientCIDR: "0.0.0.0/0",
      serverAddress: url.host,
    }],
  };
}

function groupVersions(resources: readonly ResourceType[], group: string) {
  const versions = [
    ...new Set(
      resources.filter((r) => r.group === group).map((r) => r.version),
    ),
  ];
  const entries = versions.map((version) => ({
    groupVersion: `${group}/${version}`,
    version,
  }));
  return { name: group, versions: entries, preferredVersion: entries[0] };
}

function apiGroupList(resources: readonly ResourceType[]) {
  const groups = [...new Set(resources.map((r) => r.group))].filter((g) =>
    g !== ""
  );
  return {
    kind: "APIGroupList",
    apiVersion: "v1",
    groups: groups.map((g) => groupVersions(resources, g)),
  };
}

function apiGroup(resources: readonly ResourceType[], group: string) {
  return {
    kind: "APIGroup",
    apiVersion: "v1",
    ...groupVersions(resources, group),
  };
}

const VERBS = ["create", "delete", "get", "list", "patch", "update"];

function apiResourceList(
  resources: readonly ResourceType[],
  group: string,
  version: string,
) {
  const served = resources.filter((r) =>
    r.group === group && r.version === version
  );
  return {
    kind: "APIResourceList",
    apiVersion: "v1",
    groupVersion: groupVersion({ group, version }),
    resources: served.flatMap((r) => [
      {
        name: r.plural,
        singularName: r.singular,
        namespaced: r.namespaced,
        kind: r.kind,
        verbs: VERBS,
        ...(r.shortNames ? { shortNames: r.shortNames } : {}),
        ...(r.categories ? { categories: r.categories } : {}),
      },
      ...(r.subresources ?? []).map((sub) => ({
        name: `${r.plural}/${sub}`,
        singularName: "",
        namespaced: r.namespaced,
        kind: r.kind,
        verbs: ["get", "patch", "update"],
      })),
    ]),
  };
}

// ---------------------------------------------------------------------------
// Request bodies

async function readText(state: State, request: Request): Promise<string> {
  const limit = state.maxBodyBytes;
  const tooLarge = () =>
    new StatusError(
      413,
      "RequestEntityTooLarge",
      `Request entity too large: limit is ${limit}`,
    );
  const declared = Number(request.headers.get("content-length") ?? "0");
  if (declared > limit) throw tooLarge();
  if (!request.body) return "";
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > limit) {
      await reader.cancel();
      throw tooLarge();
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return new TextDecoder().decode(bytes);
}

function parseJson(text: string, resource: ResourceType): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw badRequest(
      `the object provided is unrecognized (must be of type ${resource.kind}): couldn't get version/kind; json parse error: ${
        error instanceof Error ? error.message : String(error)
      }`,
    );
  }
}

function isJsonMediaType(contentType: string | null): boolean {
  if (contentType === null || contentType === "") return true;
  const media = contentType.split(";")[0].trim().toLowerCase();
  return media === "application/json" || media === "*/*";
}

/** Strings only: what Go would fail to decode into map[string]string. */
function checkStringMap(value: unknown, path: string): void {
  if (value === undefined || value === null) return;
  if (!isRecord(value)) {
    throw badRequest(
      `json: cannot unmarshal ${
        jsonType(value)
      } into Go struct field ${path} of type map[string]string`,
    );
  }
  for (const v of Object.values(value)) {
    if (typeof v !== "string") {
      throw badRequest(
        `json: cannot unmarshal ${
          jsonType(v)
        } into Go struct field ${path} of type string`,
      );
    }
  }
}

function jsonType(value: unknown): string {
  if (Array.isArray(value)) return "array";
  if (value === null) return "null";
  return typeof value === "object" ? "object" : typeof value;
}

/**
 * Decodes a request body into an object of the resource's kind: JSON only,
 * apiVersion and kind checked (defaulted for built-in kinds, required for
 * custom ones), metadata well-typed.
 */
function decodeObject(value: unknown, resource: ResourceType): KubeObject {
  if (!isRecord(value)) {
    throw badRequest(
      `the object provided is unrecognized (must be of type ${resource.kind}): couldn't get version/kind; json parse error: json: cannot unmarshal ${
        jsonType(value)
      } into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }`,
    );
  }
  const expected = groupVersion(resource);
  if (resource.custom && (value.kind === undefined || value.kind === "")) {
    throw badRequest(`Object 'Kind' is missing in '${JSON.stringify(value)}'`);
  }
  if (value.apiVersion !== undefined && value.apiVersion !== expected) {
    throw badRequest(
      `the API version in the data (${
        String(value.apiVersion)
      }) does not match the expected API version (${expected})`,
    );
  }
  if (value.kind !== undefined && value.kind !== resource.kind) {
    throw badRequest(
      `the object provided is unrecognized (must be of type ${resource.kind}): kind "${
        String(value.kind)
      }" is not "${resource.kind}"`,
    );
  }
  const metadata = value.metadata ?? {};
  if (!isRecord(metadata)) {
    throw badRequest(
      `json: cannot unmarshal ${
        jsonType(metadata)
      } into Go struct field ${resource.kind}.metadata of type v1.ObjectMeta`,
    );
  }
  for (
    const key of ["name", "generateName", "namespace", "resourceVersion", "uid"]
  ) {
    if (metadata[key] !== undefined && typeof metadata[key] !== "string") {
      throw badRequest(
        `json: cannot unmarshal ${
          jsonType(metadata[key])
        } into Go struct field ObjectMeta.metadata.${key} of type string`,
      );
    }
  }
  checkStringMap(metadata.labels, "ObjectMeta.metadata.labels");
  checkStringMap(metadata.annotations, "ObjectMeta.metadata.annotations");
  if (resource.kind === "ConfigMap") {
    checkStringMap(value.data, "ConfigMap.data");
  }
  return {
    ...value,
    apiVersion: expected,
    kind: resource.kind,
    metadata: { ...metadata },
  };
}

async function readObject(
  state: State,
  request: Request,
  resource: ResourceType,
): Promise<KubeObject> {
  if (!isJsonMediaType(request.headers.get("content-type"))) {
    throw unsupportedMediaType(["application/json"]);
  }
  const text = await readText(state, request);
  return decodeObject(parseJson(text, resource), resource);
}

interface DeleteOptions {
  preconditions?: { uid?: string; resourceVersion?: string };
}

async function readDeleteOptions(
  state: State,
  request: Request,
): Promise<DeleteOptions> {
  const text = await readText(state, request);
  if (text.trim() === "") return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw badRequest(
      `couldn't get version/kind; json parse error: ${
        error instanceof Error ? error.message : String(error)
      }`,
    );
  }
  if (!isRecord(value)) {
    throw badRequest(
      `json: cannot unmarshal ${
        jsonType(value)
      } into Go value of type v1.DeleteOptions`,
    );
  }
  if (value.kind !== undefined && value.kind !== "DeleteOptions") {
    throw badRequest(
      `the object provided is unrecognized (must be of type DeleteOptions): kind "${
        String(value.kind)
      }" is not "DeleteOptions"`,
    );
  }
  const preconditions = value.preconditions;
  if (preconditions === undefined || preconditions === null) return {};
  if (!isRecord(preconditions)) {
    throw badRequest(
      `json: cannot unmarshal ${
        jsonType(preconditions)
      } into Go struct field DeleteOptions.preconditions of type v1.Preconditions`,
    );
  }
  const { uid, resourceVersion } = preconditions;
  for (const [key, v] of Object.entries({ uid, resourceVersion })) {
    if (v !== undefined && v !== null && typeof v !== "string") {
      throw badRequest(
        `json: cannot unmarshal ${
          jsonType(v)
        } into Go struct field Preconditions.preconditions.${key} of type string`,
      );
    }
  }
  return {
    preconditions: {
      uid: typeof uid === "string" ? uid : undefined,
      resourceVersion: typeof resourceVersion === "string"
        ? resourceVersion
        : undefined,
    },
  };
}

// ---------------------------------------------------------------------------
// Validation

function validateMetadata(
  resource: ResourceType,
  object: KubeObject,
  creating: boolean,
): StatusCause[] {
  const causes: StatusCause[] = [];
  const meta = object.metadata;
  if (creating) {
    const name = meta.name ?? "";
    if (name === "") {
      causes.push(
        requiredCause("metadata.name", "name or generateName is required"),
      );
    } else {
      const errors = resource.kind === "Namespace"
        ? dns1123LabelErrors(name)
        : dns1123SubdomainErrors(name);
      for (const e of errors) {
        causes.push(invalidCause("metadata.name", name, e));
      }
    }
    if (resource.namespaced) {
      const namespace = meta.namespace ?? "";
      for (const e of dns1123LabelErrors(namespace)) {
        causes.push(invalidCause("metadata.namespace", namespace, e));
      }
    }
  }
  for (const [key, value] of Object.entries(meta.labels ?? {})) {
    const keyError = qualifiedNameError(key);
    if (keyError) causes.push(invalidCause("metadata.labels", key, keyError));
    const valueError = labelValueError(value);
    if (valueError) {
      causes.push(invalidCause("metadata.labels", value, valueError));
    }
  }
  let annotationBytes = 0;
  for (const [key, value] of Object.entries(meta.annotations ?? {})) {
    const keyError = qualifiedNameError(key.toLowerCase());
    if (keyError) {
      causes.push(invalidCause("metadata.annotations", key, keyError));
    }
    annotationBytes += key.length + value.length;
  }
  if (annotationBytes > 256 * 1024) {
    causes.push({
      reason: "FieldValueTooLong",
      message: "Too long: must have at most 262144 bytes",
      field: "metadata.annotations",
    });
  }
  return [...causes, ...(resource.validate?.(object) ?? [])];
}

// ---------------------------------------------------------------------------
// Verbs

function withTypeMeta(resource: ResourceType, object: KubeObject): KubeObject {
  const { apiVersion: _a, kind: _k, ...rest } = object;
  return { apiVersion: groupVersion(resource), kind: resource.kind, ...rest };
}

function getOrNotFound(
  state: State,
  resource: ResourceType,
  namespace: string,
  name: string,
): KubeObject {
  const found = state.store.get(resource, namespace, name);
  if (!found) throw notFound(resource, name);
  return found;
}

function createNamespace(
  state: State,
  resource: ResourceType,
  name: string,
): KubeObject {
  const object: KubeObject = {
    apiVersion: "v1",
    kind: "Namespace",
    metadata: {
      name,
      uid: crypto.randomUUID(),
      resourceVersion: state.store.nextRevision(),
      creationTimestamp: timestamp(),
    },
  };
  resource.prepareForCreate?.(object);
  state.store.put(resource, object);
  return object;
}

/** The namespace exists, or is created when namespaces are implicit. */
function ensureNamespace(state: State, namespace: string): void {
  const namespaces = state.namespaceResource;
  if (!namespaces || state.store.get(namespaces, "", namespace)) return;
  if (!state.implicitNamespaces) throw notFound(namespaces, namespace);
  createNamespace(state, namespaces, namespace);
}

/**
 * A body namespace must agree with the path's (empty takes the path's);
 * cluster-scoped objects have none (EnsureObjectNamespaceMatchesRequestNamespace).
 */
function reconcileNamespace(
  resource: ResourceType,
  object: KubeObject,
  pathNamespace: string,
): void {
  const bodyNamespace = object.metadata.namespace ?? "";
  if (!resource.namespaced) {
    delete object.metadata.namespace;
    return;
  }
  if (bodyNamespace !== "" && bodyNamespace !== pathNamespace) {
    throw badRequest(
      "the namespace of the provided object does not match the namespace sent on the request",
    );
  }
  object.metadata.namespace = pathNamespace;
}

function create(
  state: State,
  resource: ResourceType,
  namespace: string,
  object: KubeObject,
): Response {
  reconcileNamespace(resource, object, namespace);
  const meta = object.metadata;
  if (meta.resourceVersion) {
    // What the real server (etcd3 store) answers; a client bug, loudly.
    throw new StatusError(
      500,
      "InternalError",
      "Internal error occurred: resourceVersion should not be set on objects to be created",
      {
        causes: [{
          message: "resourceVersion should not be set on objects to be created",
        }],
      },
    );
  }
  if (!meta.name && meta.generateName) {
    meta.name = `${meta.generateName}${randomSuffix()}`;
  }
  const name = meta.name ?? "";
  delete meta.uid;
  delete meta.deletionTimestamp;
  delete meta.deletionGracePeriodSeconds;
  delete meta.generation;
  delete meta.selfLink;
  if (resource.subresources?.includes("status")) delete object.status;

  const causes = validateMetadata(resource, object, true);
  if (causes.length > 0) throw invalid(resource, name, causes);
  if (resource.namespaced) ensureNamespace(state, namespace);
  if (state.store.get(resource, namespace, name)) {
    throw alreadyExists(resource, name);
  }
  resource.prepareForCreate?.(object);
  meta.uid = crypto.randomUUID();
  meta.creationTimestamp = timestamp();
  if (resource.custom) meta.generation = 1;
  meta.resourceVersion = state.store.nextRevision();
  state.store.put(resource, object);
  state.logger?.info("Created object", {
    kind: resource.kind,
    namespace: resource.namespaced ? namespace : undefined,
    name,
  });
  return json(withTypeMeta(resource, object), 201);
}

/** Everything except metadata and status: what bumps generation. */
function specOf(object: KubeObject): Record<string, unknown> {
  const { metadata: _m, status: _s, ...rest } = object;
  return rest;
}

function replaceObject(
  state: State,
  target: Extract<Route, { kind: "item" }>,
  incoming: KubeObject,
  options: { requireResourceVersion: boolean },
): Response {
  const { resource, namespace, name } = target;
  const existing = getOrNotFound(state, resource, namespace, name);
  reconcileNamespace(resource, incoming, namespace);
  if ((incoming.metadata.name ?? "") !== name) {
    throw badRequest(
      `the name of the object (${
        incoming.metadata.name ?? ""
      }) does not match the name on the URL (${name})`,
    );
  }
  const current = existing.metadata;
  const wanted = incoming.metadata.resourceVersion ?? "";
  if (wanted === "") {
    if (options.requireResourceVersion) {
      throw invalid(resource, name, [
        {
          reason: "FieldValueInvalid",
          message: "Invalid value: 0x0: must be specified for an update",
          field: "metadata.resourceVersion",
        },
      ]);
    }
  } else if (wanted !== current.resourceVersion) {
    throw conflict(resource, name, MODIFIED);
  }
  if (incoming.metadata.uid && incoming.metadata.uid !== current.uid) {
    throw conflict(
      resource,
      name,
      `Precondition failed: UID in precondition: ${incoming.metadata.uid}, UID in object meta: ${current.uid}`,
    );
  }

  let next: KubeObject;
  if (target.status) {
    // The status subresource changes status and nothing else.
    next = structuredClone(existing);
    if (incoming.status === undefined) delete next.status;
    else next.status = incoming.status;
  } else {
    next = incoming;
    if (resource.subresources?.includes("status")) {
      if (existing.status === undefined) delete next.status;
      else next.status = existing.status;
    }
    const kept = [
      "uid",
      "creationTimestamp",
      "deletionTimestamp",
      "deletionGracePeriodSeconds",
      "generation",
    ] as const;
    for (const key of kept) {
      if (current[key] === undefined) delete next.metadata[key];
      else (next.metadata as Record<string, unknown>)[key] = current[key];
    }
    delete next.metadata.selfLink;
    if (resource.custom && !deepEqual(specOf(existing), specOf(next))) {
      next.metadata.generation = (current.generation ?? 0) + 1;
    }
    const causes = validateMetadata(resource, next, false);
    if (causes.length > 0) throw invalid(resource, name, causes);
  }
  next.metadata.resourceVersion = current.resourceVersion;
  if (
    deepEqual(withTypeMeta(resource, next), withTypeMeta(resource, existing))
  ) {
    // A no-op write keeps the resourceVersion, as etcd's GuaranteedUpdate does.
    return json(withTypeMeta(resource, existing));
  }
  next.metadata.resourceVersion = state.store.nextRevision();
  if (next.metadata.deletionTimestamp && !next.metadata.finalizers?.length) {
    state.store.remove(resource, next);
    state.logger?.info("Deleted object", {
      kind: resource.kind,
      namespace,
      name,
    });
  } else {
    state.store.put(resource, next);
  }
  return json(withTypeMeta(resource, next));
}

function update(
  state: State,
  target: Extract<Route, { kind: "item" }>,
  incoming: KubeObject,
): Response {
  return replaceObject(state, target, incoming, {
    requireResourceVersion: target.resource.custom === true,
  });
}

const MERGE_PATCH = "application/merge-patch+json";
const JSON_PATCH = "application/json-patch+json";
const STRATEGIC_MERGE_PATCH = "application/strategic-merge-patch+json";

async function patch(
  state: State,
  target: Extract<Route, { kind: "item" }>,
  request: Request,
): Promise<Response> {
  const { resource } = target;
  const media = (request.headers.get("content-type") ?? "").split(";")[0]
    .trim().toLowerCase();
  const accepted = resource.custom
    ? [JSON_PATCH, MERGE_PATCH]
    : [JSON_PATCH, MERGE_PATCH, STRATEGIC_MERGE_PATCH];
  if (!accepted.includes(media)) throw unsupportedMediaType(accepted);
  const text = await readText(state, request);
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (error) {
    throw badRequest(
      `error decoding patch: ${
        error instanceof Error ? error.message : String(error)
      }`,
    );
  }
  const existing = withTypeMeta(
    resource,
    getOrNotFound(state, resource, target.namespace, target.name),
  );
  let patched: unknown;
  if (media === JSON_PATCH) {
    try {
      patched = jsonPatch(existing, body);
    } catch (error) {
      if (!(error instanceof PatchError)) throw error;
      throw new StatusError(422, "Invalid", error.message);
    }
  } else {
    // Strategic merge patch is applied as a merge patch: the kinds served
    // here have no lists with merge keys that Corral or kubectl patch.
    if (!isRecord(body)) {
      throw badRequest(
        "error decoding patch: a merge patch must be a JSON object",
      );
    }
    patched = mergePatch(existing, body);
  }
  const incoming = decodeObject(patched, resource);
  return replaceObject(state, target, incoming, {
    requireResourceVersion: false,
  });
}

function checkPreconditions(
  resource: ResourceType,
  existing: KubeObject,
  options: DeleteOptions,
): void {
  const name = existing.metadata.name ?? "";
  const { uid, resourceVersion } = options.preconditions ?? {};
  if (uid && uid !== existing.metadata.uid) {
    throw conflict(
      resource,
      name,
      `Precondition failed: UID in precondition: ${uid}, UID in object meta: ${existing.metadata.uid}`,
    );
  }
  if (
    resourceVersion && resourceVersion !== existing.metadata.resourceVersion
  ) {
    throw conflict(
      resource,
      name,
      `Precondition failed: ResourceVersion in precondition: ${resourceVersion}, ResourceVersion in object meta: ${existing.metadata.resourceVersion}`,
    );
  }
}

function remove(
  state: State,
  target: Extract<Route, { kind: "item" }>,
  options: DeleteOptions,
): Response {
  const { resource, namespace, name } = target;
  const existing = getOrNotFound(state, resource, namespace, name);
  checkPreconditions(resource, existing, options);

  if (resource.kind === "Namespace" && resource.group === "") {
    return removeNamespace(state, resource, existing);
  }
  if (existing.metadata.finalizers?.length) {
    // Finalizers hold the object: it is marked for deletion and returned.
    if (!existing.metadata.deletionTimestamp) {
      existing.metadata.deletionTimestamp = timestamp();
      existing.metadata.deletionGracePeriodSeconds = 0;
      existing.metadata.resourceVersion = state.store.nextRevision();
      state.store.put(resource, existing);
    }
    return json(withTypeMeta(resource, existing));
  }
  existing.metadata.resourceVersion = state.store.nextRevision();
  state.store.remove(resource, existing);
  state.logger?.info("Deleted object", {
    kind: resource.kind,
    namespace,
    name,
  });
  // The generic registry answers a Status unless ReturnDeletedObject is set,
  // which none of the kinds served here (ConfigMap, Event, custom) set.
  return json({
    kind: "Status",
    apiVersion: "v1",
    metadata: {},
    status: "Success",
    details: { ...resourceDetails(resource, name), uid: existing.metadata.uid },
  });
}

/**
 * Deleting a namespace deletes what it holds. The real server marks it
 * Terminating and a controller empties it later; here both happen at once,
 * and the answer is the namespace as the real server returns it.
 */
function removeNamespace(
  state: State,
  resource: ResourceType,
  existing: KubeObject,
): Response {
  const name = existing.metadata.name ?? "";
  if (PROTECTED_NAMESPACES.includes(name)) {
    throw new StatusError(
      403,
      "Forbidden",
      `namespaces "${name}" is forbidden: this namespace may not be deleted`,
      resourceDetails(resource, name),
    );
  }
  for (const other of state.resources) {
    if (!other.namespaced) continue;
    for (const object of state.store.list(other, name)) {
      state.store.nextRevision();
      state.store.remove(other, object);
    }
  }
  existing.metadata.deletionTimestamp = timestamp();
  existing.status = { phase: "Terminating" };
  existing.metadata.resourceVersion = state.store.nextRevision();
  state.store.remove(resource, existing);
  return json(withTypeMeta(resource, existing));
}

interface ContinueToken {
  /** The last key returned. */
  after: string;
}

function encodeContinue(token: ContinueToken): string {
  return btoa(JSON.stringify(token));
}

function decodeContinue(value: string): ContinueToken {
  try {
    const token = JSON.parse(atob(value));
    if (isRecord(token) && typeof token.after === "string") {
      return { after: token.after };
    }
  } catch {
    // fall through
  }
  throw badRequest(
    `the provided continue parameter is invalid: ${JSON.stringify(value)}`,
  );
}

function selectableFields(
  resource: ResourceType,
  object: KubeObject,
): Record<string, string> {
  if (!resource.fields) {
    return {
      "metadata.name": object.metadata.name ?? "",
      "metadata.namespace": object.metadata.namespace ?? "",
    };
  }
  return Object.fromEntries(
    Object.entries(resource.fields).map((
      [label, get],
    ) => [label, get(object) ?? ""]),
  );
}

function list(
  state: State,
  resource: ResourceType,
  namespace: string | undefined,
  params: URLSearchParams,
): Response {
  if (params.get("watch") === "true" || params.get("watch") === "1") {
    throw badRequest("the Kubernetes API stand-in does not support watch yet");
  }
  let labelSelector, fieldSelector;
  try {
    labelSelector = parseLabelSelector(params.get("labelSelector") ?? "");
    fieldSelector = parseFieldSelector(params.get("fieldSelector") ?? "");
  } catch (error) {
    if (error instanceof SelectorError) throw badRequest(error.message);
    throw error;
  }
  for (const { field: label } of fieldSelector) {
    if (resource.fields) {
      if (!Object.hasOwn(resource.fields, label)) {
        throw badRequest(`field label not supported: ${label}`);
      }
    } else if (label !== "metadata.name" && label !== "metadata.namespace") {
      throw badRequest(
        `"${label}" is not a known field selector: only "metadata.name", "metadata.namespace"`,
      );
    }
  }
  const limitParam = params.get("limit");
  const limit = limitParam === null || limitParam === ""
    ? 0
    : Number(limitParam);
  if (!Number.isInteger(limit) || limit < 0) {
    throw badRequest(`invalid limit: ${JSON.stringify(limitParam)}`);
  }
  const continueParam = params.get("continue");
  const after = continueParam ? decodeContinue(continueParam).after : undefined;

  const keyOf = (o: KubeObject) =>
    objectKey(o.metadata.namespace ?? "", o.metadata.name ?? "");
  const matching = state.store.list(resource, namespace).filter((o) =>
    (after === undefined || keyOf(o) > after) &&
    matchesLabels(labelSelector, o.metadata.labels) &&
    matchesFields(fieldSelector, selectableFields(resource, o))
  );
  const page = limit > 0 ? matching.slice(0, limit) : matching;
  const remaining = matching.length - page.length;
  const metadata: Record<string, unknown> = {
    resourceVersion: state.store.revision,
  };
  if (remaining > 0) {
    metadata.continue = encodeContinue({ after: keyOf(page[page.length - 1]) });
    metadata.remainingItemCount = remaining;
  }
  return json({
    kind: `${resource.kind}List`,
    apiVersion: groupVersion(resource),
    metadata,
    // Items of built-in lists carry no apiVersion and kind; custom ones do.
    items: page.map((o) => {
      if (resource.custom) return withTypeMeta(resource, o);
      const { apiVersion: _a, kind: _k, ...rest } = o;
      return rest;
    }),
  });
}
