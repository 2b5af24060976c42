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
import { KINDS, type WorkloadKindName } from "../../domain/kinds.ts";
import type { ObjectWatches } from "../service/object_watch.ts";
import {
  createObject,
  deleteObject,
  portOf,
  updateObject,
} from "../service/object_writes.ts";
import { readToChange, type Service } from "../service/service.ts";
import type { HttpRequest } from "./http_request.ts";
import { listAnswer, listQuery } from "./kube_lists.ts";
import { statusResponse, type StatusTarget } from "./kube_status.ts";
import { expiredIfAborted, watchAnswer } from "./kube_watch.ts";
import {
  type BodyKind,
  decodeBody,
  decodePatch,
  objectOf,
  patchedObject,
  patchesAtVersion,
} from "./ray_object_bodies.ts";
import type { Params } from "./router.ts";
import type { HttpUnit, UnitContext, UnitRule } from "./units.ts";

export interface RayObjectsOptions {
  /** What the RPCs' handlers act with (handlers.ts: handlersOf). */
  service: Service;
  /** The cache's watches; without them a watch is refused (no cache). */
  watches?: ObjectWatches;
  /** Largest request body. */
  maxBodyBytes: number;
}

/** One kind's routes: where they are, and what a Status names. */
interface Route {
  kind: WorkloadKindName;
  /** "ray.io/v1", Corral's objects' (--ray-cluster-group, -version). */
  apiVersion: string;
  group: string;
  version: string;
  plural: string;
  /** "RayCluster". */
  objectKind: string;
  options: RayObjectsOptions;
}

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
      createUnit(route),
      getUnit(route),
      updateUnit(route),
      patchUnit(route),
      deleteUnit(route),
    ];
  });
}

/** The row of `verb` on the route's kind, in the path's namespace. */
function ruleOf(route: Route, verb: UnitRule["verb"], named: boolean) {
  return {
    verb,
    resource: route.kind,
    namespace: "request",
    ...(named ? { name: "name" } : {}),
  } as UnitRule;
}

/** What every unit of `route` shares: its path, match and refusals. */
function unitBase(route: Route, item: boolean, action: string) {
  const { group, version, plural, objectKind } = route;
  const shape = ["apis", group, version, "namespaces", undefined, plural];
  if (item) shape.push(undefined);
  return {
    key: `${group}.${objectKind}/${action}`,
    path: `/apis/${group}/${version}/namespaces/{namespace}/${plural}${
      item ? "/{name}" : ""
    }`,
    shape,
    match: (parts: string[]): Params | undefined =>
      parts.length === shape.length &&
        shape.every((want, i) => want === undefined || parts[i] === want)
        ? {
          namespace: parts[4],
          ...(item ? { name: parts[6] } : {}),
        }
        : undefined,
    refuse: (error: ServiceError, requestId: string, params: Params) =>
      statusResponse(error, { requestId, target: targetOf(route, params) }),
  };
}

/** What the route's bodies must be. */
function bodyKind(route: Route): BodyKind {
  return {
    apiVersion: route.apiVersion,
    objectKind: route.objectKind,
    maxBodyBytes: route.options.maxBodyBytes,
  };
}

function targetOf(route: Route, params: Params): StatusTarget {
  return {
    group: route.group,
    kind: route.plural,
    ...(params.name ? { name: params.name } : {}),
  };
}

/** Whether the request asks for a watch (`?watch=1`, `?watch=true`). */
function isWatch(request: HttpRequest): boolean {
  if (!request.url.includes("?")) return false;
  const watch = new URL(request.url).searchParams.get("watch");
  return watch === "1" || watch === "true";
}

/** GET of the collection: a list, or a watch. */
function listUnit(route: Route): HttpUnit {
  const list = ruleOf(route, "list", false);
  const watch = ruleOf(route, "watch", false);
  return {
    ...unitBase(route, false, "List"),
    methods: ["GET"],
    rule: list,
    ruleOf: (request) => isWatch(request) ? watch : list,
    prepare: (request) => ({ opensStream: isWatch(request) }),
    handle: (request, params, call) =>
      isWatch(request)
        ? Promise.resolve(watchObjects(route, request, params, call))
        : listObjects(route, request, call),
  };
}

async function listObjects(
  route: Route,
  request: HttpRequest,
  { scope, kube, action }: UnitContext,
): Promise<Response> {
  const url = new URL(request.url);
  const query = listQuery(url, action);
  const name = nameSelected(
    url.searchParams.get("fieldSelector") ?? "",
    action,
  );
  const { service, watches } = route.options;
  // Read before the list: a watch from it misses nothing the list lacks.
  const resourceVersion = watches?.of(route.kind)?.resumePoint();
  const listed = await portOf(service, route.kind).list(
    scope.namespace,
    kube,
  );
  const objects = name === undefined
    ? listed
    : listed.filter((object) => object.metadata.name === name);
  return Response.json(
    listAnswer(objects, query, {
      apiVersion: route.apiVersion,
      kind: route.objectKind,
      list: `${route.plural}/${scope.namespace}`,
      resourceVersion,
      action,
    }),
  );
}

/** A watch of the namespace's objects (of one, by `metadata.name=`). */
function watchObjects(
  route: Route,
  request: HttpRequest,
  params: Params,
  { scope, action }: UnitContext,
) {
  const fanout = route.options.watches?.of(route.kind);
  if (!fanout) {
    throw new ServiceError(
      Code.UNIMPLEMENTED,
      `${action}: watching needs the cache, and this Corral runs without it (--cache off)`,
    );
  }
  const query = new URL(request.url).searchParams;
  const name = nameSelected(query.get("fieldSelector") ?? "", action);
  const given = query.get("resourceVersion") ?? "";
  const timeout = query.get("timeoutSeconds") ?? "";
  if (timeout !== "" && !/^\d{1,9}$/.test(timeout)) {
    throw new ServiceError(
      Code.INVALID_ARGUMENT,
      `${action}: timeoutSeconds: must be a non-negative integer`,
    );
  }
  let events;
  try {
    events = fanout.watch({
      namespaces: [scope.namespace],
      ...(name !== undefined ? { name } : {}),
      // "0": from any point, as the API server takes it: the state first.
      resourceVersion: given === "0" ? "" : given,
    });
  } catch (error) {
    throw expiredIfAborted(error);
  }
  return watchAnswer(events, {
    bookmarks: query.get("allowWatchBookmarks") === "true",
    ...(Number(timeout) > 0 ? { timeoutMs: Number(timeout) * 1000 } : {}),
    target: targetOf(route, params),
  });
}

/**
 * The name a list's or watch's field selector narrows it to
 * (`metadata.name=blue`, as clients watch one object); undefined for
 * none. Any other field is refused: only names are selected here.
 */
function nameSelected(selector: string, action: string): string | undefined {
  if (selector.trim() === "") return undefined;
  const match = /^metadata\.name(?:==?)([^,=!]*)$/.exec(selector.trim());
  if (match) return match[1];
  throw new ServiceError(
    Code.INVALID_ARGUMENT,
    `${action}: fieldSelector: only "metadata.name=<name>" is supported`,
  );
}

/** POST of the collection: a create. */
function createUnit(route: Route): HttpUnit {
  return {
    ...unitBase(route, false, "Create"),
    methods: ["POST"],
    rule: ruleOf(route, "create", true),
    decode: (request, params) => decodeBody(bodyKind(route), request, params),
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

/** GET of one object. */
function getUnit(route: Route): HttpUnit {
  return {
    ...unitBase(route, true, "Get"),
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
    ...unitBase(route, true, "Update"),
    methods: ["PUT"],
    rule: ruleOf(route, "update", true),
    decode: (request, params) => decodeBody(bodyKind(route), request, params),
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
 * PATCH of one object, a JSON merge patch: applied to the object as
 * stored and written as a replace is (updateObject). Without a
 * resourceVersion in the patch, a write that loses a race is made again
 * on the fresh object, as the API server retries a patch.
 */
function patchUnit(route: Route): HttpUnit {
  return {
    ...unitBase(route, true, "Patch"),
    methods: ["PATCH"],
    rule: ruleOf(route, "update", true),
    decode: (request, params) => decodePatch(bodyKind(route), request, params),
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

/** DELETE of one object: a Status Success, as for any custom resource. */
function deleteUnit(route: Route): HttpUnit {
  return {
    ...unitBase(route, true, "Delete"),
    methods: ["DELETE"],
    rule: ruleOf(route, "delete", true),
    // DeleteOptions in a body (propagation, preconditions) are not taken;
    // the body is left to the listener, as a refused call's is (units.ts).
    handle: async (_request, params, call) => {
      const deleted = await deleteObject(
        route.options.service,
        route.kind,
        params.name,
        call,
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
