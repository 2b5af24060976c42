/**
 * Kubernetes quantities read as numbers (domain/quantities.ts): every way
 * the API server accepts of writing a figure reads as what it is, so a
 * bound or a count cannot be slipped past by spelling.
 */
import assert from "node:assert/strict";
import {
  cpusOf,
  gibOf,
  isQuantity,
  quantityValue,
} from "../../domain/quantities.ts";

Deno.test("quantityValue() reads decimal, binary and exponent suffixes", async (t) => {
  const cases: [string, number | undefined][] = [
    ["2", 2],
    ["500m", 0.5],
    ["1.5", 1.5],
    [".5", 0.5],
    ["+3", 3],
    ["1k", 1000],
    ["1M", 1e6],
    ["1E", 1e18],
    ["1e3", 1000],
    ["2E2", 200],
    ["5e-1", 0.5],
    ["4Ki", 4096],
    ["4Gi", 4 * 2 ** 30],
    ["4Ti", 4 * 2 ** 40],
    ["1Ei", 2 ** 60],
    ["100n", 1e-7],
    ["-1", -1],
    ["", undefined],
    ["1 ", undefined],
    ["1Gb", undefined],
    ["1e", undefined],
    ["ki", undefined],
    ["1.2.3", undefined],
  ];
  for (const [text, want] of cases) {
    await t.step(JSON.stringify(text), () => {
      const got = quantityValue(text);
      if (want === undefined || got === undefined) {
        assert.equal(got, want);
      } else {
        assert.ok(Math.abs(got - want) <= Math.abs(want) * 1e-12, `${got}`);
      }
    });
  }
});

Deno.test("isQuantity() accepts what the API server accepts, no negative figure", () => {
  for (const text of ["1", "500m", "1k", "1e3", "4Ti", "+2"]) {
    assert.ok(isQuantity(text), text);
  }
  for (const text of ["-1", "", "one", "1GB", " 1"]) {
    assert.ok(!isQuantity(text), text);
  }
});

Deno.test("cpusOf() and gibOf() read CPUs and GiB; what is not a quantity reads 0", () => {
  assert.equal(cpusOf("1k"), 1000);
  assert.equal(cpusOf("250m"), 0.25);
  assert.equal(cpusOf("lots"), 0);
  assert.equal(cpusOf("-4"), 0);
  assert.equal(gibOf("4Ti"), 4096);
  assert.equal(gibOf("512Mi"), 0.5);
  assert.equal(gibOf("1e12"), 1e12 / 2 ** 30);
  assert.equal(gibOf("nothing"), 0);
});
