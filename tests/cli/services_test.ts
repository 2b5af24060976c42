/**
 * `corral services ...` as its users run it. First against dev mode, whose
 * simulated operator runs each service (its cluster made ready, then its
 * applications RUNNING): create --wait, list, get, update, delete. Then
 * against a Corral in kubernetes mode over a stand-in with no operator,
 * where the test writes the RayService's status as KubeRay's operator
 * would, so that `wait` is seen to time out (exit 2), to end when the
 * service is Running (exit 0) and when it is deleted meanwhile (exit 1).
 */
import assert from "node:assert/strict";
import { parse } from "yaml";
import { kubeconfigFor, startStandin } from "../../standin/mod.ts";
import {
  ANONYMOUS,
  FREE_PORTS,
  type MainProcess,
  NO_SHUTDOWN_DELAY,
} from "../main_process.ts";
import { eventually } from "../eventually.ts";
import {
  assertAligned,
  type Sandbox,
  sandbox,
  startCorral,
} from "./cli_process.ts";

const NS = "team-a";
const RAYSERVICES = `/apis/ray.io/v1/namespaces/${NS}/rayservices`;
const NEW_CLUSTER = ["--template", "small", "--version", "2.9.0"];
const ONE_APP = `applications:
  - name: fruit
    import_path: fruit.deployment_graph
    deployments:
      - name: MangoStand
`;
const TWO_APPS = `${ONE_APP}  - name: veg
    import_path: veg.graph
    route_prefix: /veg
`;

Deno.test("corral services: create --wait until Running, list, get, update, delete in dev mode", async (t) => {
  const box: Sandbox = await sandbox();
  const main: MainProcess = await startCorral({ namespace: NS });
  const env = { CORRAL_SERVER: main.http, CORRAL_NAMESPACE: NS };
  const config = `${box.dir}/serve.yaml`;
  await Deno.writeTextFile(config, ONE_APP);
  const getJson = async (name: string) => {
    const got = await box.run(["services", "get", name, "-o", "json"], {
      env,
    });
    assert.equal(got.code, 0, got.stderr);
    return JSON.parse(got.stdout);
  };
  try {
    await t.step(
      "create --wait prints each step and ends 0 once Running",
      async () => {
        const created = await box.run([
          "services",
          "create",
          "fruit",
          "--serve-config",
          config,
          ...NEW_CLUSTER,
          "--workers",
          "2",
          "--user",
          "ada",
          "--wait",
          "--timeout",
          "60s",
        ], { env });
        assert.equal(created.code, 0, created.stderr + created.stdout);
        const lines = created.stdout.trimEnd().split("\n");
        assert.equal(
          lines[0],
          "service team-a/fruit created, waiting for it to be Running",
        );
        assert.match(
          lines.at(-1)!,
          /^service team-a\/fruit: Running on cluster fruit-\w{5}, applications RUNNING 1\/1/,
        );
        assert.ok(
          lines.some((l) => /Normal {2}CreatedRayCluster: /.test(l)),
          created.stdout,
        );
        const service = await getJson("fruit");
        assert.equal(service.serveConfigV2, ONE_APP);
        assert.equal(service.user, "ada");
        assert.equal(service.clusterSpec.workerGroupSpec[0].replicas, 2);
      },
    );

    await t.step(
      "list: a table of health, clusters and applications",
      async () => {
        const listed = await box.run(["services", "list"], { env });
        assert.equal(listed.code, 0, listed.stderr);
        const rows = assertAligned(listed.stdout);
        assert.deepEqual(rows[0], [
          "NAME",
          "STATUS",
          "ACTIVE-CLUSTER",
          "PENDING-CLUSTER",
          "APPLICATIONS",
          "AGE",
        ]);
        const [name, status, active, pending, apps] = rows[1];
        assert.deepEqual([name, status, pending, apps], [
          "fruit",
          "Running",
          "<none>",
          "RUNNING 1/1",
        ]);
        assert.match(active, /^fruit-\w{5}$/);
        const all = await box.run(["services", "list", "-A", "-o", "yaml"], {
          env,
        });
        assert.equal(all.code, 0, all.stderr);
        assert.deepEqual(
          parse(all.stdout).services.map((s: { name: string }) => s.name),
          ["fruit"],
        );
      },
    );

    await t.step(
      "get -o yaml shows the applications and their deployments",
      async () => {
        const got = await box.run(["services", "get", "fruit", "-o", "yaml"], {
          env,
        });
        assert.equal(got.code, 0, got.stderr);
        const app =
          parse(got.stdout).rayServiceStatus.serveApplicationStatus[0];
        assert.equal(app.name, "fruit");
        assert.equal(app.status, "RUNNING");
        assert.equal(app.serveDeploymentStatus[0].deploymentName, "MangoStand");
      },
    );

    await t.step(
      "update --serve-config deploys the new config; --workers scales",
      async () => {
        await Deno.writeTextFile(config, TWO_APPS);
        const updated = await box.run(
          ["services", "update", "fruit", "--serve-config", config],
          { env },
        );
        assert.equal(updated.code, 0, updated.stderr);
        assert.equal(updated.stdout, "service team-a/fruit updated\n");
        await eventually("both applications RUNNING", async () => {
          const listed = await box.run(["services", "list"], { env });
          return listed.stdout.includes("RUNNING 2/2") ? true : undefined;
        });
        const scaled = await box.run(
          ["services", "update", "fruit", "--workers", "3"],
          { env },
        );
        assert.equal(scaled.code, 0, scaled.stderr);
        const service = await getJson("fruit");
        assert.equal(service.serveConfigV2, TWO_APPS);
        const group = service.clusterSpec.workerGroupSpec[0];
        assert.deepEqual([group.replicas, group.maxReplicas], [3, 3]);
      },
    );

    await t.step(
      "refusals: Corral's names the field (exit 1), the CLI's say what to give (exit 2)",
      async () => {
        const bad = `${box.dir}/bad.yaml`;
        await Deno.writeTextFile(bad, "applications:\n  - name: x\n");
        const refused = await box.run(
          [
            "services",
            "create",
            "nopath",
            "--serve-config",
            bad,
            ...NEW_CLUSTER,
          ],
          { env },
        );
        assert.equal(refused.code, 1, refused.stdout);
        assert.match(refused.stderr, /serveConfigV2/);
        assert.match(refused.stderr, /import_path/);
        const notYaml = `${box.dir}/list.yaml`;
        await Deno.writeTextFile(notYaml, "- a\n- b\n");
        const usage = await box.run(
          [
            "services",
            "create",
            "x",
            "--serve-config",
            notYaml,
            ...NEW_CLUSTER,
          ],
          { env },
        );
        assert.equal(usage.code, 2);
        assert.match(usage.stderr, /does not hold a Serve config/);
        const nothing = await box.run(["services", "update", "fruit"], { env });
        assert.equal(nothing.code, 2);
        assert.match(nothing.stderr, /--serve-config FILE or --workers N/);
        const noCluster = await box.run(
          ["services", "create", "x", "--serve-config", config],
          { env },
        );
        assert.equal(noCluster.code, 2);
        assert.match(noCluster.stderr, /--template T/);
      },
    );

    await t.step(
      "create -f takes the whole service; delete removes it",
      async () => {
        const file = `${box.dir}/veg.yaml`;
        await Deno.writeTextFile(
          file,
          JSON.stringify({
            name: "veg",
            user: "ada",
            version: "2.9.0",
            serveConfigV2: ONE_APP,
            clusterSpec: { headGroupSpec: { computeTemplate: "small" } },
          }),
        );
        const created = await box.run(["services", "create", "-f", file], {
          env,
        });
        assert.equal(created.code, 0, created.stderr);
        assert.equal(created.stdout, "service team-a/veg created\n");
        const deleted = await box.run(["services", "delete", "veg"], { env });
        assert.equal(deleted.code, 0, deleted.stderr);
        assert.equal(deleted.stdout, "service team-a/veg deleted\n");
        await eventually("veg gone", async () => {
          const got = await box.run(["services", "get", "veg"], { env });
          return got.code === 1 ? true : undefined;
        });
      },
    );
  } finally {
    await main.stop();
    await box.remove();
  }
});

/** Writes a RayService's status as KubeRay's operator would. */
async function setStatus(
  standin: string,
  name: string,
  status: Record<string, unknown>,
): Promise<void> {
  const response = await fetch(`${standin}${RAYSERVICES}/${name}/status`, {
    method: "PATCH",
    headers: { "content-type": "application/merge-patch+json" },
    body: JSON.stringify({ status }),
  });
  assert.equal(response.status, 200, await response.text());
}

Deno.test("corral services wait: exit 2 on --timeout, 0 once Running, 1 when deleted meanwhile", async (t) => {
  const box: Sandbox = await sandbox();
  // No simulated operator: what it would write, the test writes.
  const kube = startStandin({ hostname: "127.0.0.1", port: 0 });
  const kubeconfig = `${box.dir}/standin.kubeconfig`;
  await Deno.writeTextFile(kubeconfig, kubeconfigFor(kube.url));
  const main: MainProcess = await startCorral({
    namespace: NS,
    args: [
      "--orchestrator",
      "kubernetes",
      "--kubeconfig",
      kubeconfig,
      ...FREE_PORTS,
      ...ANONYMOUS,
      ...NO_SHUTDOWN_DELAY,
    ],
  });
  const env = { CORRAL_SERVER: main.http, CORRAL_NAMESPACE: NS };
  const config = `${box.dir}/serve.yaml`;
  await Deno.writeTextFile(config, ONE_APP);
  const create = async (name: string) => {
    const created = await box.run(
      [
        "services",
        "create",
        name,
        "--serve-config",
        config,
        ...NEW_CLUSTER,
        "--user",
        "ada",
      ],
      { env },
    );
    assert.equal(created.code, 0, created.stderr);
  };
  try {
    await create("slow");
    await create("gone");

    await t.step("--timeout runs out: exit 2, naming the status", async () => {
      const waited = await box.run(
        ["services", "wait", "slow", "--timeout", "1500ms"],
        { env },
      );
      assert.equal(waited.code, 2, waited.stdout);
      assert.match(
        waited.stderr,
        /timed out after .* waiting for service team-a\/slow to be Running \(status: Pending\)/,
      );
      assert.match(
        waited.stdout,
        /service team-a\/slow: Pending, applications RUNNING 0\/1/,
      );
    });

    await t.step("the operator says Running: exit 0", async () => {
      const waiting = box.spawn(["services", "wait", "slow"], { env });
      await waiting.line((l) => l.startsWith("service team-a/slow: Pending"));
      await setStatus(kube.url, "slow", {
        serviceStatus: "Running",
        activeServiceStatus: {
          rayClusterName: "slow-abcde",
          applicationStatuses: { fruit: { status: "RUNNING" } },
        },
      });
      const result = await waiting.done;
      assert.equal(result.code, 0, result.stderr);
      assert.match(
        result.stdout,
        /service team-a\/slow: Running on cluster slow-abcde, applications RUNNING 1\/1\n$/,
      );
    });

    await t.step(
      "deleted while waiting: exit 1; not there: exit 1",
      async () => {
        const waiting = box.spawn(["services", "wait", "gone"], { env });
        await waiting.line((l) => l.startsWith("service team-a/gone: Pending"));
        const deleted = await box.run(["services", "delete", "gone"], { env });
        assert.equal(deleted.code, 0, deleted.stderr);
        const result = await waiting.done;
        assert.equal(result.code, 1);
        assert.match(result.stderr, /was deleted while waiting/);
        const missing = await box.run(["services", "wait", "nothing"], { env });
        assert.equal(missing.code, 1);
        assert.match(missing.stderr, /nothing/);
      },
    );
  } finally {
    await main.stop();
    await kube.close();
    await box.remove();
  }
});
