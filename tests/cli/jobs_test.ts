/**
 * `corral jobs ...` against a Corral in kubernetes mode over a stand-in
 * with no operator at all, so the test plays KubeRay's operator itself: it writes
 * each RayJob's status (RUNNING, then SUCCEEDED, FAILED or STOPPED, or a
 * deployment that failed past its deadline) through the stand-in's
 * Kubernetes API, as the operator does. `--wait`'s exit code is the job's
 * outcome: 0 SUCCEEDED, 1 FAILED, 4 STOPPED, 2 when --timeout runs out.
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
import {
  assertAligned,
  clusterFile,
  type Sandbox,
  sandbox,
  startCorral,
} from "./cli_process.ts";

const NS = "team-a";
const RAYJOBS = `/apis/ray.io/v1/namespaces/${NS}/rayjobs`;
const NEW_CLUSTER = ["--template", "small", "--version", "2.9.0"];

/** Writes a RayJob's status as KubeRay's operator would. */
async function setStatus(
  standin: string,
  name: string,
  status: Record<string, unknown>,
): Promise<void> {
  const response = await fetch(`${standin}${RAYJOBS}/${name}/status`, {
    method: "PATCH",
    headers: { "content-type": "application/merge-patch+json" },
    body: JSON.stringify({ status }),
  });
  assert.equal(response.status, 200, await response.text());
}

const now = () => new Date().toISOString().replace(/\.\d+Z$/, "Z");

/** RUNNING, as the operator writes it once the entrypoint is submitted. */
function running(cluster: string) {
  return {
    jobStatus: "RUNNING",
    jobDeploymentStatus: "Running",
    rayClusterName: cluster,
    startTime: now(),
  };
}

/** An end, as the operator writes it. */
function ended(jobStatus: string, message: string) {
  return {
    jobStatus,
    jobDeploymentStatus: jobStatus === "SUCCEEDED" ? "Complete" : "Failed",
    message,
    endTime: now(),
  };
}

Deno.test("corral jobs: submit --wait ends with the job's outcome, list, get, wait, watch, delete", async (t) => {
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
  const standin = kube.url;
  const rayJob = async (name: string) =>
    await (await fetch(`${standin}${RAYJOBS}/${name}`)).json();

  /** `jobs submit NAME ... --wait` until it prints PENDING. */
  async function submitWaiting(name: string, extra: string[] = []) {
    const waiting = box.spawn(
      [
        "jobs",
        "submit",
        "--name",
        name,
        "--user",
        "ada",
        ...NEW_CLUSTER,
        "--wait",
        ...extra,
        "--",
        "python",
        "train.py",
      ],
      { env },
    );
    await waiting.line((l) => l === `job ${NS}/${name}: PENDING`);
    return waiting;
  }

  try {
    await t.step(
      "SUCCEEDED: exit 0, each status printed as it came; the RayJob has what the flags said",
      async () => {
        await Deno.writeTextFile(`${box.dir}/env.yaml`, "pip:\n  - numpy\n");
        const waiting = await submitWaiting("ok", [
          "--workers",
          "2",
          "--runtime-env",
          `${box.dir}/env.yaml`,
          "--shutdown-after-finish",
          "--ttl",
          "5m",
          "--deadline",
          "1h",
        ]);
        const spec = (await rayJob("ok")).spec;
        assert.equal(spec.entrypoint, "python train.py");
        assert.equal(spec.runtimeEnvYAML, "pip:\n  - numpy\n");
        assert.equal(spec.shutdownAfterJobFinishes, true);
        assert.equal(spec.ttlSecondsAfterFinished, 300);
        assert.equal(spec.activeDeadlineSeconds, 3600);
        assert.equal(spec.rayClusterSpec.workerGroupSpecs[0].replicas, 2);
        await setStatus(standin, "ok", running("ok-raycluster"));
        await waiting.line((l) =>
          l === `job ${NS}/ok: RUNNING (deployment Running)`
        );
        await setStatus(standin, "ok", ended("SUCCEEDED", "Job finished"));
        const result = await waiting.done;
        assert.equal(result.code, 0, result.stderr);
        assert.match(
          result.stdout,
          /^job team-a\/ok: SUCCEEDED \(deployment Complete\): Job finished$/m,
        );
      },
    );

    await t.step("FAILED: exit 1", async () => {
      const waiting = await submitWaiting("bad");
      await setStatus(standin, "bad", running("bad-raycluster"));
      await setStatus(standin, "bad", ended("FAILED", "exit code 1"));
      const result = await waiting.done;
      assert.equal(result.code, 1, result.stderr);
      assert.match(result.stdout, /^job team-a\/bad: FAILED .*exit code 1$/m);
    });

    await t.step("STOPPED: exit 4", async () => {
      const waiting = await submitWaiting("halted");
      await setStatus(standin, "halted", ended("STOPPED", "Job was stopped"));
      assert.equal((await waiting.done).code, 4);
    });

    await t.step(
      "past its deadline (deployment Failed, status still RUNNING): exit 1",
      async () => {
        const waiting = await submitWaiting("late");
        await setStatus(standin, "late", running("late-raycluster"));
        await setStatus(standin, "late", {
          jobDeploymentStatus: "Failed",
          reason: "DeadlineExceeded",
          message: "The RayJob has passed the activeDeadlineSeconds",
        });
        assert.equal((await waiting.done).code, 1);
      },
    );

    await t.step(
      "--timeout runs out: exit 2, naming the status",
      async () => {
        const result = await box.run(
          ["jobs", "wait", "ok2", "--timeout", "1s"],
          { env },
        );
        assert.equal(result.code, 1, "no such job yet: the API's 404");
        assert.match(result.stderr, /not found/i);
        const submitted = await box.run(
          [
            "jobs",
            "submit",
            "--name",
            "slow",
            "--user",
            "ada",
            ...NEW_CLUSTER,
            "--entrypoint",
            "sleep 100",
          ],
          { env },
        );
        assert.equal(submitted.code, 0, submitted.stderr);
        assert.equal(submitted.stdout, "job team-a/slow submitted\n");
        const timedOut = await box.run(
          ["jobs", "wait", "slow", "--timeout", "1s"],
          { env },
        );
        assert.equal(timedOut.code, 2, timedOut.stderr);
        assert.equal(
          timedOut.stderr,
          "error: timed out after 1s waiting for job team-a/slow to end (status: PENDING)\n",
        );
      },
    );

    await t.step(
      "on an existing cluster: --cluster sets the cluster selector",
      async () => {
        await Deno.writeTextFile(`${box.dir}/blue.json`, clusterFile("blue"));
        const made = await box.run(
          ["clusters", "create", "-f", `${box.dir}/blue.json`],
          { env },
        );
        assert.equal(made.code, 0, made.stderr);
        const result = await box.run(
          [
            "jobs",
            "submit",
            "--name",
            "on-blue",
            "--user",
            "ada",
            "--cluster",
            "blue",
            "--",
            "python",
            "-c",
            "print('hi')",
          ],
          { env },
        );
        assert.equal(result.code, 0, result.stderr);
        const spec = (await rayJob("on-blue")).spec;
        assert.deepEqual(spec.clusterSelector, { "ray.io/cluster": "blue" });
        const owned = await box.run(
          ["jobs", "submit", "--name", "mine", "--cluster", "blue", "--", "x"],
          { env: { ...env, USER: "grace" } },
        );
        assert.equal(owned.code, 0, owned.stderr);
        assert.equal(
          (await rayJob("mine")).metadata.labels["ray.io/user"],
          "grace",
          "without a token or --user, the login name owns the job",
        );
        assert.equal(spec.entrypoint, `python -c 'print('\\''hi'\\'')'`);
      },
    );

    await t.step(
      "usage errors name what is wrong (exit 2); the API's refusals name the field (exit 1)",
      async () => {
        const cases: [string[], RegExp][] = [
          [["jobs", "submit", "--", "python"], /--cluster NAME, or --template/],
          [["jobs", "submit", "--cluster", "blue"], /entrypoint is required/],
          [
            ["jobs", "submit", "--cluster", "b", "--template", "s", "--", "x"],
            /takes no --template/,
          ],
          [
            ["jobs", "submit", "--cluster", "b", "--ttl", "5", "--", "x"],
            /--ttl "5" is not a duration/,
          ],
        ];
        for (const [args, message] of cases) {
          const result = await box.run(args, { env });
          assert.equal(result.code, 2, `${args.join(" ")}: ${result.stderr}`);
          assert.match(result.stderr, message);
        }
        const refused = await box.run(
          [
            "jobs",
            "submit",
            "--name",
            "Bad_Name",
            "--user",
            "ada",
            ...NEW_CLUSTER,
            "--",
            "x",
          ],
          { env },
        );
        assert.equal(refused.code, 1, refused.stderr);
        assert.match(refused.stderr, /^ {2}job\.name: /m);
      },
    );

    await t.step("list as a table, get as JSON and YAML", async () => {
      const list = await box.run(["jobs", "list"], { env });
      assert.equal(list.code, 0, list.stderr);
      const rows = assertAligned(list.stdout);
      assert.deepEqual(rows[0], [
        "NAME",
        "STATUS",
        "DEPLOYMENT",
        "CLUSTER",
        "START",
        "END",
      ]);
      const ok = rows.find((row) => row[0] === "ok")!;
      assert.deepEqual(ok.slice(0, 4), [
        "ok",
        "SUCCEEDED",
        "Complete",
        "ok-raycluster",
      ]);
      assert.match(ok[4], /^\d+s$/);
      const slow = rows.find((row) => row[0] === "slow")!;
      assert.deepEqual(slow.slice(1), [
        "PENDING",
        "<none>",
        "<none>",
        "<none>",
        "<none>",
      ]);
      const all = await box.run(["jobs", "list", "-A"], { env });
      assert.match(all.stdout, /^NAMESPACE +NAME +STATUS/);
      const json = await box.run(["jobs", "get", "ok", "-o", "json"], { env });
      assert.equal(json.code, 0, json.stderr);
      const got = JSON.parse(json.stdout);
      assert.equal(got.jobStatus, "SUCCEEDED");
      assert.equal(got.entrypoint, "python train.py");
      const yaml = await box.run(["jobs", "get", "ok", "-o", "yaml"], { env });
      assert.equal(parse(yaml.stdout).name, "ok");
    });

    await t.step(
      "watch prints the jobs there are, then a row per change; delete removes a job",
      async () => {
        const watching = box.spawn(["jobs", "watch"], { env });
        await watching.line((l) => /^EVENT +NAME +STATUS/.test(l));
        await watching.line((l) => /^ADDED +slow +PENDING/.test(l));
        await setStatus(standin, "slow", running("slow-raycluster"));
        await watching.line((l) => /^MODIFIED +slow +RUNNING +Running/.test(l));
        const deleted = await box.run(["jobs", "delete", "slow"], { env });
        assert.equal(deleted.code, 0, deleted.stderr);
        assert.equal(deleted.stdout, "job team-a/slow deleted\n");
        await watching.line((l) => /^DELETED +slow /.test(l));
        const stopped = await watching.stop();
        assert.equal(stopped.code, 0, stopped.stderr);
      },
    );
  } finally {
    await main.stop();
    await kube.close();
    await box.remove();
  }
});
