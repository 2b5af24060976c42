/**
 * `corral clusters ...` against a dev-mode Corral: every command, its
 * tables and -o output, --wait to ready and to deletion, scale (with
 * concurrent scales that all land), the watch stream, and API errors with their exit codes.
 */
import assert from "node:assert/strict";
import { parse } from "yaml";
import type { MainProcess } from "../main_process.ts";
import {
  assertAligned,
  clusterFile,
  type Sandbox,
  sandbox,
  startCorral,
} from "./cli_process.ts";

const NS = "team-a";

/** `corral <args>` against `main`, in namespace team-a by default. */
type Cli = (...args: string[]) => ReturnType<Sandbox["run"]>;

async function withCorral(
  steps: (main: MainProcess, box: Sandbox, cli: Cli) => Promise<void>,
): Promise<void> {
  const main = await startCorral({ namespace: NS });
  const box = await sandbox();
  const cli: Cli = (...args) =>
    box.run(args, { env: { CORRAL_SERVER: main.http, CORRAL_NAMESPACE: NS } });
  try {
    await steps(main, box, cli);
  } finally {
    await box.remove();
    await main.stop();
  }
}

Deno.test("corral clusters", async (t) => {
  await withCorral(async (main, box, cli) => {
    await Deno.writeTextFile(`${box.dir}/blue.json`, clusterFile("blue", 2));
    await Deno.writeTextFile(
      `${box.dir}/green.yaml`,
      `# YAML works as JSON does\nname: green\nuser: grace\nversion: "2.9.0"\nclusterSpec:\n  headGroupSpec: {computeTemplate: small}\n`,
    );

    await t.step(
      "create -f FILE --wait follows the cluster to ready and exits 0",
      async () => {
        const result = await cli(
          "clusters",
          "create",
          "-f",
          `${box.dir}/blue.json`,
          "--wait",
        );
        assert.equal(result.code, 0, result.stderr);
        assert.match(result.stdout, /^cluster team-a\/blue created/m);
        assert.match(result.stdout, /CreatedHeadPod/, "events as they arrive");
        assert.match(result.stdout, /^cluster team-a\/blue is ready$/m);
        const got = await fetch(
          `${main.http}/apis/v1alpha2/namespaces/${NS}/clusters/blue`,
        );
        assert.equal((await got.json()).clusterState, "ready");
      },
    );

    await t.step(
      "create -f - reads a YAML cluster from standard input",
      async () => {
        const result = await box.run(["clusters", "create", "-f", "-"], {
          env: { CORRAL_SERVER: main.http, CORRAL_NAMESPACE: NS },
          stdin: await Deno.readTextFile(`${box.dir}/green.yaml`),
        });
        assert.equal(result.code, 0, result.stderr);
        assert.equal(result.stdout, "cluster team-a/green created\n");
      },
    );

    await t.step(
      "list prints an aligned table: NAME, STATE, USER, VERSION, WORKERS, AGE",
      async () => {
        const result = await cli("clusters", "list");
        assert.equal(result.code, 0, result.stderr);
        const rows = assertAligned(result.stdout);
        assert.deepEqual(rows[0], [
          "NAME",
          "STATE",
          "USER",
          "VERSION",
          "WORKERS",
          "AGE",
        ]);
        const blue = rows.find((r) => r[0] === "blue")!;
        assert.deepEqual(blue.slice(0, 5), [
          "blue",
          "ready",
          "ada",
          "2.9.0",
          "2",
        ]);
        assert.match(blue[5], /^\d+s$/, "an age as kubectl writes it");
        assert.equal(rows.find((r) => r[0] === "green")![4], "0", "no workers");
      },
    );

    await t.step("list -A adds NAMESPACE first", async () => {
      const result = await cli("clusters", "list", "-A");
      assert.equal(result.code, 0, result.stderr);
      const rows = assertAligned(result.stdout);
      assert.deepEqual(rows[0].slice(0, 2), ["NAMESPACE", "NAME"]);
      assert.deepEqual(rows.slice(1).map((r) => r.slice(0, 2)), [[
        "team-a",
        "blue",
      ], ["team-a", "green"]]);
    });

    await t.step(
      "list -o json and -o yaml print the answer, which parses",
      async () => {
        const json = await cli("clusters", "list", "-o", "json");
        assert.equal(json.code, 0, json.stderr);
        const names = JSON.parse(json.stdout).clusters.map((
          c: { name: string },
        ) => c.name);
        assert.deepEqual(names, ["blue", "green"]);
        const yaml = await cli("clusters", "list", "-o", "yaml");
        assert.deepEqual(
          parse(yaml.stdout).clusters.map((c: { name: string }) => c.name),
          ["blue", "green"],
        );
      },
    );

    await t.step("get NAME prints one row; -o json the cluster", async () => {
      const table = await cli("clusters", "get", "blue");
      assert.equal(table.code, 0, table.stderr);
      assert.equal(assertAligned(table.stdout).length, 2);
      const json = await cli("clusters", "get", "blue", "-o", "json");
      const cluster = JSON.parse(json.stdout);
      assert.equal(cluster.name, "blue");
      assert.equal(cluster.clusterSpec.workerGroupSpec[0].replicas, 2);
    });

    await t.step(
      "get of a cluster that does not exist: the API's message, exit 1",
      async () => {
        const result = await cli("clusters", "get", "nope");
        assert.equal(result.code, 1);
        assert.equal(result.stdout, "");
        assert.match(result.stderr, /^error: .*"team-a\/nope".*not found/);
      },
    );

    await t.step(
      "a cluster the API refuses: error and each field violation with its path, exit 1",
      async () => {
        const result = await box.run(["clusters", "create", "-f", "-"], {
          env: { CORRAL_SERVER: main.http, CORRAL_NAMESPACE: NS },
          stdin: JSON.stringify({
            name: "Bad_",
            clusterSpec: {
              headGroupSpec: {},
              workerGroupSpec: [{ groupName: "w", replicas: -1 }],
            },
          }),
        });
        assert.equal(result.code, 1);
        const lines = result.stderr.trimEnd().split("\n");
        assert.match(lines[0], /^error: Cannot create cluster "team-a\/Bad_"$/);
        assert.ok(
          lines.some((l) =>
            l.startsWith("  cluster.clusterSpec.headGroupSpec.image: ")
          ),
          result.stderr,
        );
        assert.ok(
          lines.includes(
            "  cluster.clusterSpec.workerGroupSpec[0].replicas: must not be negative",
          ),
          result.stderr,
        );
        assert.ok(
          lines.some((l) => l.startsWith("  cluster.name: ")),
          result.stderr,
        );
      },
    );

    await t.step(
      "a file that is not YAML, or names another namespace than -n: exit 2",
      async () => {
        await Deno.writeTextFile(`${box.dir}/bad.yaml`, "name: [unclosed");
        const bad = await cli(
          "clusters",
          "create",
          "-f",
          `${box.dir}/bad.yaml`,
        );
        assert.equal(bad.code, 2);
        assert.match(bad.stderr, /is not YAML or JSON/);
        await Deno.writeTextFile(
          `${box.dir}/other.json`,
          JSON.stringify({
            ...JSON.parse(clusterFile("x")),
            namespace: "team-b",
          }),
        );
        const other = await cli(
          "clusters",
          "create",
          "-f",
          `${box.dir}/other.json`,
          "-n",
          "team-a",
        );
        assert.equal(other.code, 2);
        assert.match(other.stderr, /namespace "team-b" is not -n "team-a"/);
      },
    );

    await t.step("scale changes only that group's replicas", async () => {
      const result = await cli(
        "clusters",
        "scale",
        "blue",
        "--group",
        "workers",
        "--replicas",
        "5",
      );
      assert.equal(result.code, 0, result.stderr);
      assert.equal(
        result.stdout,
        "cluster team-a/blue scaled: group workers from 2 to 5 replicas\n",
      );
      const cluster = await (await fetch(
        `${main.http}/apis/v1alpha2/namespaces/${NS}/clusters/blue`,
      )).json();
      assert.equal(cluster.clusterSpec.workerGroupSpec[0].replicas, 5);
      assert.equal(cluster.clusterSpec.workerGroupSpec[0].maxReplicas, 8);
    });

    await t.step(
      "concurrent scales of different groups all land: each sends the etag it read, and retries",
      async () => {
        const groups = ["g1", "g2", "g3", "g4"];
        const cluster = JSON.parse(clusterFile("multi"));
        cluster.clusterSpec.workerGroupSpec = groups.map((groupName) => ({
          ...cluster.clusterSpec.workerGroupSpec[0],
          groupName,
        }));
        await Deno.writeTextFile(
          `${box.dir}/multi.json`,
          JSON.stringify(cluster),
        );
        const created = await cli(
          "clusters",
          "create",
          "-f",
          `${box.dir}/multi.json`,
          "--wait",
        );
        assert.equal(created.code, 0, created.stderr);
        const results = await Promise.all(
          groups.map((group, i) =>
            cli(
              "clusters",
              "scale",
              "multi",
              "--group",
              group,
              "--replicas",
              String(i + 2),
            )
          ),
        );
        for (const result of results) {
          assert.equal(result.code, 0, result.stderr);
        }
        const got = await (await fetch(
          `${main.http}/apis/v1alpha2/namespaces/${NS}/clusters/multi`,
        )).json();
        assert.deepEqual(
          got.clusterSpec.workerGroupSpec.map((g: { replicas: number }) =>
            g.replicas
          ),
          [2, 3, 4, 5],
        );
        assert.equal((await cli("clusters", "delete", "multi")).code, 0);
      },
    );

    await t.step(
      "scale of a group that does not exist names the groups there are, exit 1",
      async () => {
        const result = await cli(
          "clusters",
          "scale",
          "blue",
          "--group",
          "gpus",
          "--replicas",
          "1",
        );
        assert.equal(result.code, 1);
        assert.equal(
          result.stderr,
          'error: cluster team-a/blue has no worker group "gpus"\n  its groups: workers\n',
        );
      },
    );

    await t.step(
      "scale past the group's maxReplicas: the API's violation, exit 1",
      async () => {
        const result = await cli(
          "clusters",
          "scale",
          "blue",
          "--group",
          "workers",
          "--replicas",
          "9",
        );
        assert.equal(result.code, 1);
        assert.match(
          result.stderr,
          /^ {2}cluster\.clusterSpec\.workerGroupSpec\[0\]\.maxReplicas: /m,
        );
      },
    );

    await t.step(
      "scale without --replicas, or with a word: usage errors, exit 2",
      async () => {
        assert.equal(
          (await cli("clusters", "scale", "blue", "--group", "workers")).code,
          2,
        );
        const word = await cli(
          "clusters",
          "scale",
          "blue",
          "--group",
          "workers",
          "--replicas",
          "many",
        );
        assert.equal(word.code, 2);
        assert.match(word.stderr, /--replicas "many" is not a whole number/);
      },
    );

    await t.step(
      "watch prints a row per change, its event type first, until Ctrl-C",
      async () => {
        const watch = box.spawn(["clusters", "watch"], {
          env: { CORRAL_SERVER: main.http, CORRAL_NAMESPACE: NS },
        });
        await watch.line((l) => /^ADDED\s+blue\s/.test(l));
        await cli(
          "clusters",
          "scale",
          "blue",
          "--group",
          "workers",
          "--replicas",
          "3",
        );
        await watch.line((l) => /^MODIFIED\s+blue\s.*\s3\s+\S+$/.test(l));
        await cli("clusters", "delete", "green");
        await watch.line((l) => /^DELETED\s+green\s/.test(l));
        const ended = await watch.stop("SIGINT");
        assert.equal(ended.code, 0, ended.stderr);
        const lines = ended.stdout.trimEnd().split("\n");
        assert.deepEqual(lines[0].split(/\s+/), [
          "EVENT",
          "NAME",
          "STATE",
          "USER",
          "VERSION",
          "WORKERS",
          "AGE",
        ]);
        assert.ok(!ended.stdout.includes("BOOKMARK"));
      },
    );

    await t.step("watch -A adds NAMESPACE", async () => {
      const watch = box.spawn(["clusters", "watch", "-A"], {
        env: { CORRAL_SERVER: main.http },
      });
      const row = await watch.line((l) => l.startsWith("ADDED"));
      assert.match(row, /^ADDED\s+team-a\s+blue\s/);
      await watch.stop();
    });

    await t.step("delete --wait waits for the DELETED event", async () => {
      const result = await cli("clusters", "delete", "blue", "--wait");
      assert.equal(result.code, 0, result.stderr);
      assert.match(result.stdout, /^cluster team-a\/blue deleted$/m);
      const got = await fetch(
        `${main.http}/apis/v1alpha2/namespaces/${NS}/clusters/blue`,
      );
      await got.body?.cancel();
      assert.equal(got.status, 404);
    });

    await t.step(
      "delete of a cluster that does not exist: exit 1",
      async () => {
        const result = await cli("clusters", "delete", "blue");
        assert.equal(result.code, 1);
        assert.match(result.stderr, /not found/);
      },
    );

    await t.step("an empty namespace says so on standard error", async () => {
      const result = await cli("clusters", "list", "-n", "empty");
      assert.equal(result.code, 0, result.stderr);
      assert.equal(result.stdout, "");
      assert.equal(result.stderr, "No clusters found.\n");
    });
  });
});
