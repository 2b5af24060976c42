/**
 * The parameters of an OpenAPI operation: the path's variables and, as the
 * gateway maps them, the request fields bound to neither path nor body as
 * query parameters, with their examples; and the OpenAPI path of a route.
 */
import type protobuf from "protobufjs";
import { fullName } from "../domain/message_form.ts";
import type { Route } from "./http/rules.ts";
import { EXAMPLE_NAMESPACE } from "./openapi_examples.ts";
import type { DocumentParts } from "./openapi_operations.ts";
import {
  clean,
  dropUndefined,
  fieldExample,
  fieldSchema,
  messageTypeOf,
  type Schema,
} from "./openapi_schemas.ts";

/**
 * The path's variables and then, as the gateway maps them, the request's
 * fields bound to neither path nor body (and neither repeated nor maps) as
 * query parameters.
 */
export function parametersOf(
  route: Route,
  pathVariables: string[],
  parts: DocumentParts,
): Schema[] {
  const queryFields = route.body === "*"
    ? []
    : route.requestType.fieldsArray.filter((f) =>
      f.name !== route.body && !pathVariables.includes(f.name) &&
      !f.repeated && !f.map
    );
  return pathVariables.map((name): Schema => {
    const field = route.requestType.fields[name];
    return dropUndefined({
      name,
      in: "path",
      required: true,
      description: clean(field.comment),
      schema: { type: "string" },
      example: pathExample(route, name, parts.routes, parts.examples),
    });
  }).concat(queryFields.map((field) =>
    dropUndefined({
      name: field.jsonName ?? field.name,
      in: "query",
      required: false,
      description: clean(field.comment),
      schema: fieldSchema(field, parts.schemas.ref),
      example: queryExample(route, field),
    })
  ));
}

/** Paging parameters, under Corral's names and KubeRay's current ones. */
const PAGING = new Set(["pageToken", "pageSize", "continue", "limit"]);

/**
 * The example of a query parameter, which "Test Request" sends: none for
 * paging (a page token is only ever one an answer gave, and a list is
 * whole unless a page size is asked for), nor for a stream (a watch
 * watches everything unless narrowed, and resumes only from a version an
 * answer gave).
 */
function queryExample(route: Route, field: protobuf.Field): unknown {
  if (route.streaming) return undefined;
  if (PAGING.has(field.name)) return undefined;
  return fieldExample(field, new Set());
}

/** "/apis/v1alpha2/namespaces/{namespace}/clusters" */
export function openApiPath(route: Route): string {
  return "/" +
    route.segments.map((s) => "literal" in s ? s.literal : `{${s.variable}}`)
      .join("/");
}

/**
 * The example value of a path variable: the same field of the example body
 * that the POST on the collection the path lies under takes, so that the
 * examples form one walk-through (create "small" in "team-a", get "small").
 */
function pathExample(
  route: Route,
  variable: string,
  routes: Route[],
  examples: Record<string, unknown>,
): string | undefined {
  // A watch's path names what the path without /watch does (a job's log).
  const path = openApiPath(route).replace(/^(\/apis\/[^/]+)\/watch\//, "$1/");
  const candidates = routes
    .filter((r) => r.body && path.startsWith(openApiPath(r)))
    .sort((a, b) => openApiPath(b).length - openApiPath(a).length);
  for (const candidate of candidates) {
    const field = candidate.body === "*"
      ? undefined
      : candidate.requestType.fields[candidate.body];
    const type = field ? messageTypeOf(field) : candidate.requestType;
    const example = type ? examples[fullName(type)] : undefined;
    const value = (example as Record<string, unknown> | undefined)?.[variable];
    if (typeof value === "string") return value;
  }
  return variable === "namespace"
    ? EXAMPLE_NAMESPACE
    : PATH_VARIABLE_EXAMPLES[variable];
}

/**
 * Path variables no example body names: job submission's, whose requests
 * name the cluster and the job beside their body.
 */
const PATH_VARIABLE_EXAMPLES: Record<string, string> = {
  clustername: "blue",
  submissionid: "raysubmit_8tSTKJVNTwy9aS2B",
};
