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
 * Watch: `?watch=true` on a list path streams newline-delimited JSON events
 * from a resourceVersion, replaying the retained history of that resource
 * type (bounded, like the watch cache) and honouring selectors,
 * `timeoutSeconds`, `allowWatchBookmarks` and `sendInitialEvents`; a
 * resourceVersion older than the retained history gets the real server's
 * single ERROR event (410 Expired). Lists page with `limit` and continue
 * tokens that carry their snapshot revision (a consistent list; 410 Expired
 * once that revision has left the history).
 *
 * CustomResourceDefinitions: POSTed to apiextensions.k8s.io/v1 (or given as
 * files in the `crds` option) they add or replace served resource types and
 * discovery entries; custom objects of a version with a schema are pruned,
 * defaulted and validated as a real server does (see crd_schema.ts), with
 * `unknown field` warnings, or a 400 under `fieldValidation=Strict`.
 * Deleting a CRD deletes its objects at once. A minimal OpenAPI v3 document
 * per group version tells kubectl that the server validates fields, so
 * `kubectl create -f` and `kubectl apply -f` of custom resources work with
 * kubectl's default strict validation, and carries the CRD schemas for
 * `kubectl explain`.
 *
 * Not modelled (yet): server-side apply, dryRun (rejected with 400 rather
 * than silently writing), managedFields, strategic merge patch for lists
 * with merge keys (it is treated as a JSON merge patch), Table output
 * (kubectl falls back to its client-side columns), most CEL validation
 * rules, CRD conversion webhooks (versions share one stored form), and
 * protobuf: bodies are JSON only, so kubectl can read everything and write
 * custom resources, but its writes of built-in kinds (`kubectl create
 * configmap`, which sends protobuf) are answered 415.
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
import {
  applyDefaults,
  errorBody,
  type FieldError,
  type JsonSchema,
  pruneNonNullableNulls,
  pruneUnknownFields,
  structuralSchemaErrors,
  validateObject,
} from "./crd_schema.ts";
import { parseAllDocuments } from "yaml";
import type { Logger } from "../domain/log.ts";
import { formatKubernetesTime } from "../domain/timestamps.ts";

// ---------------------------------------------------------------------------
// Public types

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
  /**
   * CustomResourceDefinition files (YAML or JSON, any number of documents)
   * installed at start, as if POSTed; startStandin throws when one cannot
   * be read or is refused.
   */
  crds?: string[];
  /**
   * Changes retained per resource type for watches and continue tokens
   * (default 1000); older resourceVersions are answered 410 Expired.
   */
  watchHistory?: number;
  /** How often a watch with allowWatchBookmarks gets a BOOKMARK (60 s). */
  bookmarkIntervalMs?: number;
  logger?: Logger;
}

export interface Standin {
  /** Base URL, e.g. `http://127.0.0.1:43123`. */
  readonly url: string;
  readonly port: number;
  /** The served resource types (CRDs add and remove some). */
  readonly resources: readonly ResourceType[];
  /** Ends open watches, stops listening and waits for open requests. */
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

/**
 * A CustomResourceDefinition's own rules (a subset of apiextensions
 * validation): names, scope, exactly one storage version, a structural
 * schema for every version.
 */
function validateCrd(object: KubeObject): StatusCause[] {
  const causes: StatusCause[] = [];
  const spec = isRecord(object.spec) ? object.spec : {};
  const names = isRecord(spec.names) ? spec.names : {};
  const group = typeof spec.group === "string" ? spec.group : "";
  const plural = typeof names.plural === "string" ? names.plural : "";
  if (group === "") causes.push(requiredCause("spec.group", ""));
  if (plural === "") causes.push(requiredCause("spec.names.plural", ""));
  if (typeof names.kind !== "string" || names.kind === "") {
    causes.push(requiredCause("spec.names.kind", ""));
  }
  const name = object.metadata.name ?? "";
  if (group !== "" && plural !== "" && name !== `${plural}.${group}`) {
    causes.push(
      invalidCause(
        "metadata.name",
        name,
        'must be spec.names.plural+"."+spec.group',
      ),
    );
  }
  if (spec.scope !== "Namespaced" && spec.scope !== "Cluster") {
    causes.push(
      toCause({
        type: "FieldValueNotSupported",
        field: "spec.scope",
        value: spec.scope ?? "",
        detail: 'supported values: "Cluster", "Namespaced"',
      }),
    );
  }
  const versions = Array.isArray(spec.versions) ? spec.versions : [];
  if (versions.length === 0) {
    causes.push(
      requiredCause(
        "spec.versions",
        "must have exactly one version marked as storage version",
      ),
    );
    return causes;
  }
  const storage = versions.filter((v) => isRecord(v) && v.storage === true);
  if (storage.length !== 1) {
    causes.push({
      reason: "FieldValueInvalid",
      message:
        'Invalid value: "": must have exactly one version marked as storage version',
      field: "spec.versions",
    });
  }
  versions.forEach((version, i) => {
    const path = `spec.versions[${i}]`;
    if (
      !isRecord(version) || typeof version.name !== "string" ||
      version.name === ""
    ) {
      causes.push(requiredCause(`${path}.name`, ""));
      return;
    }
    const schema = isRecord(version.schema)
      ? version.schema.openAPIV3Schema
      : undefined;
    if (schema === undefined) {
      causes.push(
        requiredCause(`${path}.schema.openAPIV3Schema`, "schemas are required"),
      );
      return;
    }
    causes.push(
      ...structuralSchemaErrors(schema, `${path}.schema.openAPIV3Schema`).map(
        toCause,
      ),
    );
  });
  return causes;
}

/** Server-set parts of a new CRD: defaulted names, conversion, status. */
function prepareCrd(object: KubeObject): void {
  const spec = object.spec as Record<string, unknown>;
  const names = spec.names as Record<string, unknown>;
  const kind = String(names.kind);
  names.singular ??= kind.toLowerCase();
  names.listKind ??= `${kind}List`;
  spec.conversion ??= { strategy: "None" };
  const now = formatKubernetesTime();
  const versions = spec.versions as Record<string, unknown>[];
  object.status = {
    acceptedNames: structuredClone(names),
    conditions: [
      {
        type: "NamesAccepted",
        status: "True",
        lastTransitionTime: now,
        reason: "NoConflicts",
        message: "no conflicts found",
      },
      {
        type: "Established",
        status: "True",
        lastTransitionTime: now,
        reason: "InitialNamesAccepted",
        message: "the initial names have been accepted",
      },
    ],
    storedVersions: versions.filter((v) => v.storage === true).map((v) =>
      v.name
    ),
  };
}

const CUSTOM_RESOURCE_DEFINITION: ResourceType = {
  group: "apiextensions.k8s.io",
  version: "v1",
  kind: "CustomResourceDefinition",
  plural: "customresourcedefinitions",
  singular: "customresourcedefinition",
  namespaced: false,
  shortNames: ["crd", "crds"],
  categories: ["api-extensions"],
  subresources: ["status"],
  validate: validateCrd,
  prepareForCreate: prepareCrd,
};

function isCrdResource(resource: ResourceType): boolean {
  return resource.group === CUSTOM_RESOURCE_DEFINITION.group &&
    resource.plural === CUSTOM_RESOURCE_DEFINITION.plural;
}

/** The resource types one CRD serves: one per served version. */
function resourcesOfCrd(crd: KubeObject): ResourceType[] {
  const spec = crd.spec as Record<string, unknown>;
  const names = spec.names as Record<string, unknown>;
  const group = String(spec.group);
  const kind = String(names.kind);
  const strings = (value: unknown) =>
    Array.isArray(value) ? value.filter((v) => typeof v === "string") : [];
  return (spec.versions as Record<string, unknown>[])
    .filter((version) => version.served !== false)
    .map((version) => {
      const schema = isRecord(version.schema)
        ? version.schema.openAPIV3Schema as JsonSchema
        : undefined;
      const subresources = isRecord(version.subresources)
        ? version.subresources
        : {};
      const shortNames = strings(names.shortNames);
      const categories = strings(names.categories);
      return {
        group,
        version: String(version.name),
        kind,
        plural: String(names.plural),
        singular: String(names.singular ?? kind.toLowerCase()),
        namespaced: spec.scope === "Namespaced",
        ...(shortNames.length > 0 ? { shortNames } : {}),
        ...(categories.length > 0 ? { categories } : {}),
        custom: true,
        subresources: isRecord(subresources.status) ? ["status" as const] : [],
        ...(schema ? { schema: structuredClone(schema) } : {}),
        ...(version.deprecated === true
          ? {
            deprecationWarning: typeof version.deprecationWarning === "string"
              ? version.deprecationWarning
              : `${group}/${version.name} ${kind} is deprecated`,
          }
          : {}),
        definedBy: crd.metadata.name,
      };
    });
}

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
 * The resource types Corral uses (ConfigMap, Event, Namespace, RayCluster),
 * and CustomResourceDefinition to add more.
 */
export function defaultResources(
  rayCluster: RayClusterResourceOptions = {},
): ResourceType[] {
  return [
    CONFIG_MAP,
    EVENT,
    NAMESPACE,
    CUSTOM_RESOURCE_DEFINITION,
    rayClusterResource(rayCluster),
  ];
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
  metadata: { continue?: string };
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
  /** A continue token the client may resume with (expired lists). */
  readonly continueToken?: string;

  constructor(
    code: number,
    reason: string,
    message: string,
    details?: StatusDetails,
    continueToken?: string,
  ) {
    super(message);
    this.name = "StatusError";
    this.code = code;
    this.reason = reason;
    this.details = details;
    this.continueToken = continueToken;
  }

  toStatus(): StatusBody {
    return {
      kind: "Status",
      apiVersion: "v1",
      metadata: this.continueToken ? { continue: this.continueToken } : {},
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
    message: detail ? `Required value: ${detail}` : "Required value",
    field: fieldPath,
  };
}

/** A field error of crd_schema.ts as a Status cause. */
function toCause(error: FieldError): StatusCause {
  return { reason: error.type, message: errorBody(error), field: error.field };
}

function invalid(
  resource: ResourceType,
  name: string,
  causes: StatusCause[],
): StatusError {
  // The message lists each distinct error once (field.ErrorList.ToAggregate).
  const listed = [...new Set(causes.map((c) => `${c.field}: ${c.message}`))];
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

/** 410 Gone, as a too old resourceVersion or continue token is answered. */
function expired(message: string, continueToken?: string): StatusError {
  return new StatusError(410, "Expired", message, undefined, continueToken);
}

const LIST_EXPIRED = "The resourceVersion for the provided list is too old.";
const CONTINUE_EXPIRED =
  "The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.";

/** A resourceVersion the server has not reached (after waiting for it). */
function tooLargeResourceVersion(wanted: number, current: number): StatusError {
  return new StatusError(
    504,
    "Timeout",
    `Too large resource version: ${wanted}, current: ${current}`,
    {
      causes: [{
        reason: "ResourceVersionTooLarge",
        message: "Too large resource version",
      }],
      retryAfterSeconds: 1,
    },
  );
}

/** An invalid list or watch option (ListOptions validation). */
function invalidOptions(causes: StatusCause[]): StatusError {
  const listed = causes.map((c) => `${c.field}: ${c.message}`);
  return new StatusError(
    422,
    "Invalid",
    `ListOptions.meta.k8s.io "" is invalid: ${
      listed.length === 1 ? listed[0] : `[${listed.join(", ")}]`
    }`,
    { group: "meta.k8s.io", kind: "ListOptions", causes },
  );
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

/** A change to a stored object, as watches stream it. */
export interface StoreEvent {
  type: "ADDED" | "MODIFIED" | "DELETED";
  resource: ResourceType;
  /** The object after the change (for DELETED, its last state). */
  object: KubeObject;
  /** The object before the change (MODIFIED and DELETED). */
  previous?: KubeObject;
  /** The revision of the change: the object's new resourceVersion. */
  revision: number;
}

function storeKey(resource: ResourceType): string {
  return `${resource.plural}.${resource.group}`;
}

function objectKey(namespace: string, name: string): string {
  return `${namespace}/${name}`;
}

function keyOf(object: KubeObject): string {
  return objectKey(object.metadata.namespace ?? "", object.metadata.name ?? "");
}

function byKey(a: KubeObject, b: KubeObject): number {
  const [x, y] = [keyOf(a), keyOf(b)];
  return x < y ? -1 : x > y ? 1 : 0;
}

/** The retained changes of one resource type. */
interface History {
  events: StoreEvent[];
  /** Every change of the type after this revision is in `events`. */
  start: number;
}

/**
 * All objects of all types, keyed by resource and namespace/name, with one
 * global resourceVersion counter (as etcd's revision) and, per resource
 * type, a bounded history of changes (as the watch cache keeps) from which
 * watches replay and consistent list snapshots are rebuilt. Objects go in
 * and out as deep copies, so callers can never mutate what is stored;
 * events handed to listeners are shared and must not be mutated.
 */
class ObjectStore {
  #revision = 0;
  #objects = new Map<string, Map<string, KubeObject>>();
  #history = new Map<string, History>();
  #historyLimit: number;
  #listeners = new Set<(event: StoreEvent) => void>();

  constructor(historyLimit: number) {
    this.#historyLimit = historyLimit;
  }

  get revision(): string {
    return String(this.#revision);
  }

  get revisionNumber(): number {
    return this.#revision;
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

  #historyOf(resource: ResourceType): History {
    const key = storeKey(resource);
    let history = this.#history.get(key);
    if (!history) {
      history = { events: [], start: 0 };
      this.#history.set(key, history);
    }
    return history;
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
    return [...this.#table(resource).values()]
      .filter((o) =>
        namespace === undefined || (o.metadata.namespace ?? "") === namespace
      )
      .sort(byKey)
      .map((o) => structuredClone(o));
  }

  /**
   * The oldest revision a watch or snapshot of this type can start from:
   * undefined when the whole history is retained.
   */
  oldestRevision(resource: ResourceType): number | undefined {
    const history = this.#historyOf(resource);
    if (history.start === 0) return undefined;
    return history.events.length > 0
      ? history.events[0].revision - 1
      : history.start;
  }

  /** Changes of one type after `revision`; undefined when no longer kept. */
  changesSince(
    resource: ResourceType,
    revision: number,
  ): StoreEvent[] | undefined {
    const oldest = this.oldestRevision(resource);
    if (oldest !== undefined && revision < oldest) return undefined;
    return this.#historyOf(resource).events.filter((e) =>
      e.revision > revision
    );
  }

  /**
   * Objects of one namespace (or all) as they were at `revision`, sorted;
   * undefined when that revision has left the history.
   */
  listAt(
    resource: ResourceType,
    revision: number,
    namespace?: string,
  ): KubeObject[] | undefined {
    const changes = this.changesSince(resource, revision);
    if (changes === undefined) return undefined;
    const table = new Map(this.#table(resource));
    for (const change of changes.toReversed()) {
      if (change.type === "ADDED") table.delete(keyOf(change.object));
      else if (change.previous) {
        table.set(keyOf(change.object), change.previous);
      }
    }
    return [...table.values()]
      .filter((o) =>
        namespace === undefined || (o.metadata.namespace ?? "") === namespace
      )
      .sort(byKey)
      .map((o) => structuredClone(o));
  }

  put(resource: ResourceType, object: KubeObject): void {
    const table = this.#table(resource);
    const key = keyOf(object);
    const previous = table.get(key);
    const stored = structuredClone(object);
    table.set(key, stored);
    this.#record({
      type: previous ? "MODIFIED" : "ADDED",
      resource,
      object: stored,
      previous,
      revision: Number(object.metadata.resourceVersion),
    });
  }

  remove(resource: ResourceType, object: KubeObject): void {
    const table = this.#table(resource);
    const key = keyOf(object);
    const previous = table.get(key);
    if (table.delete(key)) {
      this.#record({
        type: "DELETED",
        resource,
        object: structuredClone(object),
        previous,
        revision: Number(object.metadata.resourceVersion),
      });
    }
  }

  subscribe(listener: (event: StoreEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  #record(event: StoreEvent): void {
    const history = this.#historyOf(event.resource);
    history.events.push(event);
    while (history.events.length > this.#historyLimit) {
      history.start = history.events.shift()!.revision;
    }
    // A listener may subscribe another (a watch starting): a snapshot
    // keeps it from seeing this event twice.
    for (const listener of [...this.#listeners]) listener(event);
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
  /** The served resource types; CRDs add and remove entries. */
  resources: ResourceType[];
  /** Entries a CRD replaced, by group/version/plural, restored on its delete. */
  shadowed: Map<string, ResourceType>;
  store: ObjectStore;
  implicitNamespaces: boolean;
  maxBodyBytes: number;
  bookmarkIntervalMs: number;
  /** Open watches, ended by close() (and by deleting their CRD). */
  watches: Set<{ resource: ResourceType; end(): void }>;
  logger?: Logger;
  namespaceResource?: ResourceType;
}

/** What one request carries beside its route: warnings and options. */
interface RequestContext {
  /** Texts of the `Warning` headers of the answer. */
  warnings: string[];
  fieldValidation: "Ignore" | "Warn" | "Strict";
}

const DEFAULT_MAX_BODY_BYTES = 3 * 1024 * 1024;
const DEFAULT_WATCH_HISTORY = 1000;
const DEFAULT_BOOKMARK_INTERVAL_MS = 60_000;
/** The real server's default watch length is 30 to 60 minutes. */
const DEFAULT_WATCH_TIMEOUT_SECONDS = 1800;
/** How long a too large resourceVersion is waited for (the watch cache's 3 s). */
const TOO_LARGE_RESOURCE_VERSION_WAIT_MS = 3000;
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
  const resources = [
    ...(options.resources ?? defaultResources(options.rayCluster)),
  ];
  const state: State = {
    resources,
    shadowed: new Map(),
    store: new ObjectStore(options.watchHistory ?? DEFAULT_WATCH_HISTORY),
    implicitNamespaces: options.implicitNamespaces ?? true,
    maxBodyBytes: options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
    bookmarkIntervalMs: options.bookmarkIntervalMs ??
      DEFAULT_BOOKMARK_INTERVAL_MS,
    watches: new Set(),
    logger: options.logger,
    namespaceResource: findResource(resources, "", "v1", "namespaces"),
  };
  state.store.subscribe((event) => {
    if (isCrdResource(event.resource)) syncCrd(state, event);
  });
  if (state.namespaceResource) {
    for (const name of INITIAL_NAMESPACES) {
      createNamespace(state, state.namespaceResource, name);
    }
  }
  if (options.crds?.length) installCrdFiles(state, options.crds);
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
    get resources() {
      return state.resources;
    },
    async close() {
      for (const watch of [...state.watches]) watch.end();
      await server.shutdown();
    },
  };
}

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

/** `299 - "text"`: a Warning header value (RFC 7234). */
function warningHeader(text: string): string {
  return `299 - "${text.replaceAll("\\", "\\\\").replaceAll('"', '\\"')}"`;
}

async function handle(state: State, request: Request): Promise<Response> {
  const url = new URL(request.url);
  const context: RequestContext = { warnings: [], fieldValidation: "Warn" };
  let response: Response;
  try {
    response = await route(state, request, url, context);
  } catch (error) {
    if (error instanceof StatusError) {
      response = json(error.toStatus(), error.code);
    } else {
      state.logger?.error("Failed to serve request", {
        method: request.method,
        path: url.pathname,
        error: error instanceof Error ? error.message : String(error),
      });
      response = json(
        new StatusError(
          500,
          "InternalError",
          "Internal error occurred: the stand-in failed to serve the request",
        ).toStatus(),
        500,
      );
    }
  }
  for (const text of new Set(context.warnings)) {
    response.headers.append("warning", warningHeader(text));
  }
  return response;
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
  context: RequestContext,
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
  if (root === "openapi" && segments[1] === "v3") {
    return onlyGet(
      request,
      () => openApiV3(state.resources, segments.slice(2)),
    );
  }
  if (root === "api") {
    if (segments.length === 1) {
      return onlyGet(request, () => json(apiVersions(url)));
    }
    if (segments[1] !== "v1") throw unknownPath();
    return resourceRequest(
      state,
      request,
      url,
      "",
      "v1",
      segments.slice(2),
      context,
    );
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
      context,
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

const FIELD_VALIDATIONS = ["Ignore", "Strict", "Warn"] as const;

function readFieldValidation(
  params: URLSearchParams,
): RequestContext["fieldValidation"] {
  const value = params.get("fieldValidation") ?? "";
  if (value === "") return "Warn";
  const known = FIELD_VALIDATIONS.find((v) => v === value);
  if (!known) {
    throw badRequest(
      `fieldValidation: Unsupported value: "${value}": supported values: "Ignore", "Strict", "Warn"`,
    );
  }
  return known;
}

function isWatch(params: URLSearchParams): boolean {
  const watch = params.get("watch");
  return watch === "true" || watch === "1";
}

async function resourceRequest(
  state: State,
  request: Request,
  url: URL,
  group: string,
  version: string,
  rest: string[],
  context: RequestContext,
): Promise<Response> {
  if (rest.length === 0) {
    return onlyGet(
      request,
      () => json(apiResourceList(state.resources, group, version)),
    );
  }
  const target = resolveResourcePath(state.resources, group, version, rest);
  if (target.resource.deprecationWarning) {
    context.warnings.push(target.resource.deprecationWarning);
  }
  if (url.searchParams.has("dryRun")) {
    throw badRequest("the Kubernetes API stand-in does not support dryRun");
  }
  context.fieldValidation = readFieldValidation(url.searchParams);
  const method = request.method;
  const { resource } = target;
  if (target.kind === "collection") {
    if (method === "GET") {
      if (isWatch(url.searchParams)) {
        return watch(state, resource, target.namespace, url.searchParams);
      }
      return await list(state, resource, target.namespace, url.searchParams);
    }
    const canCreate = target.namespace !== undefined || !resource.namespaced;
    if (method === "POST" && canCreate) {
      const body = await readObject(state, request, resource);
      decodeCustomObject(resource, body, context);
      return create(state, resource, target.namespace ?? "", body);
    }
    throw methodNotAllowed();
  }
  switch (method) {
    case "GET":
      return json(withTypeMeta(
        resource,
        getOrNotFound(state, resource, target.namespace, target.name),
      ));
    case "PUT": {
      const body = await readObject(state, request, resource);
      decodeCustomObject(resource, body, context);
      return update(state, target, body);
    }
    case "PATCH":
      return patch(state, target, request, context);
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

/**
 * Kubernetes version priority (apimachinery version.CompareKubeAwareVersionStrings):
 * GA before beta before alpha, higher numbers first, then other names
 * alphabetically.
 */
function compareVersions(a: string, b: string): number {
  const rank = (v: string): [number, number, number, string] => {
    const match = /^v(\d+)(?:(alpha|beta)(\d+))?$/.exec(v);
    if (!match) return [3, 0, 0, v];
    const stage = match[2] === undefined ? 0 : match[2] === "beta" ? 1 : 2;
    return [stage, -Number(match[1]), -Number(match[3] ?? 0), ""];
  };
  const [x, y] = [rank(a), rank(b)];
  for (let i = 0; i < 3; i++) {
    if (x[i] !== y[i]) return (x[i] as number) - (y[i] as number);
  }
  return x[3] < y[3] ? -1 : x[3] > y[3] ? 1 : 0;
}

function groupVersions(resources: readonly ResourceType[], group: string) {
  const versions = [
    ...new Set(
      resources.filter((r) => r.group === group).map((r) => r.version),
    ),
  ].sort(compareVersions);
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

// ---------------------------------------------------------------------------
// OpenAPI v3

/** `api/v1`, `apis/ray.io/v1`: how OpenAPI v3 names a group version. */
function openApiPath(group: string, version: string): string {
  return group === "" ? `api/${version}` : `apis/${group}/${version}`;
}

/** `io.ray.v1.RayCluster`: the schema name Kubernetes gives a kind. */
function definitionName(resource: ResourceType): string {
  const group = resource.group === ""
    ? "io.k8s.api.core"
    : resource.group.split(".").reverse().join(".");
  return `${group}.${resource.version}.${resource.kind}`;
}

/**
 * A minimal OpenAPI v3 document of one group version: a path per served
 * resource whose create and patch operations declare the fieldValidation
 * query parameter (how kubectl learns the server validates fields, so that
 * `kubectl create -f` and `apply` use server-side strict validation), and
 * each kind's schema (the CRD's, for custom kinds) for `kubectl explain`.
 */
function openApiGroupVersion(
  resources: readonly ResourceType[],
  group: string,
  version: string,
): unknown {
  const served = resources.filter((r) =>
    r.group === group && r.version === version
  );
  const fieldValidation = {
    name: "fieldValidation",
    in: "query",
    description:
      "Ignore, Warn (the default) or Strict: what to do with unknown or duplicate fields",
    schema: { type: "string", uniqueItems: true },
  };
  const paths: Record<string, unknown> = {};
  const schemas: Record<string, unknown> = {};
  for (const resource of served) {
    const gvk = [{ group, version, kind: resource.kind }];
    const ref = { $ref: `#/components/schemas/${definitionName(resource)}` };
    const operation = (action: string, withFieldValidation: boolean) => ({
      operationId: `${action}${resource.kind}`,
      parameters: withFieldValidation ? [fieldValidation] : [],
      responses: {
        "200": { content: { "application/json": { schema: ref } } },
      },
      "x-kubernetes-action": action,
      "x-kubernetes-group-version-kind": gvk[0],
    });
    const base = `/${openApiPath(group, version)}${
      resource.namespaced ? "/namespaces/{namespace}" : ""
    }/${resource.plural}`;
    paths[base] = {
      get: operation("list", false),
      post: operation("post", true),
    };
    paths[`${base}/{name}`] = {
      get: operation("get", false),
      put: operation("put", true),
      patch: operation("patch", true),
      delete: operation("delete", false),
    };
    schemas[definitionName(resource)] = {
      ...(resource.schema ?? { type: "object" }),
      "x-kubernetes-group-version-kind": gvk,
    };
  }
  return {
    openapi: "3.0.0",
    info: { title: "Kubernetes", version: SERVER_VERSION.gitVersion },
    paths,
    components: { schemas },
  };
}

function openApiV3(
  resources: readonly ResourceType[],
  rest: string[],
): Response {
  const groupVersions = new Map<string, [string, string]>();
  for (const r of resources) {
    groupVersions.set(openApiPath(r.group, r.version), [r.group, r.version]);
  }
  if (rest.length === 0) {
    const paths: Record<string, unknown> = {};
    for (const [path, [group, version]] of groupVersions) {
      const document = JSON.stringify(
        openApiGroupVersion(resources, group, version),
      );
      paths[path] = {
        serverRelativeURL: `/openapi/v3/${path}?hash=${contentHash(document)}`,
      };
    }
    return json({ paths });
  }
  const found = groupVersions.get(rest.join("/"));
  if (!found) throw unknownPath();
  return json(openApiGroupVersion(resources, found[0], found[1]));
}

/** A short FNV-1a hash: what the OpenAPI v3 index uses to bust caches. */
function contentHash(text: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash.toString(16).toUpperCase().padStart(8, "0");
}

const VERBS = ["create", "delete", "get", "list", "patch", "update", "watch"];

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
      message: "Too long: may not be more than 262144 bytes",
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
      creationTimestamp: formatKubernetesTime(),
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

  const causes = [
    ...validateMetadata(resource, object, true),
    ...schemaCauses(resource, object),
  ];
  if (causes.length > 0) throw invalid(resource, name, causes);
  if (resource.namespaced) ensureNamespace(state, namespace);
  if (state.store.get(resource, namespace, name)) {
    throw alreadyExists(resource, name);
  }
  resource.prepareForCreate?.(object);
  meta.uid = crypto.randomUUID();
  meta.creationTimestamp = formatKubernetesTime();
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
    const causes = schemaCauses(resource, next, existing);
    if (causes.length > 0) throw invalid(resource, name, causes);
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
    const causes = [
      ...validateMetadata(resource, next, false),
      ...schemaCauses(resource, next, existing),
    ];
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
  context: RequestContext,
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
  decodeCustomObject(resource, incoming, context);
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
  if (isCrdResource(resource)) return removeCrd(state, resource, existing);
  if (existing.metadata.finalizers?.length) {
    // Finalizers hold the object: it is marked for deletion and returned.
    if (!existing.metadata.deletionTimestamp) {
      existing.metadata.deletionTimestamp = formatKubernetesTime();
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
  const emptied = new Set<string>();
  for (const other of state.resources) {
    if (!other.namespaced || emptied.has(storeKey(other))) continue;
    emptied.add(storeKey(other));
    for (const object of state.store.list(other, name)) {
      object.metadata.resourceVersion = state.store.nextRevision();
      state.store.remove(other, object);
    }
  }
  existing.metadata.deletionTimestamp = formatKubernetesTime();
  existing.status = { phase: "Terminating" };
  existing.metadata.resourceVersion = state.store.nextRevision();
  state.store.remove(resource, existing);
  return json(withTypeMeta(resource, existing));
}

// ---------------------------------------------------------------------------
// Lists and watches

/** A continue token as the etcd3 store encodes it (storage/continue.go). */
interface ContinueToken {
  /** The snapshot revision; -1 continues at the latest. */
  rv: number;
  /** The key to start from, relative to the list's key prefix. */
  start: string;
}

function base64UrlEncode(text: string): string {
  const bytes = new TextEncoder().encode(text);
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replaceAll("+", "-").replaceAll("/", "_").replace(
    /=+$/,
    "",
  );
}

function base64UrlDecode(text: string): string {
  if (!/^[A-Za-z0-9_-]*$/.test(text) || text.length % 4 === 1) {
    throw new Error("illegal base64 data");
  }
  const binary = atob(text.replaceAll("-", "+").replaceAll("_", "/"));
  return new TextDecoder("utf-8", { fatal: true }).decode(
    Uint8Array.from(binary, (c) => c.charCodeAt(0)),
  );
}

function encodeContinue(token: ContinueToken): string {
  return base64UrlEncode(
    JSON.stringify({ v: "meta.k8s.io/v1", rv: token.rv, start: token.start }),
  );
}

function decodeContinue(value: string): ContinueToken {
  const fail = (detail: string) =>
    badRequest(`invalid continue token: continue key is not valid: ${detail}`);
  let token: unknown;
  try {
    token = JSON.parse(base64UrlDecode(value));
  } catch (error) {
    throw fail(error instanceof Error ? error.message : String(error));
  }
  if (!isRecord(token) || token.v !== "meta.k8s.io/v1") {
    throw fail("server does not recognize this encoded version");
  }
  if (typeof token.rv !== "number" || token.rv === 0) {
    throw fail(
      "incorrect encoded start resourceVersion (version meta.k8s.io/v1)",
    );
  }
  if (typeof token.start !== "string" || token.start === "") {
    throw fail("encoded start key empty (version meta.k8s.io/v1)");
  }
  return { rv: token.rv, start: token.start };
}

/** Where the keys of a list start: continue tokens are relative to it. */
function keyPrefix(resource: ResourceType, namespace?: string): string {
  if (namespace !== undefined) return `${namespace}/`;
  return resource.namespaced ? "" : "/";
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

interface Selection {
  labels: ReturnType<typeof parseLabelSelector>;
  fields: ReturnType<typeof parseFieldSelector>;
  /** True when no selector narrows the list (the key range does). */
  everything: boolean;
  matches(object: KubeObject): boolean;
}

/** The label and field selectors of a list or watch, checked. */
function readSelection(
  resource: ResourceType,
  namespace: string | undefined,
  params: URLSearchParams,
): Selection {
  let labels, fields;
  try {
    labels = parseLabelSelector(params.get("labelSelector") ?? "");
    fields = parseFieldSelector(params.get("fieldSelector") ?? "");
  } catch (error) {
    if (error instanceof SelectorError) throw badRequest(error.message);
    throw error;
  }
  for (const { field: label } of fields) {
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
  return {
    labels,
    fields,
    everything: labels.length === 0 && fields.length === 0,
    matches: (object) =>
      (namespace === undefined ||
        (object.metadata.namespace ?? "") === namespace) &&
      matchesLabels(labels, object.metadata.labels) &&
      matchesFields(fields, selectableFields(resource, object)),
  };
}

/** A resourceVersion parameter as a number (0 for "" and "0"). */
function parseResourceVersion(value: string): number {
  if (value === "" || value === "0") return 0;
  if (!/^\d+$/.test(value)) {
    throw badRequest(
      `invalid resource version: resourceVersion: Invalid value: "${value}": strconv.ParseUint: parsing "${value}": invalid syntax`,
    );
  }
  return Number(value);
}

/** Resolves once the store reaches `revision`, or false after `ms`. */
function waitForRevision(
  state: State,
  revision: number,
  ms: number,
): Promise<boolean> {
  if (state.store.revisionNumber >= revision) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      unsubscribe();
      resolve(false);
    }, ms);
    const unsubscribe = state.store.subscribe(() => {
      if (state.store.revisionNumber >= revision) {
        clearTimeout(timer);
        unsubscribe();
        resolve(true);
      }
    });
  });
}

function forbiddenOption(field: string, detail: string): StatusCause {
  return {
    reason: "FieldValueForbidden",
    message: `Forbidden: ${detail}`,
    field,
  };
}

function unsupportedOption(
  field: string,
  value: string,
  supported: string[],
): StatusCause {
  return {
    reason: "FieldValueNotSupported",
    message: `Unsupported value: "${value}": supported values: ${
      supported.map((v) => `"${v}"`).join(", ")
    }`,
    field,
  };
}

/** ListOptions validation (apimachinery internalversion/validation). */
function checkListOptions(params: URLSearchParams, watching: boolean): string {
  const match = params.get("resourceVersionMatch") ?? "";
  const resourceVersion = params.get("resourceVersion") ?? "";
  const sendInitialEvents = params.get("sendInitialEvents");
  const continued = (params.get("continue") ?? "") !== "";
  const causes: StatusCause[] = [];
  if (watching) {
    if (sendInitialEvents !== null && match !== "NotOlderThan") {
      causes.push(forbiddenOption(
        "resourceVersionMatch",
        "sendInitialEvents requires setting resourceVersionMatch to NotOlderThan",
      ));
    }
    if (match !== "") {
      if (sendInitialEvents === null) {
        causes.push(forbiddenOption(
          "resourceVersionMatch",
          "resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided",
        ));
      }
      if (match !== "NotOlderThan") {
        causes.push(
          unsupportedOption("resourceVersionMatch", match, ["NotOlderThan"]),
        );
      }
      if (continued) {
        causes.push(forbiddenOption(
          "resourceVersionMatch",
          "resourceVersionMatch is forbidden when continue is provided",
        ));
      }
    }
  } else {
    if (match !== "") {
      if (resourceVersion === "") {
        causes.push(forbiddenOption(
          "resourceVersionMatch",
          "resourceVersionMatch is forbidden unless resourceVersion is provided",
        ));
      }
      if (continued) {
        causes.push(forbiddenOption(
          "resourceVersionMatch",
          "resourceVersionMatch is forbidden when continue is provided",
        ));
      }
      if (match !== "Exact" && match !== "NotOlderThan") {
        causes.push(
          unsupportedOption("resourceVersionMatch", match, [
            "Exact",
            "NotOlderThan",
            "",
          ]),
        );
      }
      if (match === "Exact" && resourceVersion === "0") {
        causes.push(forbiddenOption(
          "resourceVersionMatch",
          'resourceVersionMatch "exact" is forbidden for resourceVersion "0"',
        ));
      }
    }
    if (sendInitialEvents !== null) {
      causes.push(
        forbiddenOption(
          "sendInitialEvents",
          "sendInitialEvents is forbidden for list",
        ),
      );
    }
  }
  if (causes.length > 0) throw invalidOptions(causes);
  return match;
}

async function list(
  state: State,
  resource: ResourceType,
  namespace: string | undefined,
  params: URLSearchParams,
): Promise<Response> {
  const selection = readSelection(resource, namespace, params);
  const limitParam = params.get("limit");
  const limit = limitParam === null || limitParam === ""
    ? 0
    : Number(limitParam);
  if (!Number.isInteger(limit) || limit < 0) {
    throw badRequest(`invalid limit: ${JSON.stringify(limitParam)}`);
  }
  const match = checkListOptions(params, false);
  const resourceVersion = params.get("resourceVersion") ?? "";
  const continueParam = params.get("continue") ?? "";
  const prefix = keyPrefix(resource, namespace);

  let snapshot: number | undefined;
  let start = "";
  if (continueParam !== "") {
    const token = decodeContinue(continueParam);
    if (resourceVersion !== "" && resourceVersion !== "0") {
      throw badRequest(
        "specifying resource version is not allowed when using continue",
      );
    }
    start = prefix + token.start;
    if (token.rv > 0) snapshot = token.rv;
  } else {
    const wanted = parseResourceVersion(resourceVersion);
    if (wanted > 0) {
      const reached = await waitForRevision(
        state,
        wanted,
        TOO_LARGE_RESOURCE_VERSION_WAIT_MS,
      );
      if (!reached) {
        throw tooLargeResourceVersion(wanted, state.store.revisionNumber);
      }
      if (match === "Exact") snapshot = wanted;
    }
  }

  const revision = snapshot ?? state.store.revisionNumber;
  const objects = snapshot === undefined
    ? state.store.list(resource, namespace)
    : state.store.listAt(resource, snapshot, namespace);
  if (objects === undefined) {
    if (continueParam === "") throw expired(LIST_EXPIRED);
    // The etcd3 store offers a token that continues at the latest revision.
    throw expired(
      CONTINUE_EXPIRED,
      encodeContinue({ rv: -1, start: start.slice(prefix.length) }),
    );
  }
  const matching = objects.filter((o) =>
    keyOf(o) >= start && selection.matches(o)
  );
  const page = limit > 0 ? matching.slice(0, limit) : matching;
  const remaining = matching.length - page.length;
  const metadata: Record<string, unknown> = {
    resourceVersion: String(revision),
  };
  if (remaining > 0) {
    const last = keyOf(page[page.length - 1]);
    metadata.continue = encodeContinue({
      rv: revision,
      start: `${last.slice(prefix.length)}\u0000`,
    });
    // The etcd3 store counts what is left only when no selector filters.
    if (selection.everything) metadata.remainingItemCount = remaining;
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

/** A watch event's object for a BOOKMARK: only the resourceVersion. */
function bookmarkObject(
  resource: ResourceType,
  revision: number,
  annotations?: Record<string, string>,
): Record<string, unknown> {
  return {
    kind: resource.kind,
    apiVersion: groupVersion(resource),
    metadata: {
      resourceVersion: String(revision),
      ...(resource.custom ? {} : { creationTimestamp: null }),
      ...(annotations ? { annotations } : {}),
    },
  };
}

function readTimeoutSeconds(params: URLSearchParams): number {
  const value = params.get("timeoutSeconds") ?? "";
  if (value === "") return DEFAULT_WATCH_TIMEOUT_SECONDS;
  if (!/^\d+$/.test(value)) {
    throw badRequest(
      `timeoutSeconds: Invalid value: "${value}": must be a non-negative integer`,
    );
  }
  const seconds = Number(value);
  return seconds === 0 ? DEFAULT_WATCH_TIMEOUT_SECONDS : seconds;
}

/**
 * A watch: newline-delimited JSON events on a streamed 200 answer, as the
 * watch cache serves them. Without a resourceVersion (or with "0") the
 * current objects come first as ADDED; with one, the retained changes after
 * it; then live changes until `timeoutSeconds`, the client leaving or
 * close(). Objects moving into or out of the selection arrive as ADDED and
 * DELETED. A too old resourceVersion gets one ERROR event (410 Expired).
 */
function watch(
  state: State,
  resource: ResourceType,
  namespace: string | undefined,
  params: URLSearchParams,
): Response {
  const selection = readSelection(resource, namespace, params);
  checkListOptions(params, true);
  const timeoutMs = readTimeoutSeconds(params) * 1000;
  const bookmarks = params.get("allowWatchBookmarks") === "true";
  const sendInitialEvents = params.get("sendInitialEvents");
  const resourceVersion = params.get("resourceVersion") ?? "";
  const from = parseResourceVersion(resourceVersion);
  const initial = sendInitialEvents === "true" ||
    (sendInitialEvents !== "false" && from === 0);
  const key = storeKey(resource);
  const encoder = new TextEncoder();

  let controller!: ReadableStreamDefaultController<Uint8Array>;
  let ended = false;
  const cleanups: (() => void)[] = [];
  const send = (type: string, object: unknown) => {
    if (!ended) {
      controller.enqueue(
        encoder.encode(`${JSON.stringify({ type, object })}\n`),
      );
    }
  };
  const registration = { resource, end };
  function end(): void {
    if (ended) return;
    ended = true;
    for (const cleanup of cleanups) cleanup();
    state.watches.delete(registration);
    try {
      controller.close();
    } catch {
      // already closed or cancelled by the client
    }
  }
  const fail = (error: StatusError) => {
    send("ERROR", error.toStatus());
    end();
  };
  const deliver = (event: StoreEvent) => {
    if (storeKey(event.resource) !== key) return;
    const now = event.type !== "DELETED" && selection.matches(event.object);
    const before = event.previous !== undefined &&
      selection.matches(event.previous);
    if (now) {
      send(before ? "MODIFIED" : "ADDED", withTypeMeta(resource, event.object));
    } else if (before) {
      // A deletion shows the object's last state; an object leaving the
      // selection shows its last state that matched, at the new revision.
      const last = event.type === "DELETED" ? event.object : event.previous!;
      send(
        "DELETED",
        withTypeMeta(resource, {
          ...last,
          metadata: {
            ...last.metadata,
            resourceVersion: String(event.revision),
          },
        }),
      );
    }
  };
  const begin = () => {
    if (ended) return;
    if (initial) {
      for (const object of state.store.list(resource, namespace)) {
        if (selection.matches(object)) {
          send("ADDED", withTypeMeta(resource, object));
        }
      }
      if (sendInitialEvents === "true" && bookmarks) {
        send(
          "BOOKMARK",
          bookmarkObject(resource, state.store.revisionNumber, {
            "k8s.io/initial-events-end": "true",
          }),
        );
      }
    } else {
      // Without a resourceVersion and without initial events: from now on.
      const after = from === 0 ? state.store.revisionNumber : from;
      const changes = state.store.changesSince(resource, after);
      if (changes === undefined) {
        const oldest = state.store.oldestRevision(resource) ?? 0;
        return fail(
          expired(`too old resource version: ${from} (${oldest})`),
        );
      }
      for (const change of changes) deliver(change);
    }
    cleanups.push(state.store.subscribe(deliver));
    if (bookmarks) {
      const interval = setInterval(
        () =>
          send(
            "BOOKMARK",
            bookmarkObject(resource, state.store.revisionNumber),
          ),
        state.bookmarkIntervalMs,
      );
      cleanups.push(() => clearInterval(interval));
    }
  };

  const body = new ReadableStream<Uint8Array>({
    start(streamController) {
      controller = streamController;
      state.watches.add(registration);
      const timeout = setTimeout(end, timeoutMs);
      cleanups.push(() => clearTimeout(timeout));
      if (initial || from <= state.store.revisionNumber) {
        begin();
        return;
      }
      // A resourceVersion the store has not reached yet: wait for it.
      const waited = setTimeout(() => {
        stopWaiting();
        fail(tooLargeResourceVersion(from, state.store.revisionNumber));
      }, TOO_LARGE_RESOURCE_VERSION_WAIT_MS);
      const stopWaiting = state.store.subscribe(() => {
        if (state.store.revisionNumber >= from) {
          stopWaiting();
          clearTimeout(waited);
          begin();
        }
      });
      cleanups.push(() => {
        stopWaiting();
        clearTimeout(waited);
      });
    },
    cancel() {
      end();
    },
  });
  return new Response(body, {
    status: 200,
    headers: { "content-type": "application/json" },
  });
}

// ---------------------------------------------------------------------------
// CustomResourceDefinitions

/**
 * What the server's decoder does to a custom object of a version with a
 * schema: prunes unknown fields (warning about them, or refusing them under
 * fieldValidation=Strict), drops nulls the schema does not allow, applies
 * defaults.
 */
function decodeCustomObject(
  resource: ResourceType,
  object: KubeObject,
  context: RequestContext,
): void {
  const schema = resource.schema;
  if (!schema) return;
  const pruned = pruneUnknownFields(object, schema);
  if (pruned.length > 0 && context.fieldValidation === "Strict") {
    throw badRequest(
      `${resource.kind} in version "${resource.version}" cannot be handled as a ${resource.kind}: strict decoding error: ${
        pruned.map((path) => `unknown field "${path}"`).join(", ")
      }`,
    );
  }
  if (context.fieldValidation === "Warn") {
    context.warnings.push(...pruned.map((path) => `unknown field "${path}"`));
  }
  pruneNonNullableNulls(object, schema);
  applyDefaults(object, schema);
}

/** The value at a field path such as `spec.groups[0].name`. */
function valueAt(object: unknown, path: string): unknown {
  let current = object;
  for (const part of path.match(/[^.[\]]+|\[\d+\]/g) ?? []) {
    if (part.startsWith("[")) {
      current = Array.isArray(current)
        ? current[Number(part.slice(1, -1))]
        : undefined;
    } else {
      current = isRecord(current) ? current[part] : undefined;
    }
  }
  return current;
}

/**
 * Schema causes of a custom object. On update, errors on values the update
 * did not change are dropped (CRD validation ratcheting, on by default since
 * Kubernetes 1.30), so objects written before a stricter CRD stay writable.
 */
function schemaCauses(
  resource: ResourceType,
  object: KubeObject,
  old?: KubeObject,
): StatusCause[] {
  if (!resource.schema) return [];
  let errors = validateObject(object, resource.schema, old);
  if (old) {
    errors = errors.filter((error) =>
      error.field === "<nil>" ||
      !deepEqual(valueAt(object, error.field), valueAt(old, error.field))
    );
  }
  return errors.map(toCause);
}

function crdKey(resource: ResourceType): string {
  return `${resource.group}/${resource.version}/${resource.plural}`;
}

/** Adds, replaces or removes the resource types a CRD serves. */
function syncCrd(state: State, event: StoreEvent): void {
  const name = event.object.metadata.name;
  // Entries of this CRD go; what they shadowed comes back.
  state.resources = state.resources.filter((r) => r.definedBy !== name);
  for (const [key, shadowed] of [...state.shadowed]) {
    if (
      shadowed.definedBy === undefined &&
      !state.resources.some((r) => crdKey(r) === key)
    ) {
      state.resources.push(shadowed);
      state.shadowed.delete(key);
    }
  }
  if (event.type === "DELETED" || event.object.metadata.deletionTimestamp) {
    return;
  }
  const served = resourcesOfCrd(event.object);
  for (const added of served) {
    const index = state.resources.findIndex((r) => crdKey(r) === crdKey(added));
    if (index >= 0) {
      state.shadowed.set(crdKey(added), state.resources[index]);
      state.resources[index] = added;
    } else {
      state.resources.push(added);
    }
  }
  if (event.type === "ADDED") {
    state.logger?.info("Installed custom resource definition", {
      name,
      versions: served.map((r) => r.version),
    });
  }
}

/**
 * Deleting a CRD deletes its objects. The real server marks it Terminating
 * and a finalizer empties it later; here both happen at once, and the answer
 * is the CRD as the real server returns it.
 */
function removeCrd(
  state: State,
  resource: ResourceType,
  existing: KubeObject,
): Response {
  const served = state.resources.filter((r) =>
    r.definedBy === existing.metadata.name
  );
  if (served.length > 0) {
    for (const object of state.store.list(served[0])) {
      object.metadata.resourceVersion = state.store.nextRevision();
      state.store.remove(served[0], object);
    }
  }
  existing.metadata.deletionTimestamp = formatKubernetesTime();
  existing.metadata.deletionGracePeriodSeconds = 0;
  existing.metadata.finalizers = ["customresourcecleanup.apiextensions.k8s.io"];
  const status = isRecord(existing.status) ? existing.status : {};
  const conditions = Array.isArray(status.conditions) ? status.conditions : [];
  existing.status = {
    ...status,
    conditions: [...conditions, {
      type: "Terminating",
      status: "True",
      lastTransitionTime: formatKubernetesTime(),
      reason: "InstanceDeletionPending",
      message: "CustomResourceDefinition marked for deletion; cleanup pending",
    }],
  };
  existing.metadata.resourceVersion = state.store.nextRevision();
  state.store.remove(resource, existing);
  // The kind is no longer served: its watches end, as the real server's do.
  for (const watch of [...state.watches]) {
    if (watch.resource.definedBy === existing.metadata.name) watch.end();
  }
  state.logger?.info("Deleted custom resource definition", {
    name: existing.metadata.name,
  });
  return json(withTypeMeta(resource, existing));
}

const crdFileCache = new Map<
  string,
  { mtime: number; size: number; documents: unknown[] }
>();

/**
 * The documents of a YAML or JSON file (a `List` expands to its items);
 * parsed once per file version, since the KubeRay CRD takes a second.
 */
function readManifestFile(path: string): unknown[] {
  let info: Deno.FileInfo;
  let text: string;
  try {
    info = Deno.statSync(path);
    const cached = crdFileCache.get(path);
    if (
      cached && cached.mtime === (info.mtime?.getTime() ?? 0) &&
      cached.size === info.size
    ) {
      return structuredClone(cached.documents);
    }
    text = Deno.readTextFileSync(path);
  } catch (error) {
    const reason = error instanceof Deno.errors.NotFound
      ? "no such file"
      : error instanceof Error
      ? error.message
      : String(error);
    throw new Error(`Cannot read CRD file "${path}": ${reason}`);
  }
  const documents: unknown[] = [];
  for (const document of parseAllDocuments(text, { version: "1.1" })) {
    const problem = document.errors[0];
    if (problem) {
      throw new Error(
        `Cannot parse CRD file "${path}": ${
          problem.message.split("\n")[0].replace(/:$/, "")
        }`,
      );
    }
    const value = document.toJS({ maxAliasCount: -1 });
    if (value === null || value === undefined) continue;
    if (
      isRecord(value) && value.kind === "List" && Array.isArray(value.items)
    ) {
      documents.push(...value.items);
    } else {
      documents.push(value);
    }
  }
  crdFileCache.set(path, {
    mtime: info.mtime?.getTime() ?? 0,
    size: info.size,
    documents: structuredClone(documents),
  });
  return documents;
}

/** Installs the CRDs of files as POSTs would; throws a clear Error if not. */
function installCrdFiles(state: State, paths: string[]): void {
  for (const path of paths) {
    const documents = readManifestFile(path);
    if (documents.length === 0) {
      throw new Error(
        `Cannot install CRDs from "${path}": the file holds no documents`,
      );
    }
    documents.forEach((document, i) => {
      const kind = isRecord(document) ? document.kind : undefined;
      const apiVersion = isRecord(document) ? document.apiVersion : undefined;
      if (
        kind !== "CustomResourceDefinition" ||
        apiVersion !== "apiextensions.k8s.io/v1"
      ) {
        throw new Error(
          `Cannot install CRDs from "${path}": document ${i + 1} is ${
            typeof kind === "string" ? `a ${kind}` : "not an object"
          }${
            typeof apiVersion === "string" ? ` (${apiVersion})` : ""
          }, not an apiextensions.k8s.io/v1 CustomResourceDefinition`,
        );
      }
      try {
        create(
          state,
          CUSTOM_RESOURCE_DEFINITION,
          "",
          decodeObject(document, CUSTOM_RESOURCE_DEFINITION),
        );
      } catch (error) {
        if (!(error instanceof StatusError)) throw error;
        throw new Error(
          `Cannot install CRDs from "${path}": document ${
            i + 1
          }: ${error.message}`,
        );
      }
    });
  }
}
