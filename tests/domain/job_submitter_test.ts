/**
 * A job's submitter pod is bounded as a compute template bounds a pod
 * (jobViolations, domain/job_validation.ts): more than 0, at most
 * --max-template-cpu CPUs and --max-template-memory GiB, however its
 * quantity is written.
 */
import assert from "node:assert/strict";
import { jobViolations } from "../../domain/job_validation.ts";
import { DEFAULT_LIMITS } from "../../domain/limits.ts";
import type { RayJob } from "../../domain/types.ts";

/** A job on an existing cluster with the submitter's `cpu` and `memory`. */
function job(cpu: string, memory: string): RayJob {
  return {
    name: "train",
    namespace: "",
    user: "ada",
    version: "2.9.0",
    entrypoint: "python train.py",
    metadata: {},
    runtimeEnv: "",
    jobId: "",
    shutdownAfterJobFinishes: false,
    clusterSelector: { "ray.io/cluster": "shared" },
    ttlSecondsAfterFinished: 0,
    jobSubmitter: { image: "rayproject/ray:2.9.0", cpu, memory },
    entrypointNumCpus: 0,
    entrypointNumGpus: 0,
    entrypointResources: "",
    activeDeadlineSeconds: 0,
    jobStatus: "",
    jobDeploymentStatus: "",
    message: "",
    rayClusterName: "",
    suspend: false,
    events: [],
    queue: "",
    ttl: "",
  };
}

function violations(cpu: string, memory: string, limits = DEFAULT_LIMITS) {
  return jobViolations({ job: job(cpu, memory), namespace: "team-a" }, limits)
    .map((v) => `${v.field}: ${v.description}`);
}

Deno.test("jobViolations() bounds the submitter's CPUs and memory by the template limits", async (t) => {
  const cases: [string, string, string, string[]][] = [
    ["the defaults", "", "", []],
    ["a small submitter", "500m", "512Mi", []],
    ["at the limits", "1024", "16Ti", []],
    [
      "1000 CPUs and 4 Ti fit the default limits (quotas count them)",
      "1000",
      "4Ti",
      [],
    ],
    [
      "CPUs over --max-template-cpu",
      "2000",
      "1Gi",
      ['job.jobSubmitter.cpu: must be at most 1024 (--max-template-cpu), got "2000"'],
    ],
    [
      "CPUs over the limit written with a suffix or an exponent",
      "2k",
      "1e15",
      [
        'job.jobSubmitter.cpu: must be at most 1024 (--max-template-cpu), got "2k"',
        'job.jobSubmitter.memory: must be at most 16384Gi (--max-template-memory), got "1e15"',
      ],
    ],
    [
      "memory over --max-template-memory",
      "1",
      "17Ti",
      ['job.jobSubmitter.memory: must be at most 16384Gi (--max-template-memory), got "17Ti"'],
    ],
    [
      "nothing at all",
      "0",
      "0Gi",
      [
        "job.jobSubmitter.cpu: must be greater than 0",
        "job.jobSubmitter.memory: must be greater than 0",
      ],
    ],
    [
      "not a quantity",
      "-1",
      "lots",
      [
        'job.jobSubmitter.cpu: must be a Kubernetes quantity such as "1", "500m" or "1Gi", got "-1"',
        'job.jobSubmitter.memory: must be a Kubernetes quantity such as "1", "500m" or "1Gi", got "lots"',
      ],
    ],
  ];
  for (const [name, cpu, memory, want] of cases) {
    await t.step(name, () => assert.deepEqual(violations(cpu, memory), want));
  }
});

Deno.test("jobViolations() takes raised template limits for the submitter too", () => {
  const limits = { ...DEFAULT_LIMITS, maxTemplateCpu: 4096 };
  assert.deepEqual(violations("2000", "1Gi", limits), []);
});
