/**
 * What the units of the Kubernetes-shaped routes (ray_objects.ts,
 * ray_object_lists.ts) share: a kind's route (where it is, what a Status
 * names), the unit's path, match and refusals, its policy row, and what
 * its bodies must be.
 */
import { Code, ServiceError } from "../../domain/errors.ts";
import type { WorkloadKindName } from "../../domain/kinds.ts";
import type { ObjectWatches } from "../service/object_watch.ts";
import type { Service } from "../service/service.ts";
import type { HttpRequest } from "./http_request.ts";
import { statusResponse, type StatusTarget } from "./kube_status.ts";
import type { BodyKind } from "./ray_object_bodies.ts";
import type { Params } from "./router.ts";
import type { UnitRule } from "./units.ts";

export interface RayObjectsOptions {
  /** What the RPCs' handlers act with (handlers.ts: handlersOf). */
  service: Service;
  /** The cache's watches; without them a watch is refused (no cache). */
  watches?: ObjectWatches;
  /** Largest request body. */
  maxBodyBytes: number;
}

/** One kind's routes: where they are, and what a Status names. */
export interface Route {
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

/** The row of `verb` on the route's kind, in the path's namespace. */
export function ruleOf(route: Route, verb: UnitRule["verb"], named: boolean) {
  return {
    verb,
    resource: route.kind,
    namespace: "request",
    ...(named ? { name: "name" } : {}),
  } as UnitRule;
}

/**
 * Where a unit of `route` is: the namespace's collection, one object of it
 * ("item"), one object's subresource ("status"), or the collection across
 * namespaces ("all").
 */
export type Place = "collection" | "item" | "status" | "all";

/** What every unit of `route` shares: its path, match and refusals. */
export function unitBase(route: Route, place: Place, action: string) {
  const { group, version, plural, objectKind } = route;
  const shape: (string | undefined)[] = place === "all"
    ? ["apis", group, version, plural]
    : ["apis", group, version, "namespaces", undefined, plural];
  if (place === "item" || place === "status") shape.push(undefined);
  if (place === "status") shape.push("status");
  const path = `/apis/${group}/${version}/${
    place === "all" ? "" : "namespaces/{namespace}/"
  }${plural}${place === "item" ? "/{name}" : ""}${
    place === "status" ? "/{name}/status" : ""
  }`;
  return {
    key: `${group}.${objectKind}/${action}`,
    path,
    shape,
    match: (parts: string[]): Params | undefined =>
      parts.length === shape.length &&
        shape.every((want, i) => want === undefined || parts[i] === want)
        ? place === "all" ? {} : {
          namespace: parts[4],
          ...(place === "collection" ? {} : { name: parts[6] }),
        }
        : undefined,
    refuse: (error: ServiceError, requestId: string, params: Params) =>
      statusResponse(error, { requestId, target: targetOf(route, params) }),
  };
}

/** What the route's bodies must be. */
export function bodyKind(route: Route): BodyKind {
  return {
    apiVersion: route.apiVersion,
    objectKind: route.objectKind,
    maxBodyBytes: route.options.maxBodyBytes,
  };
}

export function targetOf(route: Route, params: Params): StatusTarget {
  return {
    group: route.group,
    kind: route.plural,
    ...(params.name ? { name: params.name } : {}),
  };
}

/**
 * 400 for a write asked as a dry run (`?dryRun=All`): not served, and
 * refused rather than made, since the caller asked for no change.
 */
export function refuseDryRun(request: HttpRequest): void {
  if (!request.url.includes("?")) return;
  if (new URL(request.url).searchParams.getAll("dryRun").length === 0) return;
  throw new ServiceError(
    Code.INVALID_ARGUMENT,
    "dryRun is not served by Corral: the write was not made",
  );
}
