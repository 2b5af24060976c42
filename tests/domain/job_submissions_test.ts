import assert from "node:assert/strict";
import {
  bytesOfBase64,
  jobSubmissionInfoOf,
  packageNameProblem,
  submissionIdProblem,
  submitRequestOf,
} from "../../domain/job_submissions.ts";

Deno.test("submissionIdProblem() refuses ids that would change the dashboard path", async (t) => {
  const table: [string, boolean][] = [
    ["raysubmit_AbC123", true],
    ["my-job.1:2", true],
    ["", false],
    [".", false],
    ["..", false],
    ["a/b", false],
    ["-x", false],
    ["x".repeat(129), false],
  ];
  for (const [id, ok] of table) {
    await t.step(JSON.stringify(id), () => {
      assert.equal(submissionIdProblem(id) === undefined, ok);
    });
  }
});

Deno.test("packageNameProblem() takes Ray's _ray_pkg_<hash>.zip and no path", () => {
  assert.equal(packageNameProblem("_ray_pkg_0123abcd.zip"), undefined);
  for (const bad of ["", "../a.zip", "a/b.zip", "..zip", "x.tar"]) {
    assert.notEqual(packageNameProblem(bad), undefined, bad);
  }
});

Deno.test("submitRequestOf() makes Ray's JobSubmitRequest as KubeRay does", () => {
  assert.deepEqual(
    submitRequestOf({
      entrypoint: "python x.py",
      submissionId: "",
      metadata: {},
      runtimeEnv: '{"working_dir": "gcs://_ray_pkg_1.zip", "pip": ["a"]}',
      entrypointNumCpus: 1.5,
      entrypointNumGpus: 0,
      entrypointResources: { custom: "2" },
    }, "Cannot submit"),
    {
      entrypoint: "python x.py",
      runtime_env: { working_dir: "gcs://_ray_pkg_1.zip", pip: ["a"] },
      entrypoint_num_cpus: 1.5,
      entrypoint_resources: { custom: 2 },
    },
  );
});

Deno.test("jobSubmissionInfoOf() turns Ray's nulls into empty fields and runtime_env values into text", () => {
  const info = jobSubmissionInfoOf({
    entrypoint: "x",
    job_id: null,
    submission_id: "s",
    status: "PENDING",
    message: null,
    start_time: 1700000000123,
    end_time: null,
    runtime_env: { working_dir: "gcs://p.zip", env_vars: { A: "1" } },
  });
  assert.equal(info.jobId, "");
  assert.equal(info.endTime, 0);
  assert.equal(info.startTime, 1700000000123);
  assert.deepEqual(info.runtimeEnv, {
    working_dir: "gcs://p.zip",
    env_vars: '{"A":"1"}',
  });
});

Deno.test("bytesOfBase64() decodes base64 and refuses what is not", () => {
  assert.deepEqual(bytesOfBase64("AAEC/w=="), new Uint8Array([0, 1, 2, 255]));
  assert.equal(bytesOfBase64("not base64!"), undefined);
  assert.equal(bytesOfBase64("A"), undefined);
});
