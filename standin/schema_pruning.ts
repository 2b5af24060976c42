/**
 * What the server does to a custom object before validating it, as pure
 * functions over JSON (apiextensions-apiserver pkg/apiserver/schema):
 *
 * - `pruneUnknownFields`: drops fields the schema does not declare, keeping
 *   apiVersion, kind and metadata at the root and at
 *   `x-kubernetes-embedded-resource` nodes, and everything under
 *   `x-kubernetes-preserve-unknown-fields`; then drops unknown ObjectMeta
 *   fields (schema/objectmeta coercion). Returns the dropped paths, which
 *   the server turns into `unknown field "spec.x"` warnings or, with
 *   `fieldValidation=Strict`, into a 400.
 * - `pruneNonNullableNulls` and `applyDefaults` (schema/defaulting).
 */

import { isRecord } from "./json.ts";
import {
  isEmbedded,
  joinPath,
  type JsonSchema,
  META_FIELDS,
  propertySchema,
} from "./schema.ts";

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
