/** --cache-miss-qps: live lookups a second of names the cache misses. */
import assert from "node:assert/strict";
import { parseSettings } from "./../settings.ts";

function parse(args: string[], env: Record<string, string> = {}) {
  return parseSettings(["--allow-anonymous", ...args], env);
}

Deno.test("--cache-miss-qps takes a whole number, 0 included, from the flag or CORRAL_CACHE_MISS_QPS", () => {
  const cases: [string[], Record<string, string>, number][] = [
    [[], {}, 20],
    [["--cache-miss-qps", "0"], {}, 0],
    [[], { CORRAL_CACHE_MISS_QPS: "50" }, 50],
  ];
  for (const [args, env, want] of cases) {
    const got = parse(args, env);
    assert.equal(got.kind, "run");
    if (got.kind === "run") assert.equal(got.settings.cacheMissQps, want);
  }
});

Deno.test("--cache-miss-qps refuses what is not a whole number, naming the flag", () => {
  for (const value of ["-1", "2.5", "many"]) {
    const got = parse(["--cache-miss-qps", value]);
    assert.equal(got.kind, "invalid", value);
    if (got.kind === "invalid") {
      assert.ok(
        got.problems.some((p) => p.startsWith("--cache-miss-qps ")),
        JSON.stringify(got.problems),
      );
    }
  }
});
