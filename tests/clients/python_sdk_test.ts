/**
 * The Python SDK (clients/python): its unit tests (Python's unittest,
 * against a stand-in server of their own), and the acceptance of issue
 * 37: in a fresh virtual environment, `pip install --no-index
 * ./clients/python` (no network), then the README's first example,
 * extracted from the README so that the two cannot drift apart, run as
 * written against main.ts in embedded mode (CORRAL_SERVER naming it, as
 * a reader's dev mode would be 127.0.0.1:8888): exit 0, its job SUCCEEDED.
 *
 * Needs Debian's python3 with requests, yaml and venv (python3-requests,
 * python3-yaml, python3-venv); without them the tests are reported as
 * ignored, saying why.
 */
import { missingModules, PYTHON } from "../python.ts";
import assert from "node:assert/strict";
import { DEV_PERMISSIONS, EMBEDDED, startMain } from "../main_process.ts";

const SDK = new URL("../../clients/python/", import.meta.url).pathname;

const UNIT_MISSING = missingModules("requests, yaml");
const VENV_MISSING = UNIT_MISSING || missingModules("venv, ensurepip");
if (UNIT_MISSING || VENV_MISSING) {
  console.warn(
    `python_sdk_test: ignored (${
      UNIT_MISSING || VENV_MISSING
    }): install python3-requests, python3-yaml and python3-venv`,
  );
}

/** Runs a command to its end; fails with its output unless it succeeds. */
async function run(
  command: string,
  args: string[],
  options: { cwd?: string; env?: Record<string, string> } = {},
): Promise<string> {
  const { code, stdout, stderr } = await new Deno.Command(command, {
    args,
    ...options,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const out = new TextDecoder().decode(stdout);
  const err = new TextDecoder().decode(stderr);
  assert.equal(
    code,
    0,
    `${command} ${args.join(" ")} exited with ${code}:\n${out}\n${err}`,
  );
  return out;
}

/** The README's first ```python block. */
function firstPythonBlock(readme: string): string {
  const block = readme.match(/```python\n([\s\S]*?)```/);
  assert.ok(block, "the README has no ```python block");
  return block[1];
}

Deno.test({
  name:
    "the Python SDK's unit tests pass (errors, credentials, waiting, watching, submissions)",
  ignore: UNIT_MISSING !== "",
  async fn() {
    const out = await run(PYTHON, [
      "-m",
      "unittest",
      "discover",
      "-s",
      "tests",
      "-t",
      ".",
    ], { cwd: SDK, env: { PYTHONDONTWRITEBYTECODE: "1" } });
    assert.equal(out, "");
  },
});

Deno.test({
  name:
    "pip installs the SDK offline into a fresh venv, and the README's first example runs as written against embedded mode",
  ignore: VENV_MISSING !== "",
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "corral-sdk-" });
    const corral = await startMain({
      permissions: DEV_PERMISSIONS,
      args: EMBEDDED,
    });
    try {
      const venv = `${dir}/venv`;
      await run(PYTHON, ["-m", "venv", "--system-site-packages", venv]);
      await run(`${venv}/bin/pip`, [
        "install",
        "--no-index",
        "--no-cache-dir",
        "--disable-pip-version-check",
        SDK,
      ], { env: { PIP_CONFIG_FILE: "/dev/null" } });
      const readme = await Deno.readTextFile(`${SDK}README.md`);
      await Deno.writeTextFile(`${dir}/example.py`, firstPythonBlock(readme));
      const out = await run(`${venv}/bin/python`, ["example.py"], {
        cwd: dir,
        env: {
          CORRAL_SERVER: corral.http,
          CORRAL_CONFIG: `${dir}/no-config.yaml`,
        },
      });
      assert.match(out, /cluster demo is ready/);
      assert.match(out, /Running entrypoint: python train\.py/);
      assert.match(out, /job raysubmit_\w+ SUCCEEDED/);
    } finally {
      await corral.stop();
      await Deno.remove(dir, { recursive: true });
    }
  },
});
