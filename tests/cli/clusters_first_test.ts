/**
 * A first cluster from the command line with nothing but its name (issue
 * 37): `corral clusters create NAME` runs the newest Ray version Corral
 * knows, on the namespace's only or smallest compute template, owned by
 * the login name where no token says who (else, in dev mode, the
 * anonymous caller); and the hints of what goes wrong first: a missing
 * owner names --user, a server that does not
 * answer names --server, CORRAL_SERVER and the contexts.
 */
import assert from "node:assert/strict";
import { NEWEST_RAY_VERSION } from "../../domain/ray_versions.ts";
import { refusedUrl } from "../refused_url.ts";
import { sandbox, startCorral } from "./cli_process.ts";

const NS = "team-a";

Deno.test("corral clusters create NAME: a first cluster with nothing but its name", async (t) => {
  const main = await startCorral({ namespace: NS });
  const box = await sandbox();
  const env = {
    CORRAL_SERVER: main.http,
    CORRAL_NAMESPACE: NS,
    USER: "ada",
    USERNAME: "",
  };
  const get = async (name: string) =>
    await (await fetch(
      `${main.http}/apis/v1alpha2/namespaces/${NS}/clusters/${name}`,
    )).json();
  try {
    // A bigger template beside startCorral's "small" (1 CPU, 1 GiB).
    const big = await fetch(
      `${main.http}/apis/v1/namespaces/${NS}/compute_templates`,
      {
        method: "POST",
        body: JSON.stringify({ name: "a-big", cpu: 8, memory: 32 }),
        headers: { "content-type": "application/json" },
      },
    );
    assert.equal(big.status, 200, await big.text());

    await t.step(
      "the newest version, the smallest template, the login name as owner; ready with --wait",
      async () => {
        const result = await box.run(
          ["clusters", "create", "red", "--wait"],
          { env },
        );
        assert.equal(result.code, 0, result.stderr);
        assert.match(result.stdout, /^cluster team-a\/red is ready$/m);
        const red = await get("red");
        assert.equal(red.version, NEWEST_RAY_VERSION);
        assert.equal(red.user, "ada");
        assert.equal(red.clusterSpec.headGroupSpec.computeTemplate, "small");
        assert.deepEqual(
          red.clusterSpec.workerGroupSpec.map((
            g: { computeTemplate: string },
          ) => g.computeTemplate),
          ["small"],
        );
      },
    );

    await t.step(
      "what is given wins: --template, --image (no version then), --user",
      async () => {
        const result = await box.run([
          "clusters",
          "create",
          "green",
          "--template",
          "a-big",
          "--image",
          "rayproject/ray:2.9.0",
          "--user",
          "grace",
        ], { env });
        assert.equal(result.code, 0, result.stderr);
        const green = await get("green");
        assert.equal(green.version, "");
        assert.equal(green.user, "grace");
        assert.equal(green.clusterSpec.headGroupSpec.computeTemplate, "a-big");
      },
    );

    await t.step(
      "without $USER and a token, in dev mode: the owner is the caller as Corral knows it",
      async () => {
        const result = await box.run(["clusters", "create", "blue"], {
          env: { ...env, USER: "" },
        });
        assert.equal(result.code, 0, result.stderr);
        assert.equal((await get("blue")).user, "system:anonymous");
      },
    );

    await t.step(
      "without $USER and a token, a missing owner's error names --user",
      async () => {
        // A service's cluster takes its owner from --user or $USER only.
        const config = `${box.dir}/serve.yaml`;
        await Deno.writeTextFile(
          config,
          "applications:\n  - name: fruit\n    import_path: fruit:graph\n",
        );
        const result = await box.run(
          [
            "services",
            "create",
            "fruit",
            "--template",
            "small",
            "--version",
            "2.9.0",
            "--serve-config",
            config,
          ],
          { env: { ...env, USER: "" } },
        );
        assert.equal(result.code, 1, result.stderr);
        const lines = result.stderr.trimEnd().split("\n");
        assert.ok(
          lines.some((line) => /user: is required/.test(line)),
          result.stderr,
        );
        assert.ok(
          lines.some((line) =>
            /^ {2}name the owner with --user NAME/.test(line)
          ),
          result.stderr,
        );
      },
    );
  } finally {
    await box.remove();
    await main.stop();
  }
});

Deno.test("a server that does not answer: the error names --server, CORRAL_SERVER and where the URL came from", async (t) => {
  const box = await sandbox();
  const url = await refusedUrl();
  try {
    for (
      const [how, args, env, from] of [
        ["--server", ["--server", url], {}, "--server"],
        ["CORRAL_SERVER", [], { CORRAL_SERVER: url }, "CORRAL_SERVER"],
      ] as const
    ) {
      await t.step(`named by ${how}`, async () => {
        const result = await box.run(["clusters", "list", ...args], { env });
        assert.equal(result.code, 3);
        const lines = result.stderr.trimEnd().split("\n");
        assert.match(
          lines[0],
          new RegExp(`^error: cannot reach Corral at ${url}: `),
        );
        assert.match(lines[1], new RegExp(`\\(from ${from}\\)`));
        assert.match(lines[1], /--server URL or CORRAL_SERVER/);
        assert.match(lines[2], /corral config set-context NAME --server URL/);
      });
    }
    await t.step("named by the context", async () => {
      const saved = await box.run([
        "config",
        "set-context",
        "here",
        "--server",
        url,
      ]);
      assert.equal(saved.code, 0, saved.stderr);
      const result = await box.run(["clusters", "list"]);
      assert.equal(result.code, 3);
      assert.match(result.stderr, /\(from context "here"\)/);
    });
  } finally {
    await box.remove();
  }
});
