/**
 * The one place where messages meet the canonical proto3 JSON mapping
 * (docs/design.md, "Wire contract"), both ways, into and out of message
 * form (message_form.ts). Driven by the reflection of the loaded .proto, so
 * a new field needs no edit here. KubeRay's dialect of the mapping is in
 * kuberay_json.ts, protobufjs' decoded messages in proto_objects.ts.
 */
import type { Field, Type } from "protobufjs";
import type { FieldViolation } from "./errors.ts";
import { KeptForms } from "./kept.ts";
import { aliasedField, environmentValuesFromField } from "./kuberay_json.ts";
import {
  EMPTY,
  emptyMessage,
  emptyValue,
  enumOf,
  fieldMaskPathToProto,
  fieldMaskToJson,
  fullName,
  isFieldMask,
  isMap,
  isPlainObject,
  isTimestamp,
  join,
  type Message,
  messageTypeOf,
  quote,
  setOwn,
  TIMESTAMP,
  UNKNOWN_FIELD,
} from "./message_form.ts";
import { formatTimestamp } from "./timestamps.ts";

const INT_RANGES: Record<string, [number, number]> = {
  int32: [-(2 ** 31), 2 ** 31 - 1],
  sint32: [-(2 ** 31), 2 ** 31 - 1],
  sfixed32: [-(2 ** 31), 2 ** 31 - 1],
  uint32: [0, 2 ** 32 - 1],
  fixed32: [0, 2 ** 32 - 1],
  int64: [Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER],
  sint64: [Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER],
  sfixed64: [Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER],
  uint64: [0, Number.MAX_SAFE_INTEGER],
  fixed64: [0, Number.MAX_SAFE_INTEGER],
};

// ---------------------------------------------------------------- JSON in

/**
 * Decodes proto3 JSON into message form. Appends a violation for every
 * problem (unknown field, wrong type, out-of-range number, unknown enum
 * value) and returns what could be decoded; the caller throws when
 * `violations` is not empty.
 */
export function messageFromJson(
  type: Type,
  json: unknown,
  path: string,
  violations: FieldViolation[],
): Message {
  const out = emptyMessage(type);
  if (fullName(type) === EMPTY && isPlainObject(json)) {
    for (const key of Object.keys(json)) {
      violations.push({ field: join(path, key), description: UNKNOWN_FIELD });
    }
    return out;
  }
  if (!isPlainObject(json)) {
    violations.push({
      field: path || "body",
      description: `must be a JSON object, got ${describe(json)}`,
    });
    return out;
  }
  const seen = new Map<string, string>();
  for (const [key, value] of Object.entries(json)) {
    const field = fieldByJsonKey(type, key);
    if (!field) {
      const hint = suggestField(type, key);
      violations.push({
        field: join(path, key),
        description: hint
          ? `${UNKNOWN_FIELD}; did you mean "${hint}"?`
          : UNKNOWN_FIELD,
      });
      continue;
    }
    const fieldPath = join(path, field.name);
    const earlier = seen.get(field.name);
    if (earlier !== undefined) {
      violations.push({
        field: fieldPath,
        description: `given twice, as "${earlier}" and "${key}"`,
      });
      continue;
    }
    seen.set(field.name, key);
    if (value === null) continue; // proto3 JSON: null is the default value
    const sibling = environmentValuesFromField(type, field, value);
    if (sibling !== undefined) {
      environmentVariablesFromJson(
        { field, sibling, key, value, path, out, seen },
        violations,
      );
      continue;
    }
    out[field.name] = fieldFromJson(field, value, fieldPath, violations);
  }
  return out;
}

/** One key of a JSON object being decoded into `out` (messageFromJson). */
interface EnvironmentVariablesKey {
  /** The map field of the key, and the field its `valuesFrom` goes to. */
  field: Field;
  sibling: Field;
  key: string;
  value: unknown;
  /** The path of the object, and the message it is decoded into. */
  path: string;
  out: Message;
  /** The JSON key each field was given under, so far. */
  seen: Map<string, string>;
}

/**
 * KubeRay's EnvironmentVariables shape given for an environment map
 * (kuberay_json.ts): its `values` into the map, its `valuesFrom` into the
 * sibling field, which must not have been given under a key of its own.
 */
function environmentVariablesFromJson(
  { field, sibling, key, value, path, out, seen }: EnvironmentVariablesKey,
  violations: FieldViolation[],
): void {
  const kubeRays = value as { values?: unknown; valuesFrom?: unknown };
  if (kubeRays.values != null) {
    out[field.name] = fieldFromJson(
      field,
      kubeRays.values,
      join(path, field.name),
      violations,
    );
  }
  if (kubeRays.valuesFrom == null) return;
  const siblingPath = join(path, sibling.name);
  const other = seen.get(sibling.name);
  if (other !== undefined) {
    violations.push({
      field: siblingPath,
      description: `given twice, as "${other}" and "${key}.valuesFrom"`,
    });
    return;
  }
  seen.set(sibling.name, `${key}.valuesFrom`);
  out[sibling.name] = fieldFromJson(
    sibling,
    kubeRays.valuesFrom,
    siblingPath,
    violations,
  );
}

function fieldFromJson(
  field: Field,
  value: unknown,
  path: string,
  violations: FieldViolation[],
): unknown {
  if (isMap(field)) {
    if (!isPlainObject(value)) {
      violations.push({
        field: path,
        description: `must be an object, got ${describe(value)}`,
      });
      return {};
    }
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      const entryPath = `${path}[${JSON.stringify(k)}]`;
      setOwn(
        out,
        k,
        v === null
          ? emptyValue(field)
          : singleFromJson(field, v, entryPath, violations),
      );
    }
    return out;
  }
  if (field.repeated) {
    if (!Array.isArray(value)) {
      violations.push({
        field: path,
        description: `must be an array, got ${describe(value)}`,
      });
      return [];
    }
    return value.map((v, i) =>
      singleFromJson(field, v, `${path}[${i}]`, violations)
    );
  }
  return singleFromJson(field, value, path, violations);
}

function singleFromJson(
  field: Field,
  value: unknown,
  path: string,
  violations: FieldViolation[],
): unknown {
  const bad = (description: string) => {
    violations.push({ field: path, description });
    return undefined;
  };
  if (isTimestamp(field)) {
    if (typeof value !== "string") {
      return bad(
        `must be an RFC 3339 timestamp string, got ${describe(value)}`,
      );
    }
    const date = parseTimestamp(value);
    return date ?? bad(`must be an RFC 3339 timestamp, got ${quote(value)}`);
  }
  if (isFieldMask(field)) {
    // proto3 JSON: one string of comma-separated lowerCamelCase paths.
    if (typeof value !== "string") {
      return bad(
        `must be a string of comma-separated field paths, got ${
          describe(value)
        }`,
      );
    }
    const paths = value.split(",").map((p) => p.trim()).filter((p) => p);
    return { paths: paths.map(fieldMaskPathToProto) };
  }
  const messageType = messageTypeOf(field);
  if (messageType) return messageFromJson(messageType, value, path, violations);
  const e = enumOf(field);
  if (e) {
    // Own names only: `e.values` inherits the numbers ("2") from valuesById.
    if (typeof value === "string" && Object.hasOwn(e.values, value)) {
      return value;
    }
    if (
      typeof value === "number" && Number.isInteger(value) &&
      e.valuesById[value] !== undefined
    ) {
      return e.valuesById[value];
    }
    const names = Object.keys(e.values).map(quote).join(", ");
    return bad(`must be one of ${names}, got ${describeShort(value)}`);
  }
  switch (field.type) {
    case "string":
      return typeof value === "string"
        ? value
        : bad(`must be a string, got ${describe(value)}`);
    case "bool":
      return typeof value === "boolean"
        ? value
        : bad(`must be true or false, got ${describe(value)}`);
    case "double":
    case "float":
      return typeof value === "number"
        ? value
        : bad(`must be a number, got ${describe(value)}`);
    case "bytes":
      return typeof value === "string"
        ? value
        : bad(`must be a base64 string, got ${describe(value)}`);
  }
  const range = INT_RANGES[field.type];
  if (range) {
    const n = typeof value === "string" && /^-?\d+$/.test(value.trim())
      ? Number(value)
      : value;
    if (typeof n !== "number" || !Number.isInteger(n)) {
      return bad(`must be an integer, got ${describeShort(value)}`);
    }
    if (n < range[0] || n > range[1]) {
      return bad(
        `must be an integer from ${range[0]} to ${range[1]}, got ${n}`,
      );
    }
    return n;
  }
  return bad(`has unsupported type ${field.type}`);
}

/**
 * The field of `type` a JSON key names: its name, its proto name, its JSON
 * name or a KubeRay spelling of it (kuberay_json.ts).
 */
export function fieldByJsonKey(
  type: Type,
  key: string,
): Field | undefined {
  for (const field of type.fieldsArray) {
    if (
      key === field.name || key === field.protoName || key === field.jsonName
    ) {
      return field;
    }
  }
  return aliasedField(type, key);
}

/** The closest field name to an unknown key, if one is close. */
export function suggestField(type: Type, key: string): string | undefined {
  const norm = (s: string) => s.toLowerCase().replaceAll("_", "");
  // The reference system's names spelled the product name where ours say
  // "engine" (rayStartParams -> engineStartParams).
  const wanted = norm(key).replace(/^ray(?=.)/, "engine");
  let best: { name: string; distance: number } | undefined;
  for (const field of type.fieldsArray) {
    const distance = levenshtein(wanted, norm(field.name));
    if (!best || distance < best.distance) {
      best = { name: field.name, distance };
    }
  }
  if (!best) return undefined;
  const limit = Math.max(2, Math.floor(best.name.length / 4));
  return best.distance <= limit ? best.name : undefined;
}

function levenshtein(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(
        previous[j] + 1,
        current[j - 1] + 1,
        previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
    }
    previous = current;
  }
  return previous[b.length];
}

const RFC3339 =
  /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?([Zz]|[+-]\d{2}:\d{2})$/;

function parseTimestamp(text: string): Date | undefined {
  if (!RFC3339.test(text)) return undefined;
  const date = new Date(text);
  return Number.isNaN(date.getTime()) ? undefined : date;
}

// --------------------------------------------------------------- JSON out

/**
 * JSON forms of kept messages (domain/kept.ts: shared ones, such as the
 * cached clusters of api/service/converted_clusters.ts), encoded once: the
 * same object always has the same encoding (KeptForms: in the message's
 * slot, else in a WeakMap). Kept for the message encoded and the items of
 * its lists only, not for every message nested deeper: each WeakMap entry
 * is one more for V8's full collections to mark in their pause (kept.ts
 * says what that cost).
 */
const jsonForms = new KeptForms("json");

/** Encodes a message as proto3 JSON with every field emitted. */
export function messageToJson(type: Type, message: Message): unknown {
  if (fullName(type) === TIMESTAMP) {
    throw new TypeError("Timestamps are encoded by their fields");
  }
  return jsonOf(type, message, true);
}

/** `message`'s JSON form, kept when `keepable` and the message is kept. */
function jsonOf(type: Type, message: Message, keepable: boolean): unknown {
  return jsonForms.of(
    message,
    keepable,
    (kept) => encodeMessage(type, message, kept),
  );
}

/**
 * `message` as JSON; `top` for the message encoded (not one nested in
 * it), whose list items' forms are kept too.
 */
function encodeMessage(
  type: Type,
  message: Message,
  top: boolean,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const field of type.fieldsArray) {
    const value = message[field.name] ?? emptyValue(field);
    out[field.jsonName ?? field.name] = fieldToJson(field, value, top);
  }
  return out;
}

function fieldToJson(field: Field, value: unknown, top: boolean): unknown {
  if (isMap(field)) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
      setOwn(out, k, singleToJson(field, v, false));
    }
    return out;
  }
  if (field.repeated) {
    return (value as unknown[]).map((v) => singleToJson(field, v, top));
  }
  return singleToJson(field, value, false);
}

function singleToJson(
  field: Field,
  value: unknown,
  keepable: boolean,
): unknown {
  if (value === undefined || value === null) return null;
  if (isTimestamp(field)) return formatTimestamp(value as Date);
  if (isFieldMask(field)) return fieldMaskToJson(value);
  const messageType = messageTypeOf(field);
  if (messageType) return jsonOf(messageType, value as Message, keepable);
  const e = enumOf(field);
  if (e && typeof value === "number") return e.valuesById[value] ?? value;
  return value;
}

// ------------------------------------------------------------------ helpers

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  switch (typeof value) {
    case "object":
      return "an object";
    case "string":
      return `the string ${describeShort(value)}`;
    case "number":
      return `the number ${value}`;
    case "boolean":
      return `${value}`;
    default:
      return typeof value;
  }
}

function describeShort(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 40 ? `${text.slice(0, 37)}...` : text;
}
