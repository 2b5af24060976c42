/**
 * The structural schema of a CRD version (JSONSchemaProps) and how the
 * pruning, defaulting and validation modules walk it.
 */

import { isRecord } from "./json.ts";

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

/** The schema of a property of an object node, or of its extra keys. */
export function propertySchema(
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

export const META_FIELDS = new Set(["apiVersion", "kind", "metadata"]);

export function joinPath(parent: string, key: string): string {
  return parent === "" ? key : `${parent}.${key}`;
}

export function isEmbedded(schema: JsonSchema | undefined): boolean {
  return schema?.["x-kubernetes-embedded-resource"] === true;
}
