import assert from "node:assert/strict";
import { isKept, keep } from "../../domain/kept.ts";

Deno.test("keep() marks a value as kept, and it can no longer change", () => {
  const value = keep({ name: "blue" });
  assert.equal(isKept(value), true);
  assert.throws(() => {
    (value as { name: string }).name = "green";
  }, TypeError);
});

Deno.test("isKept() is true for a value frozen without keep(), false for any other object", () => {
  assert.equal(isKept(Object.freeze({ clusters: [] })), true);
  assert.equal(isKept({ clusters: [] }), false);
});
