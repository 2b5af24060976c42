/**
 * What the body of a write to the Kubernetes-shaped routes is
 * (ray_objects.ts): the whole object of a create or replace, or a JSON
 * merge patch of one. The body is read once the caller is authenticated,
 * as the chain decodes every request; what it must hold is checked once
 * the caller is authorized too (objectOf, patchedObject), as the API
 * server checks it after authorizing: a caller without the right learns
 * nothing of it. Refusals are the API server's: 400 for a body that is no
 * object of the route's kind, 415 for a patch of a type not served, 422
 * for an object without a spec.
 */
import { Code, ServiceError } from "../../domain/errors.ts";
import type { Message } from "../../domain/message_form.ts";
import { mergePatch } from "../../domain/merge_patch.ts";
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
  const body = await readJsonBody(request, kind.maxBodyBytes, true);
  const metadata = isRecord(body) && isRecord(body.metadata)
    ? body.metadata
    : {};
  const name = typeof metadata.name === "string"
    ? metadata.name
    : params.name ?? "";
  return { namespace: params.namespace, name, body };
}

/** The patch types served: a JSON merge patch only. */
const MERGE_PATCH = "application/merge-patch+json";

/** The request of a PATCH: the path's namespace and name, and the patch. */
export async function decodePatch(
  kind: BodyKind,
  request: HttpRequest,
  params: Params,
): Promise<Message> {
  const type = (request.headers.get("content-type") ?? "").split(";")[0]
    .trim().toLowerCase();
  if (type !== MERGE_PATCH) {
    throw new HttpError(
      415,
      Code.INVALID_ARGUMENT,
      `the body of the request was in an unknown format (${
        JSON.stringify(type.slice(0, 100))
      }): accepted media types include ${MERGE_PATCH}`,
    );
  }
  const patch = await readJsonBody(request, kind.maxBodyBytes);
  if (!isRecord(patch)) {
    throw badRequest("a merge patch must be a JSON object");
  }
  return { namespace: params.namespace, name: params.name, patch };
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
  if (!isRecord(body)) {
    throw badRequest(`the body must be a ${kind.objectKind} object`);
  }
  if (body.apiVersion !== kind.apiVersion || body.kind !== kind.objectKind) {
    throw badRequest(
      `the object's apiVersion and kind (${JSON.stringify(body.apiVersion)}, ${
        JSON.stringify(body.kind)
      }) are not those of the route (${kind.apiVersion}, ${kind.objectKind})`,
    );
  }
  const metadata = isRecord(body.metadata) ? body.metadata : {};
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
  if (!isRecord(body.spec)) {
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
 * `current` with the message's merge patch applied: the object a replace
 * then writes (objectOf's checks made of it). The patch may not move it
 * (name, namespace) or change its kind: 400.
 */
export function patchedObject(
  kind: BodyKind,
  current: RayObject,
  message: Message,
  params: Params,
): RayObject {
  const patched = mergePatch(current, message.patch);
  return objectOf(kind, { body: patched }, params);
}

/** Whether a merge patch names the resourceVersion it applies to. */
export function patchesAtVersion(message: Message): boolean {
  const { patch } = message;
  return isRecord(patch) && isRecord(patch.metadata) &&
    typeof patch.metadata.resourceVersion === "string";
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** 400 BadRequest with the API server's words. */
function badRequest(message: string): ServiceError {
  return new HttpError(400, Code.INVALID_ARGUMENT, message);
}
