/**
 * Label selectors as a Kubernetes list's `labelSelector` gives them: every
 * requirement of apimachinery's grammar, each met or not by a table of
 * labels, and what is no selector refused with the part at fault.
 */
import assert from "node:assert/strict";
import { parseLabelSelector } from "../../domain/label_selectors.ts";

const LABELS = { team: "ml", tier: "gpu" };

Deno.test("parseLabelSelector() matches labels as the API server's selectors do", async (t) => {
  const cases: [string, boolean][] = [
    ["", true],
    ["team", true],
    ["!team", false],
    ["owner", false],
    ["!owner", true],
    ["team=ml", true],
    ["team==ml", true],
    ["team!=ml", false],
    ["owner!=x", true],
    ["team in (ml, web)", true],
    ["team notin (ml,web)", false],
    ["owner notin (x)", true],
    ["team=ml,tier=gpu", true],
    ["team=ml, tier=cpu", false],
    ["tier in (cpu,gpu),!owner", true],
  ];
  for (const [selector, want] of cases) {
    await t.step(JSON.stringify(selector), () => {
      const parsed = parseLabelSelector(selector);
      assert.ok(!("problem" in parsed), selector);
      assert.equal(parsed(LABELS), want, `got ${!want}, want ${want}`);
    });
  }
});

Deno.test("parseLabelSelector() refuses what is no requirement, naming it", () => {
  for (const text of ["team=ml,=x", "in (a)", "a b"]) {
    const parsed = parseLabelSelector(text);
    assert.ok("problem" in parsed, text);
    assert.match(parsed.problem, /unable to parse requirement/);
  }
});
