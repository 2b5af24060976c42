/**
 * The kube-openapi validator's errors (errors.Validation and plain errors)
 * and their conversion to field errors as apiextensions'
 * kubeOpenAPIResultToFieldErrors does.
 */

import {
  type FieldError,
  invalidError,
  notSupportedError,
  requiredError,
  tooLongError,
  tooManyError,
  typeInvalidError,
} from "./field_errors.ts";

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
export interface OpenApiError {
  code?: OpenApiCode;
  name: string;
  value?: unknown;
  values?: unknown[];
  valid?: number;
  message: string;
}

export interface Result {
  errors: OpenApiError[];
  matchCount: number;
}

export function merge(into: Result, from: Result): void {
  into.errors.push(...from.errors);
  into.matchCount += from.matchCount;
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
