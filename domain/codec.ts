/**
 * The one place where messages meet their wire forms: the canonical proto3
 * JSON mapping (docs/design.md, "Wire contract") and protobufjs' decoded
 * messages. Driven by the reflection of the loaded .proto, so a new field
 * needs no edit here.
 *
 * Message form (what the service works with): lowerCamelCase keys, every
 * field present, enums by name, timestamps as Date, unset message fields and
 * unset proto3 `optional` scalars undefined.
 */
import type { Enum, Field, Type } from "protobufjs";
import type { FieldViolation } from "./errors.ts";
import { KeptForms } from "./kept.ts";
import { formatTimestamp } from "./timestamps.ts";

export type Message = Record<string, unknown>;

const TIMESTAMP = "google.protobuf.Timestamp";
const EMPTY = "google.protobuf.Empty";
const FIELD_MASK = "google.protobuf.FieldMask";

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

/** The fully qualified name of a type, without the leading dot. */
export function fullName(type: Type | Enum): string {
  return type.fullName.replace(/^\./, "");
}

function isTimestamp(field: Field): boolean {
  return field.resolvedType !== null &&
    fullName(field.resolvedType) === TIMESTAMP;
}

function isFieldMask(field: Field): boolean {
  return field.resolvedType !== null &&
    fullName(field.resolvedType) === FIELD_MASK;
}

/** "clusterSpec.workerGroupSpec" -> "cluster_spec.worker_group_spec". */
export function fieldMaskPathToProto(path: string): string {
  return path.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

/** "cluster_spec.worker_group_spec" -> "clusterSpec.workerGroupSpec". */
function fieldMaskPathToJson(path: string): string {
  return path.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}

function enumOf(field: Field): Enum | undefined {
  const resolved = field.resolvedType;
  return resolved && "valuesById" in resolved ? resolved as Enum : undefined;
}

function messageTypeOf(field: Field): Type | undefined {
  const resolved = field.resolvedType;
  return resolved && "fieldsArray" in resolved ? resolved as Type : undefined;
}

function isMap(field: Field): boolean {
  return field.map;
}

/** Whether the field tracks presence (proto3 `optional`). */
function hasPresence(field: Field): boolean {
  return field.options?.proto3_optional === true;
}

function emptyValue(field: Field): unknown {
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
      const kubeRays = value as { values?: unknown; valuesFrom?: unknown };
      if (kubeRays.values != null) {
        out[field.name] = fieldFromJson(
          field,
          kubeRays.values,
          fieldPath,
          violations,
        );
      }
      if (kubeRays.valuesFrom == null) continue;
      const siblingPath = join(path, sibling.name);
      const other = seen.get(sibling.name);
      if (other !== undefined) {
        violations.push({
          field: siblingPath,
          description: `given twice, as "${other}" and "${key}.valuesFrom"`,
        });
        continue;
      }
      seen.set(sibling.name, `${key}.valuesFrom`);
      out[sibling.name] = fieldFromJson(
        sibling,
        kubeRays.valuesFrom,
        siblingPath,
        violations,
      );
      continue;
    }
    out[field.name] = fieldFromJson(field, value, fieldPath, violations);
  }
  return out;
}

/**
 * Map fields of environment variables that also take, as JSON, the shape
 * of KubeRay's EnvironmentVariables message, which replaced them in its
 * later API (and which its Python client sends): `{"values": {...},
 * "valuesFrom": {...}}`. The values go into the map, the valuesFrom into
 * the field named here. A map of variables named "values" and "valuesFrom"
 * is not taken for it: a variable's value is a string, never an object.
 */
const ENVIRONMENT_VARIABLES_FIELDS: Readonly<Record<string, string>> = {
  "proto.HeadGroupSpec.environment": "environmentValuesFrom",
  "proto.WorkerGroupSpec.environment": "environmentValuesFrom",
};

/**
 * The field that takes the `valuesFrom` of `value` when `value` is
 * KubeRay's EnvironmentVariables shape given for one of the map fields of
 * ENVIRONMENT_VARIABLES_FIELDS; undefined otherwise.
 */
function environmentValuesFromField(
  type: Type,
  field: Field,
  value: unknown,
): Field | undefined {
  // Every decoded field comes here: only a map field builds the name.
  if (!isMap(field)) return undefined;
  const name = `${fullName(type)}.${field.name}`;
  if (!Object.hasOwn(ENVIRONMENT_VARIABLES_FIELDS, name)) return undefined;
  if (!isPlainObject(value)) return undefined;
  const entries = Object.entries(value);
  const isKubeRays = entries.length > 0 &&
    entries.every(([k, v]) =>
      (k === "values" || k === "valuesFrom") && (v === null || isPlainObject(v))
    ) &&
    entries.some(([, v]) => v !== null);
  return isKubeRays
    ? type.fields[ENVIRONMENT_VARIABLES_FIELDS[name]]
    : undefined;
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
 * Other spellings of fields, accepted on input only: KubeRay's clients send
 * the start parameters under the product's name, where ours say "engine".
 */
const JSON_ALIASES: Readonly<Record<string, string>> = {
  rayStartParams: "engineStartParams",
  ray_start_params: "engineStartParams",
};

function fieldByJsonKey(type: Type, key: string): Field | undefined {
  for (const field of type.fieldsArray) {
    if (
      key === field.name || key === field.protoName || key === field.jsonName
    ) {
      return field;
    }
  }
  const alias = Object.hasOwn(JSON_ALIASES, key) ? JSON_ALIASES[key] : "";
  return type.fields[alias];
}

/** The description of a violation that names an unknown JSON field. */
const UNKNOWN_FIELD = "unknown field";

/**
 * Whether a violation of messageFromJson only names a field the message
 * does not have (a client that may drop such fields instead of refusing
 * them can tell them apart).
 */
export function isUnknownField(violation: FieldViolation): boolean {
  return violation.description.startsWith(UNKNOWN_FIELD);
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

/**
 * Encodes a message as KubeRay's API server writes JSON (grpc-gateway with
 * `UseEnumNumbers: true` and without `EmitUnpopulated`): enums as numbers,
 * fields at their default value left out, proto3 `optional` fields kept
 * when set. A kept message's form is kept as messageToJson() keeps its
 * own: a list of 10,000 cached clusters was encoded anew for every
 * request, 0.7 s each.
 */
export function messageToGatewayJson(
  type: Type,
  message: Message,
): Record<string, unknown> {
  return gatewayJsonOf(type, message, true);
}

/** Gateway JSON forms of kept messages, kept as `jsonForms` keeps theirs. */
const gatewayJsonForms = new KeptForms("gatewayJson");

function gatewayJsonOf(
  type: Type,
  message: Message,
  keepable: boolean,
): Record<string, unknown> {
  return gatewayJsonForms.of(
    message,
    keepable,
    (kept) => encodeGatewayMessage(type, message, kept),
  );
}

function encodeGatewayMessage(
  type: Type,
  message: Message,
  top: boolean,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const field of type.fieldsArray) {
    const value = message[field.name];
    if (!isPopulated(field, value)) continue;
    const key = field.jsonName ?? field.name;
    if (isMap(field)) {
      const entries: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
        setOwn(entries, k, singleToGatewayJson(field, v, false));
      }
      out[key] = entries;
    } else if (field.repeated) {
      out[key] = (value as unknown[]).map((v) =>
        singleToGatewayJson(field, v, top)
      );
    } else {
      out[key] = singleToGatewayJson(field, value, false);
    }
  }
  return out;
}

function isPopulated(field: Field, value: unknown): boolean {
  if (value === undefined || value === null) return false;
  if (isMap(field)) return Object.keys(value as object).length > 0;
  if (field.repeated) return (value as unknown[]).length > 0;
  if (messageTypeOf(field) || hasPresence(field)) return true;
  const e = enumOf(field);
  if (e) return enumNumber(e, value) !== 0;
  if (value instanceof Uint8Array) return value.length > 0;
  return value !== "" && value !== 0 && value !== false;
}

function fieldMaskToJson(value: unknown): string {
  return ((value as { paths?: string[] }).paths ?? []).map(fieldMaskPathToJson)
    .join(",");
}

function singleToGatewayJson(
  field: Field,
  value: unknown,
  keepable: boolean,
): unknown {
  if (isTimestamp(field)) return formatTimestamp(value as Date);
  if (isFieldMask(field)) return fieldMaskToJson(value);
  const messageType = messageTypeOf(field);
  if (messageType) {
    return gatewayJsonOf(messageType, value as Message, keepable);
  }
  const e = enumOf(field);
  if (e) return enumNumber(e, value);
  return value;
}

function enumNumber(e: Enum, value: unknown): number {
  return typeof value === "number" ? value : e.values[value as string] ?? 0;
}

// --------------------------------------------------------- protobufjs in/out

/**
 * Converts a message decoded by protobufjs into message form. Enum numbers
 * the definition does not know are reported as violations.
 */
export function messageFromProto(
  type: Type,
  decoded: Record<string, unknown>,
  path: string,
  violations: FieldViolation[],
): Message {
  const out = emptyMessage(type);
  // protobufjs keeps the fields the definition lacks, as their bytes; a
  // request that carries one is refused, as JSON with an unknown key is,
  // rather than losing what the client meant silently.
  const unknowns = (decoded as { $unknowns?: Uint8Array[] }).$unknowns ?? [];
  for (const bytes of unknowns) {
    const number = fieldNumberOf(bytes);
    violations.push({
      field: join(path, `#${number}`),
      description: `${UNKNOWN_FIELD} number ${number} of message ${
        fullName(type)
      }`,
    });
  }
  for (const field of type.fieldsArray) {
    const value = decoded[field.name];
    if (value === undefined || value === null) continue;
    const fieldPath = join(path, field.name);
    if (isMap(field)) {
      const entries: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
        setOwn(
          entries,
          k,
          singleFromProto(
            field,
            v,
            `${fieldPath}[${JSON.stringify(k)}]`,
            violations,
          ),
        );
      }
      out[field.name] = entries;
    } else if (field.repeated) {
      out[field.name] = (value as unknown[]).map((v, i) =>
        singleFromProto(field, v, `${fieldPath}[${i}]`, violations)
      );
    } else {
      out[field.name] = singleFromProto(field, value, fieldPath, violations);
    }
  }
  return out;
}

function singleFromProto(
  field: Field,
  value: unknown,
  path: string,
  violations: FieldViolation[],
): unknown {
  if (isTimestamp(field)) {
    const { seconds, nanos } = value as { seconds: unknown; nanos: number };
    return new Date(toNumber(seconds) * 1000 + Math.floor((nanos ?? 0) / 1e6));
  }
  const messageType = messageTypeOf(field);
  if (messageType) {
    return messageFromProto(
      messageType,
      value as Record<string, unknown>,
      path,
      violations,
    );
  }
  const e = enumOf(field);
  if (e) {
    const name = e.valuesById[value as number];
    if (name === undefined) {
      const names = Object.keys(e.values).map(quote).join(", ");
      violations.push({
        field: path,
        description: `must be one of ${names}, got ${value}`,
      });
      return emptyValue(field);
    }
    return name;
  }
  if (typeof value === "object" && value !== null && "low" in value) {
    return toNumber(value);
  }
  return value;
}

/** Converts a message into an object protobufjs' `Type.fromObject` takes. */
export function messageToProto(type: Type, message: Message): Message {
  const out: Message = {};
  for (const field of type.fieldsArray) {
    const value = message[field.name];
    if (value === undefined || value === null) continue;
    if (isMap(field)) {
      const entries: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
        setOwn(entries, k, singleToProto(field, v));
      }
      out[field.name] = entries;
    } else if (field.repeated) {
      out[field.name] = (value as unknown[]).map((v) =>
        singleToProto(field, v)
      );
    } else {
      out[field.name] = singleToProto(field, value);
    }
  }
  return out;
}

function singleToProto(field: Field, value: unknown): unknown {
  if (isTimestamp(field)) {
    const ms = (value as Date).getTime();
    const seconds = Math.floor(ms / 1000);
    return { seconds, nanos: (ms - seconds * 1000) * 1e6 };
  }
  const messageType = messageTypeOf(field);
  if (messageType) return messageToProto(messageType, value as Message);
  return value;
}

/** The field number of an encoded field: its key, a varint, shifted by 3. */
function fieldNumberOf(bytes: Uint8Array): number {
  let key = 0;
  for (let i = 0, shift = 0; i < bytes.length && i < 5; i++, shift += 7) {
    key += (bytes[i] & 0x7f) * 2 ** shift;
    if ((bytes[i] & 0x80) === 0) break;
  }
  return Math.floor(key / 8);
}

function toNumber(value: unknown): number {
  if (typeof value === "number") return value;
  if (typeof value === "string") return Number(value);
  return Number(String(value));
}

// ------------------------------------------------------------------ helpers

/** Sets a map entry, even one named "__proto__", as an own property. */
function setOwn(target: Record<string, unknown>, key: string, value: unknown) {
  Object.defineProperty(target, key, {
    value,
    enumerable: true,
    writable: true,
    configurable: true,
  });
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function join(path: string, key: string): string {
  return path ? `${path}.${key}` : key;
}

function quote(text: string): string {
  return JSON.stringify(text);
}

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
