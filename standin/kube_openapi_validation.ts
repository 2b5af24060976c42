/**
 * The kube-openapi schema validator (k8s.io/kube-openapi/pkg/validation/
 * validate) with its error messages, and their conversion to field errors
 * as apiextensions' kubeOpenAPIResultToFieldErrors does. Numeric formats
 * (int32, int64, float, double) are checked as kube-apiserver 1.36 checks
 * them; older servers stripped those formats and accepted any integer.
 */

import {
  type FieldError,
  goQuote,
  goValue,
  invalidError,
  notSupportedError,
  requiredError,
  tooLongError,
  tooManyError,
  typeInvalidError,
} from "./field_errors.ts";
import { deepEqual, isRecord } from "./json.ts";
import type { JsonSchema } from "./schema.ts";

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

function checkEnum(
  schema: JsonSchema,
  data: unknown,
  path: string,
): OpenApiError | undefined {
  const values = schema.enum;
  if (!values || values.length === 0) return undefined;
  if (data !== null && values.some((v) => v !== null && deepEqual(data, v))) {
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
      data.slice(0, i).some((other) => deepEqual(item, other))
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
export function validate(
  schema: JsonSchema,
  data: unknown,
  path: string,
): Result {
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
export function toFieldErrors(errors: OpenApiError[]): FieldError[] {
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
