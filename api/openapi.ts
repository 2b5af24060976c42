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
import { fullName } from "../domain/message_form.ts";
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
  "proto.ExtendClusterRequest": {
    namespace: EXAMPLE_NAMESPACE,
    name: "blue",
    by: "4h",
  },
  "proto.RayJob": {
    name: "train",
    namespace: EXAMPLE_NAMESPACE,
    user: "ada",
    version: "2.9.0",
    entrypoint: "python -c 'import ray; ray.init()'",
    shutdownAfterJobFinishes: true,
    clusterSpec: {
      headGroupSpec: { engineStartParams: { "dashboard-host": "0.0.0.0" } },
      workerGroupSpec: [{ groupName: "workers", replicas: 1 }],
    },
  },
  "proto.RayJobSubmission": {
    entrypoint: "python main.py",
    runtimeEnv: "working_dir: gcs://_ray_pkg_5b6e0a1f3d2c4e7a.zip\n",
    metadata: { team: "a" },
  },
  "proto.UploadJobPackageRequest": {
    namespace: EXAMPLE_NAMESPACE,
    clustername: "blue",
    name: "_ray_pkg_5b6e0a1f3d2c4e7a.zip",
    content: "UEsFBgAAAAAAAAAAAAAAAAAAAAAAAA==",
  },
  "proto.RayService": {
    name: "fruit",
    namespace: EXAMPLE_NAMESPACE,
    user: "ada",
    version: "2.9.0",
    serveConfigV2: [
      "applications:",
      "  - name: fruit",
      "    import_path: fruit.deployment_graph",
      "    route_prefix: /fruit",
      "",
    ].join("\n"),
    clusterSpec: {
      headGroupSpec: { computeTemplate: "small" },
      workerGroupSpec: [{
        groupName: "workers",
        computeTemplate: "small",
        replicas: 1,
        minReplicas: 1,
        maxReplicas: 3,
      }],
    },
  },
};

/** The name of the security scheme every operation requires. */
export const SECURITY_SCHEME = "bearerAuth";

/** A reference to a message's or an enum's schema, made on first use. */
type Ref = (type: protobuf.Type | protobuf.Enum) => Schema;

/** What every operation of the document is made from and adds to. */
interface DocumentParts {
  /** Every route, for the examples of path variables. */
  routes: Route[];
  examples: Record<string, unknown>;
  schemas: SchemaRegistry;
}

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
 * The document's components.schemas: one per message or enum an operation
 * refers to, made on its first reference, and the request bodies that leave
 * out the fields bound to the path.
 */
export class SchemaRegistry {
  readonly #schemas: Record<string, Schema> = {};
  /** The full name of the type each schema name was made for. */
  readonly #owners = new Map<string, string>();

  /**
   * A $ref to the type's schema, made now if this is the first; throws if
   * another type already maps to the same schema name.
   */
  readonly ref: Ref = (type) => {
    const name = schemaName(type);
    const owner = this.#owners.get(name);
    if (owner === undefined) {
      this.#owners.set(name, fullName(type));
      this.#schemas[name] = {}; // reserved first: messages may be recursive
      this.#schemas[name] = isEnum(type)
        ? enumSchema(type)
        : messageSchema(type, this.ref, new Set());
    } else if (owner !== fullName(type)) {
      throw new Error(
        `Cannot generate the OpenAPI document: ${owner} and ${
          fullName(type)
        } both map to schema ${name}`,
      );
    }
    return { $ref: `#/components/schemas/${name}` };
  };

  /** Adds a schema made for one operation under `name`; a $ref to it. */
  add(name: string, schema: Schema): Schema {
    this.#schemas[name] = schema;
    return { $ref: `#/components/schemas/${name}` };
  }

  /**
   * Every schema, with the error body's added; throws if a message took the
   * error body's name.
   */
  withErrorSchemas(): Record<string, Schema> {
    if (this.#schemas[ERROR_SCHEMA]) {
      throw new Error(
        `Cannot generate the OpenAPI document: a message maps to schema ${ERROR_SCHEMA}`,
      );
    }
    return { ...this.#schemas, ...errorSchemas() };
  }
}

/**
 * The operation of a route; `earlier` are the routes of the same method
 * before it, the first of them its main path.
 */
function operationOf(
  route: Route,
  earlier: Route[],
  parts: DocumentParts,
): Operation {
  const service = route.method.parent as protobuf.Service;
  const main = earlier[0];
  const operationId = `${service.name}_${route.method.name}${
    main === undefined ? "" : earlier.length + 1
  }`;
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
  const parameters = parametersOf(route, pathVariables, parts);
  if (parameters.length > 0) operation.parameters = parameters;
  if (route.body) {
    operation.requestBody = requestBody(
      route,
      pathVariables,
      operationId,
      parts,
    );
  }
  operation.responses = responsesOf(route, parts.schemas.ref);
  return operation;
}

/**
 * The path's variables and then, as the gateway maps them, the request's
 * fields bound to neither path nor body (and neither repeated nor maps) as
 * query parameters.
 */
function parametersOf(
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

/** The answer (or stream) of a route, its errors, and the default error. */
function responsesOf(route: Route, ref: Ref): Schema {
  return {
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
function streamAnswer(route: Route, ref: Ref): Schema {
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

/**
 * A route's request body: the whole request less the path's fields (under a
 * schema of its own, `<operationId>Body`, when any are), or the one field
 * the rule names.
 */
function requestBody(
  route: Route,
  pathVariables: string[],
  operationId: string,
  parts: DocumentParts,
): Schema {
  const { examples, schemas } = parts;
  const ref = schemas.ref;
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
      schema = schemas.add(
        `${operationId}Body`,
        messageSchema(route.requestType, ref, bound),
      );
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
