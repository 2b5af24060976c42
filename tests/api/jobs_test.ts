/**
 * Jobs through both transports against the stand-in serving KubeRay's real
 * RayJob and RayCluster CRDs (so every RayJob Corral writes is validated
 * by them): what a create writes, the two ways to choose a cluster, the
 * refusals, the update of suspend, and KubeRay v0.6.0's requests written by
 * field number.
 */
import assert from "node:assert/strict";
import protobuf from "protobufjs";
import { type Corral, startCorral, TRANSPORTS } from "../harness.ts";
import { RAY_CRD } from "../orchestrator/cluster_shapes.ts";

const RAYJOB_CRD = new URL("../testdata/ray.io_rayjobs.yaml", import.meta.url)
  .pathname;
const NS = "ml";

async function withCorral(run: (corral: Corral) => Promise<void>) {
  const corral = await startCorral({
    crds: [RAY_CRD, RAYJOB_CRD],
    cache: {},
  });
  try {
    await run(corral);
  } finally {
    await corral.close();
  }
}

/** The RayJob as the stand-in holds it. */
async function rayJob(corral: Corral, name: string, namespace = NS) {
  const response = await fetch(
    `${corral.kubeUrl}/apis/ray.io/v1/namespaces/${namespace}/rayjobs/${name}`,
  );
  assert.equal(response.status, 200, `RayJob ${namespace}/${name} exists`);
  return await response.json();
}

const OWN_CLUSTER = {
  headGroupSpec: { computeTemplate: "", image: "", engineStartParams: {} },
  workerGroupSpec: [{
    groupName: "cpu",
    computeTemplate: "",
    image: "",
    replicas: 1,
    engineStartParams: {},
  }],
};

function job(name: string, overrides: Record<string, unknown> = {}) {
  const fields: Record<string, unknown> = {
    name,
    user: "ada",
    version: "2.9.0",
    entrypoint: "python train.py",
    clusterSpec: OWN_CLUSTER,
    ...overrides,
  };
  // Left out, not null: the gRPC case's JSON must be a valid message.
  return Object.fromEntries(
    Object.entries(fields).filter(([, value]) => value !== undefined),
  );
}

for (const [transport, via] of TRANSPORTS) {
  Deno.test(`CreateRayJob (${transport}) writes a RayJob with its own cluster that the CRD accepts, and reads it back`, async () => {
    await withCorral(async (corral) => {
      const created = await via(corral, "proto.RayJobService/CreateRayJob", {
        namespace: NS,
        job: job("train", {
          metadata: { team: "vision" },
          runtimeEnv: "pip:\n  - numpy\n",
          jobId: "raysubmit_1",
          shutdownAfterJobFinishes: true,
          ttlSecondsAfterFinished: 60,
          activeDeadlineSeconds: 600,
          entrypointNumCpus: 1.5,
          entrypointNumGpus: 1,
          entrypointResources: '{"custom": 1}',
          jobSubmitter: { image: "rayproject/ray:2.9.0", cpu: "500m" },
        }),
      });
      assert.equal(created.code, 0, created.message);
      const stored = await rayJob(corral, "train");
      assert.equal(stored.kind, "RayJob");
      assert.equal(
        stored.metadata.labels["app.kubernetes.io/managed-by"],
        "kuberay-apiserver",
      );
      assert.equal(stored.metadata.labels["ray.io/user"], "ada");
      const spec = stored.spec;
      assert.equal(spec.entrypoint, "python train.py");
      assert.equal(spec.runtimeEnvYAML, "pip:\n  - numpy\n");
      assert.equal(spec.jobId, "raysubmit_1");
      assert.deepEqual(spec.metadata, { team: "vision" });
      assert.equal(spec.shutdownAfterJobFinishes, true);
      assert.equal(spec.ttlSecondsAfterFinished, 60);
      assert.equal(spec.activeDeadlineSeconds, 600);
      assert.equal(spec.entrypointNumCpus, 1.5);
      assert.equal(spec.entrypointNumGpus, 1);
      assert.equal(spec.entrypointResources, '{"custom": 1}');
      const submitter = spec.submitterPodTemplate.spec.containers[0];
      assert.equal(submitter.image, "rayproject/ray:2.9.0");
      assert.deepEqual(submitter.resources.limits, {
        cpu: "500m",
        memory: "1Gi",
      });
      assert.equal(spec.rayClusterSpec.rayVersion, "2.9.0");
      assert.equal(spec.rayClusterSpec.workerGroupSpecs[0].groupName, "cpu");
      assert.equal(spec.clusterSelector, undefined);

      const got = await via(corral, "proto.RayJobService/GetRayJob", {
        namespace: NS,
        name: "train",
      });
      assert.equal(got.code, 0, got.message);
      assert.equal(got.result!.entrypoint, "python train.py");
      assert.equal(got.result!.activeDeadlineSeconds, 600);
      assert.equal(
        (got.result!.clusterSpec as { workerGroupSpec: unknown[] })
          .workerGroupSpec.length,
        1,
      );
      const listed = await via(corral, "proto.RayJobService/ListRayJobs", {
        namespace: NS,
      });
      assert.deepEqual(
        (listed.result!.jobs as { name: string }[]).map((j) => j.name),
        ["train"],
      );
      const deleted = await via(corral, "proto.RayJobService/DeleteRayJob", {
        namespace: NS,
        name: "train",
      });
      assert.equal(deleted.code, 0, deleted.message);
      const gone = await via(corral, "proto.RayJobService/GetRayJob", {
        namespace: NS,
        name: "train",
      });
      assert.equal(gone.code, 5);
    });
  });

  Deno.test(`CreateRayJob (${transport}) refuses a job with both, or neither, of clusterSpec and clusterSelector`, async () => {
    await withCorral(async (corral) => {
      for (
        const clusterSelector of [{ "ray.io/cluster": "blue" }, undefined]
      ) {
        const outcome = await via(corral, "proto.RayJobService/CreateRayJob", {
          namespace: NS,
          job: job("both", {
            clusterSelector,
            clusterSpec: clusterSelector ? OWN_CLUSTER : undefined,
          }),
        });
        assert.equal(outcome.code, 3, outcome.message);
        assert.match(outcome.message, /job\.clusterSpec/);
      }
    });
  });

  Deno.test(`CreateRayJob (${transport}) runs a job on an existing cluster, and refuses a missing one with FAILED_PRECONDITION`, async () => {
    await withCorral(async (corral) => {
      const missing = await via(corral, "proto.RayJobService/CreateRayJob", {
        namespace: NS,
        job: job("on-blue", {
          clusterSpec: undefined,
          clusterSelector: { "ray.io/cluster": "blue" },
        }),
      });
      assert.equal(missing.code, 9, missing.message);
      assert.match(
        missing.message,
        /job\.clusterSelector\["ray\.io\/cluster"\]/,
      );
      const cluster = await via(corral, "proto.ClusterService/CreateCluster", {
        namespace: NS,
        cluster: {
          name: "blue",
          user: "ada",
          version: "2.9.0",
          clusterSpec: OWN_CLUSTER,
        },
      });
      assert.equal(cluster.code, 0, cluster.message);
      const created = await via(corral, "proto.RayJobService/CreateRayJob", {
        namespace: NS,
        job: job("on-blue", {
          clusterSpec: undefined,
          clusterSelector: { "ray.io/cluster": "blue" },
        }),
      });
      assert.equal(created.code, 0, created.message);
      const stored = await rayJob(corral, "on-blue");
      assert.deepEqual(stored.spec.clusterSelector, {
        "ray.io/cluster": "blue",
      });
      assert.equal(stored.spec.rayClusterSpec, undefined);
    });
  });

  Deno.test(`UpdateRayJob (${transport}) changes suspend and refuses any other field, naming it`, async () => {
    await withCorral(async (corral) => {
      const created = await via(corral, "proto.RayJobService/CreateRayJob", {
        namespace: NS,
        job: job("queued", { shutdownAfterJobFinishes: true }),
      });
      assert.equal(created.code, 0, created.message);
      const refused = await via(corral, "proto.RayJobService/UpdateRayJob", {
        namespace: NS,
        name: "queued",
        job: { suspend: true, entrypoint: "python other.py" },
      });
      assert.equal(refused.code, 3, refused.message);
      assert.match(refused.message, /job\.entrypoint: cannot be changed/);
      const updated = await via(corral, "proto.RayJobService/UpdateRayJob", {
        namespace: NS,
        name: "queued",
        job: { ...created.result, suspend: true },
      });
      assert.equal(updated.code, 0, updated.message);
      assert.equal(updated.result!.suspend, true);
      assert.equal((await rayJob(corral, "queued")).spec.suspend, true);
    });
  });
}

// ---------------------------------------------------------------------------
// KubeRay v0.6.0 by field number

type Field = [number, string | number | Uint8Array];

function encode(fields: Field[]): Uint8Array {
  const writer = protobuf.Writer.create();
  for (const [number, value] of fields) {
    if (typeof value === "number") writer.uint32(number << 3).int32(value);
    else if (typeof value === "string") {
      writer.uint32((number << 3) | 2).string(value);
    } else writer.uint32((number << 3) | 2).bytes(value);
  }
  return writer.finish();
}

function map(number: number, entries: Record<string, string>): Field[] {
  return Object.entries(entries).map((
    [key, value],
  ) => [number, encode([[1, key], [2, value]])]);
}

const RUNTIME_ENV = "working_dir: s3://bucket/code.zip\n";

/** RayJob fields 1-11 as KubeRay v0.6.0's job.proto numbers them. */
function v060Job(name: string, cluster: Field[]): Uint8Array {
  return encode([
    [1, name],
    [2, NS],
    [3, "carol"],
    [4, "python main.py"],
    ...map(5, { run: "42" }),
    [6, btoa(RUNTIME_ENV)], // base64, as v0.6.0 sent it
    [7, "raysubmit_v060"],
    [8, 1], // shutdown_after_job_finishes
    ...cluster,
    [11, 30], // ttl_seconds_after_finished
  ]);
}

const V060_CLUSTER_SPEC: Field = [
  10,
  encode([
    [
      1,
      encode([
        [2, "rayproject/ray:2.5.0"],
        [3, "ClusterIP"],
        ...map(4, {
          "num-cpus": "0",
        }),
      ]),
    ],
    [
      2,
      encode([[1, "small"], [3, "rayproject/ray:2.5.0"], [4, 2], [5, 1], [
        6,
        3,
      ]]),
    ],
  ]),
];

// deno-lint-ignore no-explicit-any -- the stored RayJob, as JSON
function checkV060(stored: Record<string, any>, own: boolean) {
  const spec = stored.spec;
  assert.equal(stored.metadata.labels["ray.io/user"], "carol");
  assert.equal(spec.entrypoint, "python main.py");
  assert.deepEqual(spec.metadata, { run: "42" });
  assert.equal(spec.runtimeEnvYAML, RUNTIME_ENV, "base64 decoded");
  assert.equal(spec.jobId, "raysubmit_v060");
  assert.equal(spec.shutdownAfterJobFinishes, true);
  assert.equal(spec.ttlSecondsAfterFinished, 30);
  if (own) {
    const cluster = spec.rayClusterSpec;
    assert.equal(cluster.headGroupSpec.serviceType, "ClusterIP");
    assert.deepEqual(cluster.headGroupSpec.rayStartParams, { "num-cpus": "0" });
    const worker = cluster.workerGroupSpecs[0];
    assert.deepEqual(
      [
        worker.groupName,
        worker.replicas,
        worker.minReplicas,
        worker.maxReplicas,
      ],
      ["small", 2, 1, 3],
    );
  } else {
    assert.deepEqual(spec.clusterSelector, { "ray.io/cluster": "blue" });
  }
}

Deno.test("KubeRay v0.6.0's CreateRayJob by field number over gRPC: every field reaches the RayJob", async () => {
  await withCorral(async (corral) => {
    const cluster = await corral.grpc.callRaw(
      "proto.ClusterService/CreateCluster",
      encode([[
        1,
        encode([[1, "blue"], [3, "carol"], [4, "2.9.0"], [
          6,
          encode([[1, encode([[3, "ClusterIP"]])], [
            2,
            encode([[1, "cpu"], [4, 1]]),
          ]]),
        ]]),
      ], [2, NS]]),
    );
    assert.equal(cluster.code, 0, cluster.message);
    for (
      const [name, own, fields] of [
        ["v060-own", true, [V060_CLUSTER_SPEC]],
        ["v060-on-blue", false, map(9, { "ray.io/cluster": "blue" })],
      ] as const
    ) {
      const created = await corral.grpc.callRaw(
        "proto.RayJobService/CreateRayJob",
        encode([[1, v060Job(name, [...fields])], [2, NS]]),
      );
      assert.equal(created.code, 0, created.message);
      checkV060(await rayJob(corral, name), own);
    }
  });
});

Deno.test("KubeRay v0.6.0's POST /apis/v1alpha2/jobs with the namespace in the job: every field reaches the RayJob", async () => {
  await withCorral(async (corral) => {
    const response = await corral.gateway(
      new Request("http://corral.test/apis/v1alpha2/jobs", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          name: "v060-http",
          namespace: NS,
          user: "carol",
          entrypoint: "python main.py",
          metadata: { run: "42" },
          runtimeEnv: btoa(RUNTIME_ENV),
          jobId: "raysubmit_v060",
          shutdownAfterJobFinishes: true,
          ttlSecondsAfterFinished: 30,
          clusterSpec: {
            headGroupSpec: {
              image: "rayproject/ray:2.5.0",
              serviceType: "ClusterIP",
              rayStartParams: { "num-cpus": "0" },
            },
            workerGroupSpec: [{
              groupName: "small",
              image: "rayproject/ray:2.5.0",
              replicas: 2,
              minReplicas: 1,
              maxReplicas: 3,
            }],
          },
        }),
      }),
    );
    const body = await response.json();
    assert.equal(response.status, 200, JSON.stringify(body));
    assert.equal(body.namespace, NS);
    checkV060(await rayJob(corral, "v060-http"), true);
  });
});
