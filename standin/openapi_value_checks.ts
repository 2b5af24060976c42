/**
 * The kube-openapi validator's checks of scalar values: string length and
 * pattern, numeric range (as kube-apiserver 1.36 checks numeric formats),
 * bounds and multiples, and enums.
 */

import { goValue } from "./field_errors.ts";
import { deepEqual } from "./json.ts";
import { effectiveFormat } from "./openapi_formats.ts";
import type { OpenApiError } from "./openapi_errors.ts";
import type { JsonSchema } from "./schema.ts";

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

export function checkString(
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

export function checkNumber(
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

export function checkEnum(
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
