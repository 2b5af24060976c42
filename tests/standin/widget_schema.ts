/**
 * A widget CRD schema exercising every rule the schema modules implement,
 * and helpers to build widgets and read field errors; shared by the pruning
 * and validation tests.
 */
import { errorBody, type FieldError } from "../../standin/field_errors.ts";
import type { JsonSchema } from "../../standin/schema.ts";

// deno-lint-ignore no-explicit-any
export type Json = any;

/** A small structural schema using every keyword the validator knows. */
export const SCHEMA: JsonSchema = {
  type: "object",
  properties: {
    apiVersion: { type: "string" },
    kind: { type: "string" },
    metadata: { type: "object" },
    spec: {
      type: "object",
      required: ["name"],
      properties: {
        name: { type: "string", minLength: 1, maxLength: 5 },
        mode: { type: "string", enum: ["fast", "slow"], default: "fast" },
        replicas: {
          type: "integer",
          format: "int32",
          minimum: 0,
          maximum: 10,
        },
        ratio: { type: "number", exclusiveMaximum: true, maximum: 1 },
        size: {
          "x-kubernetes-int-or-string": true,
          anyOf: [{ type: "integer" }, { type: "string" }],
          pattern: "^[0-9]+(Mi|Gi)?$",
        },
        when: { type: "string", format: "date-time" },
        note: { type: "string", nullable: true },
        tags: {
          type: "array",
          maxItems: 2,
          minItems: 1,
          items: { type: "string" },
          "x-kubernetes-list-type": "set",
        },
        ports: {
          type: "array",
          items: {
            type: "object",
            required: ["port"],
            properties: {
              port: { type: "integer" },
              protocol: { type: "string", default: "TCP" },
              extra: { type: "string" },
            },
          },
          "x-kubernetes-list-type": "map",
          "x-kubernetes-list-map-keys": ["port", "protocol"],
        },
        labels: {
          type: "object",
          additionalProperties: { type: "string" },
        },
        free: {
          type: "object",
          "x-kubernetes-preserve-unknown-fields": true,
          properties: { known: { type: "object", properties: {} } },
        },
        embedded: {
          type: "object",
          "x-kubernetes-embedded-resource": true,
          properties: { spec: { type: "object", properties: {} } },
        },
        owner: {
          type: "string",
          "x-kubernetes-validations": [
            { rule: "self == oldSelf", message: "owner is immutable" },
            { rule: "self in ['ops', \"dev\"]" },
          ],
        },
      },
    },
  },
};

export function object(spec: Record<string, unknown>): Json {
  return {
    apiVersion: "example.dev/v1",
    kind: "Widget",
    metadata: { name: "w" },
    spec: { name: "ok", ...spec },
  };
}

export function messages(errors: FieldError[]): string[] {
  return errors.map((e) => `${e.field}: ${errorBody(e)}`);
}
