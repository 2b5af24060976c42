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
import { fullName } from "../domain/codec.ts";
import type { Route } from "./http/rules.ts";
import {
  ERROR_EXAMPLES,
  ERROR_RESPONSE,
  ERROR_SCHEMA,
  errorAnswer,
  errorResponses,
  errorSchemas,
  errorStatusesOf,
} from "./openapi_errors.ts";
import {
  clean,
  dropUndefined,
  enumSchema,
  fieldExample,
  fieldSchema,
  firstSentence,
  generateExample,
  isEnum,
  messageSchema,
  messageTypeOf,
  omit,
  type Schema,
  schemaName,
  sortKeys,
} from "./openapi_schemas.ts";
import { methodKey } from "./schema.ts";

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
export type Operation = Record<string, unknown> & { operationId: string };

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

/** The namespace every example lives in. */
const EXAMPLE_NAMESPACE = "team-a";

/**
 * Hand-written example bodies: the spec's sample cluster (a head and one
 * worker group) and the compute template it names, so that trying the
 * operations in order (create the template, create the cluster, get it,
 * delete it) works as written.
 */
export const EXAMPLES: Record<string, unknown> = {
  "proto.ComputeTemplate": {
    name: "small",
    namespace: EXAMPLE_NAMESPACE,
    cpu: 2,
    memory: 4,
  },
  "proto.Cluster": {
    name: "blue",
    namespace: EXAMPLE_NAMESPACE,
    user: "ada",
    version: "2.9.0",
    environment: "DEV",
    clusterSpec: {
      headGroupSpec: {
        computeTemplate: "small",
        serviceType: "NodePort",
        engineStartParams: { "dashboard-host": "0.0.0.0" },
      },
      workerGroupSpec: [{
        groupName: "workers",
        computeTemplate: "small",
        replicas: 2,
        minReplicas: 0,
        maxReplicas: 4,
      }],
    },
  },
};

/** The name of the security scheme every operation requires. */
export const SECURITY_SCHEME = "bearerAuth";

export function openApiDocument(
  routes: Route[],
  options: OpenApiOptions = {},
): OpenApiDocument {
  const examples = options.examples ?? EXAMPLES;
  const schemas: Record<string, Schema> = {};
  const owners = new Map<string, string>();
  const paths: Record<string, Record<string, Operation>> = {};
  const tags = new Map<string, string | undefined>();

  const ref = (type: protobuf.Type | protobuf.Enum): Schema => {
    const name = schemaName(type);
    const owner = owners.get(name);
    if (owner === undefined) {
      owners.set(name, fullName(type));
      schemas[name] = {}; // reserved first: messages may be recursive
      schemas[name] = isEnum(type)
        ? enumSchema(type)
        : messageSchema(type, ref, new Set());
    } else if (owner !== fullName(type)) {
      throw new Error(
        `Cannot generate the OpenAPI document: ${owner} and ${
          fullName(type)
        } both map to schema ${name}`,
      );
    }
    return { $ref: `#/components/schemas/${name}` };
  };

  // A method's additional bindings are operations of their own, numbered
  // from 2 as grpc-gateway's generator numbers them, each pointing at the
  // main path.
  const bindings = new Map<string, Route[]>();
  for (const route of inDefinitionOrder(routes)) {
    const service = route.method.parent as protobuf.Service;
    tags.set(service.name, clean(service.comment));
    const earlier = bindings.get(route.key) ?? [];
    bindings.set(route.key, [...earlier, route]);
    const main = earlier[0];
    const operationId = `${service.name}_${route.method.name}${
      main === undefined ? "" : earlier.length + 1
    }`;
    const path = openApiPath(route);
    const pathVariables = route.segments.flatMap((s) =>
      "variable" in s ? [s.variable] : []
    );
    const operation: Operation = {
      operationId,
      tags: [service.name],
      summary: firstSentence(route.method.comment) ?? route.method.name,
      description: [
        clean(route.method.comment),
        main === undefined
          ? undefined
          : `Another path of \`${main.verb.toUpperCase()} ${
            openApiPath(main)
          }\`, the same call.`,
        `gRPC: \`${methodKey(route.method)}\`.`,
      ].filter(Boolean).join("\n\n"),
    };
    const queryFields = route.body === "*"
      ? []
      : route.requestType.fieldsArray.filter((f) =>
        f.name !== route.body && !pathVariables.includes(f.name) &&
        !f.repeated && !f.map
      );
    if (pathVariables.length > 0 || queryFields.length > 0) {
      operation.parameters = pathVariables.map((name): Schema => {
        const field = route.requestType.fields[name];
        return dropUndefined({
          name,
          in: "path",
          required: true,
          description: clean(field.comment),
          schema: { type: "string" },
          example: pathExample(route, name, routes, examples),
        });
      }).concat(queryFields.map((field) =>
        dropUndefined({
          name: field.jsonName ?? field.name,
          in: "query",
          required: false,
          description: clean(field.comment),
          schema: fieldSchema(field, ref),
          example: queryExample(route, field),
        })
      ));
    }
    if (route.body) {
      operation.requestBody = requestBody(
        route,
        pathVariables,
        examples,
        ref,
        schemas,
        operationId,
      );
    }
    operation.responses = {
      "200": route.streaming ? streamAnswer(route, ref) : {
        description: "A successful response.",
        content: { "application/json": { schema: ref(route.responseType) } },
      },
      ...Object.fromEntries(
        errorStatusesOf(route).map((status) => [status, {
          $ref: `#/components/responses/${errorAnswer(status).name}`,
        }]),
      ),
      default: { $ref: `#/components/responses/${ERROR_RESPONSE}` },
    };
    paths[path] ??= {};
    paths[path][route.verb.toLowerCase()] = dropUndefined(operation);
  }

  if (schemas[ERROR_SCHEMA]) {
    throw new Error(
      `Cannot generate the OpenAPI document: a message maps to schema ${ERROR_SCHEMA}`,
    );
  }
  Object.assign(schemas, errorSchemas());

  return {
    openapi: "3.1.0",
    info: {
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
    },
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
      schemas: sortKeys(schemas),
      responses: errorResponses(),
      examples: ERROR_EXAMPLES,
      securitySchemes: {
        [SECURITY_SCHEME]: {
          type: "http",
          scheme: "bearer",
          description:
            "A token of Corral's token file, an OIDC ID token of its issuer, " +
            "or a Kubernetes service-account token, whichever the " +
            "installation accepts. On /docs, paste it under Authentication: " +
            '"Test Request" sends it.',
        },
      },
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

/**
 * The example of a query parameter, which "Test Request" sends: none for
 * paging (a page token is only ever one an answer gave, and a list is
 * whole unless a page size is asked for), nor for a stream (a watch
 * watches everything unless narrowed, and resumes only from a version an
 * answer gave).
 */
function queryExample(route: Route, field: protobuf.Field): unknown {
  if (route.streaming) return undefined;
  if (field.name === "pageToken" || field.name === "pageSize") return undefined;
  return fieldExample(field, new Set());
}

/**
 * A stream's answer: newline-delimited JSON, each line a result or, last,
 * an error (as grpc-gateway streams); or Server-Sent Events of the same.
 */
function streamAnswer(
  route: Route,
  ref: (type: protobuf.Type | protobuf.Enum) => Schema,
): Schema {
  const line = {
    type: "object",
    description: "One line: an answer (`result`), or the error that ends " +
      "the stream (`error`).",
    properties: {
      result: ref(route.responseType),
      error: { $ref: `#/components/schemas/${ERROR_SCHEMA}` },
    },
  };
  return {
    description: "A stream of answers, one JSON object per line; with " +
      "`Accept: text/event-stream`, Server-Sent Events whose `data` is that " +
      "object and whose `id` is the answer's resourceVersion (sent back as " +
      "`Last-Event-ID` to resume). The stream stays open until the client " +
      "or the server ends it.",
    content: {
      "application/x-ndjson": { schema: line },
      "text/event-stream": { schema: { type: "string" } },
    },
  };
}

/** "/apis/v1alpha2/namespaces/{namespace}/clusters" */
export function openApiPath(route: Route): string {
  return "/" +
    route.segments.map((s) => "literal" in s ? s.literal : `{${s.variable}}`)
      .join("/");
}

function requestBody(
  route: Route,
  pathVariables: string[],
  examples: Record<string, unknown>,
  ref: (type: protobuf.Type | protobuf.Enum) => Schema,
  schemas: Record<string, Schema>,
  operationId: string,
): Schema {
  let schema: Schema;
  let example: unknown;
  let description: string | undefined;
  if (route.body === "*") {
    // The whole request is the body, less the fields bound to the path
    // (the path wins over the body for those).
    const bound = new Set(pathVariables);
    if (bound.size === 0) {
      schema = ref(route.requestType);
    } else {
      const name = `${operationId}Body`;
      schemas[name] = messageSchema(route.requestType, ref, bound);
      schema = { $ref: `#/components/schemas/${name}` };
    }
    example = omit(
      examples[fullName(route.requestType)] ??
        generateExample(route.requestType),
      bound,
    );
    description = clean(route.requestType.comment);
  } else {
    const field = route.requestType.fields[route.body];
    const type = messageTypeOf(field);
    schema = field.repeated || field.map || !type
      ? fieldSchema(field, ref)
      : ref(type);
    example = type && !field.repeated && !field.map
      ? examples[fullName(type)] ?? generateExample(type)
      : fieldExample(field, new Set());
    description = clean(field.comment);
  }
  return dropUndefined({
    required: true,
    description,
    content: { "application/json": { schema, example } },
  });
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
  const path = openApiPath(route);
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
  return variable === "namespace" ? EXAMPLE_NAMESPACE : undefined;
}
