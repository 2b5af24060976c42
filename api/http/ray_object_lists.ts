/**
 * The reads of a kind's collection on the Kubernetes-shaped routes: a
 * list or a watch (`?watch=1`) of one namespace's objects
 * (`/apis/ray.io/v1/namespaces/{namespace}/rayclusters`), or of every
 * namespace the caller may list or watch in
 * (`/apis/ray.io/v1/rayclusters`, as ListAllClusters covers them: those
 * the policy and --namespaces allow, reserved ones the caller's "*" does
 * not cover left out).
 */
import { Code, ServiceError } from "../../domain/errors.ts";
import { portOf, type RayObject } from "../service/object_writes.ts";
import type { NamespacesScope, Scope } from "../service/rpcs.ts";
import { visible } from "../service/service.ts";
import type { HttpRequest } from "./http_request.ts";
import { listAnswer, listQuery } from "./kube_lists.ts";
import { expiredIfAborted, watchAnswer } from "./kube_watch.ts";
import { type Route, ruleOf, targetOf, unitBase } from "./ray_object_routes.ts";
import type { Params } from "./router.ts";
import type { HttpUnit, UnitContext, UnitRule } from "./units.ts";

/**
 * Whether a query parameter is true as the API server parses it (Go's
 * ParseBool): the Python client sends `watch=True`.
 */
function isTrue(value: string | null): boolean {
  return value !== null &&
    ["1", "t", "T", "true", "TRUE", "True"].includes(value);
}

/** Whether the request asks for a watch (`?watch=1`, `?watch=true`). */
function isWatch(request: HttpRequest): boolean {
  if (!request.url.includes("?")) return false;
  return isTrue(new URL(request.url).searchParams.get("watch"));
}

/** GET of one namespace's collection: a list, or a watch. */
export function listUnit(route: Route): HttpUnit {
  return collectionUnit(
    route,
    false,
    ruleOf(route, "list", false),
    ruleOf(route, "watch", false),
  );
}

/** GET of the collection across namespaces: a list, or a watch. */
export function listAllUnit(route: Route): HttpUnit {
  const across = (verb: UnitRule["verb"]) =>
    ({ verb, resource: route.kind, namespace: "all" }) as const;
  return collectionUnit(route, true, across("list"), across("watch"));
}

function collectionUnit(
  route: Route,
  all: boolean,
  list: HttpUnit["rule"] & object,
  watch: HttpUnit["rule"] & object,
): HttpUnit {
  return {
    ...unitBase(route, all ? "all" : "collection", all ? "ListAll" : "List"),
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

/** The objects of the namespaces the scope covers. */
async function listedWhere(
  route: Route,
  scope: Scope,
  call: UnitContext,
): Promise<RayObject[]> {
  const port = portOf(route.options.service, route.kind);
  if (scope.kind === "namespace") {
    return await port.list(scope.namespace, call.kube);
  }
  if (scope.namespaces === undefined) {
    const listed = await port.list(undefined, call.kube);
    const keyed = listed.map((object) => ({
      namespace: object.metadata.namespace ?? "",
      object,
    }));
    return visible(keyed, scope.hidden).map(({ object }) => object);
  }
  const lists = await Promise.all(
    scope.namespaces.map((namespace) => port.list(namespace, call.kube)),
  );
  return lists.flat();
}

async function listObjects(
  route: Route,
  request: HttpRequest,
  call: UnitContext,
): Promise<Response> {
  const { action } = call;
  const scope = call.scope as Scope;
  const url = new URL(request.url);
  const query = listQuery(url, action);
  const name = nameSelected(
    url.searchParams.get("fieldSelector") ?? "",
    action,
  );
  // Read before the list: a watch from it misses nothing the list lacks.
  const resourceVersion = route.options.watches?.of(route.kind)
    ?.resumePoint();
  const listed = await listedWhere(route, scope, call);
  const objects = name === undefined
    ? listed
    : listed.filter((object) => object.metadata.name === name);
  return Response.json(
    listAnswer(objects, query, {
      apiVersion: route.apiVersion,
      kind: route.objectKind,
      list: scope.kind === "namespace"
        ? `${route.plural}/${scope.namespace}`
        : route.plural,
      resourceVersion,
      action,
    }),
  );
}

/** What a watch of the scope may see. */
function watchedWhere(
  scope: Scope,
): Pick<NamespacesScope, "namespaces" | "hidden"> {
  return scope.kind === "namespace" ? { namespaces: [scope.namespace] } : scope;
}

/** A watch of the scope's objects (of one, by `metadata.name=`). */
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
  const { namespaces, hidden } = watchedWhere(scope as Scope);
  let events;
  try {
    events = fanout.watch({
      ...(namespaces !== undefined ? { namespaces } : {}),
      ...(hidden ? { hidden } : {}),
      ...(name !== undefined ? { name } : {}),
      // "0": from any point, as the API server takes it: the state first.
      resourceVersion: given === "0" ? "" : given,
    });
  } catch (error) {
    throw expiredIfAborted(error);
  }
  return watchAnswer(events, {
    bookmarks: isTrue(query.get("allowWatchBookmarks")),
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
