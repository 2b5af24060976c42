/**
 * The OpenAPI 3.1 document of the HTTP/JSON API, generated at start-up from
 * the same compiled http rules the gateway routes with, so the document and
 * the behaviour cannot disagree. Schemas describe the JSON the gateway
 * really speaks (domain/codec.ts): lowerCamelCase names, enums by name,
 * timestamps as RFC 3339 strings, maps as objects, every field emitted.
 */
import type protobuf from "protobufjs";
import { fullName } from "../domain/codec.ts";
import type { Route } from "./http_rules.ts";
import { serviceName } from "./schema.ts";

type Schema = Record<string, unknown>;

export interface OpenApiOptions {
  title?: string;
  version?: string;
  /** Example bodies by message name ("proto.Cluster"). */
  examples?: Record<string, unknown>;
}

const ERROR_SCHEMA = "Status";

export function openApiDocument(
  routes: Route[],
  options: OpenApiOptions = {},
): Record<string, unknown> {
  const schemas: Record<string, Schema> = {};
  const paths: Record<string, Record<string, unknown>> = {};
  const tags = new Map<string, string>();

  const ref = (type: protobuf.Type | protobuf.Enum): Schema => {
    const name = schemaName(type);
    if (!(name in schemas)) {
      schemas[name] = {}; // reserve first: messages may be recursive
      schemas[name] = "values" in type && !("fieldsArray" in type)
        ? enumSchema(type as protobuf.Enum)
        : messageSchema(type as protobuf.Type, ref);
    }
    return { $ref: `#/components/schemas/${name}` };
  };

  for (const route of routes) {
    const service = route.method.parent as protobuf.Service;
    const tag = service.name;
    tags.set(tag, clean(service.comment) ?? serviceName(service));
    const pathVariables = route.segments.flatMap((s) =>
      "variable" in s ? [s.variable] : []
    );
    const path = "/" +
      route.segments.map((s) => "literal" in s ? s.literal : `{${s.variable}}`)
        .join("/");
    const operation: Record<string, unknown> = {
      operationId: `${service.name}_${route.method.name}`,
      tags: [tag],
      summary: firstSentence(route.method.comment) ?? route.method.name,
      description: clean(route.method.comment),
    };
    if (pathVariables.length > 0) {
      operation.parameters = pathVariables.map((name) => {
        const field = route.requestType.fields[name];
        return {
          name,
          in: "path",
          required: true,
          description: clean(field.comment),
          schema: { type: "string" },
        };
      });
    }
    if (route.body) {
      const bodyType = route.body === "*"
        ? route.requestType
        : route.requestType.fields[route.body].resolvedType as protobuf.Type;
      const example = options.examples?.[fullName(bodyType)];
      operation.requestBody = {
        required: true,
        description: route.body === "*"
          ? undefined
          : clean(route.requestType.fields[route.body].comment),
        content: {
          "application/json": {
            schema: ref(bodyType),
            ...(example !== undefined ? { example } : {}),
          },
        },
      };
    }
    operation.responses = {
      "200": {
        description: "OK",
        content: { "application/json": { schema: ref(route.responseType) } },
      },
      default: {
        description:
          "An error: the gRPC status code, a message, and details such as the field violations of an invalid request",
        content: {
          "application/json": {
            schema: { $ref: `#/components/schemas/${ERROR_SCHEMA}` },
          },
        },
      },
    };
    paths[path] ??= {};
    paths[path][route.verb.toLowerCase()] = dropUndefined(operation);
  }

  schemas[ERROR_SCHEMA] = {
    type: "object",
    description:
      "The error body of every operation; code and message are the same as the gRPC status of the call",
    required: ["code", "message"],
    properties: {
      code: {
        type: "integer",
        format: "int32",
        description:
          "The gRPC status code, e.g. 3 INVALID_ARGUMENT, 5 NOT_FOUND",
      },
      message: { type: "string", description: "What went wrong" },
      details: {
        type: "array",
        description:
          "google.rpc error details, e.g. a google.rpc.BadRequest listing every field violation",
        items: {
          type: "object",
          required: ["@type"],
          properties: { "@type": { type: "string" } },
          additionalProperties: true,
        },
      },
    },
  };

  return {
    openapi: "3.1.0",
    info: {
      title: options.title ?? "Corral",
      version: options.version ?? "v1alpha2",
      description:
        "Create, read and delete compute clusters and the compute templates they use.",
    },
    tags: [...tags].map(([name, description]) => ({ name, description })),
    paths,
    components: { schemas: sortKeys(schemas) },
  };
}

function schemaName(type: protobuf.Type | protobuf.Enum): string {
  // proto.Cluster -> Cluster; proto.Cluster.Environment -> Cluster.Environment
  return fullName(type).replace(/^proto\./, "");
}

function enumSchema(e: protobuf.Enum): Schema {
  return dropUndefined({
    type: "string",
    description: clean(e.comment),
    enum: Object.keys(e.values),
  });
}

function messageSchema(
  type: protobuf.Type,
  ref: (type: protobuf.Type | protobuf.Enum) => Schema,
): Schema {
  const properties: Record<string, Schema> = {};
  const required: string[] = [];
  for (const field of type.fieldsArray) {
    const behavior = field.options?.["(google.api.field_behavior)"];
    const name = field.jsonName ?? field.name;
    let schema: Schema;
    if (field.map) {
      schema = { type: "object", additionalProperties: single(field, ref) };
    } else if (field.repeated) {
      schema = { type: "array", items: single(field, ref) };
    } else {
      schema = single(field, ref);
    }
    if (field.options?.proto3_optional) schema = nullable(schema);
    const description = clean(field.comment);
    properties[name] = dropUndefined({
      ...("$ref" in schema && description ? { allOf: [schema] } : schema),
      description,
      readOnly: behavior === "OUTPUT_ONLY" ? true : undefined,
    });
    if (behavior === "REQUIRED") required.push(name);
  }
  return dropUndefined({
    type: "object",
    description: clean(type.comment),
    properties,
    required: required.length > 0 ? required : undefined,
    additionalProperties: false,
  });
}

function single(
  field: protobuf.Field,
  ref: (type: protobuf.Type | protobuf.Enum) => Schema,
): Schema {
  const resolved = field.resolvedType;
  if (resolved) {
    const name = fullName(resolved);
    if (name === "google.protobuf.Timestamp") {
      return nullable({ type: "string", format: "date-time" });
    }
    if (name === "google.protobuf.Empty") {
      return { type: "object", additionalProperties: false };
    }
    // An unset message field is emitted as null.
    return "fieldsArray" in resolved
      ? { oneOf: [ref(resolved), { type: "null" }] }
      : ref(resolved);
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
    case "float":
      return { type: "number" };
    case "bytes":
      return { type: "string", contentEncoding: "base64" };
    default:
      return { type: "integer", format: "int64" };
  }
}

function nullable(schema: Schema): Schema {
  if (typeof schema.type === "string") {
    return { ...schema, type: [schema.type, "null"] };
  }
  if (Array.isArray(schema.oneOf)) return schema;
  return { oneOf: [schema, { type: "null" }] };
}

function clean(comment: string | null | undefined): string | undefined {
  const text = comment?.trim();
  return text ? text.replace(/\s*\n\s*/g, " ") : undefined;
}

function firstSentence(comment: string | null | undefined): string | undefined {
  const text = clean(comment);
  return text?.replace(/\.(\s.*)?$/, "");
}

function dropUndefined<T extends Record<string, unknown>>(object: T): T {
  return Object.fromEntries(
    Object.entries(object).filter(([, v]) => v !== undefined),
  ) as T;
}

function sortKeys<T>(object: Record<string, T>): Record<string, T> {
  return Object.fromEntries(
    Object.entries(object).sort(([a], [b]) => a.localeCompare(b)),
  );
}
