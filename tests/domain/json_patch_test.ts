/** JSON patches (RFC 6902), over examples of the RFC's appendix. */
import assert from "node:assert/strict";
import {
  applyJsonPatch,
  JsonPatchError,
  jsonPatchOf,
} from "../../domain/json_patch.ts";

Deno.test("applyJsonPatch() gives what RFC 6902's examples give, leaving the target as it was", async (t) => {
  const cases: [string, unknown, unknown[], unknown][] = [
    ["add an object member", { foo: "bar" }, [
      { op: "add", path: "/baz", value: "qux" },
    ], { foo: "bar", baz: "qux" }],
    ["add an array element", { foo: ["bar", "baz"] }, [
      { op: "add", path: "/foo/1", value: "qux" },
    ], { foo: ["bar", "qux", "baz"] }],
    ["append with -", { foo: [1] }, [
      { op: "add", path: "/foo/-", value: 2 },
    ], { foo: [1, 2] }],
    ["remove an object member", { baz: "qux", foo: "bar" }, [
      { op: "remove", path: "/baz" },
    ], { foo: "bar" }],
    ["remove an array element", { foo: ["bar", "qux", "baz"] }, [
      { op: "remove", path: "/foo/1" },
    ], { foo: ["bar", "baz"] }],
    ["replace a value", { baz: "qux", foo: "bar" }, [
      { op: "replace", path: "/baz", value: "boo" },
    ], { baz: "boo", foo: "bar" }],
    ["move a value", { foo: { bar: "baz", waldo: "fred" }, qux: {} }, [
      { op: "move", from: "/foo/waldo", path: "/qux/thud" },
    ], { foo: { bar: "baz" }, qux: { thud: "fred" } }],
    ["copy a value", { a: { b: 1 } }, [
      { op: "copy", from: "/a", path: "/c" },
    ], { a: { b: 1 }, c: { b: 1 } }],
    ["test a value, then add", { baz: "qux", foo: ["a", 2, "c"] }, [
      { op: "test", path: "/foo", value: ["a", 2, "c"] },
      { op: "add", path: "/ok", value: true },
    ], { baz: "qux", foo: ["a", 2, "c"], ok: true }],
    ["escaped pointers", { "a/b": 1, "m~n": 2 }, [
      { op: "replace", path: "/a~1b", value: 3 },
      { op: "remove", path: "/m~0n" },
    ], { "a/b": 3 }],
  ];
  for (const [name, target, patch, want] of cases) {
    await t.step(name, () => {
      const before = structuredClone(target);
      assert.deepEqual(applyJsonPatch(target, jsonPatchOf(patch)), want);
      assert.deepEqual(target, before);
    });
  }
});

Deno.test("applyJsonPatch() fails the whole patch on an operation that cannot be applied, naming it", async (t) => {
  const cases: [string, unknown, unknown[]][] = [
    ["a failed test", { baz: "qux" }, [
      { op: "add", path: "/x", value: 1 },
      { op: "test", path: "/baz", value: "bar" },
    ]],
    ["a missing member", { foo: "bar" }, [{ op: "remove", path: "/baz" }]],
    ["a missing parent", { foo: "bar" }, [
      { op: "add", path: "/baz/bat", value: "qux" },
    ]],
    ["an index out of bounds", { foo: [1] }, [
      { op: "add", path: "/foo/5", value: 2 },
    ]],
    ["a move into itself", { a: { b: {} } }, [
      { op: "move", from: "/a", path: "/a/b/c" },
    ]],
  ];
  for (const [name, target, patch] of cases) {
    await t.step(name, () => {
      assert.throws(
        () => applyJsonPatch(target, jsonPatchOf(patch)),
        (error: unknown) =>
          error instanceof JsonPatchError && !error.malformed &&
          /^operation \d/.test(error.message),
      );
    });
  }
});

Deno.test("jsonPatchOf() refuses what is no JSON patch as malformed", async (t) => {
  const cases: [string, unknown][] = [
    ["an object", { op: "add" }],
    ["an unknown op", [{ op: "merge", path: "/a" }]],
    ["no path", [{ op: "remove" }]],
    ["a move without from", [{ op: "move", path: "/a" }]],
    ["an add without value", [{ op: "add", path: "/a" }]],
  ];
  for (const [name, document] of cases) {
    await t.step(name, () => {
      assert.throws(
        () => jsonPatchOf(document),
        (error: unknown) => error instanceof JsonPatchError && error.malformed,
      );
    });
  }
});
