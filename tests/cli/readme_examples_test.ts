/**
 * The command line's documented examples as a new user runs them: every
 * `corral ...` line of the examples block of docs/cli.md, in order
 * and as written (from the repository's root, so `examples/...` files are
 * the shipped ones), against a dev-mode Corral; with what each line
 * promises checked. Commands that run until Ctrl-C (watch, dashboard) are
 * started, waited for, used and interrupted.
 */
import assert from "node:assert/strict";
import { parse } from "yaml";
import type { MainProcess } from "../main_process.ts";
import {
  assertAligned,
  type CliResult,
  type RunningCli,
  type Sandbox,
  sandbox,
  startCorral,
} from "./cli_process.ts";

const CLI_PAGE = new URL("../../docs/cli.md", import.meta.url);

/** The `corral` lines of the examples block, comments dropped, in order. */
export async function readmeExamples(): Promise<string[][]> {
  const section = await Deno.readTextFile(CLI_PAGE);
  const start = section.indexOf("**Examples** (against `deno task dev`");
  assert.ok(start >= 0, "docs/cli.md has its examples");
  const block = section.slice(start).split("```sh\n")[1].split("\n```")[0];
  return block.split("\n")
    .map((line) => line.replace(/\s+#\s.*$/, "").trim())
    .filter((line) => /^(source <\()?corral /.test(line))
    .map((line) =>
      line.replace(/^source <\((.*)\)$/, "$1").split(/\s+/).slice(1)
    );
}

/** Checks what one example line promises; `run` ran it to its end. */
type Check = (result: CliResult) => void | Promise<void>;

/** What each example must print, by its first words. */
const CHECKS: Record<string, Check> = {
  "templates create --name": (r) =>
    assert.match(r.stdout, /compute template team-a\/small created/),
  "clusters create first": (r) =>
    assert.match(r.stdout, /^cluster team-a\/first is ready$/m),
  "clusters create -f": (r) =>
    assert.match(r.stdout, /^cluster team-a\/blue is ready$/m),
  "clusters list": (r) => {
    const rows = assertAligned(r.stdout);
    assert.deepEqual(rows[0], [
      "NAMESPACE",
      "NAME",
      "STATE",
      "USER",
      "VERSION",
      "WORKERS",
      "AGE",
    ]);
    assert.deepEqual(rows[1].slice(0, 6), [
      "team-a",
      "blue",
      "ready",
      "ada",
      "2.9.0",
      "2",
    ]);
  },
  "clusters scale": (r) =>
    assert.match(r.stdout, /group workers from 2 to 3 replicas/),
  "clusters get blue -n team-a -o wide": (r) => {
    const rows = assertAligned(r.stdout);
    assert.deepEqual(rows[0].slice(-2), ["CLIENT-URL", "DASHBOARD"]);
    assert.equal(rows[1][6], "ray://blue-head-svc.team-a.svc:10001");
    assert.match(
      rows[1][7],
      /^http:\/\/127\.0\.0\.1:\d+\/apis\/v1alpha2\/namespaces\/team-a\/clusters\/blue\/dashboard\/$/,
    );
  },
  "clusters describe": (r) => {
    for (
      const expected of [
        /^Name: +blue$/m,
        /^State: +ready$/m,
        /^Head:\n {2}Template: +small$/m,
        /^ {2}workers:\n {4}Template: +small\n {4}Replicas: +3 \(min 0, max 4\)\n {4}Image: +rayproject\/ray:2\.9\.0/m,
        /^Endpoints:\n {2}dashboard: +\d+$/m,
        /^ {2}Client: +ray:\/\/blue-head-svc\.team-a\.svc:10001$/m,
        /^ {2}Dashboard via Corral: +http:\/\/127\.0\.0\.1:\d+\/apis\/v1alpha2\/namespaces\/team-a\/clusters\/blue\/dashboard\/$/m,
        /^Events:\n {2}TYPE +REASON +AGE +MESSAGE$/m,
        /^ {2}Normal +CreatedHeadPod /m,
      ]
    ) assert.match(r.stdout, expected);
  },
  "clusters get blue -n team-a -o yaml": (r) =>
    assert.equal((parse(r.stdout) as { name: string }).name, "blue"),
  "clusters delete": (r) => assert.match(r.stdout, /team-a\/blue/),
  "clusters create red": (r) =>
    assert.equal(r.stdout, "cluster team-a/red created\n"),
  "templates create -f": (r) =>
    assert.match(r.stdout, /compute template team-a\/gpu created/),
  "version": (r) => assert.match(r.stdout, /^Server Version: /m),
  "completion bash": (r) => assert.match(r.stdout, /complete .* corral/),
};

/** Runs `corral clusters dashboard ...` as docs/cli.md does, and uses it. */
async function useDashboard(running: RunningCli): Promise<void> {
  const line = await running.line((l) => l.startsWith("Dashboard of cluster"));
  const url = /http:\/\/127\.0\.0\.1:\d+\//.exec(line)![0];
  const version = await fetch(`${url}api/version`);
  assert.equal(version.status, 200);
  assert.equal((await version.json()).ray_commit, "simulated");
  const index = await fetch(url);
  assert.equal(index.status, 200);
  assert.match(await index.text(), /team-a\/blue/);
}

Deno.test("the command line examples of docs/cli.md work as written", async (t) => {
  const main: MainProcess = await startCorral();
  const box: Sandbox = await sandbox();
  // A login shell's USER: the owner of a cluster made from flags when
  // Corral (dev mode) takes no token.
  const env = { CORRAL_SERVER: main.http, USER: "ada" };
  const checked = new Set<string>();
  try {
    for (const args of await readmeExamples()) {
      const line = args.join(" ");
      await t.step(`corral ${line}`, async () => {
        if (args[1] === "dashboard" || args[1] === "watch") {
          const running = box.spawn(args, { env });
          if (args[1] === "dashboard") await useDashboard(running);
          else await running.line((l) => /\bblue\s+ready\b/.test(l));
          const result = await running.stop();
          assert.equal(result.code, 0, result.stderr);
          checked.add(args[1]);
          return;
        }
        const result = await box.run(args, { env });
        assert.equal(result.code, 0, `${result.stdout}${result.stderr}`);
        const key = Object.keys(CHECKS).find((k) => line.startsWith(k));
        assert.ok(key, `no check for the example "corral ${line}"`);
        await CHECKS[key](result);
        checked.add(key);
      });
    }
    await t.step("every check and long-running example was run", () => {
      assert.deepEqual(
        [...Object.keys(CHECKS), "dashboard", "watch"].filter((k) =>
          !checked.has(k)
        ),
        [],
      );
    });
  } finally {
    await box.remove();
    await main.stop();
  }
});
