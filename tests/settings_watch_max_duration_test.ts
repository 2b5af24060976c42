/** --watch-max-duration: how long a watch stream lasts at most. */
import assert from "node:assert/strict";
import { parseSettings } from "./../settings.ts";

function parse(args: string[], env: Record<string, string> = {}) {
  return parseSettings(["--allow-anonymous", ...args], env);
}

Deno.test("--watch-max-duration takes a duration, from the flag or CORRAL_WATCH_MAX_DURATION", () => {
  const cases: [string[], Record<string, string>, number][] = [
    [[], {}, 30 * 60_000],
    [["--watch-max-duration", "45m"], {}, 45 * 60_000],
    [[], { CORRAL_WATCH_MAX_DURATION: "90s" }, 90_000],
  ];
  for (const [args, env, want] of cases) {
    const got = parse(args, env);
    assert.equal(got.kind, "run");
    if (got.kind === "run") assert.equal(got.settings.watchMaxDurationMs, want);
  }
});

Deno.test("--watch-max-duration refuses 0 and a number without a unit", () => {
  for (const value of ["0", "30"]) {
    const got = parse(["--watch-max-duration", value]);
    assert.equal(got.kind, "invalid", value);
    if (got.kind === "invalid") {
      assert.ok(
        got.problems.some((p) => p.startsWith("--watch-max-duration ")),
        JSON.stringify(got.problems),
      );
    }
  }
});
