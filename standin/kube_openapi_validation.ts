/**
 * The kube-openapi schema validator (k8s.io/kube-openapi/pkg/validation/
 * validate): the walk over a value in its validator order, descending into
 * items, properties and the combinators (anyOf, oneOf, allOf, not). Type,
 * format and scalar checks live in openapi_types.ts, openapi_formats.ts and
 * openapi_value_checks.ts; the errors and their conversion to field errors
 * in openapi_errors.ts. Numeric formats (int32, int64, float, double) are
 * checked as kube-apiserver 1.36 checks them; older servers stripped those
 * formats and accepted any integer.
 */

import { deepEqual, isRecord } from "./json.ts";
import { merge, type OpenApiError, type Result } from "./openapi_errors.ts";
import { effectiveFormat, FORMAT_CHECKS } from "./openapi_formats.ts";
import {
  checkType,
  invalidType,
  kindOf,
  schemaTypes,
} from "./openapi_types.ts";
import { checkEnum, checkNumber, checkString } from "./openapi_value_checks.ts";
import type { JsonSchema } from "./schema.ts";

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
