/**
 * Field errors as k8s.io/apimachinery/pkg/util/validation/field builds and
 * prints them, with Go's quoting and value formatting (`Invalid value:
 * "string": spec.x in body must be of type integer: "string"`).
 */

import { isRecord } from "./json.ts";

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

export function typeInvalidError(
  field: string,
  value: unknown,
  detail: string,
): FieldError {
  return { type: "FieldValueTypeInvalid", field, value, detail };
}

export function notSupportedError(
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

export function tooLongError(field: string, max: number): FieldError {
  return {
    type: "FieldValueTooLong",
    field,
    value: OMIT_VALUE,
    detail: max >= 0
      ? `may not be more than ${max} ${max === 1 ? "byte" : "bytes"}`
      : "value is too long",
  };
}

export function tooManyError(
  field: string,
  actual: number,
  max: number,
): FieldError {
  return {
    type: "FieldValueTooMany",
    field,
    value: actual >= 0 ? actual : OMIT_VALUE,
    detail: max >= 0 ? `must have at most ${max} items` : "has too many items",
  };
}

export function duplicateError(field: string, value: unknown): FieldError {
  return { type: "FieldValueDuplicate", field, value, detail: "" };
}
