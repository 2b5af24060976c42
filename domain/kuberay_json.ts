/**
 * KubeRay's dialect of the proto3 JSON mapping, so that its clients (its
 * Python client, tools written against its API server) are served as it
 * serves them: on input, the EnvironmentVariables shape of its later API
 * and the start parameters under the product's name (in either dialect);
 * on output (with --kuberay-json), JSON as its API server writes it, the
 * start parameters under that name too, and the environment maps in its
 * EnvironmentVariables shape.
 */
import type { Enum, Field, Type } from "protobufjs";
import { KeptForms } from "./kept.ts";
import {
  enumOf,
  fieldMaskToJson,
  fullName,
  hasPresence,
  isFieldMask,
  isMap,
  isPlainObject,
  isTimestamp,
  type Message,
  messageTypeOf,
  setOwn,
} from "./message_form.ts";
import { formatTimestamp } from "./timestamps.ts";

/**
 * Map fields of environment variables that also take, as JSON, the shape
 * of KubeRay's EnvironmentVariables message, which replaced them in its
 * later API (and which its Python client sends): `{"values": {...},
 * "valuesFrom": {...}}`. The values go into the map, the valuesFrom into
 * the field named here. A map of variables named "values" and "valuesFrom"
 * is not taken for it: a variable's value is a string, never an object.
 */
const ENVIRONMENT_VARIABLES_FIELDS: Readonly<Record<string, string>> = {
  "proto.Cluster.envs": "envsValuesFrom",
  "proto.HeadGroupSpec.environment": "environmentValuesFrom",
  "proto.WorkerGroupSpec.environment": "environmentValuesFrom",
};

/**
 * The field that takes the `valuesFrom` of `value` when `value` is
 * KubeRay's EnvironmentVariables shape given for one of the map fields of
 * ENVIRONMENT_VARIABLES_FIELDS; undefined otherwise.
 */
export function environmentValuesFromField(
  type: Type,
  field: Field,
  value: unknown,
): Field | undefined {
  // Every decoded field comes here: only a map field builds the name.
  if (!isMap(field)) return undefined;
  const sibling = environmentSibling(type, field);
  if (sibling === undefined) return undefined;
  if (!isPlainObject(value)) return undefined;
  const entries = Object.entries(value);
  const isKubeRays = entries.length > 0 &&
    entries.every(([k, v]) =>
      (k === "values" || k === "valuesFrom") && (v === null || isPlainObject(v))
    ) &&
    entries.some(([, v]) => v !== null);
  return isKubeRays ? sibling : undefined;
}

/**
 * The field of `type` that holds the `valuesFrom` of its map of variables
 * `field` (ENVIRONMENT_VARIABLES_FIELDS), if `field` is one of those.
 */
export function environmentSibling(
  type: Type,
  field: Field,
): Field | undefined {
  const name = `${fullName(type)}.${field.name}`;
  return Object.hasOwn(ENVIRONMENT_VARIABLES_FIELDS, name)
    ? type.fields[ENVIRONMENT_VARIABLES_FIELDS[name]]
    : undefined;
}

/**
 * Other spellings of fields, accepted on input only: KubeRay's clients send
 * the start parameters under the product's name, where ours say "engine".
 */
const JSON_ALIASES: Readonly<Record<string, string>> = {
  rayStartParams: "engineStartParams",
  ray_start_params: "engineStartParams",
};

/** The field of `type` that `key` spells in KubeRay's way, if any. */
export function aliasedField(type: Type, key: string): Field | undefined {
  const alias = Object.hasOwn(JSON_ALIASES, key) ? JSON_ALIASES[key] : "";
  return type.fields[alias];
}

/**
 * Fields KubeRay's API server writes under the product's name, by the JSON
 * name ours have: every KubeRay client reads a group's start parameters as
 * `rayStartParams` (its Python client fails on a group without them), so
 * KubeRay's dialect writes them so. Errors keep our names: a violation
 * names a field alike on both transports, and gRPC has no JSON names.
 */
const GATEWAY_JSON_NAMES: Readonly<Record<string, string>> = {
  engineStartParams: "rayStartParams",
};

/** The key KubeRay's API server writes `field` under. */
function gatewayJsonName(field: Field): string {
  const key = field.jsonName ?? field.name;
  return Object.hasOwn(GATEWAY_JSON_NAMES, key) ? GATEWAY_JSON_NAMES[key] : key;
}

/**
 * Encodes a message as KubeRay's API server writes JSON (grpc-gateway with
 * `UseEnumNumbers: true` and without `EmitUnpopulated`): enums as numbers,
 * fields at their default value left out, proto3 `optional` fields kept
 * when set, KubeRay's names where ours say "engine" (GATEWAY_JSON_NAMES),
 * and a cluster's `envs` and a group's `environment` as its
 * EnvironmentVariables message, `{values, valuesFrom}`, with the
 * `valuesFrom` of Corral's sibling field (ENVIRONMENT_VARIABLES_FIELDS). A kept message's form is kept as messageToJson() keeps its
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
  const { siblings, siblingOf } = environmentFieldsOf(type);
  for (const field of type.fieldsArray) {
    const value = message[field.name];
    if (siblings.has(field.name)) continue;
    const sibling = siblingOf.get(field.name);
    if (sibling !== undefined) {
      const variables = environmentVariablesJson(message, field, sibling);
      if (variables !== undefined) out[gatewayJsonName(field)] = variables;
      continue;
    }
    if (!isPopulated(field, value)) continue;
    const key = gatewayJsonName(field);
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

/**
 * `type`'s environment maps and their `valuesFrom` siblings, by field
 * name: worked out once per message type (every answer's every message is
 * encoded with them).
 */
interface EnvironmentFields {
  /** The siblings' names: written within their maps, not on their own. */
  siblings: Set<string>;
  /** Each environment map's sibling, by the map's name. */
  siblingOf: Map<string, Field>;
}

const environmentFields = new WeakMap<Type, EnvironmentFields>();

function environmentFieldsOf(type: Type): EnvironmentFields {
  let fields = environmentFields.get(type);
  if (fields === undefined) {
    fields = { siblings: new Set(), siblingOf: new Map() };
    for (const field of type.fieldsArray) {
      const sibling = environmentSibling(type, field);
      if (sibling === undefined) continue;
      fields.siblings.add(sibling.name);
      fields.siblingOf.set(field.name, sibling);
    }
    environmentFields.set(type, fields);
  }
  return fields;
}

/**
 * An environment map and its `valuesFrom` sibling as KubeRay's API server
 * writes its EnvironmentVariables message: `{"values": {...},
 * "valuesFrom": {...}}`, each left out when empty, nothing when both are.
 */
function environmentVariablesJson(
  message: Message,
  field: Field,
  sibling: Field,
): Record<string, unknown> | undefined {
  const out: Record<string, unknown> = {};
  for (
    const [key, one] of [["values", field], ["valuesFrom", sibling]] as const
  ) {
    const value = message[one.name];
    if (!isPopulated(one, value)) continue;
    const entries: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
      setOwn(entries, k, singleToGatewayJson(one, v, false));
    }
    out[key] = entries;
  }
  return Object.keys(out).length > 0 ? out : undefined;
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
