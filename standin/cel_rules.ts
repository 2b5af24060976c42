/**
 * `x-kubernetes-validations` rules: the two shapes real CRDs use most
 * (`self == oldSelf` and `self in [...]`) are evaluated; other CEL rules are
 * not, and pass.
 */

import {
  type FieldError,
  invalidError,
  requiredError,
} from "./field_errors.ts";
import { deepEqual, isRecord } from "./json.ts";
import { joinPath, type JsonSchema, propertySchema } from "./schema.ts";

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
    return old === undefined ? true : deepEqual(self, old.value);
  }
  const inList = IN_LIST.exec(trimmed);
  if (inList) {
    const literals = stringLiterals(inList[1]);
    if (literals === undefined) return undefined;
    return typeof self === "string" && literals.includes(self);
  }
  return undefined;
}

export function validateRules(
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
