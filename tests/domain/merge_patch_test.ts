/** JSON merge patches (RFC 7386), over the RFC's own table of examples. */
import assert from "node:assert/strict";
import { mergePatch } from "../../domain/merge_patch.ts";

Deno.test("mergePatch() gives what RFC 7386's examples give", async (t) => {
  const cases: [unknown, unknown, unknown][] = [
    [{ a: "b" }, { a: "c" }, { a: "c" }],
    [{ a: "b" }, { b: "c" }, { a: "b", b: "c" }],
    [{ a: "b" }, { a: null }, {}],
    [{ a: "b", b: "c" }, { a: null }, { b: "c" }],
    [{ a: ["b"] }, { a: "c" }, { a: "c" }],
    [{ a: "c" }, { a: ["b"] }, { a: ["b"] }],
    [{ a: { b: "c" } }, { a: { b: "d", c: null } }, { a: { b: "d" } }],
    [{ a: [{ b: "c" }] }, { a: [1] }, { a: [1] }],
    [["a", "b"], ["c", "d"], ["c", "d"]],
    [{ a: "b" }, ["c"], ["c"]],
    [{ a: "foo" }, null, null],
    [{ a: "foo" }, "bar", "bar"],
    [{ e: null }, { a: 1 }, { e: null, a: 1 }],
    [[1, 2], { a: "b", c: null }, { a: "b" }],
    [{}, { a: { bb: { ccc: null } } }, { a: { bb: {} } }],
  ];
  for (const [target, patch, want] of cases) {
    await t.step(`${JSON.stringify(target)} + ${JSON.stringify(patch)}`, () => {
      const before = structuredClone(target);
      assert.deepEqual(mergePatch(target, patch), want);
      assert.deepEqual(target, before, "the target is not changed");
    });
  }
});
