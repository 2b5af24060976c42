/**
 * Validation of a custom object against its CRD version's structural schema,
 * as the server's custom resource strategy does it: the kube-openapi
 * validator (kube_openapi_validation.ts), embedded-resource checks,
 * `x-kubernetes-list-type` map and set uniqueness (schema/listtype), and the
 * `x-kubernetes-validations` rules the stand-in understands (cel_rules.ts).
 * Also whether a CRD's schema is structural at all.
 *
 * Field paths and messages are the server's: `spec.workerGroupSpecs[0].
 * groupName: Required value`, `Invalid value: "string": spec.x in body must
 * be of type integer: "string"`.
 */

import { validateRules } from "./cel_rules.ts";
import {
  duplicateError,
  type FieldError,
  invalidError,
  notSupportedError,
  requiredError,
} from "./field_errors.ts";
import { deepEqual, isRecord } from "./json.ts";
import { validate } from "./kube_openapi_validation.ts";
import { toFieldErrors } from "./openapi_errors.ts";
import {
  isEmbedded,
  joinPath,
  type JsonSchema,
  META_FIELDS,
  propertySchema,
} from "./schema.ts";

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
        if (value.slice(0, i).some((other) => deepEqual(item, other))) {
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
        if (seen.some((other) => deepEqual(other, keys))) {
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
