import assert from "node:assert/strict";
import { until } from "../eventually.ts";
import {
  assertValidAgainstCrd,
  clusterSpec,
  eventReasons,
  type Json,
  NS,
  RAY,
  rayJob,
  read,
  send,
  waitFor,
  withKubeRay,
} from "./kuberay.ts";

const JOBS = `${RAY}/rayjobs`;
const CLUSTERS = `${RAY}/rayclusters`;

async function createJob(
  standin: Parameters<typeof send>[0],
  body: unknown,
): Promise<Json> {
  const answer = await send(standin, "POST", JOBS, body);
  assert.equal(answer.status, 201, JSON.stringify(answer.body));
  return answer.body;
}

Deno.test("simulated operator runs a RayJob with its own cluster to SUCCEEDED and deletes the cluster after the TTL", async () => {
  await withKubeRay({ delayMs: 20 }, async (standin) => {
    const created = await createJob(
      standin,
      rayJob("etl", {
        rayClusterSpec: clusterSpec(),
        shutdownAfterJobFinishes: true,
        ttlSecondsAfterFinished: 1,
      }, { team: "data" }),
    );
    const seen = new Set<string>();
    const done = await waitFor(
      standin,
      `${JOBS}/etl`,
      "the job to complete",
      (job) => {
        seen.add(job?.status?.jobStatus ?? "");
        return job?.status?.jobDeploymentStatus === "Complete";
      },
    );
    const { status } = done;
    assert.equal(status.jobStatus, "SUCCEEDED");
    assert.equal(status.message, "Job finished successfully.");
    assert.equal(status.succeeded, 1);
    assert.equal(status.failed, 0);
    assert.ok(seen.has("RUNNING"), `saw ${[...seen]}`);
    assert.match(status.jobId, /^etl-[a-z0-9]{5}$/);
    assert.match(status.rayClusterName, /^etl-[a-z0-9]{5}$/);
    assert.equal(
      status.dashboardURL,
      `${status.rayClusterName}-head-svc.${NS}.svc.cluster.local:8265`,
    );
    for (const time of [status.startTime, status.endTime]) {
      assert.ok(!Number.isNaN(Date.parse(time)), `time ${time}`);
    }
    assert.ok(status.rayJobInfo.startTime && status.rayJobInfo.endTime);
    assert.equal(status.rayClusterStatus.state, "ready");

    // The cluster: the job's labels, owned by the job.
    const cluster = await read(standin, `${CLUSTERS}/${status.rayClusterName}`);
    assert.ok(cluster, "the cluster is there until the TTL");
    assert.equal(cluster.metadata.labels.team, "data");
    assert.equal(
      cluster.metadata.labels["ray.io/originated-from-crd"],
      "RayJob",
    );
    assert.deepEqual(cluster.metadata.ownerReferences, [{
      apiVersion: "ray.io/v1",
      kind: "RayJob",
      name: "etl",
      uid: created.metadata.uid,
      controller: true,
      blockOwnerDeletion: true,
    }]);
    await assertValidAgainstCrd(standin, `${JOBS}/etl`);

    await waitFor(
      standin,
      `${CLUSTERS}/${status.rayClusterName}`,
      "the TTL to delete the cluster",
      (gone) => gone === undefined,
    );
    assert.ok(await read(standin, `${JOBS}/etl`), "the RayJob stays");
    assert.deepEqual(await eventReasons(standin, "RayJob", "etl"), [
      "CreatedRayCluster",
      "CreatedRayJobSubmitter",
      "DeletedRayCluster",
    ]);
  });
});

Deno.test("simulated operator deletes the RayJob itself after the TTL when told to, as DELETE_RAYJOB_CR_AFTER_JOB_FINISHES does", async () => {
  await withKubeRay({ deleteJobAfterFinishes: true }, async (standin) => {
    await createJob(
      standin,
      rayJob("once", {
        rayClusterSpec: clusterSpec(),
        shutdownAfterJobFinishes: true,
      }),
    );
    let clusterName = "";
    await waitFor(standin, `${JOBS}/once`, "the job to go", (job) => {
      clusterName ||= job?.status?.rayClusterName ?? "";
      return job === undefined;
    });
    assert.ok(clusterName);
    await waitFor(
      standin,
      `${CLUSTERS}/${clusterName}`,
      "its cluster to be collected",
      (gone) => gone === undefined,
    );
  });
});

Deno.test("simulated operator keeps the cluster of a finished RayJob without shutdownAfterJobFinishes", async () => {
  await withKubeRay({}, async (standin) => {
    await createJob(standin, rayJob("keep", { rayClusterSpec: clusterSpec() }));
    const job = await waitFor(
      standin,
      `${JOBS}/keep`,
      "the job to complete",
      (job) => job?.status?.jobDeploymentStatus === "Complete",
    );
    assert.ok(await read(standin, `${CLUSTERS}/${job.status.rayClusterName}`));
  });
});

Deno.test("simulated operator fails a RayJob whose entrypoint ends in exit 1", async () => {
  await withKubeRay({}, async (standin) => {
    await createJob(
      standin,
      rayJob("broken", {
        entrypoint: "python train.py; exit 3",
        rayClusterSpec: clusterSpec(),
      }),
    );
    const { status } = await waitFor(
      standin,
      `${JOBS}/broken`,
      "the job to fail",
      (job) => job?.status?.jobDeploymentStatus === "Failed",
    );
    assert.equal(status.jobStatus, "FAILED");
    assert.equal(status.reason, "AppFailed");
    assert.match(status.message, /exit code 3/);
    assert.equal(status.failed, 1);
    assert.ok(status.endTime);
    await assertValidAgainstCrd(standin, `${JOBS}/broken`);
  });
});

Deno.test("simulated operator runs a RayJob on the existing cluster its clusterSelector names, and never deletes it", async () => {
  await withKubeRay({}, async (standin) => {
    await createJob(
      standin,
      rayJob("early", {
        clusterSelector: { "ray.io/cluster": "shared" },
        shutdownAfterJobFinishes: true,
      }),
    );
    await until(
      "RayClusterNotFound",
      async () =>
        (await eventReasons(standin, "RayJob", "early")).includes(
          "RayClusterNotFound",
        ),
    );
    const cluster = await send(standin, "POST", CLUSTERS, {
      apiVersion: "ray.io/v1",
      kind: "RayCluster",
      metadata: { name: "shared" },
      spec: clusterSpec(),
    });
    assert.equal(cluster.status, 201, JSON.stringify(cluster.body));
    const { status } = await waitFor(
      standin,
      `${JOBS}/early`,
      "the job to complete on the shared cluster",
      (job) => job?.status?.jobDeploymentStatus === "Complete",
    );
    assert.equal(status.rayClusterName, "shared");
    assert.equal(status.jobStatus, "SUCCEEDED");
    assert.ok(await read(standin, `${CLUSTERS}/shared`), "the cluster stays");
    const clusters = await send(standin, "GET", CLUSTERS);
    assert.deepEqual(
      clusters.body.items.map((c: Json) => c.metadata.name),
      ["shared"],
    );
    await assertValidAgainstCrd(standin, `${JOBS}/early`);
  });
});

Deno.test("simulated operator fails a RayJob past its activeDeadlineSeconds with DeadlineExceeded", async () => {
  // The delay keeps the job running for longer than its 1 s deadline.
  await withKubeRay({ delayMs: 5_000 }, async (standin) => {
    await createJob(
      standin,
      rayJob("slow", {
        rayClusterSpec: clusterSpec(),
        activeDeadlineSeconds: 1,
      }),
    );
    const { status } = await waitFor(
      standin,
      `${JOBS}/slow`,
      "the deadline to fail the job",
      (job) => job?.status?.jobDeploymentStatus === "Failed",
    );
    assert.equal(status.reason, "DeadlineExceeded");
    assert.match(
      status.message,
      /^The RayJob has passed the activeDeadlineSeconds\. StartTime: .+\. ActiveDeadlineSeconds: 1$/,
    );
    assert.ok(
      Date.parse(status.endTime) - Date.parse(status.startTime) >= 1000,
    );
    await assertValidAgainstCrd(standin, `${JOBS}/slow`);
  });
});

Deno.test("simulated operator keeps a suspended RayJob without a cluster, and runs it once resumed", async () => {
  await withKubeRay({}, async (standin) => {
    await createJob(
      standin,
      rayJob("queued", {
        rayClusterSpec: clusterSpec(),
        shutdownAfterJobFinishes: true,
        suspend: true,
      }),
    );
    const suspended = await waitFor(
      standin,
      `${JOBS}/queued`,
      "the job to be Suspended",
      (job) => job?.status?.jobDeploymentStatus === "Suspended",
    );
    assert.equal(suspended.status.rayClusterName, undefined);
    assert.deepEqual((await send(standin, "GET", CLUSTERS)).body.items, []);
    await assertValidAgainstCrd(standin, `${JOBS}/queued`);

    const resumed = await send(
      standin,
      "PATCH",
      `${JOBS}/queued`,
      { spec: { suspend: false } },
    );
    assert.equal(resumed.status, 415, "merge patches need their type");
    const patch = await fetch(`${standin.url}${JOBS}/queued`, {
      method: "PATCH",
      headers: { "content-type": "application/merge-patch+json" },
      body: JSON.stringify({ spec: { suspend: false } }),
    });
    assert.equal(patch.status, 200, await patch.text());
    await waitFor(
      standin,
      `${JOBS}/queued`,
      "the resumed job to complete",
      (job) => job?.status?.jobDeploymentStatus === "Complete",
    );
  });
});

Deno.test("simulated operator suspends an initializing RayJob: its cluster goes, and it is Suspended", async () => {
  await withKubeRay({ delayMs: 5_000 }, async (standin) => {
    await createJob(
      standin,
      rayJob("paused", {
        rayClusterSpec: clusterSpec(),
        shutdownAfterJobFinishes: true,
      }),
    );
    const initializing = await waitFor(
      standin,
      `${JOBS}/paused`,
      "the job's cluster",
      (job) => job?.status?.rayClusterName !== undefined,
    );
    const clusterName = initializing.status.rayClusterName;
    await waitFor(
      standin,
      `${CLUSTERS}/${clusterName}`,
      "the cluster to be created",
      (cluster) => cluster !== undefined,
    );
    const patch = await fetch(`${standin.url}${JOBS}/paused`, {
      method: "PATCH",
      headers: { "content-type": "application/merge-patch+json" },
      body: JSON.stringify({ spec: { suspend: true } }),
    });
    assert.equal(patch.status, 200, await patch.text());
    const { status } = await waitFor(
      standin,
      `${JOBS}/paused`,
      "the job to be Suspended",
      (job) => job?.status?.jobDeploymentStatus === "Suspended",
    );
    assert.equal(status.jobStatus, undefined);
    assert.equal(await read(standin, `${CLUSTERS}/${clusterName}`), undefined);
    assert.ok(
      (await eventReasons(standin, "RayJob", "paused")).includes(
        "DeletedRayCluster",
      ),
    );
  });
});

Deno.test("simulated operator fails a RayJob the operator refuses (suspend without shutdownAfterJobFinishes) with ValidationFailed", async () => {
  await withKubeRay({}, async (standin) => {
    await createJob(
      standin,
      rayJob("odd", { rayClusterSpec: clusterSpec(), suspend: true }),
    );
    const { status } = await waitFor(
      standin,
      `${JOBS}/odd`,
      "ValidationFailed",
      (job) => job?.status?.jobDeploymentStatus === "ValidationFailed",
    );
    assert.equal(status.reason, "ValidationFailed");
    assert.match(status.message, /not allowed to be suspended/);
    assert.deepEqual(await eventReasons(standin, "RayJob", "odd"), [
      "InvalidRayJobSpec",
    ]);
  });
});

Deno.test("deleting a RayJob deletes the cluster it owns; deleting a RayCluster leaves its RayJobs", async () => {
  await withKubeRay({ delayMs: 5_000 }, async (standin) => {
    await createJob(standin, rayJob("a", { rayClusterSpec: clusterSpec() }));
    await createJob(standin, rayJob("b", { rayClusterSpec: clusterSpec() }));
    const names: Record<string, string> = {};
    for (const job of ["a", "b"]) {
      const seen = await waitFor(
        standin,
        `${JOBS}/${job}`,
        `job ${job}'s cluster`,
        (j) => j?.status?.rayClusterName !== undefined,
      );
      names[job] = seen.status.rayClusterName;
      await waitFor(
        standin,
        `${CLUSTERS}/${names[job]}`,
        `cluster of ${job}`,
        (c) => c !== undefined,
      );
    }
    const deleting = await send(standin, "DELETE", `${JOBS}/a`);
    assert.equal(deleting.status, 200);
    // The operator's finalizer holds the job until it has stopped it.
    assert.deepEqual(deleting.body.metadata.finalizers, [
      "ray.io/rayjob-finalizer",
    ]);
    assert.ok(deleting.body.metadata.deletionTimestamp);
    await waitFor(
      standin,
      `${JOBS}/a`,
      "the operator to release the job",
      (job) => job === undefined,
    );
    await waitFor(
      standin,
      `${CLUSTERS}/${names.a}`,
      "the owned cluster to be collected",
      (c) => c === undefined,
    );
    assert.equal(
      (await send(standin, "DELETE", `${CLUSTERS}/${names.b}`)).status,
      200,
    );
    assert.ok(await read(standin, `${JOBS}/b`), "job b stays");
  });
});

Deno.test("stand-in without the CRDs serves RayJobs too, and the operator runs them", async () => {
  await withKubeRay({ crds: [] }, async (standin) => {
    await createJob(
      standin,
      rayJob("plain", { rayClusterSpec: clusterSpec() }),
    );
    await waitFor(
      standin,
      `${JOBS}/plain`,
      "the job to complete",
      (job) => job?.status?.jobDeploymentStatus === "Complete",
    );
  });
});

Deno.test("simulated operator submits a RayJob's entrypoint to its cluster's simulated dashboard, as status.jobId", async () => {
  await withKubeRay({ delayMs: 20, jobStepMs: 10 }, async (standin) => {
    await createJob(
      standin,
      rayJob("logged", { rayClusterSpec: clusterSpec() }),
    );
    const { status } = await waitFor(
      standin,
      `${JOBS}/logged`,
      "the job to complete",
      (job) => job?.status?.jobDeploymentStatus === "Complete",
    );
    const dashboard =
      `/api/v1/namespaces/${NS}/services/${status.rayClusterName}-head-svc:8265/proxy`;
    let details: Json;
    await until("the dashboard's job to end", async () => {
      details =
        (await send(standin, "GET", `${dashboard}/api/jobs/${status.jobId}`))
          .body;
      return details?.status === "SUCCEEDED";
    });
    assert.equal(details.submission_id, status.jobId);
    const logs = await send(
      standin,
      "GET",
      `${dashboard}/api/jobs/${status.jobId}/logs`,
    );
    assert.match(logs.body.logs, /Running entrypoint: /);
  });
});
