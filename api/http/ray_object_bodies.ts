/**
 * What the body of a write to the Kubernetes-shaped routes is
 * (ray_objects.ts): the whole object of a create or replace, a JSON merge
 * patch or a JSON patch of one, or the DeleteOptions of a delete. The body is read once the caller is authenticated,
 * as the chain decodes every request; what it must hold is checked once
 * the caller is authorized too (objectOf, patchedObject), as the API
 * server checks it after authorizing: a caller without the right learns
 * nothing of it. Refusals are the API server's: 400 for a body that is no
 * object of the route's kind, 415 for a patch of a type not served, 422
 * for an object without a spec.
 */
import { Code, ServiceError } from "../../domain/errors.ts";
import { isPlainObject, type Message } from "../../domain/message_form.ts";
import { mergePatch } from "../../domain/merge_patch.ts";
import {
  applyJsonPatch,
  JsonPatchError,
  jsonPatchOf,
} from "../../domain/json_patch.ts";
import { HttpError } from "../errors.ts";
import type { RayObject } from "../service/object_writes.ts";
import type { HttpRequest } from "./http_request.ts";
import { contentTypeRefusal, readJsonBody } from "./request_decoding.ts";
import type { Params } from "./router.ts";

/** What a route's bodies must be. */
export interface BodyKind {
  /** "ray.io/v1" */
  apiVersion: string;
  /** "RayCluster" */
  objectKind: string;
  maxBodyBytes: number;
}

/**
 * The request of a create or replace as the chain sees it: the path's
 * namespace, the name the body's metadata gives (what the row and the
 * audit name), and the body.
 */
export async function decodeBody(
  kind: BodyKind,
  request: HttpRequest,
  params: Params,
): Promise<Message> {
  // A body without a Content-Type is JSON, as the API server takes it
  // (`kubectl create --raw -f` sends none); any other type but JSON is
  // refused. A browser cannot send one cross-origin: the browser guard
  // refuses cross-origin writes.
  const typed = request.headers.get("content-type") !== null;
  const unsupported = typed ? contentTypeRefusal(request) : undefined;
  if (unsupported) throw unsupported;
  const read = await readJsonBody(request, kind.maxBodyBytes, true);
  const body = params.name === undefined ? withGeneratedName(read) : read;
  const metadata = isPlainObject(body) && isPlainObject(body.metadata)
    ? body.metadata
    : {};
  const name = typeof metadata.name === "string"
    ? metadata.name
    : params.name ?? "";
  return { namespace: params.namespace, name, body };
}

/** What a generated name's suffix is made of, as the API server's. */
const NAME_ALPHABET = "bcdfghjklmnpqrstvwxz2456789";

/**
 * A create's object without a name but with a `metadata.generateName`,
 * named by it and five random characters, as the API server names it; any
 * other body as it is. Named here, before the row is checked, so that the
 * row, the audit and every step see the name written.
 */
function withGeneratedName(body: unknown): unknown {
  if (!isPlainObject(body) || !isPlainObject(body.metadata)) return body;
  const { name, generateName } = body.metadata;
  if ((typeof name === "string" && name !== "") || !generateName) return body;
  if (typeof generateName !== "string") return body;
  const random = crypto.getRandomValues(new Uint8Array(5));
  const suffix = [...random].map((byte) =>
    NAME_ALPHABET[byte % NAME_ALPHABET.length]
  ).join("");
  return {
    ...body,
    metadata: { ...body.metadata, name: generateName + suffix },
  };
}

/** The patch types served: a JSON merge patch and a JSON patch. */
const MERGE_PATCH = "application/merge-patch+json";
const JSON_PATCH = "application/json-patch+json";
const APPLY_PATCH = "application/apply-patch+yaml";

/**
 * The request of a PATCH: the path's namespace and name, the patch and
 * its type. A JSON patch is checked for its form here (400); whether it
 * applies is known once the object is read (patchedObject, 422).
 */
export async function decodePatch(
  kind: BodyKind,
  request: HttpRequest,
  params: Params,
): Promise<Message> {
  const type = (request.headers.get("content-type") ?? "").split(";")[0]
    .trim().toLowerCase();
  if (type === APPLY_PATCH) {
    throw new HttpError(
      415,
      Code.INVALID_ARGUMENT,
      `server-side apply (${APPLY_PATCH}) is not served by Corral: send the whole object (PUT), a ${MERGE_PATCH} or a ${JSON_PATCH}`,
    );
  }
  if (type !== MERGE_PATCH && type !== JSON_PATCH) {
    throw new HttpError(
      415,
      Code.INVALID_ARGUMENT,
      `the body of the request was in an unknown format (${
        JSON.stringify(type.slice(0, 100))
      }): accepted media types include ${JSON_PATCH}, ${MERGE_PATCH}`,
    );
  }
  const patch = await readJsonBody(request, kind.maxBodyBytes);
  if (type === JSON_PATCH) {
    try {
      jsonPatchOf(patch);
    } catch (error) {
      if (error instanceof JsonPatchError) throw badRequest(error.message);
      throw error;
    }
  } else if (!isPlainObject(patch)) {
    throw badRequest("a merge patch must be a JSON object");
  }
  return { namespace: params.namespace, name: params.name, patch, type };
}

/**
 * The object of a create or replace, put in the path's namespace: 400 for
 * a body that is no object of the route's kind, or that names another
 * namespace, or (a replace) another name than the path; 422 for one
 * without a spec.
 */
export function objectOf(
  kind: BodyKind,
  message: Message,
  params: Params,
): RayObject {
  const { body } = message;
  if (!isPlainObject(body)) {
    throw badRequest(`the body must be a ${kind.objectKind} object`);
  }
  if (body.apiVersion !== kind.apiVersion || body.kind !== kind.objectKind) {
    throw badRequest(
      `the object's apiVersion and kind (${JSON.stringify(body.apiVersion)}, ${
        JSON.stringify(body.kind)
      }) are not those of the route (${kind.apiVersion}, ${kind.objectKind})`,
    );
  }
  const metadata = isPlainObject(body.metadata) ? body.metadata : {};
  const name = typeof metadata.name === "string" ? metadata.name : "";
  const { namespace } = params;
  if (metadata.namespace !== undefined && metadata.namespace !== namespace) {
    throw badRequest(
      "the namespace of the provided object does not match the namespace sent on the request",
    );
  }
  if (params.name !== undefined && name !== params.name) {
    throw badRequest(
      `the name of the object (${name}) does not match the name on the URL (${params.name})`,
    );
  }
  if (!isPlainObject(body.spec)) {
    throw new ServiceError(
      Code.INVALID_ARGUMENT,
      `Invalid ${kind.objectKind} "${name}": spec: is required`,
      {
        details: [{
          "@type": "type.googleapis.com/google.rpc.BadRequest",
          fieldViolations: [{ field: "spec", description: "is required" }],
        }],
      },
    );
  }
  return { ...body, metadata: { ...metadata, namespace } } as RayObject;
}

/**
 * `current` with the message's patch applied: the object a replace then
 * writes (objectOf's checks made of it). The patch may not move it (name,
 * namespace) or change its kind: 400. A JSON patch that cannot be applied
 * (a path missing, a test failed) is 422, as the API server answers it.
 */
export function patchedObject(
  kind: BodyKind,
  current: RayObject,
  message: Message,
  params: Params,
): RayObject {
  if (message.type !== JSON_PATCH) {
    const patched = mergePatch(current, message.patch);
    return objectOf(kind, { body: patched }, params);
  }
  let patched;
  try {
    patched = applyJsonPatch(current, jsonPatchOf(message.patch));
  } catch (error) {
    if (!(error instanceof JsonPatchError)) throw error;
    throw new HttpError(
      422,
      Code.INVALID_ARGUMENT,
      `the JSON patch could not be applied: ${error.message}`,
    );
  }
  return objectOf(kind, { body: patched }, params);
}

/**
 * Whether a patch names the resourceVersion it applies to: a merge
 * patch's metadata, or any operation of a JSON patch at
 * /metadata/resourceVersion (a test there, as clients write one).
 */
export function patchesAtVersion(message: Message): boolean {
  const { patch } = message;
  if (Array.isArray(patch)) {
    return patch.some((operation) =>
      isPlainObject(operation) && operation.path === "/metadata/resourceVersion"
    );
  }
  return isPlainObject(patch) && isPlainObject(patch.metadata) &&
    typeof patch.metadata.resourceVersion === "string";
}

/** What a delete's DeleteOptions ask, of what is served. */
export interface DeleteConditions {
  /** The object must still be the one of this uid... */
  uid?: string;
  /** ...and at this resourceVersion: 409 Conflict otherwise. */
  resourceVersion?: string;
}

/**
 * The DeleteOptions of a delete's body (none: no conditions): its
 * `preconditions`; a `propagationPolicy` other than Background (what a
 * custom resource's delete does) is refused 400, as is `dryRun`, rather
 * than deleting while the caller asked for no change.
 */
export async function decodeDeleteOptions(
  kind: BodyKind,
  request: HttpRequest,
  params: Params,
): Promise<Message> {
  const path = { namespace: params.namespace, name: params.name };
  const length = request.headers.get("content-length");
  if (request.body === null || length === "0") return path;
  const body = await readJsonBody(request, kind.maxBodyBytes, true);
  if (body === undefined || body === null) return path;
  if (!isPlainObject(body)) throw badRequest("DeleteOptions must be an object");
  const policy = body.propagationPolicy;
  if (policy !== undefined && policy !== null && policy !== "Background") {
    throw badRequest(
      `propagationPolicy ${
        JSON.stringify(policy)
      } is not served by Corral: a delete is in the background`,
    );
  }
  if (Array.isArray(body.dryRun) && body.dryRun.length > 0) {
    throw badRequest("dryRun is not served by Corral");
  }
  const preconditions = isPlainObject(body.preconditions)
    ? body.preconditions
    : {};
  const conditions: DeleteConditions = {};
  if (typeof preconditions.uid === "string") {
    conditions.uid = preconditions.uid;
  }
  if (typeof preconditions.resourceVersion === "string") {
    conditions.resourceVersion = preconditions.resourceVersion;
  }
  return { ...path, conditions };
}

/** 400 BadRequest with the API server's words. */
function badRequest(message: string): ServiceError {
  return new HttpError(400, Code.INVALID_ARGUMENT, message);
}
