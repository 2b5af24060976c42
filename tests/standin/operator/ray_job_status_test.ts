import assert from "node:assert/strict";
import {
  advanceRayJob,
  jobSpecProblem,
  type ObservedJob,
  requestedExitCode,
} from "../../../standin/operator/ray_job_status.ts";
import { applicationStatuses } from "../../../standin/operator/serve_config.ts";

Deno.test("requestedExitCode() reads a final `exit <n>` of the entrypoint, the dev-mode failure convention", async (t) => {
  const cases: [entrypoint: string | undefined, code: number][] = [
    [undefined, 0],
    ["python train.py", 0],
    ["exit 1", 1],
    ["python train.py; exit 1", 1],
    ["python train.py && exit 7", 7],
    ["python train.py; exit 0", 0],
    ["python train.py; exit 2;", 2],
    ["python exit 1.py --flag", 0],
    ["python train.py --exit 1", 0],
    ["echo done; exit 1; echo after", 0],
  ];
  for (const [entrypoint, code] of cases) {
    await t.step(String(entrypoint), () => {
      assert.equal(requestedExitCode(entrypoint), code);
    });
  }
});

Deno.test("advanceRayJob() goes PENDING, RUNNING, then SUCCEEDED or FAILED, one step per delay", () => {
  let job = advanceRayJob(undefined, "python a.py; exit 1", 100, 0);
  assert.equal(job.status, "PENDING");
  assert.equal(advanceRayJob(job, "", 100, 99), job, "not before the delay");
  job = advanceRayJob(job, "python a.py; exit 1", 100, 100);
  assert.equal(job.status, "RUNNING");
  assert.equal(job.startTime, 100);
  job = advanceRayJob(job, "python a.py; exit 1", 100, 250);
  assert.equal(job.status, "FAILED");
  assert.equal(job.endTime, 250);
  assert.match(job.message, /exit code 1/);
});

Deno.test("jobSpecProblem() names the rules the operator fails a RayJob on", async (t) => {
  const job = (spec: ObservedJob["spec"]): ObservedJob => ({
    metadata: { name: "j", namespace: "n", uid: "u" },
    spec,
  });
  const cases: [string, ObservedJob["spec"], RegExp | undefined][] = [
    ["a cluster spec", { rayClusterSpec: {} }, undefined],
    ["a selector", { clusterSelector: { "ray.io/cluster": "c" } }, undefined],
    ["neither", {}, /one of RayClusterSpec or ClusterSelector/],
    ["suspend alone", { rayClusterSpec: {}, suspend: true }, /suspended/],
    [
      "suspend on a selector",
      {
        clusterSelector: { "ray.io/cluster": "c" },
        suspend: true,
        shutdownAfterJobFinishes: true,
      },
      /ClusterSelector mode doesn't support the suspend/,
    ],
    ["an empty selector", { clusterSelector: { other: "x" } }, /empty/],
  ];
  for (const [name, spec, want] of cases) {
    await t.step(name, () => {
      const got = jobSpecProblem(job(spec));
      if (want) assert.match(got ?? "", want);
      else assert.equal(got, undefined);
    });
  }
});

Deno.test("applicationStatuses() reads serveConfigV2's applications, or says why it cannot", () => {
  assert.deepEqual(
    applicationStatuses(
      "applications:\n- import_path: a.b\n- name: x\n  deployments:\n  - name: D\n",
    ),
    {
      applications: {
        default: { status: "RUNNING" },
        x: {
          status: "RUNNING",
          serveDeploymentStatuses: { D: { status: "HEALTHY" } },
        },
      },
    },
  );
  assert.deepEqual(applicationStatuses(undefined), { applications: {} });
  assert.ok("problem" in applicationStatuses("applications: 3"));
  assert.ok("problem" in applicationStatuses("a: [b"));
});
