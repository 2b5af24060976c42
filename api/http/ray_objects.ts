/**
 * The Kubernetes-shaped routes of KubeRay's API server ("V2"): RayClusters,
 * RayJobs and RayServices at
 * `/apis/ray.io/v1/namespaces/{namespace}/{rayclusters|rayjobs|rayservices}[/{name}]`,
 * with the API server's wire shapes (the object itself, lists with
 * `metadata.resourceVersion` and `continue`, watches with `?watch=1`,
 * Status errors: kube_lists.ts, kube_watch.ts, kube_status.ts), so that a
 * client written against the CRDs (the Python client's CustomObjectsApi,
 * client-go, KubeRay's dashboard) works against Corral.
 *
 * Beside them: the list-all routes (`/apis/ray.io/v1/rayclusters`,
 * ray_object_lists.ts), and each object's `status` subresource, read as
 * the object and never written through Corral (the operator's).
 *
 * Each route is an HTTP unit (units.ts) and goes through the chain every
 * RPC goes through: authentication, the policy row of the RPC that does
 * the same (get, list, watch, create, update, delete on clusters, jobs or
 * services), --namespaces, rate limits and stream caps, audit, metrics.
 * Writes run the RPCs' steps (api/service/object_writes.ts: owners,
 * validation, queue, expiry, the whole object admitted as a workload,
 * quotas). Only Corral's objects are seen (the managed-by label: the
 * ports answer any other as missing), and what a create writes is
 * labelled as Corral's.
 */
import { Code, ServiceError } from "../../domain/errors.ts";
import { KINDS } from "../../domain/kinds.ts";
import {
  createObject,
  deleteObject,
  portOf,
  updateObject,
} from "../service/object_writes.ts";
import { readToChange } from "../service/service.ts";
import {
  decodeBody,
  decodeDeleteOptions,
  decodePatch,
  type DeleteConditions,
  objectOf,
  patchedObject,
  patchesAtVersion,
} from "./ray_object_bodies.ts";
import { listAllUnit, listUnit } from "./ray_object_lists.ts";
import {
  bodyKind,
  type RayObjectsOptions,
  refuseDryRun,
  type Route,
  ruleOf,
  targetOf,
  unitBase,
} from "./ray_object_routes.ts";
import type { HttpUnit } from "./units.ts";

export type { RayObjectsOptions } from "./ray_object_routes.ts";

/** The units of every workload kind's routes. */
export function rayObjectUnits(options: RayObjectsOptions): HttpUnit[] {
  const apiVersion = options.service.clusterApiVersion;
  const [group, version] = apiVersion.split("/");
  return (["clusters", "jobs", "services"] as const).flatMap((kind) => {
    const { kind: objectKind, plural } = KINDS[kind].resource;
    const route: Route = {
      kind,
      apiVersion,
      group,
      version,
      plural,
      objectKind,
      options,
    };
    return [
      listUnit(route),
      listAllUnit(route),
      createUnit(route),
      getUnit(route, "item"),
      getUnit(route, "status"),
      statusWriteUnit(route),
      updateUnit(route),
      patchUnit(route),
      deleteUnit(route),
    ];
  });
}

/** POST of the collection: a create. */
function createUnit(route: Route): HttpUnit {
  return {
    ...unitBase(route, "collection", "Create"),
    methods: ["POST"],
    rule: ruleOf(route, "create", true),
    decode: (request, params) => {
      refuseDryRun(request);
      return decodeBody(bodyKind(route), request, params);
    },
    handle: async (_request, params, call, message) => {
      const created = await createObject(
        route.options.service,
        route.kind,
        objectOf(bodyKind(route), message, params),
        call,
      );
      return Response.json(created, { status: 201 });
    },
  };
}

/**
 * GET of one object, or of its `status` subresource: the object too, as
 * the API server answers it for a custom resource.
 */
function getUnit(route: Route, place: "item" | "status"): HttpUnit {
  return {
    ...unitBase(route, place, place === "item" ? "Get" : "GetStatus"),
    methods: ["GET"],
    rule: ruleOf(route, "get", true),
    handle: async (_request, params, { scope, kube }) => {
      const object = await portOf(route.options.service, route.kind).get(
        scope.namespace,
        params.name,
        kube,
      );
      return Response.json(object);
    },
  };
}

/** PUT of one object: a replace. */
function updateUnit(route: Route): HttpUnit {
  return {
    ...unitBase(route, "item", "Update"),
    methods: ["PUT"],
    rule: ruleOf(route, "update", true),
    decode: (request, params) => {
      refuseDryRun(request);
      return decodeBody(bodyKind(route), request, params);
    },
    handle: async (_request, params, call, message) => {
      const updated = await updateObject(
        route.options.service,
        route.kind,
        objectOf(bodyKind(route), message, params),
        call,
      );
      return Response.json(updated);
    },
  };
}

/** Writes of a PATCH without a resourceVersion, when others keep winning. */
const PATCH_ATTEMPTS = 5;

/**
 * PUT or PATCH of an object's `status`: refused 403 to a caller the row
 * lets update the object, since its status is the operator's to write
 * (Corral's callers change what they asked for, the spec, not what the
 * operator reports of it).
 */
function statusWriteUnit(route: Route): HttpUnit {
  return {
    ...unitBase(route, "status", "UpdateStatus"),
    methods: ["PUT", "PATCH"],
    rule: ruleOf(route, "update", true),
    handle: (_request, params, { action }) => {
      throw new ServiceError(
        Code.PERMISSION_DENIED,
        `${action}: the status of ${route.objectKind} "${params.name}" is written by the KubeRay operator only: change its spec instead`,
      );
    },
  };
}

/**
 * PATCH of one object, a JSON merge patch or a JSON patch: applied to the object as
 * stored and written as a replace is (updateObject). Without a
 * resourceVersion in the patch, a write that loses a race is made again
 * on the fresh object, as the API server retries a patch.
 */
function patchUnit(route: Route): HttpUnit {
  return {
    ...unitBase(route, "item", "Patch"),
    methods: ["PATCH"],
    rule: ruleOf(route, "update", true),
    decode: (request, params) => {
      refuseDryRun(request);
      return decodePatch(bodyKind(route), request, params);
    },
    handle: async (_request, params, call, message) => {
      const { service } = route.options;
      const port = portOf(service, route.kind);
      for (let attempt = 1;; attempt++) {
        const current = await readToChange(
          call.action,
          port.get(call.scope.namespace, params.name, {
            ...call.kube,
            fresh: true,
          }),
        );
        const object = patchedObject(bodyKind(route), current, message, params);
        try {
          return Response.json(
            await updateObject(service, route.kind, object, call),
          );
        } catch (error) {
          const lost = error instanceof ServiceError &&
            error.code === Code.ABORTED;
          if (!lost || patchesAtVersion(message) || attempt >= PATCH_ATTEMPTS) {
            throw error;
          }
        }
      }
    },
  };
}

/**
 * DELETE of one object: a Status Success, as for any custom resource. Its
 * DeleteOptions' preconditions (uid, resourceVersion) are checked on the
 * object as read before the delete (409 Conflict when it is another).
 */
function deleteUnit(route: Route): HttpUnit {
  return {
    ...unitBase(route, "item", "Delete"),
    methods: ["DELETE"],
    rule: ruleOf(route, "delete", true),
    decode: (request, params) => {
      refuseDryRun(request);
      return decodeDeleteOptions(bodyKind(route), request, params);
    },
    handle: async (_request, params, call, message) => {
      const deleted = await deleteObject(
        route.options.service,
        route.kind,
        params.name,
        call,
        message.conditions as DeleteConditions | undefined,
      );
      return Response.json({
        kind: "Status",
        apiVersion: "v1",
        metadata: {},
        status: "Success",
        details: {
          ...targetOf(route, params),
          ...(deleted.metadata.uid ? { uid: deleted.metadata.uid } : {}),
        },
      });
    },
  };
}
