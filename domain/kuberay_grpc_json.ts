/**
 * The JSON between KubeRay's current messages (proto/kuberay/, the second
 * gRPC port) and the API's own, both ways. A call on that port is read as
 * KubeRay's message, written as JSON under KubeRay's names, and read by the
 * API's JSON reader in KubeRay's dialect (codec.ts, kuberay_json.ts), so it
 * meets the handlers as the same call over HTTP would; an answer goes back
 * the same way. What the two definitions name alike passes as it is; what
 * differs in shape is carried here, by the reflection of both types, so a
 * field either definition gains needs no edit here:
 *
 * KubeRay's EnvironmentVariables (`{values, valuesFrom}`) where the API
 * has a map of variables, with the `valuesFrom` in the field the API keeps
 * them in beside it (kuberay_json.ts) when it has one. (The lists' `limit` and
 * `continue` are the API's own fields too, and pass as they are.)
 *
 * What KubeRay's message carries and the API has no field for is left in
 * the JSON, so the API's reader refuses it by name (code 3, "unknown
 * field"): a field a client sent is never dropped without a word. What an
 * answer of the API carries and KubeRay's message has no field for (Corral's
 * own: etag, ttl, expiresAt, the URLs) is left out of KubeRay's message.
 */
import type { Field, Type } from "protobufjs";
import { fieldByJsonKey } from "./codec.ts";
import type { FieldViolation } from "./errors.ts";
import { environmentSibling } from "./kuberay_json.ts";
import {
  fullName,
  isMap,
  isPlainObject,
  join,
  messageTypeOf,
  UNKNOWN_FIELD,
} from "./message_form.ts";

/** KubeRay's message of the variables that replaced v0.6.0's maps. */
const ENVIRONMENT_VARIABLES = "proto.EnvironmentVariables";

type Json = Record<string, unknown>;

/**
 * KubeRay's JSON of a message of `kuberay` as JSON the API's reader takes
 * for `api` (see above). A `valuesFrom` the API has no home for is added to
 * `violations`.
 */
export function kuberayToApiJson(
  kuberay: Type,
  api: Type,
  json: Json,
  path: string,
  violations: FieldViolation[],
): Json {
  const out: Json = {};
  for (const [key, value] of Object.entries(json)) {
    const kuberayField = fieldByJsonKey(kuberay, key);
    const apiField = fieldByJsonKey(api, key);
    if (!kuberayField || !apiField) {
      out[key] = value; // the API's reader names what it lacks
      continue;
    }
    const fieldPath = join(path, apiField.name);
    if (isEnvironmentVariables(kuberayField) && isMap(apiField)) {
      environmentToApi(
        api,
        apiField,
        key,
        value as Json,
        out,
        fieldPath,
        violations,
      );
      continue;
    }
    out[key] = eachMessage(
      kuberayField,
      apiField,
      value,
      (k, a, v, p) => kuberayToApiJson(k, a, v, p, violations),
      fieldPath,
    );
  }
  return out;
}

/**
 * KubeRay's `{values, valuesFrom}` for the API's map `field`: as it is when
 * the API's reader takes that shape there (a group's environment, whose
 * `valuesFrom` has a field of its own), else the values as the map and
 * the `valuesFrom` refused by name.
 */
function environmentToApi(
  api: Type,
  field: Field,
  key: string,
  value: Json,
  out: Json,
  path: string,
  violations: FieldViolation[],
): void {
  if (environmentSibling(api, field)) {
    out[key] = value;
    return;
  }
  if (value.values !== undefined) out[key] = value.values;
  if (value.valuesFrom !== undefined) {
    violations.push({
      field: `${path}.valuesFrom`,
      description: UNKNOWN_FIELD,
    });
  }
}

/**
 * The API's JSON (KubeRay's dialect of it, kuberay_json.ts) of a message
 * of `api` as JSON of a message of `kuberay`: only KubeRay's fields, in
 * KubeRay's shapes (see above).
 */
export function apiToKuberayJson(api: Type, kuberay: Type, json: Json): Json {
  const out: Json = {};
  for (const field of kuberay.fieldsArray) {
    const key = field.jsonName ?? field.name;
    // Its own name: the API's JSON in KubeRay's dialect says
    // `rayStartParams` too.
    const apiKey = [field.jsonName, field.name].find((name) =>
      name !== undefined && Object.hasOwn(json, name)
    );
    if (apiKey === undefined) continue;
    const apiField = fieldByJsonKey(api, apiKey);
    const value = json[apiKey];
    // KubeRay's dialect writes the variables in KubeRay's shape already.
    if (isEnvironmentVariables(field) && isEnvironmentShape(value)) {
      out[key] = value;
      continue;
    }
    if (isEnvironmentVariables(field) && apiField && isMap(apiField)) {
      const sibling = environmentSibling(api, apiField);
      const from = sibling && json[sibling.jsonName ?? sibling.name];
      out[key] = { values: value, ...(from ? { valuesFrom: from } : {}) };
      continue;
    }
    out[key] = apiField
      ? eachMessage(
        apiField,
        field,
        value,
        (a, k, v) => apiToKuberayJson(a, k, v),
        "",
      )
      : value;
  }
  return out;
}

/**
 * `value` of `from` with `convert` applied to each message it holds (the
 * value, each item, each map value), when both fields hold messages.
 */
function eachMessage(
  from: Field,
  to: Field,
  value: unknown,
  convert: (from: Type, to: Type, value: Json, path: string) => Json,
  path: string,
): unknown {
  const fromType = messageTypeOf(from);
  const toType = messageTypeOf(to);
  if (!fromType || !toType || isWellKnown(fromType)) return value;
  const one = (v: unknown, p: string) =>
    isPlainObject(v) ? convert(fromType, toType, v, p) : v;
  if (isMap(from) && isPlainObject(value)) {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [k, one(v, `${path}["${k}"]`)]),
    );
  }
  if (Array.isArray(value)) {
    return value.map((v, i) => one(v, `${path}[${i}]`));
  }
  return one(value, path);
}

/**
 * Whether `value` is KubeRay's `{values, valuesFrom}` rather than a map of
 * variables: those two keys only, each an object (a variable's value is a
 * string).
 */
function isEnvironmentShape(value: unknown): boolean {
  if (!isPlainObject(value)) return false;
  const entries = Object.entries(value);
  return entries.length > 0 &&
    entries.every(([k, v]) =>
      (k === "values" || k === "valuesFrom") && isPlainObject(v)
    );
}

function isEnvironmentVariables(field: Field): boolean {
  const type = messageTypeOf(field);
  return type !== undefined && fullName(type) === ENVIRONMENT_VARIABLES;
}

function isWellKnown(type: Type): boolean {
  return fullName(type).startsWith("google.protobuf.");
}
