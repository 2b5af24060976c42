/**
 * JSON Schemas and examples of the API's messages, from their protobuf
 * definitions, describing the JSON the gateway really speaks
 * (domain/codec.ts): lowerCamelCase names, enums by name, timestamps as
 * RFC 3339 strings, maps as objects, every field emitted.
 */
import type protobuf from "protobufjs";
import { fullName } from "../domain/message_form.ts";

export type Schema = Record<string, unknown>;

export function schemaName(type: protobuf.Type | protobuf.Enum): string {
  // proto.Cluster -> Cluster; proto.Cluster.Environment -> Cluster.Environment
  return fullName(type).replace(/^proto\./, "");
}

export function isEnum(
  type: protobuf.Type | protobuf.Enum,
): type is protobuf.Enum {
  return "valuesById" in type;
}

export function messageTypeOf(
  field: protobuf.Field,
): protobuf.Type | undefined {
  const resolved = field.resolvedType;
  return resolved && !isEnum(resolved) ? resolved : undefined;
}

export function behaviors(field: protobuf.Field): string[] {
  const value = field.options?.["(google.api.field_behavior)"];
  if (value === undefined) return [];
  return Array.isArray(value) ? value.map(String) : [String(value)];
}

export function enumSchema(e: protobuf.Enum): Schema {
  const names = Object.keys(e.values);
  const comments = names.map((name) => clean(e.comments[name]) ?? "");
  return dropUndefined({
    type: "string",
    description: clean(e.comment),
    enum: names,
    "x-enum-descriptions": comments.some(Boolean) ? comments : undefined,
  });
}

export function messageSchema(
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
export function fieldSchema(
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
    if (
      fullName(message) === "google.protobuf.Timestamp" ||
      fullName(message) === "google.protobuf.FieldMask"
    ) {
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
export function single(
  field: protobuf.Field,
  ref: (type: protobuf.Type | protobuf.Enum) => Schema,
): Schema {
  const resolved = field.resolvedType;
  if (resolved) {
    if (fullName(resolved) === "google.protobuf.Timestamp") {
      return { type: "string", format: "date-time" };
    }
    if (fullName(resolved) === "google.protobuf.FieldMask") {
      return {
        type: "string",
        description: "Comma-separated field paths (google.protobuf.FieldMask)",
      };
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

export function fieldExample(
  field: protobuf.Field,
  stack: Set<string>,
): unknown {
  const value = singleExample(field, stack);
  if (field.map) return { key: value };
  if (field.repeated) return [value];
  return value;
}

export function singleExample(
  field: protobuf.Field,
  stack: Set<string>,
): unknown {
  const resolved = field.resolvedType;
  if (resolved) {
    if (isEnum(resolved)) {
      return resolved.valuesById[0] ?? Object.keys(resolved.values)[0];
    }
    if (fullName(resolved) === "google.protobuf.Timestamp") {
      return "2025-01-01T00:00:00Z";
    }
    if (fullName(resolved) === "google.protobuf.FieldMask") {
      return "clusterSpec.workerGroupSpec";
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

export function clean(comment: string | null | undefined): string | undefined {
  const text = comment?.trim();
  return text ? text.replace(/\s*\n\s*/g, " ") : undefined;
}

/** The first sentence of a comment, without its full stop. */
export function firstSentence(
  comment: string | null | undefined,
): string | undefined {
  return clean(comment)?.split(/\.(?:\s|$)/)[0];
}

export function omit(value: unknown, keys: Set<string>): unknown {
  if (typeof value !== "object" || value === null) return value;
  return Object.fromEntries(
    Object.entries(value).filter(([k]) => !keys.has(k)),
  );
}

export function dropUndefined<T extends Record<string, unknown>>(object: T): T {
  return Object.fromEntries(
    Object.entries(object).filter(([, v]) => v !== undefined),
  ) as T;
}

export function sortKeys<T>(object: Record<string, T>): Record<string, T> {
  return Object.fromEntries(
    Object.entries(object).sort(([a], [b]) => a < b ? -1 : a > b ? 1 : 0),
  );
}
