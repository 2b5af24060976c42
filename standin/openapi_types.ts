/**
 * The kube-openapi validator's type check: the schema's types against the
 * JSON type and format Go infers from a decoded value.
 */

import { goQuote } from "./field_errors.ts";
import { effectiveFormat } from "./openapi_formats.ts";
import type { OpenApiError } from "./openapi_errors.ts";
import type { JsonSchema } from "./schema.ts";

export function schemaTypes(schema: JsonSchema): string[] {
  if (schema["x-kubernetes-int-or-string"]) return ["integer", "string"];
  return schema.type ? [schema.type] : [];
}

export type Kind = "bool" | "string" | "int" | "float" | "slice" | "map";

export function kindOf(value: unknown): Kind {
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

export function invalidType(
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

export function checkType(
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
