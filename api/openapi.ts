/**
 * The OpenAPI 3.1 document of the HTTP/JSON API, generated at start-up from
 * the same compiled http rules the gateway routes with, so the document and
 * the behaviour cannot disagree. Schemas describe the JSON the gateway
 * really speaks (domain/codec.ts): lowerCamelCase names, enums by name,
 * timestamps as RFC 3339 strings, maps as objects, every field emitted (an
 * unset message field, timestamp or proto3 `optional` scalar as null).
 *
 * The gateway takes no query parameters (it refuses them), so an operation
 * has path parameters and, for rules with a body, a request body only.
 */
import type protobuf from "protobufjs";
import { fullName } from "../domain/codec.ts";
import { Code } from "../domain/errors.ts";
import { httpStatus } from "./errors.ts";
import type { Route } from "./http/rules.ts";
import { methodKey } from "./schema.ts";

export type Schema = Record<string, unknown>;
export type OpenApiDocument = Record<string, unknown> & {
  paths: Record<string, Record<string, Operation>>;
  components: {
    schemas: Record<string, Schema>;
    responses: Record<string, Schema>;
    examples: Record<string, Schema>;
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

/** The error body every operation may answer, as on the wire. */
const ERROR_SCHEMA = "google.rpc.Status";
const ERROR_RESPONSE = "Error";
const ERROR_DESCRIPTION =
  "Any other error: the gRPC status code, a message and, for an invalid " +
  "request, every field violation. The HTTP status follows from the code " +
  "(see the google.rpc.Status schema)";

/** The HTTP status of each gRPC code, from the gateway's own mapping. */
const STATUS_TABLE = [
  "| code | name | HTTP status |",
  "| --- | --- | --- |",
  ...Object.entries(Code).filter(([, code]) => code !== Code.OK).map((
    [name, code],
  ) => {
    const note = code === Code.RESOURCE_EXHAUSTED
      ? " (413 for a request body over the size limit)"
      : code === Code.UNIMPLEMENTED
      ? " (405 for a known path with another method)"
      : "";
    return `| ${code} | ${name} | ${httpStatus(code)}${note} |`;
  }),
].join("\n");

/**
 * Examples of the error body, as the gateway answers them (the tests send
 * the requests behind the ones they can provoke and compare).
 */
const ERROR_EXAMPLES = {
  invalidArgument: {
    summary: "Invalid request: code 3",
    value: {
      code: Code.INVALID_ARGUMENT,
      message:
        'Cannot create cluster "team-a/blue": cluster.user: is required; ' +
        "cluster.clusterSpec.workerGroupSpec[0].groupName: is required",
      details: [{
        "@type": "type.googleapis.com/google.rpc.BadRequest",
        fieldViolations: [
          { field: "cluster.user", description: "is required" },
          {
            field: "cluster.clusterSpec.workerGroupSpec[0].groupName",
            description: "is required",
          },
        ],
      }],
    },
  },
  missingTemplate: {
    summary: "A compute template the cluster names does not exist: code 9",
    value: {
      code: Code.FAILED_PRECONDITION,
      message:
        'Cannot create cluster "team-a/blue": compute template "small" not found in namespace "team-a"',
    },
  },
  unauthenticated: {
    summary: "Kubernetes refused Corral's credentials: code 16",
    value: {
      code: Code.UNAUTHENTICATED,
      message:
        'Cannot get cluster "team-a/blue": Kubernetes API rejected the service\'s credentials',
    },
  },
  namespaceNotServed: {
    summary: "A namespace this Corral does not serve: code 7",
    value: {
      code: Code.PERMISSION_DENIED,
      message:
        'Cannot get cluster "team-b/blue": namespace "team-b" is not served by this Corral (it serves "team-a")',
    },
  },
  kubernetesDenied: {
    summary: "Kubernetes refused Corral's service account: code 7",
    value: {
      code: Code.PERMISSION_DENIED,
      message: 'Cannot get cluster "team-a/blue": Kubernetes API denied access',
    },
  },
  notFound: {
    summary: "Not found: code 5",
    value: {
      code: Code.NOT_FOUND,
      message: 'Cannot get cluster "team-a/blue": not found',
    },
  },
  alreadyExists: {
    summary: "Already exists: code 6",
    value: {
      code: Code.ALREADY_EXISTS,
      message:
        'Cannot create compute template "team-a/small": a compute template with that name already exists',
    },
  },
  bodyTooLarge: {
    summary: "Request body over the limit: code 8",
    value: {
      code: Code.RESOURCE_EXHAUSTED,
      message: "Request body too large: the limit is 3145728 bytes",
    },
  },
  internal: {
    summary: "A fault of Corral: code 13",
    value: { code: Code.INTERNAL, message: "Internal error" },
  },
  unavailable: {
    summary: "Kubernetes unreachable: code 14",
    value: {
      code: Code.UNAVAILABLE,
      message:
        'Cannot get cluster "team-a/blue": Kubernetes API unavailable: connection refused',
    },
  },
  deadlineExceeded: {
    summary: "Kubernetes did not answer in time: code 4",
    value: {
      code: Code.DEADLINE_EXCEEDED,
      message:
        'Cannot get cluster "team-a/blue": Kubernetes API did not answer in time',
    },
  },
};
export type ErrorExampleName = keyof typeof ERROR_EXAMPLES;

/** One error answer an operation can give, a response in components. */
interface ErrorAnswer {
  status: number;
  /** Its name in components.responses. */
  name: string;
  description: string;
  examples: ErrorExampleName[];
  headers?: Record<string, Schema>;
}

/**
 * The error answers, by HTTP status. Which of them an operation documents
 * follows from its http rule (errorStatusesOf); the statuses are the
 * gateway's (httpStatus, and the gateway's own 413 for a body too large).
 */
const ERROR_ANSWERS: ErrorAnswer[] = [
  {
    status: httpStatus(Code.INVALID_ARGUMENT),
    name: "InvalidArgument",
    description:
      "The request is invalid (code 3 INVALID_ARGUMENT: every field " +
      "violation is listed in `details`, with its JSON field path), or " +
      "something it refers to does not exist (code 9 FAILED_PRECONDITION, " +
      "e.g. a compute template a cluster names)",
    examples: ["invalidArgument", "missingTemplate"],
  },
  {
    status: httpStatus(Code.UNAUTHENTICATED),
    name: "Unauthenticated",
    description: "Kubernetes refused Corral's own credentials (code 16 " +
      "UNAUTHENTICATED): a fault of the installation, not of the request. " +
      "Corral does not authenticate its callers",
    examples: ["unauthenticated"],
  },
  {
    status: httpStatus(Code.PERMISSION_DENIED),
    name: "PermissionDenied",
    description:
      "Code 7 PERMISSION_DENIED: the namespace is not one this Corral " +
      "serves (`--namespaces`), or Kubernetes refused Corral's service " +
      "account (its RBAC grants too little)",
    examples: ["namespaceNotServed", "kubernetesDenied"],
  },
  {
    status: httpStatus(Code.NOT_FOUND),
    name: "NotFound",
    description:
      "Code 5 NOT_FOUND: there is no such resource, or (on create) no such " +
      "namespace",
    examples: ["notFound"],
  },
  {
    status: httpStatus(Code.ALREADY_EXISTS),
    name: "AlreadyExists",
    description:
      "Code 6 ALREADY_EXISTS: a resource of that name exists in the namespace",
    examples: ["alreadyExists"],
  },
  {
    status: 413,
    name: "BodyTooLarge",
    description:
      "Code 8 RESOURCE_EXHAUSTED: the request body is larger than the " +
      "limit (`--max-body-bytes`, 3 MiB by default)",
    examples: ["bodyTooLarge"],
  },
  {
    status: httpStatus(Code.INTERNAL),
    name: "Internal",
    description:
      "Code 13 INTERNAL: a fault of Corral, or an answer from Kubernetes it " +
      "does not understand",
    examples: ["internal"],
  },
  {
    status: httpStatus(Code.UNAVAILABLE),
    name: "Unavailable",
    description: "Code 14 UNAVAILABLE: Kubernetes is unreachable, failing or " +
      "overloaded. Reads were tried three times; try again later",
    examples: ["unavailable"],
    headers: {
      "Retry-After": {
        description:
          "Seconds to wait before trying again, when Kubernetes said so",
        schema: { type: "integer", minimum: 1 },
      },
    },
  },
  {
    status: httpStatus(Code.DEADLINE_EXCEEDED),
    name: "DeadlineExceeded",
    description: "Code 4 DEADLINE_EXCEEDED: Kubernetes did not answer within " +
      "`--kube-timeout`. A create or delete may still have happened",
    examples: ["deadlineExceeded"],
  },
];

/**
 * The statuses of the error answers an operation can give, from what its
 * http rule says it is. Every operation decodes and validates its request
 * (400; unknown query parameters are refused everywhere) and calls
 * Kubernetes with Corral's own credentials (401, 403, 500, 503, 504). With a
 * namespace in the path it may name one that is not served (403). With a
 * body it may be sent too much (413). A POST creates: the name may be taken
 * (409) or the namespace missing (404). An operation on one named resource
 * (the path ends in a variable) may not find it (404); a PUT or PATCH would
 * also meet a concurrent change (409). A list has neither 404 nor 409.
 */
export function errorStatusesOf(route: Route): number[] {
  const statuses = new Set([400, 401, 403, 500, 503, 504]);
  const last = route.segments[route.segments.length - 1];
  if (route.body) statuses.add(413);
  if (route.verb === "POST") {
    statuses.add(409);
    statuses.add(404);
  }
  if (last && "variable" in last) statuses.add(404);
  if (route.verb === "PUT" || route.verb === "PATCH") statuses.add(409);
  return [...statuses].sort((a, b) => a - b);
}

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

  for (const route of inDefinitionOrder(routes)) {
    const service = route.method.parent as protobuf.Service;
    tags.set(service.name, clean(service.comment));
    const operationId = `${service.name}_${route.method.name}`;
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
        `gRPC: \`${methodKey(route.method)}\`.`,
      ].filter(Boolean).join("\n\n"),
    };
    if (pathVariables.length > 0) {
      operation.parameters = pathVariables.map((name) => {
        const field = route.requestType.fields[name];
        return dropUndefined({
          name,
          in: "path",
          required: true,
          description: clean(field.comment),
          schema: { type: "string" },
          example: pathExample(route, name, routes, examples),
        });
      });
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
      "200": {
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
        "Create, read and delete compute clusters and the compute templates " +
          "they use. Every operation is also served over gRPC " +
          "(`proto.ClusterService`, `proto.ComputeTemplateService`). " +
          "Request bodies also accept snake_case field names and enum " +
          "numbers; responses always use the names shown here. Corral does " +
          "not authenticate its callers: whoever reaches its port may call " +
          "every operation.",
    },
    // The Corral that serves this document: a relative URL resolves
    // against the document's own address, so "Test Request" on /docs calls
    // the Corral the page came from, whatever its host and port.
    servers: [{ url: "/", description: "This Corral" }],
    // No operation asks for credentials (an empty list of requirements).
    security: [],
    tags: [...tags].map(([name, description]) =>
      dropUndefined({ name, description })
    ),
    paths,
    components: {
      schemas: sortKeys(schemas),
      responses: errorResponses(),
      examples: ERROR_EXAMPLES,
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

function schemaName(type: protobuf.Type | protobuf.Enum): string {
  // proto.Cluster -> Cluster; proto.Cluster.Environment -> Cluster.Environment
  return fullName(type).replace(/^proto\./, "");
}

function isEnum(type: protobuf.Type | protobuf.Enum): type is protobuf.Enum {
  return "valuesById" in type;
}

function messageTypeOf(field: protobuf.Field): protobuf.Type | undefined {
  const resolved = field.resolvedType;
  return resolved && !isEnum(resolved) ? resolved : undefined;
}

function behaviors(field: protobuf.Field): string[] {
  const value = field.options?.["(google.api.field_behavior)"];
  if (value === undefined) return [];
  return Array.isArray(value) ? value.map(String) : [String(value)];
}

function enumSchema(e: protobuf.Enum): Schema {
  const names = Object.keys(e.values);
  const comments = names.map((name) => clean(e.comments[name]) ?? "");
  return dropUndefined({
    type: "string",
    description: clean(e.comment),
    enum: names,
    "x-enum-descriptions": comments.some(Boolean) ? comments : undefined,
  });
}

function messageSchema(
  type: protobuf.Type,
  ref: (type: protobuf.Type | protobuf.Enum) => Schema,
  omitFields: Set<string>,
): Schema {
  if (fullName(type) === "google.protobuf.Empty") {
    return {
      type: "object",
      description: "An empty message: `{}`",
      additionalProperties: false,
    };
  }
  const properties: Record<string, Schema> = {};
  const required: string[] = [];
  for (const field of type.fieldsArray) {
    if (omitFields.has(field.name)) continue;
    const name = field.jsonName ?? field.name;
    const fieldBehaviors = behaviors(field);
    properties[name] = dropUndefined({
      ...fieldSchema(field, ref),
      description: clean(field.comment),
      readOnly: fieldBehaviors.includes("OUTPUT_ONLY") ? true : undefined,
    });
    if (fieldBehaviors.includes("REQUIRED")) required.push(name);
  }
  return dropUndefined({
    type: "object",
    description: clean(type.comment),
    properties,
    required: required.length > 0 ? required : undefined,
    // The gateway refuses unknown fields.
    additionalProperties: false,
  });
}

/** The schema of a field's value as the codec writes it. */
function fieldSchema(
  field: protobuf.Field,
  ref: (type: protobuf.Type | protobuf.Enum) => Schema,
): Schema {
  if (field.map) {
    const key = (field as unknown as protobuf.MapField).keyType;
    return dropUndefined({
      type: "object",
      propertyNames: key === "string" || key === "bool"
        ? undefined
        : { pattern: "^-?[0-9]+$" },
      additionalProperties: single(field, ref),
    });
  }
  if (field.repeated) return { type: "array", items: single(field, ref) };
  const schema = single(field, ref);
  const message = messageTypeOf(field);
  if (message && !behaviors(field).includes("REQUIRED")) {
    // An unset message field is written as null. A required one is always
    // set (a request without it is refused).
    if (fullName(message) === "google.protobuf.Timestamp") {
      return { ...schema, type: ["string", "null"] };
    }
    return { oneOf: [schema, { type: "null" }] };
  }
  if (field.options?.proto3_optional) {
    // An unset proto3 `optional` scalar is written as null.
    return typeof schema.type === "string"
      ? { ...schema, type: [schema.type, "null"] }
      : { oneOf: [schema, { type: "null" }] };
  }
  return schema;
}

/** The schema of one value of a field (an element of a list or map). */
function single(
  field: protobuf.Field,
  ref: (type: protobuf.Type | protobuf.Enum) => Schema,
): Schema {
  const resolved = field.resolvedType;
  if (resolved) {
    if (fullName(resolved) === "google.protobuf.Timestamp") {
      return { type: "string", format: "date-time" };
    }
    return ref(resolved);
  }
  switch (field.type) {
    case "string":
      return { type: "string" };
    case "bool":
      return { type: "boolean" };
    case "int32":
    case "sint32":
    case "sfixed32":
      return { type: "integer", format: "int32" };
    case "uint32":
    case "fixed32":
      return {
        type: "integer",
        format: "int64",
        minimum: 0,
        maximum: 4294967295,
      };
    case "double":
      return { type: "number", format: "double" };
    case "float":
      return { type: "number", format: "float" };
    case "bytes":
      return { type: "string", contentEncoding: "base64" };
    default: // 64-bit integers, written as JSON numbers by the codec
      return { type: "integer", format: "int64" };
  }
}

// ------------------------------------------------------------- examples

/**
 * An example of a message in the JSON form the gateway takes: every field a
 * caller may set (output-only fields left out), with a plausible value.
 */
export function generateExample(
  type: protobuf.Type,
  stack: Set<string> = new Set(),
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (stack.has(fullName(type))) return out; // a recursive message
  stack.add(fullName(type));
  for (const field of type.fieldsArray) {
    if (behaviors(field).includes("OUTPUT_ONLY")) continue;
    const value = fieldExample(field, stack);
    if (value !== undefined) out[field.jsonName ?? field.name] = value;
  }
  stack.delete(fullName(type));
  return out;
}

function fieldExample(field: protobuf.Field, stack: Set<string>): unknown {
  const value = singleExample(field, stack);
  if (field.map) return { key: value };
  if (field.repeated) return [value];
  return value;
}

function singleExample(field: protobuf.Field, stack: Set<string>): unknown {
  const resolved = field.resolvedType;
  if (resolved) {
    if (isEnum(resolved)) {
      return resolved.valuesById[0] ?? Object.keys(resolved.values)[0];
    }
    if (fullName(resolved) === "google.protobuf.Timestamp") {
      return "2025-01-01T00:00:00Z";
    }
    return generateExample(resolved, stack);
  }
  switch (field.type) {
    case "string":
      // A DNS-1123 label, as most names in this API must be.
      return field.name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
    case "bool":
      return false;
    case "bytes":
      return "";
    case "double":
    case "float":
      return 1.5;
    default:
      return 1;
  }
}

// ---------------------------------------------------------------- errors

function errorAnswer(status: number): ErrorAnswer {
  const answer = ERROR_ANSWERS.find((a) => a.status === status);
  if (!answer) throw new Error(`No error answer for HTTP status ${status}`);
  return answer;
}

/** components.responses: one per error answer, and the default. */
function errorResponses(): Record<string, Schema> {
  const content = (examples: ErrorExampleName[]) => ({
    "application/json": {
      schema: { $ref: `#/components/schemas/${ERROR_SCHEMA}` },
      examples: Object.fromEntries(
        examples.map((name) => [name, {
          $ref: `#/components/examples/${name}`,
        }]),
      ),
    },
  });
  return {
    ...Object.fromEntries(ERROR_ANSWERS.map((answer) => [
      answer.name,
      dropUndefined({
        description: answer.description,
        headers: answer.headers,
        content: content(answer.examples),
      }),
    ])),
    [ERROR_RESPONSE]: {
      description: ERROR_DESCRIPTION,
      content: {
        "application/json": {
          schema: { $ref: `#/components/schemas/${ERROR_SCHEMA}` },
        },
      },
    },
  };
}

function errorSchemas(): Record<string, Schema> {
  return {
    [ERROR_SCHEMA]: {
      type: "object",
      description:
        "The error body of every operation (the JSON form of google.rpc.Status). " +
        "A gRPC client gets the same code and message. The HTTP status " +
        "follows from the code:\n\n" + STATUS_TABLE,
      required: ["code", "message"],
      properties: {
        code: {
          type: "integer",
          format: "int32",
          description:
            "The gRPC status code, e.g. 3 INVALID_ARGUMENT, 5 NOT_FOUND, 6 ALREADY_EXISTS",
        },
        message: {
          type: "string",
          description: "What went wrong, for a person to read",
        },
        details: {
          type: "array",
          description:
            "Structured details; present only when there are any. An invalid " +
            "request carries a google.rpc.BadRequest listing every violation.",
          items: {
            oneOf: [
              { $ref: "#/components/schemas/google.rpc.BadRequest" },
              { $ref: "#/components/schemas/google.rpc.RetryInfo" },
            ],
          },
        },
      },
    },
    "google.rpc.BadRequest": {
      type: "object",
      description: "The field violations of an invalid request",
      required: ["@type", "fieldViolations"],
      properties: {
        "@type": {
          type: "string",
          const: "type.googleapis.com/google.rpc.BadRequest",
        },
        fieldViolations: {
          type: "array",
          items: {
            type: "object",
            required: ["field", "description"],
            properties: {
              field: {
                type: "string",
                description:
                  "The JSON path of the field, e.g. cluster.clusterSpec.workerGroupSpec[0].groupName",
              },
              description: {
                type: "string",
                description: "The rule the field breaks",
              },
            },
          },
        },
      },
    },
    "google.rpc.RetryInfo": {
      type: "object",
      description: "When to retry a call that was refused for now",
      required: ["@type", "retryDelay"],
      properties: {
        "@type": {
          type: "string",
          const: "type.googleapis.com/google.rpc.RetryInfo",
        },
        retryDelay: {
          type: "string",
          description: 'How long to wait, in seconds, e.g. "1.5s"',
          pattern: "^[0-9]+(\\.[0-9]+)?s$",
        },
      },
    },
  };
}

// --------------------------------------------------------------- helpers

function clean(comment: string | null | undefined): string | undefined {
  const text = comment?.trim();
  return text ? text.replace(/\s*\n\s*/g, " ") : undefined;
}

/** The first sentence of a comment, without its full stop. */
function firstSentence(comment: string | null | undefined): string | undefined {
  return clean(comment)?.split(/\.(?:\s|$)/)[0];
}

function omit(value: unknown, keys: Set<string>): unknown {
  if (typeof value !== "object" || value === null) return value;
  return Object.fromEntries(
    Object.entries(value).filter(([k]) => !keys.has(k)),
  );
}

function dropUndefined<T extends Record<string, unknown>>(object: T): T {
  return Object.fromEntries(
    Object.entries(object).filter(([, v]) => v !== undefined),
  ) as T;
}

function sortKeys<T>(object: Record<string, T>): Record<string, T> {
  return Object.fromEntries(
    Object.entries(object).sort(([a], [b]) => a < b ? -1 : a > b ? 1 : 0),
  );
}
