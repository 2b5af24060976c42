import assert from "node:assert/strict";
import {
  applyDefaults,
  pruneNonNullableNulls,
  pruneUnknownFields,
} from "../../standin/schema_pruning.ts";
import { object, SCHEMA } from "./widget_schema.ts";

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
