/**
 * Message form, what the service works with: lowerCamelCase keys, every
 * field present, enums by name, timestamps as Date, unset message fields
 * and unset proto3 `optional` scalars undefined. And the reflection of the
 * loaded .proto that the codecs share (codec.ts: the proto3 JSON mapping;
 * kuberay_json.ts: KubeRay's dialect of it; proto_objects.ts: protobufjs'
 * decoded messages): a field's kind, its default, a field mask's paths.
 */
import type { Enum, Field, Type } from "protobufjs";
import type { FieldViolation } from "./errors.ts";

export type Message = Record<string, unknown>;

export const TIMESTAMP = "google.protobuf.Timestamp";
export const EMPTY = "google.protobuf.Empty";
export const FIELD_MASK = "google.protobuf.FieldMask";

/** The fully qualified name of a type, without the leading dot. */
export function fullName(type: Type | Enum): string {
  return type.fullName.replace(/^\./, "");
}

export function isTimestamp(field: Field): boolean {
  return field.resolvedType !== null &&
    fullName(field.resolvedType) === TIMESTAMP;
}

export function isFieldMask(field: Field): boolean {
  return field.resolvedType !== null &&
    fullName(field.resolvedType) === FIELD_MASK;
}

/** "clusterSpec.workerGroupSpec" -> "cluster_spec.worker_group_spec". */
export function fieldMaskPathToProto(path: string): string {
  return path.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

/** "cluster_spec.worker_group_spec" -> "clusterSpec.workerGroupSpec". */
export function fieldMaskPathToJson(path: string): string {
  return path.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}

export function enumOf(field: Field): Enum | undefined {
  const resolved = field.resolvedType;
  return resolved && "valuesById" in resolved ? resolved as Enum : undefined;
}

export function messageTypeOf(field: Field): Type | undefined {
  const resolved = field.resolvedType;
  return resolved && "fieldsArray" in resolved ? resolved as Type : undefined;
}

export function isMap(field: Field): boolean {
  return field.map;
}

/** Whether the field tracks presence (proto3 `optional`). */
export function hasPresence(field: Field): boolean {
  return field.options?.proto3_optional === true;
}

export function emptyValue(field: Field): unknown {
  if (isMap(field)) return {};
  if (field.repeated) return [];
  if (messageTypeOf(field) || hasPresence(field)) return undefined;
  const e = enumOf(field);
  if (e) return e.valuesById[0] ?? Object.keys(e.values)[0];
  switch (field.type) {
    case "string":
      return "";
    case "bool":
      return false;
    case "bytes":
      return new Uint8Array();
    default:
      return 0;
  }
}

/** A message of the type with every field at its default. */
export function emptyMessage(type: Type): Message {
  const out: Message = {};
  for (const field of type.fieldsArray) out[field.name] = emptyValue(field);
  return out;
}

export function fieldMaskToJson(value: unknown): string {
  return ((value as { paths?: string[] }).paths ?? []).map(fieldMaskPathToJson)
    .join(",");
}

/** The description of a violation that names an unknown JSON field. */
export const UNKNOWN_FIELD = "unknown field";

/**
 * Whether a violation of messageFromJson only names a field the message
 * does not have (a client that may drop such fields instead of refusing
 * them can tell them apart).
 */
export function isUnknownField(violation: FieldViolation): boolean {
  return violation.description.startsWith(UNKNOWN_FIELD);
}

/** Sets a map entry, even one named "__proto__", as an own property. */
export function setOwn(
  target: Record<string, unknown>,
  key: string,
  value: unknown,
) {
  Object.defineProperty(target, key, {
    value,
    enumerable: true,
    writable: true,
    configurable: true,
  });
}

export function isPlainObject(
  value: unknown,
): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export function join(path: string, key: string): string {
  return path ? `${path}.${key}` : key;
}

export function quote(text: string): string {
  return JSON.stringify(text);
}
