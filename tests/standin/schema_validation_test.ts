import assert from "node:assert/strict";
import {
  applyDefaults,
  errorBody,
  type FieldError,
  goQuote,
  type JsonSchema,
  pruneNonNullableNulls,
  pruneUnknownFields,
  structuralSchemaErrors,
  validateObject,
} from "../../standin/crd_schema.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

/** A small structural schema using every keyword the validator knows. */
const SCHEMA: JsonSchema = {
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

function object(spec: Record<string, unknown>): Json {
  return {
    apiVersion: "example.dev/v1",
    kind: "Widget",
    metadata: { name: "w" },
    spec: { name: "ok", ...spec },
  };
}

function messages(errors: FieldError[]): string[] {
  return errors.map((e) => `${e.field}: ${errorBody(e)}`);
}

Deno.test("pruneUnknownFields() drops undeclared fields and returns their paths, as a real server prunes", () => {
  const widget = object({
    bogus: 1,
    ports: [{ port: 80, extra: "x", other: true }],
    labels: { any: "kept" },
    free: { anything: { goes: 1 }, known: { dropped: 1 } },
    embedded: {
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "p", bogus: 1 },
      spec: { dropped: 1 },
      status: {},
    },
  });
  widget.metadata.unknownMeta = "x";
  widget.status = { state: "ready" };
  widget.topLevel = true;
  const pruned = pruneUnknownFields(widget, SCHEMA);
  assert.deepEqual(pruned, [
    "metadata.unknownMeta",
    "spec.bogus",
    "spec.embedded.metadata.bogus",
    "spec.embedded.spec.dropped",
    "spec.embedded.status",
    "spec.free.known.dropped",
    "spec.ports[0].other",
    "status",
    "topLevel",
  ]);
  assert.deepEqual(widget, {
    apiVersion: "example.dev/v1",
    kind: "Widget",
    metadata: { name: "w" },
    spec: {
      name: "ok",
      ports: [{ port: 80, extra: "x" }],
      labels: { any: "kept" },
      free: { anything: { goes: 1 }, known: {} },
      embedded: {
        apiVersion: "v1",
        kind: "Pod",
        metadata: { name: "p" },
        spec: {},
      },
    },
  });
});

Deno.test("pruneNonNullableNulls() and applyDefaults() default missing and null fields", () => {
  const widget = object({
    note: null,
    replicas: null,
    mode: null,
    ports: [{ port: 80 }, { port: 81, protocol: "UDP" }],
  });
  pruneNonNullableNulls(widget, SCHEMA);
  applyDefaults(widget, SCHEMA);
  assert.deepEqual(widget.spec, {
    name: "ok",
    note: null,
    mode: "fast",
    ports: [{ port: 80, protocol: "TCP" }, { port: 81, protocol: "UDP" }],
  });
  const bare = object({});
  applyDefaults(bare, SCHEMA);
  assert.equal(bare.spec.mode, "fast");
});

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

Deno.test("goQuote() quotes as Go's strconv.Quote", () => {
  assert.equal(goQuote('a"b\\c\n\x01é'), '"a\\"b\\\\c\\n\\x01é"');
});
