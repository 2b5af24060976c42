/**
 * The formats the kube-openapi validator keeps (others are stripped) and
 * the checks of the string formats.
 */

import type { JsonSchema } from "./schema.ts";

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
export function effectiveFormat(schema: JsonSchema): string {
  const format = schema.format ?? "";
  if (format === "") return "";
  if (schema.type === "string" && STRING_FORMATS.has(format)) return format;
  if (schema.type === "integer" && INTEGER_FORMATS.has(format)) return format;
  if (schema.type === "number" && NUMBER_FORMATS.has(format)) return format;
  return "";
}

export const FORMAT_CHECKS: Record<string, (value: string) => boolean> = {
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
