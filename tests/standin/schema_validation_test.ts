import assert from "node:assert/strict";
import {
  structuralSchemaErrors,
  validateObject,
} from "../../standin/schema_validation.ts";
import { messages, object, SCHEMA } from "./widget_schema.ts";

Deno.test("validateObject() accepts a valid object", () => {
  const widget = object({
    mode: "slow",
    replicas: 3,
    ratio: 0.5,
    size: "10Gi",
    when: "2024-01-02T03:04:05Z",
    tags: ["a", "b"],
    ports: [{ port: 80, protocol: "TCP" }, { port: 80, protocol: "UDP" }],
    owner: "ops",
  });
  assert.deepEqual(messages(validateObject(widget, SCHEMA)), []);
  assert.deepEqual(
    messages(validateObject(object({ size: 5 }), SCHEMA)),
    [],
    "an int-or-string takes an integer",
  );
});

Deno.test("validateObject() reports each rule with the real server's path and message", async (t) => {
  const cases: [string, Record<string, unknown>, string[]][] = [
    ["a missing required field", { name: undefined }, [
      "spec.name: Required value",
    ]],
    ["a wrong type", { replicas: "3" }, [
      'spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string"',
    ]],
    ["a value outside an enum", { mode: "medium" }, [
      'spec.mode: Unsupported value: "medium": supported values: "fast", "slow"',
    ]],
    ["a string over maxLength", { name: "toolong" }, [
      "spec.name: Too long: may not be more than 5 bytes",
    ]],
    ["a string under minLength", { name: "" }, [
      'spec.name: Invalid value: "": spec.name in body should be at least 1 chars long',
    ]],
    ["a number over maximum", { replicas: 11 }, [
      "spec.replicas: Invalid value: 11: spec.replicas in body should be less than or equal to 10",
    ]],
    ["a number under minimum", { replicas: -1 }, [
      "spec.replicas: Invalid value: -1: spec.replicas in body should be greater than or equal to 0",
    ]],
    ["a number at an exclusive maximum", { ratio: 1 }, [
      "spec.ratio: Invalid value: 1: spec.ratio in body should be less than 1",
    ]],
    ["an int32 out of range (as kube-apiserver 1.36 checks it)", {
      replicas: 2 ** 31,
    }, [
      '<nil>: Invalid value: "": Checked value must be of type integer with format int32 in spec.replicas',
      "spec.replicas: Invalid value: 2147483648: spec.replicas in body should be less than or equal to 10",
    ]],
    ["a pattern mismatch", { size: "10Xi" }, [
      "spec.size: Invalid value: \"10Xi\": spec.size in body should match '^[0-9]+(Mi|Gi)?$'",
    ]],
    ["an int-or-string given a boolean", { size: true }, [
      'spec.size: Invalid value: "boolean": spec.size in body must be of type integer,string: "boolean"',
      '<nil>: Invalid value: "": spec.size must validate at least one schema (anyOf)',
      'spec.size: Invalid value: "boolean": spec.size in body must be of type integer: "boolean"',
    ]],
    ["a bad date-time", { when: "yesterday" }, [
      'spec.when: Invalid value: "yesterday": spec.when in body must be of type date-time: "yesterday"',
    ]],
    ["too many items", { tags: ["a", "b", "c"] }, [
      "spec.tags: Too many: 3: must have at most 2 items",
    ]],
    ["too few items", { tags: [] }, [
      "spec.tags: Invalid value: 0: spec.tags in body should have at least 1 items",
    ]],
    ["a duplicate in a set", { tags: ["a", "a"] }, [
      'spec.tags[1]: Duplicate value: "a"',
    ]],
    ["a duplicate key in a map list", {
      ports: [{ port: 80, protocol: "TCP" }, { port: 80, protocol: "TCP" }],
    }, [
      'spec.ports[1]: Duplicate value: map[string]interface {}{"port":80, "protocol":"TCP"}',
    ]],
    ["a missing map-list key", { ports: [{ protocol: "TCP" }] }, [
      "spec.ports[0].port: Required value",
      "spec.ports[0].port: Required value",
    ]],
    ["a non-nullable null", { name: null }, [
      'spec.name: Invalid value: "null": spec.name in body must be of type string: "null"',
    ]],
    ["a map value of the wrong type", { labels: { a: 1 } }, [
      'spec.labels.a: Invalid value: "integer": spec.labels.a in body must be of type string: "integer"',
    ]],
    ["an embedded resource without apiVersion and kind", { embedded: {} }, [
      "spec.embedded.apiVersion: Required value: must not be empty",
      "spec.embedded.kind: Required value: must not be empty",
    ]],
    ["a failed `self in [...]` rule", { owner: "me" }, [
      'spec.owner: Invalid value: "string": failed rule: self in [\'ops\', "dev"]',
    ]],
  ];
  for (const [name, spec, want] of cases) {
    await t.step(name, () => {
      const widget = object(spec);
      for (const [key, value] of Object.entries(spec)) {
        if (value === undefined) delete widget.spec[key];
      }
      assert.deepEqual(messages(validateObject(widget, SCHEMA)), want);
    });
  }
});

Deno.test("validateObject() checks transition rules against the old object only", () => {
  const old = object({ owner: "ops" });
  assert.deepEqual(
    messages(validateObject(object({ owner: "dev" }), SCHEMA, old)),
    ['spec.owner: Invalid value: "string": owner is immutable'],
  );
  assert.deepEqual(
    messages(validateObject(object({ owner: "dev" }), SCHEMA)),
    [],
  );
});

Deno.test("validateObject() reports causes with their field error reasons", () => {
  const reasons = validateObject(
    object({ mode: "x", replicas: "1", tags: ["a", "a"] }),
    SCHEMA,
  ).map((e) => `${e.type} ${e.field}`);
  assert.deepEqual(reasons.sort(), [
    "FieldValueDuplicate spec.tags[1]",
    "FieldValueNotSupported spec.mode",
    "FieldValueTypeInvalid spec.replicas",
  ]);
  const required = validateObject(
    { ...object({}), spec: {} },
    SCHEMA,
  ).map((e) => `${e.type} ${e.field}`);
  assert.deepEqual(required, ["FieldValueRequired spec.name"]);
});

Deno.test("structuralSchemaErrors() refuses a schema without types", () => {
  assert.deepEqual(
    messages(
      structuralSchemaErrors(
        { type: "object", properties: { spec: { properties: {} } } },
        "schema",
      ),
    ),
    [
      "schema.properties[spec].type: Required value: must not be empty for specified object fields",
    ],
  );
  assert.deepEqual(structuralSchemaErrors(SCHEMA, "schema"), []);
});
