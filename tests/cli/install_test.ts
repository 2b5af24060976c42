/**
 * The README's install line, `deno task install:cli`, run as written into a
 * fresh DENO_INSTALL_ROOT: it installs `corral` pinned to the repository's
 * lockfile, the installed command runs from any directory (`--version`),
 * lists a started Corral's clusters, and the repository's lockfile is left
 * as it was.
 */
import assert from "node:assert/strict";
import { startCorral } from "./cli_process.ts";
import { configOfScript, installRoot } from "../../tools/install_cli.ts";

const ROOT = new URL("../../", import.meta.url).pathname;

async function run(
  command: string,
  args: string[],
  options: { cwd?: string; env?: Record<string, string> } = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  const output = await new Deno.Command(command, {
    args,
    cwd: options.cwd,
    env: { NO_COLOR: "1", ...options.env },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decoder = new TextDecoder();
  return {
    code: output.code,
    stdout: decoder.decode(output.stdout),
    stderr: decoder.decode(output.stderr),
  };
}

Deno.test("installRoot: DENO_INSTALL_ROOT, else ~/.deno", () => {
  const env = (vars: Record<string, string>) => (name: string) => vars[name];
  assert.equal(installRoot(env({ DENO_INSTALL_ROOT: "/opt/d/" })), "/opt/d");
  assert.equal(installRoot(env({ HOME: "/home/ada" })), "/home/ada/.deno");
  assert.equal(
    configOfScript(
      "exec deno run --allow-net --config /r/bin/.corral/deno.json 'file:///x/cli/main.ts'",
    ),
    "/r/bin/.corral/deno.json",
  );
});

Deno.test("deno task install:cli installs a corral that runs, into a fresh DENO_INSTALL_ROOT", async () => {
  const root = await Deno.makeTempDir({ prefix: "corral-install-" });
  const elsewhere = await Deno.makeTempDir({ prefix: "corral-cwd-" });
  const lockBefore = await Deno.readTextFile(`${ROOT}deno.lock`);
  const main = await startCorral({ namespace: "team-a" });
  try {
    const installed = await run(Deno.execPath(), ["task", "install:cli"], {
      cwd: ROOT,
      env: { DENO_INSTALL_ROOT: root },
    });
    assert.equal(installed.code, 0, installed.stderr);
    assert.doesNotMatch(installed.stderr, /lockfile is out of date/);
    // protobufjs 7's postinstall (a version check grpc's proto-loader does
    // not need) is denied in deno.json, so no "Ignored build scripts" box.
    assert.doesNotMatch(installed.stderr, /Ignored build scripts/);
    assert.match(installed.stdout, new RegExp(`installed ${root}/bin/corral`));

    const corral = `${root}/bin/corral`;
    const version = await run(corral, ["--version"], { cwd: elsewhere });
    assert.equal(version.code, 0, version.stderr);
    const denoJson = JSON.parse(await Deno.readTextFile(`${ROOT}deno.json`));
    assert.equal(version.stdout.trim(), `corral ${denoJson.version}`);

    const list = await run(corral, ["clusters", "list", "-n", "team-a"], {
      cwd: elsewhere,
      env: {
        CORRAL_SERVER: main.http,
        CORRAL_CONFIG: `${elsewhere}/config.yaml`,
      },
    });
    assert.equal(list.code, 0, list.stderr);
    assert.match(list.stdout + list.stderr, /No clusters|NAME/);

    assert.equal(
      await Deno.readTextFile(`${ROOT}deno.lock`),
      lockBefore,
      "the repository's lockfile is unchanged",
    );
  } finally {
    await main.stop();
    await Deno.remove(root, { recursive: true });
    await Deno.remove(elsewhere, { recursive: true });
  }
});
