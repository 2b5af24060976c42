/**
 * What a real Kubernetes API server does with a custom object and the
 * structural schema of its CRD version, as pure functions over JSON:
 *
 * - `pruneUnknownFields`: drops fields the schema does not declare
 *   (apiextensions-apiserver pkg/apiserver/schema/pruning), keeping
 *   apiVersion, kind and metadata at the root and at
 *   `x-kubernetes-embedded-resource` nodes, and everything under
 *   `x-kubernetes-preserve-unknown-fields`; then drops unknown ObjectMeta
 *   fields (schema/objectmeta coercion). Returns the dropped paths, which
 *   the server turns into `unknown field "spec.x"` warnings or, with
 *   `fieldValidation=Strict`, into a 400.
 * - `pruneNonNullableNulls` and `applyDefaults` (schema/defaulting).
 * - `validateObject`: the kube-openapi schema validator
 *   (k8s.io/kube-openapi/pkg/validation/validate) with its error messages,
 *   converted to field errors as apiextensions' kubeOpenAPIResultToFieldErrors
 *   does; embedded-resource checks; `x-kubernetes-list-type` map and set
 *   uniqueness (schema/listtype); and the two shapes of
 *   `x-kubernetes-validations` rules real CRDs use most (`self == oldSelf`
 *   and `self in [...]`). Other CEL rules are not evaluated.
 *
 * Field paths and messages are the server's: `spec.workerGroupSpecs[0].
 * groupName: Required value`, `Invalid value: "string": spec.x in body must
 * be of type integer: "string"`. Numeric formats (int32, int64, float,
 * double) are checked as kube-apiserver 1.36 checks them; older servers
 * stripped those formats and accepted any integer.
 */

// ---------------------------------------------------------------------------
// Schema

/** A node of a CRD version's openAPIV3Schema (JSONSchemaProps). */
export interface JsonSchema {
  type?: string;
  format?: string;
  nullable?: boolean;
  default?: unknown;
  enum?: unknown[];
  maximum?: number;
  exclusiveMaximum?: boolean;
  minimum?: number;
  exclusiveMinimum?: boolean;
  multipleOf?: number;
  maxLength?: number;
  minLength?: number;
  pattern?: string;
  maxItems?: number;
  minItems?: number;
  uniqueItems?: boolean;
  maxProperties?: number;
  minProperties?: number;
  required?: string[];
  items?: JsonSchema;
  properties?: Record<string, JsonSchema>;
  additionalProperties?: JsonSchema | boolean;
  allOf?: JsonSchema[];
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  not?: JsonSchema;
  "x-kubernetes-preserve-unknown-fields"?: boolean;
  "x-kubernetes-embedded-resource"?: boolean;
  "x-kubernetes-int-or-string"?: boolean;
  "x-kubernetes-list-type"?: string;
  "x-kubernetes-list-map-keys"?: string[];
  "x-kubernetes-map-type"?: string;
  "x-kubernetes-validations"?: ValidationRule[];
  [key: string]: unknown;
}

export interface ValidationRule {
  rule: string;
  message?: string;
  messageExpression?: string;
  reason?: string;
  fieldPath?: string;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The schema of a property of an object node, or of its extra keys. */
function propertySchema(
  schema: JsonSchema | undefined,
  key: string,
): JsonSchema | undefined {
  if (!schema) return undefined;
  if (schema.properties && Object.hasOwn(schema.properties, key)) {
    return schema.properties[key];
  }
  return isRecord(schema.additionalProperties)
    ? schema.additionalProperties as JsonSchema
    : undefined;
}

// ---------------------------------------------------------------------------
// Field errors (k8s.io/apimachinery/pkg/util/validation/field)

export type FieldErrorType =
  | "FieldValueRequired"
  | "FieldValueInvalid"
  | "FieldValueTypeInvalid"
  | "FieldValueNotSupported"
  | "FieldValueTooLong"
  | "FieldValueTooMany"
  | "FieldValueDuplicate"
  | "FieldValueForbidden";

/** Stands for Go's omitValue: the error body shows no value. */
export const OMIT_VALUE: unique symbol = Symbol("omitValue");

export interface FieldError {
  type: FieldErrorType;
  /** The field path; `<nil>` for errors the server reports on no field. */
  field: string;
  /** The bad value as Go would print it; OMIT_VALUE for none. */
  value: unknown;
  detail: string;
}

const TYPE_LABELS: Record<FieldErrorType, string> = {
  FieldValueRequired: "Required value",
  FieldValueInvalid: "Invalid value",
  FieldValueTypeInvalid: "Invalid value",
  FieldValueNotSupported: "Unsupported value",
  FieldValueTooLong: "Too long",
  FieldValueTooMany: "Too many",
  FieldValueDuplicate: "Duplicate value",
  FieldValueForbidden: "Forbidden",
};

/** Go's strconv.Quote, for the strings field errors show. */
export function goQuote(text: string): string {
  let out = '"';
  for (const char of text) {
    const code = char.codePointAt(0)!;
    if (char === '"' || char === "\\") out += `\\${char}`;
    else if (char === "\n") out += "\\n";
    else if (char === "\t") out += "\\t";
    else if (char === "\r") out += "\\r";
    else if (char === "\x07") out += "\\a";
    else if (char === "\b") out += "\\b";
    else if (char === "\f") out += "\\f";
    else if (char === "\v") out += "\\v";
    else if (code < 0x20 || code === 0x7f) {
      out += `\\x${code.toString(16).padStart(2, "0")}`;
    } else if (code >= 0x80 && code < 0xa0) {
      out += `\\u${code.toString(16).padStart(4, "0")}`;
    } else out += char;
  }
  return `${out}"`;
}

/** Go's %v of a float64 (strconv 'g' with the shortest representation). */
function goFloat(value: number): string {
  if (!Number.isFinite(value)) {
    return Number.isNaN(value) ? "NaN" : value > 0 ? "+Inf" : "-Inf";
  }
  if (value === 0) return "0";
  const [mantissa, exponentText] = value.toExponential().split("e");
  const exponent = Number(exponentText);
  if (exponent < -4 || exponent >= 21) {
    const sign = exponent < 0 ? "-" : "+";
    return `${mantissa}e${sign}${String(Math.abs(exponent)).padStart(2, "0")}`;
  }
  return String(value);
}

/** Go's %#v of a value decoded from JSON (map[string]interface{} etc.). */
function goSyntax(value: unknown): string {
  if (value === null || value === undefined) return "interface {}(nil)";
  if (typeof value === "string") return goQuote(value);
  if (typeof value === "boolean") return String(value);
  if (typeof value === "number") {
    return Number.isInteger(value) ? String(value) : goFloat(value);
  }
  if (Array.isArray(value)) {
    return `[]interface {}{${value.map(goSyntax).join(", ")}}`;
  }
  if (isRecord(value)) {
    const entries = Object.keys(value).sort().map((k) =>
      `${goQuote(k)}:${goSyntax(value[k])}`
    );
    return `map[string]interface {}{${entries.join(", ")}}`;
  }
  return String(value);
}

/** A value as field.Error prints it: %v for scalars, %q strings, %#v else. */
export function goValue(value: unknown): string {
  if (value === null || value === undefined) return "null";
  if (typeof value === "string") return goQuote(value);
  if (typeof value === "boolean") return String(value);
  if (typeof value === "number") {
    return Number.isInteger(value) ? String(value) : goFloat(value);
  }
  return goSyntax(value);
}

/** field.Error.ErrorBody(): the message without the field path. */
export function errorBody(error: FieldError): string {
  const label = TYPE_LABELS[error.type];
  const valueless = error.type === "FieldValueRequired" ||
    error.type === "FieldValueForbidden" ||
    error.type === "FieldValueTooLong" || error.value === OMIT_VALUE;
  let body = valueless ? label : `${label}: ${goValue(error.value)}`;
  if (error.detail) body += `: ${error.detail}`;
  return body;
}

export function requiredError(field: string, detail = ""): FieldError {
  return { type: "FieldValueRequired", field, value: "", detail };
}

export function invalidError(
  field: string,
  value: unknown,
  detail: string,
): FieldError {
  return { type: "FieldValueInvalid", field, value, detail };
}

function typeInvalidError(
  field: string,
  value: unknown,
  detail: string,
): FieldError {
  return { type: "FieldValueTypeInvalid", field, value, detail };
}

function notSupportedError(
  field: string,
  value: unknown,
  supported: string[],
): FieldError {
  return {
    type: "FieldValueNotSupported",
    field,
    value,
    detail: supported.length > 0
      ? `supported values: ${supported.map(goQuote).join(", ")}`
      : "",
  };
}

function tooLongError(field: string, max: number): FieldError {
  return {
    type: "FieldValueTooLong",
    field,
    value: OMIT_VALUE,
    detail: max >= 0
      ? `may not be more than ${max} ${max === 1 ? "byte" : "bytes"}`
      : "value is too long",
  };
}

function tooManyError(field: string, actual: number, max: number): FieldError {
  return {
    type: "FieldValueTooMany",
    field,
    value: actual >= 0 ? actual : OMIT_VALUE,
    detail: max >= 0 ? `must have at most ${max} items` : "has too many items",
  };
}

function duplicateError(field: string, value: unknown): FieldError {
  return { type: "FieldValueDuplicate", field, value, detail: "" };
}

// ---------------------------------------------------------------------------
// Pruning, null pruning and defaulting

const META_FIELDS = new Set(["apiVersion", "kind", "metadata"]);

/** The ObjectMeta fields of metav1.ObjectMeta; others are dropped. */
const OBJECT_META_FIELDS = new Set([
  "name",
  "generateName",
  "namespace",
  "selfLink",
  "uid",
  "resourceVersion",
  "generation",
  "creationTimestamp",
  "deletionTimestamp",
  "deletionGracePeriodSeconds",
  "labels",
  "annotations",
  "ownerReferences",
  "finalizers",
  "managedFields",
]);

function joinPath(parent: string, key: string): string {
  return parent === "" ? key : `${parent}.${key}`;
}

function prune(
  value: unknown,
  schema: JsonSchema | undefined,
  path: string,
  embedded: boolean,
  pruned: string[],
): void {
  if (schema?.["x-kubernetes-preserve-unknown-fields"]) {
    skipPrune(value, schema, path, embedded, pruned);
    return;
  }
  if (Array.isArray(value)) {
    value.forEach((item, i) =>
      prune(item, schema?.items, `${path}[${i}]`, false, pruned)
    );
    return;
  }
  if (!isRecord(value)) return;
  for (const key of Object.keys(value)) {
    if (embedded && META_FIELDS.has(key)) continue;
    const childPath = joinPath(path, key);
    if (schema?.properties && Object.hasOwn(schema.properties, key)) {
      prune(
        value[key],
        schema.properties[key],
        childPath,
        isEmbedded(schema.properties[key]),
        pruned,
      );
    } else if (schema && schema.additionalProperties !== undefined) {
      const extra = isRecord(schema.additionalProperties)
        ? schema.additionalProperties as JsonSchema
        : undefined;
      prune(value[key], extra, childPath, isEmbedded(extra), pruned);
    } else {
      pruned.push(childPath);
      delete value[key];
    }
  }
}

function skipPrune(
  value: unknown,
  schema: JsonSchema,
  path: string,
  embedded: boolean,
  pruned: string[],
): void {
  if (Array.isArray(value)) {
    value.forEach((item, i) => {
      if (schema.items) {
        prune(
          item,
          schema.items,
          `${path}[${i}]`,
          isEmbedded(schema.items),
          pruned,
        );
      }
    });
    return;
  }
  if (!isRecord(value)) return;
  for (const key of Object.keys(value)) {
    if (embedded && META_FIELDS.has(key)) continue;
    const child = propertySchema(schema, key);
    if (child) {
      prune(value[key], child, joinPath(path, key), isEmbedded(child), pruned);
    }
  }
}

function isEmbedded(schema: JsonSchema | undefined): boolean {
  return schema?.["x-kubernetes-embedded-resource"] === true;
}

/** Drops metadata fields metav1.ObjectMeta does not have. */
function coerceMetadata(
  object: Record<string, unknown>,
  path: string,
  pruned: string[],
): void {
  const metadata = object.metadata;
  if (!isRecord(metadata)) return;
  for (const key of Object.keys(metadata)) {
    if (!OBJECT_META_FIELDS.has(key)) {
      pruned.push(joinPath(joinPath(path, "metadata"), key));
      delete metadata[key];
    }
  }
}

/** Metadata coercion of every embedded resource, as schema/objectmeta does. */
function coerceEmbedded(
  value: unknown,
  schema: JsonSchema | undefined,
  path: string,
  pruned: string[],
): void {
  if (!schema) return;
  if (Array.isArray(value)) {
    value.forEach((item, i) =>
      coerceEmbedded(item, schema.items, `${path}[${i}]`, pruned)
    );
    return;
  }
  if (!isRecord(value)) return;
  if (isEmbedded(schema)) coerceMetadata(value, path, pruned);
  for (const key of Object.keys(value)) {
    if (isEmbedded(schema) && META_FIELDS.has(key)) continue;
    coerceEmbedded(
      value[key],
      propertySchema(schema, key),
      joinPath(path, key),
      pruned,
    );
  }
}

/**
 * Prunes `object` (a whole custom resource, changed in place) as the server
 * decodes it: unknown fields by the schema, unknown ObjectMeta fields of
 * the root and of embedded resources. Returns the dropped paths, sorted.
 */
export function pruneUnknownFields(
  object: Record<string, unknown>,
  schema: JsonSchema,
): string[] {
  const pruned: string[] = [];
  prune(object, schema, "", true, pruned);
  coerceMetadata(object, "", pruned);
  coerceEmbedded(object, schema, "", pruned);
  return [...new Set(pruned)].sort();
}

/** Removes nulls the schema does not allow and has no default for. */
export function pruneNonNullableNulls(
  value: unknown,
  schema: JsonSchema | undefined,
): void {
  if (Array.isArray(value)) {
    for (const item of value) pruneNonNullableNulls(item, schema?.items);
    return;
  }
  if (!isRecord(value)) return;
  for (const key of Object.keys(value)) {
    const child = propertySchema(schema, key);
    if (
      value[key] === null && child && !child.nullable &&
      child.default === undefined
    ) {
      delete value[key];
    } else {
      pruneNonNullableNulls(value[key], child);
    }
  }
}

function isNonNullableNull(value: unknown, schema: JsonSchema | undefined) {
  return value === null && schema !== undefined && !schema.nullable &&
    schema.default !== undefined;
}

/** Applies the schema's defaults (schema/defaulting Default). */
export function applyDefaults(
  value: unknown,
  schema: JsonSchema | undefined,
): void {
  if (!schema) return;
  if (Array.isArray(value)) {
    value.forEach((item, i) => {
      if (isNonNullableNull(item, schema.items)) {
        value[i] = structuredClone(schema.items!.default);
      }
      applyDefaults(value[i], schema.items);
    });
    return;
  }
  if (!isRecord(value)) return;
  for (const [key, property] of Object.entries(schema.properties ?? {})) {
    if (property.default === undefined) continue;
    if (!Object.hasOwn(value, key) || isNonNullableNull(value[key], property)) {
      value[key] = structuredClone(property.default);
    }
  }
  for (const key of Object.keys(value)) {
    if (schema.properties && Object.hasOwn(schema.properties, key)) {
      applyDefaults(value[key], schema.properties[key]);
    } else if (isRecord(schema.additionalProperties)) {
      const extra = schema.additionalProperties as JsonSchema;
      if (isNonNullableNull(value[key], extra)) {
        value[key] = structuredClone(extra.default);
      }
      applyDefaults(value[key], extra);
    }
  }
}

// ---------------------------------------------------------------------------
// kube-openapi schema validation

type OpenApiCode =
  | "invalidType"
  | "required"
  | "tooLong"
  | "tooShort"
  | "pattern"
  | "enum"
  | "multipleOf"
  | "max"
  | "min"
  | "unique"
  | "maxItems"
  | "minItems"
  | "tooFewProperties"
  | "tooManyProperties"
  | "unallowedProperty";

/**
 * An error of the validator: an errors.Validation (with a code) or a plain
 * error (anyOf failures, numeric range checks), which the server reports on
 * no field.
 */
interface OpenApiError {
  code?: OpenApiCode;
  name: string;
  value?: unknown;
  values?: unknown[];
  valid?: number;
  message: string;
}

interface Result {
  errors: OpenApiError[];
  matchCount: number;
}

/** The string formats apiextensions keeps, and the numeric ones (1.36). */
const STRING_FORMATS = new Set([
  "bsonobjectid",
  "uri",
  "email",
  "hostname",
  "ipv4",
  "ipv6",
  "cidr",
  "mac",
  "uuid",
  "uuid3",
  "uuid4",
  "uuid5",
  "isbn",
  "isbn10",
  "isbn13",
  "creditcard",
  "ssn",
  "hexcolor",
  "rgbcolor",
  "byte",
  "password",
  "date",
  "duration",
  "datetime",
  "date-time",
]);
const INTEGER_FORMATS = new Set(["int32", "int64"]);
const NUMBER_FORMATS = new Set(["float", "double"]);

/** The format the validator sees: unsupported ones are stripped. */
function effectiveFormat(schema: JsonSchema): string {
  const format = schema.format ?? "";
  if (format === "") return "";
  if (schema.type === "string" && STRING_FORMATS.has(format)) return format;
  if (schema.type === "integer" && INTEGER_FORMATS.has(format)) return format;
  if (schema.type === "number" && NUMBER_FORMATS.has(format)) return format;
  return "";
}

function schemaTypes(schema: JsonSchema): string[] {
  if (schema["x-kubernetes-int-or-string"]) return ["integer", "string"];
  return schema.type ? [schema.type] : [];
}

type Kind = "bool" | "string" | "int" | "float" | "slice" | "map";

function kindOf(value: unknown): Kind {
  if (typeof value === "boolean") return "bool";
  if (typeof value === "string") return "string";
  if (typeof value === "number") {
    return Number.isInteger(value) ? "int" : "float";
  }
  if (Array.isArray(value)) return "slice";
  return "map";
}

/** The JSON schema type and format Go infers from a decoded value. */
function schemaInfo(kind: Kind): [string, string] {
  switch (kind) {
    case "bool":
      return ["boolean", ""];
    case "string":
      return ["string", ""];
    case "int":
      return ["integer", "int64"];
    case "float":
      return ["number", "float64"];
    case "slice":
      return ["array", ""];
    case "map":
      return ["object", ""];
  }
}

function invalidType(
  path: string,
  typeName: string,
  value: string,
): OpenApiError {
  return {
    code: "invalidType",
    name: path,
    value,
    message: `${path} in body must be of type ${typeName}: ${goQuote(value)}`,
  };
}

function checkType(
  schema: JsonSchema,
  data: unknown,
  path: string,
): OpenApiError | undefined {
  const types = schemaTypes(schema);
  const format = effectiveFormat(schema);
  if (data === null) {
    if (types.length > 0 && !types.includes("null") && !schema.nullable) {
      return invalidType(path, types.join(","), "null");
    }
    return undefined;
  }
  if (types.length === 0 && format === "") return undefined;
  const kind = kindOf(data);
  const [schType, inferred] = schemaInfo(kind);
  const isFloatInt = schType === "number" && Number.isInteger(data) &&
    types.includes("integer");
  const isIntFloat = schType === "integer" && types.includes("number");
  if (
    kind !== "string" && kind !== "slice" && format !== "" &&
    !(types.includes(schType) || inferred === format || isFloatInt ||
      isIntFloat)
  ) {
    return invalidType(path, format, inferred);
  }
  if (
    !(types.includes("number") || types.includes("integer")) &&
    format !== "" && (kind === "string" || kind === "slice")
  ) {
    return undefined;
  }
  if (!(types.includes(schType) || isFloatInt || isIntFloat)) {
    return invalidType(path, types.join(","), schType);
  }
  return undefined;
}

const regexCache = new Map<string, RegExp | null>();

/** Compiles an RE2 pattern as a JavaScript RegExp (null when it cannot). */
function compilePattern(pattern: string): RegExp | null {
  if (!regexCache.has(pattern)) {
    let compiled: RegExp | null;
    try {
      compiled = new RegExp(pattern, "u");
    } catch {
      try {
        compiled = new RegExp(pattern);
      } catch {
        compiled = null;
      }
    }
    regexCache.set(pattern, compiled);
  }
  return regexCache.get(pattern)!;
}

const FORMAT_CHECKS: Record<string, (value: string) => boolean> = {
  "date-time": (v) =>
    /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?([Zz]|[+-]\d{2}:?\d{2})?$/
      .test(v),
  datetime: (v) => FORMAT_CHECKS["date-time"](v),
  date: (v) => /^\d{4}-\d{2}-\d{2}$/.test(v),
  byte: (v) => /^[A-Za-z0-9+/]*={0,2}$/.test(v) && v.length % 4 === 0,
  uuid: (v) =>
    /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i.test(
      v,
    ),
  uuid3: (v) => FORMAT_CHECKS.uuid(v),
  uuid4: (v) => FORMAT_CHECKS.uuid(v),
  uuid5: (v) => FORMAT_CHECKS.uuid(v),
  ipv4: (v) =>
    /^((25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/
      .test(v),
  ipv6: (v) => v.includes(":") && /^[0-9a-fA-F:.]+$/.test(v),
  cidr: (v) => {
    const [ip, bits, ...rest] = v.split("/");
    return rest.length === 0 && /^\d{1,3}$/.test(bits ?? "") &&
      (FORMAT_CHECKS.ipv4(ip) || FORMAT_CHECKS.ipv6(ip));
  },
  mac: (v) => /^([0-9a-fA-F]{2}[:-]){5}[0-9a-fA-F]{2}$/.test(v),
  hostname: (v) =>
    v.length <= 255 &&
    /^([a-zA-Z0-9]([-a-zA-Z0-9]{0,61}[a-zA-Z0-9])?)(\.[a-zA-Z0-9]([-a-zA-Z0-9]{0,61}[a-zA-Z0-9])?)*\.?$/
      .test(v),
  email: (v) => /^[^@\s]+@[^@\s]+$/.test(v),
  uri: (v) => /^[a-zA-Z][a-zA-Z0-9+.-]*:/.test(v),
  duration: (v) => /^(\d+(\.\d+)?\s*(ns|us|µs|ms|s|m|h|d|w)\s*)+$/.test(v),
};

function checkString(
  schema: JsonSchema,
  data: string,
  path: string,
): OpenApiError | undefined {
  const length = [...data].length;
  if (schema.maxLength !== undefined && length > schema.maxLength) {
    return {
      code: "tooLong",
      name: path,
      value: data,
      valid: schema.maxLength,
      message:
        `${path} in body should be at most ${schema.maxLength} chars long`,
    };
  }
  if (schema.minLength !== undefined && length < schema.minLength) {
    return {
      code: "tooShort",
      name: path,
      value: data,
      valid: schema.minLength,
      message:
        `${path} in body should be at least ${schema.minLength} chars long`,
    };
  }
  if (schema.pattern) {
    const regex = compilePattern(schema.pattern);
    if (regex && !regex.test(data)) {
      return {
        code: "pattern",
        name: path,
        value: data,
        message: `${path} in body should match '${schema.pattern}'`,
      };
    }
  }
  return undefined;
}

const INT32_MIN = -(2 ** 31);
const INT32_MAX = 2 ** 31 - 1;
const INT64_LIMIT = 2 ** 63;
const FLOAT32_MAX = 3.4028234663852886e38;

/** IsValueValidAgainstRange: a plain error, reported on no field. */
function checkRange(
  schema: JsonSchema,
  data: number,
  path: string,
): OpenApiError | undefined {
  const type = schema.type ?? "";
  const format = effectiveFormat(schema);
  let fits = true;
  if (type === "integer") {
    if (format === "int32") {
      fits = Number.isInteger(data) && data >= INT32_MIN && data <= INT32_MAX;
    } else {
      fits = Number.isInteger(data) && data >= -INT64_LIMIT &&
        data < INT64_LIMIT;
    }
  } else if (format === "float") {
    fits = Math.abs(data) <= FLOAT32_MAX;
  }
  if (fits) return undefined;
  const message = format === ""
    ? `Checked value must be of type ${type} (default format) in ${path}`
    : `Checked value must be of type ${type} with format ${format} in ${path}`;
  return { name: path, message };
}

function checkNumber(
  schema: JsonSchema,
  data: number,
  path: string,
): OpenApiError[] {
  const errors: OpenApiError[] = [];
  if (schema.type === "integer" || schema.type === "number") {
    const range = checkRange(schema, data, path);
    if (range) errors.push(range);
  }
  if (schema.multipleOf !== undefined && schema.multipleOf > 0) {
    const quotient = data / schema.multipleOf;
    if (!Number.isInteger(quotient)) {
      errors.push({
        code: "multipleOf",
        name: path,
        value: data,
        message: `${path} in body should be a multiple of ${
          goValue(schema.multipleOf)
        }`,
      });
    }
  }
  if (schema.maximum !== undefined) {
    const max = Number.isInteger(data)
      ? Math.trunc(schema.maximum)
      : schema.maximum;
    const exceeded = schema.exclusiveMaximum ? data >= max : data > max;
    if (exceeded) {
      errors.push({
        code: "max",
        name: path,
        value: data,
        message: `${path} in body should be less than ${
          schema.exclusiveMaximum ? "" : "or equal to "
        }${goValue(max)}`,
      });
    }
  }
  if (schema.minimum !== undefined) {
    const min = Number.isInteger(data)
      ? Math.trunc(schema.minimum)
      : schema.minimum;
    const below = schema.exclusiveMinimum ? data <= min : data < min;
    if (below) {
      errors.push({
        code: "min",
        name: path,
        value: data,
        message: `${path} in body should be greater than ${
          schema.exclusiveMinimum ? "" : "or equal to "
        }${goValue(min)}`,
      });
    }
  }
  return errors;
}

function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b)) {
    return a.length === b.length && a.every((x, i) => jsonEqual(x, b[i]));
  }
  if (isRecord(a) && isRecord(b)) {
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length &&
      keys.every((k) => Object.hasOwn(b, k) && jsonEqual(a[k], b[k]));
  }
  return false;
}

function checkEnum(
  schema: JsonSchema,
  data: unknown,
  path: string,
): OpenApiError | undefined {
  const values = schema.enum;
  if (!values || values.length === 0) return undefined;
  if (data !== null && values.some((v) => v !== null && jsonEqual(data, v))) {
    return undefined;
  }
  return {
    code: "enum",
    name: path,
    value: data,
    values,
    message: `${path} in body should be one of [${
      values.map((v) => typeof v === "string" ? v : JSON.stringify(v)).join(
        " ",
      )
    }]`,
  };
}

function checkSlice(
  schema: JsonSchema,
  data: unknown[],
  path: string,
  result: Result,
): void {
  if (schema.items) {
    data.forEach((item, i) =>
      merge(result, validate(schema.items!, item, `${path}[${i}]`))
    );
  }
  if (schema.minItems !== undefined && data.length < schema.minItems) {
    result.errors.push({
      code: "minItems",
      name: path,
      value: data.length,
      valid: schema.minItems,
      message: `${path} in body should have at least ${schema.minItems} items`,
    });
  }
  if (schema.maxItems !== undefined && data.length > schema.maxItems) {
    result.errors.push({
      code: "maxItems",
      name: path,
      value: data.length,
      valid: schema.maxItems,
      message: `${path} in body should have at most ${schema.maxItems} items`,
    });
  }
  if (schema.uniqueItems) {
    const duplicate = data.some((item, i) =>
      data.slice(0, i).some((other) => jsonEqual(item, other))
    );
    if (duplicate) {
      result.errors.push({
        code: "unique",
        name: path,
        message: `${path} in body shouldn't contain duplicates`,
      });
    }
  }
}

function checkObject(
  schema: JsonSchema,
  data: Record<string, unknown>,
  path: string,
  result: Result,
): void {
  const size = Object.keys(data).length;
  if (schema.minProperties !== undefined && size < schema.minProperties) {
    result.errors.push({
      code: "tooFewProperties",
      name: path,
      value: size,
      valid: schema.minProperties,
      message:
        `${path} in body should have at least ${schema.minProperties} properties`,
    });
    return;
  }
  if (schema.maxProperties !== undefined && size > schema.maxProperties) {
    result.errors.push({
      code: "tooManyProperties",
      name: path,
      value: size,
      valid: schema.maxProperties,
      message:
        `${path} in body should have at most ${schema.maxProperties} properties`,
    });
    return;
  }
  const properties = schema.properties ?? {};
  if (schema.additionalProperties === false) {
    for (const key of Object.keys(data)) {
      if (!Object.hasOwn(properties, key)) {
        result.errors.push({
          code: "unallowedProperty",
          name: path,
          value: key,
          message: `${path}.${key} in body is a forbidden property`,
        });
      }
    }
  } else if (isRecord(schema.additionalProperties)) {
    const extra = schema.additionalProperties as JsonSchema;
    for (const key of Object.keys(data)) {
      if (!Object.hasOwn(properties, key)) {
        merge(result, validate(extra, data[key], `${path}.${key}`));
      }
    }
  }
  for (const [name, property] of Object.entries(properties)) {
    if (Object.hasOwn(data, name)) {
      merge(
        result,
        validate(property, data[name], path === "" ? name : `${path}.${name}`),
      );
    }
  }
  for (const name of schema.required ?? []) {
    if (!Object.hasOwn(data, name)) {
      result.errors.push({
        code: "required",
        name: `${path}.${name}`,
        message: `${path}.${name} in body is required`,
      });
    }
  }
}

function merge(into: Result, from: Result): void {
  into.errors.push(...from.errors);
  into.matchCount += from.matchCount;
}

function checkCombinators(
  schema: JsonSchema,
  data: unknown,
  path: string,
  result: Result,
): void {
  if (schema.anyOf?.length) {
    let best: Result | undefined;
    let succeeded = false;
    for (const alternative of schema.anyOf) {
      const attempt = validate(alternative, data, path);
      if (attempt.errors.length === 0) {
        succeeded = true;
        best = undefined;
        break;
      }
      if (!best || attempt.matchCount > best.matchCount) best = attempt;
    }
    if (!succeeded) {
      result.errors.push({
        name: path,
        message: `${path} must validate at least one schema (anyOf)`,
      });
    }
    if (best) merge(result, best);
  }
  if (schema.oneOf?.length) {
    let best: Result | undefined;
    let valid = 0;
    for (const alternative of schema.oneOf) {
      const attempt = validate(alternative, data, path);
      if (attempt.errors.length === 0) {
        valid++;
        best = undefined;
        continue;
      }
      if (valid === 0 && (!best || attempt.matchCount > best.matchCount)) {
        best = attempt;
      }
    }
    if (valid !== 1) {
      result.errors.push({
        name: path,
        message: `${path} must validate one and only one schema (oneOf). ${
          valid === 0 ? "Found none valid" : `Found ${valid} valid alternatives`
        }`,
      });
      if (best) merge(result, best);
    }
  }
  if (schema.allOf?.length) {
    let valid = 0;
    for (const part of schema.allOf) {
      const attempt = validate(part, data, path);
      if (attempt.errors.length === 0) valid++;
      merge(result, attempt);
    }
    if (valid !== schema.allOf.length) {
      result.errors.push({
        name: path,
        message: `${path} must validate all the schemas (allOf)${
          valid === 0 ? ". None validated" : ""
        }`,
      });
    }
  }
  if (schema.not) {
    if (validate(schema.not, data, path).errors.length === 0) {
      result.errors.push({
        name: path,
        message: `${path} must not validate the schema (not)`,
      });
    }
  }
}

/** kube-openapi's SchemaValidator.Validate, in its validator order. */
function validate(schema: JsonSchema, data: unknown, path: string): Result {
  const result: Result = { errors: [], matchCount: 0 };
  if (data === null || data === undefined) {
    const typeError = checkType(schema, null, path);
    if (typeError) result.errors.push(typeError);
    const enumError = checkEnum(schema, null, path);
    if (enumError) result.errors.push(enumError);
    return result;
  }
  const kind = kindOf(data);
  const run = (errors: (OpenApiError | undefined)[]) => {
    result.matchCount++;
    for (const error of errors) if (error) result.errors.push(error);
  };
  const format = effectiveFormat(schema);
  if (schemaTypes(schema).length > 0 || format !== "") {
    run([checkType(schema, data, path)]);
  }
  checkCombinators(schema, data, path, result);
  result.matchCount++;
  if (kind === "string") {
    run([checkString(schema, data as string, path)]);
    const check = FORMAT_CHECKS[format];
    if (check && !check(data as string)) {
      run([invalidType(path, format, data as string)]);
    }
  }
  if (kind === "int" || kind === "float") {
    run(checkNumber(schema, data as number, path));
  }
  if (kind === "slice") {
    checkSlice(schema, data as unknown[], path, result);
    result.matchCount++;
  }
  run([checkEnum(schema, data, path)]);
  if (kind === "map") {
    checkObject(schema, data as Record<string, unknown>, path, result);
    result.matchCount++;
  }
  result.matchCount++;
  return result;
}

/** kubeOpenAPIResultToFieldErrors, with a nil root path. */
function toFieldErrors(errors: OpenApiError[]): FieldError[] {
  return errors.map((error) => {
    if (error.code === undefined) {
      return invalidError("<nil>", "", error.message);
    }
    const field = error.name !== "" && error.name !== "."
      ? error.name.replace(/^\./, "")
      : "<nil>";
    const value = error.value ?? "";
    switch (error.code) {
      case "required":
        return requiredError(field);
      case "enum":
        return notSupportedError(
          field,
          error.value ?? null,
          (error.values ?? []).map((v) =>
            typeof v === "string" ? v : JSON.stringify(v)
          ),
        );
      case "tooLong":
        return tooLongError(field, error.valid ?? -1);
      case "maxItems":
      case "tooManyProperties":
        return tooManyError(
          field,
          typeof error.value === "number" ? error.value : -1,
          error.valid ?? -1,
        );
      case "invalidType":
        return typeInvalidError(field, value, error.message);
      default:
        return invalidError(field, value, error.message);
    }
  });
}

// ---------------------------------------------------------------------------
// Embedded resources, list types and validation rules

function validateEmbeddedResources(
  value: unknown,
  schema: JsonSchema | undefined,
  path: string,
  errors: FieldError[],
): void {
  if (!schema) return;
  if (Array.isArray(value)) {
    value.forEach((item, i) =>
      validateEmbeddedResources(item, schema.items, `${path}[${i}]`, errors)
    );
    return;
  }
  if (!isRecord(value)) return;
  if (isEmbedded(schema)) {
    for (const key of ["apiVersion", "kind"]) {
      const child = joinPath(path, key);
      if (!Object.hasOwn(value, key)) {
        errors.push(requiredError(child, "must not be empty"));
      } else if (typeof value[key] !== "string") {
        errors.push(invalidError(child, value[key], "must be a string"));
      } else if (value[key] === "") {
        errors.push(invalidError(child, "", "must not be empty"));
      }
    }
  }
  for (const key of Object.keys(value)) {
    if (isEmbedded(schema) && META_FIELDS.has(key)) continue;
    validateEmbeddedResources(
      value[key],
      propertySchema(schema, key),
      joinPath(path, key),
      errors,
    );
  }
}

/** x-kubernetes-list-type map and set invariants (schema/listtype). */
function validateListTypes(
  value: unknown,
  schema: JsonSchema | undefined,
  path: string,
  errors: FieldError[],
): void {
  if (!schema) return;
  if (Array.isArray(value)) {
    const listType = schema["x-kubernetes-list-type"];
    if (listType === "set") {
      value.forEach((item, i) => {
        if (value.slice(0, i).some((other) => jsonEqual(item, other))) {
          errors.push(duplicateError(`${path}[${i}]`, item));
        }
      });
    } else if (listType === "map") {
      const keyNames = schema["x-kubernetes-list-map-keys"] ?? [];
      const seen: Record<string, unknown>[] = [];
      value.forEach((item, i) => {
        if (!isRecord(item)) {
          errors.push(
            invalidError(
              `${path}[${i}]`,
              item,
              "must be an object for an array of list-type map",
            ),
          );
          return;
        }
        const keys: Record<string, unknown> = {};
        let complete = true;
        for (const name of keyNames) {
          if (Object.hasOwn(item, name)) {
            keys[name] = item[name];
          } else if (schema.items?.properties?.[name]?.default !== undefined) {
            keys[name] = schema.items.properties[name].default;
          } else {
            errors.push(requiredError(`${path}[${i}].${name}`));
            complete = false;
          }
        }
        if (!complete) return;
        if (seen.some((other) => jsonEqual(other, keys))) {
          errors.push(duplicateError(`${path}[${i}]`, keys));
        }
        seen.push(keys);
      });
    }
    value.forEach((item, i) =>
      validateListTypes(item, schema.items, `${path}[${i}]`, errors)
    );
    return;
  }
  if (!isRecord(value)) return;
  for (const key of Object.keys(value)) {
    validateListTypes(
      value[key],
      propertySchema(schema, key),
      joinPath(path, key),
      errors,
    );
  }
}

/** The CEL type name the server reports as a rule failure's value. */
function celTypeName(schema: JsonSchema): string {
  if (schema["x-kubernetes-int-or-string"]) return "int-or-string";
  return schema.type ?? "any";
}

const IN_LIST = /^self\s+in\s+\[(.*)\]$/s;

/** `'a', "b"` -> ["a", "b"]; undefined when not a list of string literals. */
function stringLiterals(list: string): string[] | undefined {
  const items: string[] = [];
  let rest = list.trim();
  if (rest === "") return items;
  for (;;) {
    const match = /^(?:'((?:[^'\\]|\\.)*)'|"((?:[^"\\]|\\.)*)")\s*/.exec(rest);
    if (!match) return undefined;
    items.push((match[1] ?? match[2]).replace(/\\(.)/g, "$1"));
    rest = rest.slice(match[0].length);
    if (rest === "") return items;
    if (!rest.startsWith(",")) return undefined;
    rest = rest.slice(1).trimStart();
  }
}

/**
 * Evaluates a rule the stand-in understands; true, false, or undefined for
 * a rule it does not (left unevaluated, i.e. allowed).
 */
function evaluateRule(
  rule: string,
  self: unknown,
  old: { value: unknown } | undefined,
): boolean | undefined {
  const trimmed = rule.trim();
  if (/^self\s*==\s*oldSelf$/.test(trimmed)) {
    return old === undefined ? true : jsonEqual(self, old.value);
  }
  const inList = IN_LIST.exec(trimmed);
  if (inList) {
    const literals = stringLiterals(inList[1]);
    if (literals === undefined) return undefined;
    return typeof self === "string" && literals.includes(self);
  }
  return undefined;
}

function validateRules(
  value: unknown,
  old: { value: unknown } | undefined,
  schema: JsonSchema | undefined,
  path: string,
  errors: FieldError[],
): void {
  if (!schema || value === undefined) return;
  for (const rule of schema["x-kubernetes-validations"] ?? []) {
    const usesOld = /\boldSelf\b/.test(rule.rule);
    if (usesOld && old === undefined) continue;
    if (evaluateRule(rule.rule, value, old) === false) {
      const field = rule.fieldPath
        ? joinPath(path, rule.fieldPath.replace(/^\./, ""))
        : path;
      const detail = rule.message ?? `failed rule: ${rule.rule.trim()}`;
      if (rule.reason === "FieldValueRequired") {
        errors.push(requiredError(field, detail));
      } else if (rule.reason === "FieldValueForbidden") {
        errors.push({
          type: "FieldValueForbidden",
          field,
          value: "",
          detail,
        });
      } else {
        errors.push(invalidError(field, celTypeName(schema), detail));
      }
    }
  }
  if (Array.isArray(value)) {
    // Items correlate with old items only for list-type map; not modelled.
    value.forEach((item, i) =>
      validateRules(item, undefined, schema.items, `${path}[${i}]`, errors)
    );
    return;
  }
  if (!isRecord(value)) return;
  const oldRecord = old && isRecord(old.value) ? old.value : undefined;
  for (const key of Object.keys(value)) {
    const child = propertySchema(schema, key);
    const oldChild = oldRecord && Object.hasOwn(oldRecord, key)
      ? { value: oldRecord[key] }
      : undefined;
    validateRules(value[key], oldChild, child, joinPath(path, key), errors);
  }
}

/**
 * Every field error the server's custom resource strategy finds in
 * `object` beyond its ObjectMeta rules: the schema, embedded resources,
 * list types, and (on update, with `old`) transition rules.
 */
export function validateObject(
  object: Record<string, unknown>,
  schema: JsonSchema,
  old?: Record<string, unknown>,
): FieldError[] {
  const errors = toFieldErrors(validate(schema, object, "").errors);
  const embeddedRoot: JsonSchema = {
    ...schema,
    "x-kubernetes-embedded-resource": false,
  };
  validateEmbeddedResources(object, embeddedRoot, "", errors);
  validateListTypes(object, schema, "", errors);
  validateRules(object, old ? { value: old } : undefined, schema, "", errors);
  return errors;
}

/** The problems that keep a CRD version's schema from being structural. */
export function structuralSchemaErrors(
  schema: unknown,
  path: string,
): FieldError[] {
  const errors: FieldError[] = [];
  const walk = (node: unknown, at: string, root: boolean) => {
    if (!isRecord(node)) {
      errors.push(invalidError(at, node, "must be a schema object"));
      return;
    }
    const preserve = node["x-kubernetes-preserve-unknown-fields"] === true;
    const intOrString = node["x-kubernetes-int-or-string"] === true;
    if (
      (node.type === undefined || node.type === "") && !preserve &&
      !intOrString
    ) {
      errors.push(
        requiredError(
          `${at}.type`,
          "must not be empty for specified object fields",
        ),
      );
    }
    if (root && node.type !== undefined && node.type !== "object") {
      errors.push(
        notSupportedError(`${at}.type`, node.type, ["object"]),
      );
    }
    if (isRecord(node.properties)) {
      for (const [key, child] of Object.entries(node.properties)) {
        walk(child, `${at}.properties[${key}]`, false);
      }
    }
    if (node.items !== undefined) {
      if (Array.isArray(node.items)) {
        errors.push(
          invalidError(
            `${at}.items`,
            "",
            "items must be a schema object and not an array",
          ),
        );
      } else walk(node.items, `${at}.items`, false);
    }
    if (isRecord(node.additionalProperties)) {
      walk(node.additionalProperties, `${at}.additionalProperties`, false);
    }
  };
  walk(schema, path, true);
  return errors;
}
