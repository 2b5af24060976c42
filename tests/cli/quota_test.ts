/**
 * `corral quota` against a dev-mode Corral that takes tokens and a policy
 * with quotas: each quota that applies to the caller, its dimensions as
 * "used / limit", as a table and as JSON; a namespace without quotas says
 * so; completion offers the command and its flags. memory() and
 * quotaTable() are checked on their own too.
 */
import assert from "node:assert/strict";
import { FREE_PORTS, NO_SHUTDOWN_DELAY } from "../main_process.ts";
import { sandbox, startCorral } from "./cli_process.ts";
import { memory, quotaTable } from "../../cli/quota.ts";
import { allowAll, policyText, users } from "../api/auth/policy_fixtures.ts";

const ALICE = "alice-token-0123456789abcdef0123456789";

const POLICY = policyText([allowAll(users("alice"), ["team-a", "team-b"])], {
  quotas: [
    { namespaces: ["team-a"], maxClusters: 2, gpu: 4, memory: 16 },
    { namespaces: ["team-a"], users: ["alice"], cpu: 8 },
  ],
});

Deno.test("memory() writes GiB in the unit that reads best", () => {
  const cases: [number, string][] = [
    [0, "0"],
    [0.5, "512Mi"],
    [2, "2Gi"],
    [1.5, "1.5Gi"],
    [1024, "1Ti"],
    [1536, "1.5Ti"],
  ];
  for (const [gib, want] of cases) {
    assert.equal(memory(gib), want, `memory(${gib})`);
  }
});

Deno.test("quotaTable() shows limited dimensions as used / limit, others as -", () => {
  assert.equal(
    quotaTable({
      namespace: "team-a",
      quotas: [{
        scope: "team-a",
        limited: ["cpu", "memory"],
        limits: { cpu: 0.5, memoryGib: 0.75 },
        used: { cpu: 0.25, memoryGib: 0.5, clusters: 1 },
      }],
    }),
    "QUOTA    CLUSTERS   WORKERS   CPUS         GPUS   MEMORY\n" +
      "team-a   -          -         0.25 / 0.5   -      512Mi / 768Mi\n",
  );
  assert.equal(
    quotaTable({ namespace: "team-b", quotas: [] }),
    "No quotas apply to you in namespace team-b\n",
  );
});

Deno.test("quotaTable() gives each accelerator a quota names a column of its own", () => {
  assert.equal(
    quotaTable({
      namespace: "team-a",
      quotas: [{
        scope: "team-a",
        limited: ["gpu", "nvidia.com/mig-1g.10gb"],
        limits: { gpu: 8, accelerators: { "nvidia.com/mig-1g.10gb": 4 } },
        used: { gpu: 6, accelerators: { "nvidia.com/mig-1g.10gb": 4 } },
      }, {
        scope: 'user "ada" in team-a',
        limited: ["cpu"],
        limits: { cpu: 4 },
        used: { cpu: 1 },
      }],
    }),
    "QUOTA                  CLUSTERS   WORKERS   CPUS    GPUS    MEMORY   nvidia.com/mig-1g.10gb\n" +
      "team-a                 -          -         -       6 / 8   -        4 / 4\n" +
      'user "ada" in team-a   -          -         1 / 4   -       -        -\n',
  );
});

Deno.test("corral quota shows the quotas that apply to the caller, used / limit", async (t) => {
  const box = await sandbox();
  await Deno.writeTextFile(`${box.dir}/tokens.csv`, `${ALICE},alice,1001\n`);
  await Deno.writeTextFile(`${box.dir}/policy.yaml`, POLICY);
  const main = await startCorral({
    args: [
      "--orchestrator",
      "embedded",
      ...FREE_PORTS,
      ...NO_SHUTDOWN_DELAY,
      "--token-auth-file",
      `${box.dir}/tokens.csv`,
      "--authorization-policy-file",
      `${box.dir}/policy.yaml`,
    ],
  });
  const env = {
    CORRAL_SERVER: main.http,
    CORRAL_TOKEN: ALICE,
    CORRAL_NAMESPACE: "team-a",
  };
  const cli = async (...args: string[]) => {
    const result = await box.run(args, { env });
    return result;
  };
  try {
    await t.step(
      "a cluster of a head and a worker, 1 CPU and 1 GiB each",
      async () => {
        const template = await cli(
          "templates",
          "create",
          "--name",
          "small",
          "--cpu",
          "1",
          "--memory",
          "1",
        );
        assert.equal(template.code, 0, template.stderr);
        const cluster = await cli(
          "clusters",
          "create",
          "blue",
          "--template",
          "small",
          "--workers",
          "1",
          "--version",
          "2.9.0",
        );
        assert.equal(cluster.code, 0, cluster.stderr);
      },
    );

    await t.step("the table: a row per quota that applies", async () => {
      const result = await cli("quota");
      assert.equal(result.code, 0, result.stderr);
      assert.equal(
        result.stdout,
        [
          "QUOTA                    CLUSTERS   WORKERS   CPUS    GPUS    MEMORY",
          "team-a                   1 / 2      -         -       0 / 4   2Gi / 16Gi",
          'user "alice" in team-a   -          -         2 / 8   -       -',
          "",
        ].join("\n"),
      );
    });

    await t.step("-o json: the answer whole", async () => {
      const result = await cli("quota", "-o", "json");
      assert.equal(result.code, 0, result.stderr);
      const answer = JSON.parse(result.stdout);
      assert.equal(answer.namespace, "team-a");
      assert.deepEqual(answer.used, {
        clusters: 1,
        workers: 1,
        cpu: 2,
        gpu: 0,
        memoryGib: 2,
        accelerators: {},
      });
      assert.deepEqual(
        answer.quotas.map((q: { scope: string }) => q.scope),
        ["team-a", 'user "alice" in team-a'],
      );
    });

    await t.step("a namespace without quotas says so", async () => {
      const result = await cli("quota", "-n", "team-b");
      assert.equal(result.code, 0, result.stderr);
      assert.equal(
        result.stdout,
        "No quotas apply to you in namespace team-b\n",
      );
    });

    await t.step(
      "a namespace the caller may not read is the API's refusal",
      async () => {
        const result = await cli("quota", "-n", "team-c");
        assert.equal(result.code, 1, result.stdout);
        assert.equal(
          result.stderr,
          'error: Cannot get quotas in namespace "team-c": user "alice" may not get quotas in namespace "team-c"\n',
        );
      },
    );

    await t.step("an argument is a usage error, exit 2", async () => {
      const result = await cli("quota", "team-a");
      assert.equal(result.code, 2);
      assert.match(result.stderr, /unexpected argument "team-a"/);
    });

    await t.step("completion offers quota and its flags", async () => {
      for (const shell of ["bash", "zsh"]) {
        const script = (await cli("completion", shell)).stdout;
        assert.match(script, /\(""\) candidates=\([^)]*\bquota\b/);
        assert.match(script, /\("quota"\) candidates=\(--output -o /);
      }
    });
  } finally {
    await main.stop();
    await box.remove();
  }
});
