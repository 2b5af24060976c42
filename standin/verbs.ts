/**
 * The write and read verbs on one object: create (with generateName and
 * implicit namespaces), get, update and the status subresource, merge and
 * JSON patches, delete with preconditions and finalizers, and the deletes
 * that empty what they hold (namespaces, CRDs).
 */

import { formatKubernetesTime } from "../domain/timestamps.ts";
import { decodeObject, type DeleteOptions, readText } from "./bodies.ts";
import { decodeCustomObject, isCrdResource, schemaCauses } from "./crd.ts";
import { deepEqual, isRecord, json, randomSuffix } from "./json.ts";
import { validateMetadata } from "./metadata_validation.ts";
import { jsonPatch, mergePatch, PatchError } from "./patches.ts";
import type { Route } from "./types.ts";
import type { RequestContext, State } from "./state.ts";
import {
  alreadyExists,
  badRequest,
  conflict,
  invalid,
  MODIFIED,
  notFound,
  resourceDetails,
  StatusError,
  unsupportedMediaType,
} from "./status.ts";
import { storeKey } from "./store.ts";
import { type KubeObject, type ResourceType, withTypeMeta } from "./types.ts";

const PROTECTED_NAMESPACES = ["default", "kube-system", "kube-public"];

export function getOrNotFound(
  state: State,
  resource: ResourceType,
  namespace: string,
  name: string,
): KubeObject {
  const found = state.store.get(resource, namespace, name);
  if (!found) throw notFound(resource, name);
  return found;
}

export function createNamespace(
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

export function create(
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

export function update(
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

export async function patch(
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

export function remove(
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
