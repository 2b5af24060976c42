/**
 * The OpenAPI 3.1 document of the HTTP/JSON API, generated at start-up from
 * the same compiled http rules the gateway routes with, so the document and
 * the behaviour cannot disagree. Schemas describe the JSON the gateway
 * really speaks (domain/codec.ts): lowerCamelCase names, enums by name,
 * timestamps as RFC 3339 strings, maps as objects, every field emitted (an
 * unset message field, timestamp or proto3 `optional` scalar as null).
 *
 * Parameters are the path's variables and, as the gateway maps them, the
 * request fields bound to neither path nor body (UpdateCluster's
 * updateMask) as query parameters; a rule with a body has a request body.
 */
import type protobuf from "protobufjs";
import type { Route } from "./http/rules.ts";
import {
  ERROR_EXAMPLES,
  errorResponses,
  errorStatusesOf,
} from "./openapi_errors.ts";
import { EXAMPLES } from "./openapi_examples.ts";
import {
  type DocumentParts,
  type Operation,
  operationOf,
} from "./openapi_operations.ts";
import { openApiPath } from "./openapi_parameters.ts";
import { SchemaRegistry } from "./openapi_schema_registry.ts";
import {
  clean,
  dropUndefined,
  generateExample,
  type Schema,
  sortKeys,
} from "./openapi_schemas.ts";

export { errorStatusesOf, generateExample };
export type { Schema };
export type { ErrorExampleName } from "./openapi_errors.ts";

export type OpenApiDocument = Record<string, unknown> & {
  paths: Record<string, Record<string, Operation>>;
  components: {
    schemas: Record<string, Schema>;
    responses: Record<string, Schema>;
    examples: Record<string, Schema>;
    securitySchemes: Record<string, Schema>;
  };
};

export interface OpenApiOptions {
  title?: string;
  version?: string;
  description?: string;
  /**
   * Example bodies by message name ("proto.Cluster"). A body type without
   * one gets an example generated from its definition. Defaults to
   * EXAMPLES.
   */
  examples?: Record<string, unknown>;
}

/** The name of the security scheme every operation requires. */
export const SECURITY_SCHEME = "bearerAuth";

export function openApiDocument(
  routes: Route[],
  options: OpenApiOptions = {},
): OpenApiDocument {
  const parts: DocumentParts = {
    routes,
    examples: options.examples ?? EXAMPLES,
    schemas: new SchemaRegistry(),
  };
  const paths: Record<string, Record<string, Operation>> = {};
  const tags = new Map<string, string | undefined>();

  // A method's additional bindings are operations of their own, numbered
  // from 2 as grpc-gateway's generator numbers them, each pointing at the
  // main path.
  const bindings = new Map<string, Route[]>();
  for (const route of inDefinitionOrder(routes)) {
    const service = route.method.parent as protobuf.Service;
    tags.set(service.name, clean(service.comment));
    const earlier = bindings.get(route.key) ?? [];
    bindings.set(route.key, [...earlier, route]);
    const path = openApiPath(route);
    paths[path] ??= {};
    paths[path][route.verb.toLowerCase()] = dropUndefined(
      operationOf(route, earlier, parts),
    );
  }

  return {
    openapi: "3.1.0",
    info: documentInfo(options),
    // The Corral that serves this document: a relative URL resolves
    // against the document's own address, so "Test Request" on /docs calls
    // the Corral the page came from, whatever its host and port.
    servers: [{ url: "/", description: "This Corral" }],
    // Every operation asks for a bearer token (or a client certificate,
    // which OpenAPI cannot say of an http scheme; the description does).
    security: [{ [SECURITY_SCHEME]: [] }],
    tags: [...tags].map(([name, description]) =>
      dropUndefined({ name, description })
    ),
    paths,
    components: {
      schemas: sortKeys(parts.schemas.withErrorSchemas()),
      responses: errorResponses(),
      examples: ERROR_EXAMPLES,
      securitySchemes: securitySchemes(),
    },
  };
}

/** The document's title, version and description, and its license. */
function documentInfo(options: OpenApiOptions): Schema {
  return {
    title: options.title ?? "Corral",
    version: options.version ?? "v1alpha2",
    description: options.description ??
      "Create, read, update and delete compute clusters and the compute templates " +
        "they use. Every operation is also served over gRPC " +
        "(`proto.ClusterService`, `proto.ComputeTemplateService`). " +
        "Request bodies also accept snake_case field names and enum " +
        "numbers; responses always use the names shown here.\n\n" +
        "Every operation needs credentials: a bearer token (from the " +
        "token file, an OIDC ID token, or a Kubernetes service-account " +
        "token, as the installation configures them) in the " +
        "`Authorization` header, or a client certificate over TLS. " +
        "Without valid ones the answer is 401 (code 16); an operation the " +
        "authorization policy does not grant is 403 (code 7).",
    license: { name: "Apache-2.0", identifier: "Apache-2.0" },
  };
}

/** The one security scheme, SECURITY_SCHEME: a bearer token. */
function securitySchemes(): Record<string, Schema> {
  return {
    [SECURITY_SCHEME]: {
      type: "http",
      scheme: "bearer",
      description:
        "A token of Corral's token file, an OIDC ID token of its issuer, " +
        "or a Kubernetes service-account token, whichever the " +
        "installation accepts. On /docs, paste it under Authentication: " +
        '"Test Request" sends it.',
    },
  };
}

/**
 * The routes by service, the services in the order of their files' names:
 * the order the .proto files finish loading in varies from run to run, and
 * the document must not.
 */
function inDefinitionOrder(routes: Route[]): Route[] {
  const key = (route: Route) => {
    const service = route.method.parent as protobuf.Service;
    return `${service.filename ?? ""}\0${service.fullName}`;
  };
  // Array.prototype.sort is stable: a service's routes keep their order.
  return [...routes].sort((a, b) =>
    key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0
  );
}
