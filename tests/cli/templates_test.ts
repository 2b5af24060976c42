/**
 * `corral templates ...` against a dev-mode Corral: create from flags and
 * from a file, list (aligned, -A), get with -o, delete, and the API's
 * refusals with their exit codes.
 */
import assert from "node:assert/strict";
import { parse } from "yaml";
import {
  assertAligned,
  clusterFile,
  sandbox,
  startCorral,
} from "./cli_process.ts";

Deno.test("corral templates", async (t) => {
  const main = await startCorral();
  const box = await sandbox();
  const cli = (...args: string[]) =>
    box.run(args, { env: { CORRAL_SERVER: main.http } });
  try {
    await t.step(
      "create from flags: --name --cpu --memory [--gpu]",
      async () => {
        const small = await cli(
          "templates",
          "create",
          "--name",
          "small",
          "--cpu",
          "2",
          "--memory",
          "4",
          "-n",
          "team-a",
        );
        assert.equal(small.code, 0, small.stderr);
        assert.equal(small.stdout, "compute template team-a/small created\n");
        const gpu = await cli(
          "templates",
          "create",
          "--name",
          "gpu",
          "--cpu",
          "8",
          "--memory",
          "32Gi",
          "--gpu",
          "1",
          "-n",
          "team-a",
        );
        assert.equal(gpu.code, 0, gpu.stderr);
      },
    );

    await t.step("create -f FILE, its namespace from the file", async () => {
      await Deno.writeTextFile(
        `${box.dir}/tiny.yaml`,
        "name: tiny\nnamespace: team-b\ncpu: 1\nmemory: 1\n",
      );
      const result = await cli(
        "templates",
        "create",
        "-f",
        `${box.dir}/tiny.yaml`,
      );
      assert.equal(result.code, 0, result.stderr);
      assert.equal(result.stdout, "compute template team-b/tiny created\n");
    });

    await t.step("list: NAME, CPU, MEMORY, GPU, aligned", async () => {
      const result = await cli("templates", "list", "-n", "team-a");
      assert.equal(result.code, 0, result.stderr);
      assert.deepEqual(assertAligned(result.stdout), [
        ["NAME", "CPU", "MEMORY", "GPU"],
        ["gpu", "8", "32Gi", "1"],
        ["small", "2", "4Gi", "0"],
      ]);
    });

    await t.step("list -A adds NAMESPACE", async () => {
      const result = await cli("templates", "list", "-A");
      assert.deepEqual(assertAligned(result.stdout).map((r) => r.slice(0, 2)), [
        ["NAMESPACE", "NAME"],
        ["team-a", "gpu"],
        ["team-a", "small"],
        ["team-b", "tiny"],
      ]);
    });

    await t.step("get -o json and -o yaml parse", async () => {
      const json = await cli(
        "templates",
        "get",
        "gpu",
        "-n",
        "team-a",
        "-o",
        "json",
      );
      assert.equal(json.code, 0, json.stderr);
      assert.deepEqual(
        (({ name, cpu, memory, gpu }) => ({ name, cpu, memory, gpu }))(
          JSON.parse(json.stdout),
        ),
        { name: "gpu", cpu: 8, memory: 32, gpu: 1 },
      );
      const yaml = await cli("templates", "list", "-A", "-o", "yaml");
      assert.equal(parse(yaml.stdout).computeTemplates.length, 3);
    });

    await t.step(
      "a template the API refuses: each field violation with its path, exit 1",
      async () => {
        const result = await cli(
          "templates",
          "create",
          "--name",
          "Huge_",
          "--cpu",
          "0",
          "--memory",
          "1",
          "-n",
          "team-a",
        );
        assert.equal(result.code, 1);
        assert.match(result.stderr, /^error: /);
        assert.match(result.stderr, /^ {2}computeTemplate\.name: /m);
        assert.match(result.stderr, /^ {2}computeTemplate\.cpu: /m);
      },
    );

    await t.step(
      "create without its flags, or with -f and flags: usage errors, exit 2",
      async () => {
        const missing = await cli("templates", "create", "--name", "x");
        assert.equal(missing.code, 2);
        assert.match(
          missing.stderr,
          /^error: --cpu, --memory are required without -f/,
        );
        const both = await cli(
          "templates",
          "create",
          "-f",
          "x.yaml",
          "--cpu",
          "1",
        );
        assert.equal(both.code, 2);
        const word = await cli(
          "templates",
          "create",
          "--name",
          "x",
          "--cpu",
          "two",
          "--memory",
          "1",
        );
        assert.equal(word.code, 2);
        assert.match(word.stderr, /--cpu "two" is not a whole number/);
      },
    );

    await t.step(
      "a template a cluster uses cannot be deleted (exit 1); an unused one can",
      async () => {
        await Deno.writeTextFile(`${box.dir}/blue.json`, clusterFile("blue"));
        assert.equal(
          (await cli(
            "clusters",
            "create",
            "-f",
            `${box.dir}/blue.json`,
            "-n",
            "team-a",
          )).code,
          0,
        );
        const used = await cli("templates", "delete", "small", "-n", "team-a");
        assert.equal(used.code, 1);
        assert.match(used.stderr, /blue/);
        const unused = await cli("templates", "delete", "gpu", "-n", "team-a");
        assert.equal(unused.code, 0, unused.stderr);
        assert.equal(unused.stdout, "compute template team-a/gpu deleted\n");
        const gone = await cli("templates", "get", "gpu", "-n", "team-a");
        assert.equal(gone.code, 1);
        assert.match(gone.stderr, /not found/);
      },
    );
  } finally {
    await box.remove();
    await main.stop();
  }
});
