/**
 * `redocly lint` (its `recommended` ruleset, redocly.yaml) on the OpenAPI
 * document as Corral generates it, run through the @redocly/cli pinned in
 * deno.json. Offline: the run has no network permission, and telemetry is
 * off both in redocly.yaml and in the environment.
 */
import assert from "node:assert/strict";
import { openApiJson } from "../../api/docs.ts";
import { currentDocument } from "./openapi_golden.ts";

const ROOT = new URL("../../", import.meta.url);

/** Warnings left on purpose: none. */
const KNOWN_WARNINGS: string[] = [];

interface Problem {
  ruleId: string;
  severity: "error" | "warn";
  message: string;
  location: { pointer: string }[];
}

Deno.test("redocly lint finds no error in the OpenAPI document and only the known warnings", async () => {
  const dir = await Deno.makeTempDir({ prefix: "corral-redocly-" });
  try {
    const file = `${dir}/openapi.json`;
    await Deno.writeTextFile(file, openApiJson(await currentDocument()));
    const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "--no-prompt",
        "--allow-read",
        "--allow-env",
        "--allow-sys",
        `--config=${new URL("tests/deno.json", ROOT).pathname}`,
        "@redocly/cli/redocly",
        "lint",
        "--format=json",
        `--config=${new URL("redocly.yaml", ROOT).pathname}`,
        file,
      ],
      cwd: ROOT,
      env: {
        REDOCLY_TELEMETRY: "off",
        REDOCLY_SUPPRESS_UPDATE_NOTICE: "true",
        NO_COLOR: "1",
      },
      stdout: "piped",
      stderr: "piped",
    }).output();
    const output = new TextDecoder().decode(stdout);
    const log = new TextDecoder().decode(stderr);
    assert.ok(
      output.trim(),
      `redocly printed no report (exit ${code}):\n${log}`,
    );
    const report = JSON.parse(output) as {
      totals: { errors: number; warnings: number };
      problems: Problem[];
    };
    const describe = (problems: Problem[]) =>
      problems.map((p) =>
        `${p.severity} ${p.ruleId} at ${p.location[0]?.pointer}: ${p.message}`
      ).join("\n");
    const errors = report.problems.filter((p) => p.severity === "error");
    assert.equal(errors.length, 0, `redocly lint errors:\n${describe(errors)}`);
    assert.equal(code, 0, log);
    const warnings = report.problems.filter((p) => p.severity === "warn");
    assert.deepEqual(
      warnings.map((p) => p.ruleId).sort(),
      KNOWN_WARNINGS,
      `redocly lint warnings:\n${describe(warnings)}`,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
