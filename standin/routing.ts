/**
 * Paths and methods to handlers: the discovery, version, health and OpenAPI
 * paths, and the resource paths below `/api/v1` and `/apis/{group}/{version}`
 * (collections, items, the status subresource, action subresources such as
 * `serviceaccounts/token`), each method checked against the verbs its
 * resource type serves.
 */

import { readDeleteOptions, readObject } from "./bodies.ts";
import { decodeCustomObject } from "./crd.ts";
import {
  apiGroup,
  apiGroupList,
  apiResourceList,
  apiVersions,
  SERVER_VERSION,
} from "./discovery.ts";
import { json } from "./json.ts";
import { list } from "./list.ts";
import { openApiV3 } from "./openapi.ts";
import { findResource } from "./registry.ts";
import { isServiceProxyPath, proxyToService } from "./services.ts";
import type { RequestContext, State } from "./state.ts";
import { badRequest, methodNotAllowed, unknownPath } from "./status.ts";
import {
  type ResourceType,
  type Route,
  serves,
  withTypeMeta,
} from "./types.ts";
import { create, getOrNotFound, patch, remove, update } from "./verbs.ts";
import { watch } from "./watch.ts";

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
      const action = resource.actions?.[subresource];
      if (action) return { kind: "action", resource, namespace, name, action };
      const read = resource.reads?.[subresource];
      if (read) return { kind: "read", resource, namespace, name, read };
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
  const action = resource.actions?.[subresource];
  if (action) {
    return { kind: "action", resource, namespace: "", name, action };
  }
  throw unknownPath();
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

export function route(
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
    if (isServiceProxyPath(segments)) {
      return proxyToService(state, request, url, segments);
    }
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
  if (target.kind === "action") {
    if (method !== "POST") throw methodNotAllowed();
    return await target.action.create(state, request, target, context);
  }
  if (target.kind === "read") {
    if (method !== "GET") throw methodNotAllowed();
    return target.read.get(state, url, target);
  }
  const allow = (verb: string) => {
    if (!serves(resource, verb)) throw methodNotAllowed();
  };
  if (target.kind === "collection") {
    if (method === "GET") {
      if (isWatch(url.searchParams)) {
        allow("watch");
        return watch(state, resource, target.namespace, url.searchParams);
      }
      allow("list");
      return await list(state, resource, target.namespace, url.searchParams);
    }
    const canCreate = target.namespace !== undefined || !resource.namespaced;
    if (method === "POST" && canCreate) {
      allow("create");
      const body = await readObject(state, request, resource);
      if (resource.answerCreate) {
        return resource.answerCreate(state, body, context);
      }
      decodeCustomObject(resource, body, context);
      return create(state, resource, target.namespace ?? "", body);
    }
    throw methodNotAllowed();
  }
  switch (method) {
    case "GET":
      allow("get");
      return json(withTypeMeta(
        resource,
        getOrNotFound(state, resource, target.namespace, target.name),
      ));
    case "PUT": {
      allow("update");
      const body = await readObject(state, request, resource);
      decodeCustomObject(resource, body, context);
      return update(state, target, body);
    }
    case "PATCH":
      allow("patch");
      return patch(state, target, request, context);
    case "DELETE":
      if (target.status) throw methodNotAllowed();
      allow("delete");
      return remove(state, target, await readDeleteOptions(state, request));
    default:
      throw methodNotAllowed();
  }
}
