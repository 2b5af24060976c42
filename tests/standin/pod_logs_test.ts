/**
 * The RayJob submitter as the simulated operator writes it (its batch/v1
 * Job and Pod) and the stand-in's pods/log, read as kubectl and Corral
 * read it: whole, followed to the container's end, with its options and
 * the API server's refusals; the log outliving the job's cluster and going
 * with the RayJob.
 */
import assert from "node:assert/strict";
import {
  clusterSpec,
  type Json,
  NS,
  RAY,
  rayJob,
  read,
  send,
  waitFor,
  withKubeRay,
} from "./kuberay.ts";
import { hasKubectl, kubectlIn, withKubeconfig } from "./kubectl.ts";
import type { Standin } from "../../standin/mod.ts";
import { eventually } from "../eventually.ts";

const JOBS = `${RAY}/rayjobs`;
const CLUSTERS = `${RAY}/rayclusters`;
const PODS = `/api/v1/namespaces/${NS}/pods`;
const BATCH_JOBS = `/apis/batch/v1/namespaces/${NS}/jobs`;

async function startJob(standin: Standin, name: string, entrypoint: string) {
  const answer = await send(
    standin,
    "POST",
    JOBS,
    rayJob(name, { entrypoint, rayClusterSpec: clusterSpec() }),
  );
  assert.equal(answer.status, 201, JSON.stringify(answer.body));
}

/** The submitter pod of RayJob `name`, once there, by its Job's label. */
async function submitterPod(standin: Standin, name: string): Promise<Json> {
  const selector = encodeURIComponent(`batch.kubernetes.io/job-name=${name}`);
  return await eventually("the submitter pod", async () => {
    const listed = await send(
      standin,
      "GET",
      `${PODS}?labelSelector=${selector}`,
    );
    return listed.body.items?.[0];
  });
}

async function logOf(
  standin: Standin,
  pod: string,
  query = "",
): Promise<{ status: number; type: string; text: string }> {
  const response = await fetch(`${standin.url}${PODS}/${pod}/log${query}`);
  return {
    status: response.status,
    type: response.headers.get("content-type") ?? "",
    text: await response.text(),
  };
}

async function completed(standin: Standin, name: string): Promise<Json> {
  return await waitFor(
    standin,
    `${JOBS}/${name}`,
    "the job to end",
    (job) => ["Complete", "Failed"].includes(job?.status?.jobDeploymentStatus),
  );
}

Deno.test("simulated operator creates a RayJob's submitter Job and Pod as KubeRay does, owned by the RayJob", async () => {
  await withKubeRay({ delayMs: 10, jobStepMs: 10 }, async (standin) => {
    await startJob(standin, "etl", "python etl.py");
    const pod = await submitterPod(standin, "etl");
    const job = await read(standin, `${BATCH_JOBS}/etl`);
    const rayJobNow = await read(standin, `${JOBS}/etl`);
    assert.deepEqual(job.metadata.ownerReferences, [{
      apiVersion: "ray.io/v1",
      kind: "RayJob",
      name: "etl",
      uid: rayJobNow.metadata.uid,
      controller: true,
      blockOwnerDeletion: true,
    }]);
    assert.deepEqual(job.metadata.labels, {
      "ray.io/originated-from-cr-name": "etl",
      "ray.io/originated-from-crd": "RayJob",
      "app.kubernetes.io/created-by": "kuberay-operator",
    });
    assert.equal(pod.metadata.labels["job-name"], "etl");
    assert.equal(pod.metadata.ownerReferences[0].uid, job.metadata.uid);
    assert.equal(pod.spec.containers[0].name, "ray-job-submitter");
    assert.ok(pod.spec.containers[0].args.includes("python etl.py"));
    const done = await completed(standin, "etl");
    assert.match(done.status.jobId, /^etl-[a-z0-9]{5}$/);
  });
});

Deno.test("pods/log answers what the submitter printed: the submission, the entrypoint's output and its end", async () => {
  await withKubeRay({ delayMs: 10, jobStepMs: 10 }, async (standin) => {
    await startJob(standin, "etl", "python etl.py");
    const done = await completed(standin, "etl");
    const pod = await submitterPod(standin, "etl");
    const ended = await waitFor(
      standin,
      `${PODS}/${pod.metadata.name}`,
      "the submitter to end",
      (p) => p?.status?.phase === "Succeeded",
    );
    assert.equal(
      ended.status.containerStatuses[0].state.terminated.exitCode,
      0,
    );
    const log = await logOf(standin, pod.metadata.name);
    assert.equal(log.status, 200);
    assert.equal(log.type, "text/plain");
    const id = done.status.jobId;
    assert.equal(
      log.text,
      [
        `Job submission server address: http://${done.status.dashboardURL}\n`,
        `Job '${id}' submitted successfully\n`,
        "Tailing logs until the job exits (disable with --no-wait):\n",
        "Running entrypoint: python etl.py\n",
        "Running...\n",
        "Done.\n",
        `Job '${id}' succeeded\n`,
      ].join(""),
    );
    const batch = await read(standin, `${BATCH_JOBS}/etl`);
    assert.equal(batch.status.succeeded, 1);
  });
});

Deno.test("a failed entrypoint's submitter exits 1 and its Job fails", async () => {
  await withKubeRay({ delayMs: 10 }, async (standin) => {
    await startJob(standin, "bad", "python x.py; exit 3");
    await completed(standin, "bad");
    const pod = await submitterPod(standin, "bad");
    const ended = await waitFor(
      standin,
      `${PODS}/${pod.metadata.name}`,
      "the submitter to fail",
      (p) => p?.status?.phase === "Failed",
    );
    assert.equal(
      ended.status.containerStatuses[0].state.terminated.exitCode,
      1,
    );
    const log = await logOf(standin, pod.metadata.name);
    assert.match(log.text, /Exited with code 3\nJob '.*' failed\n$/);
  });
});

Deno.test("pods/log takes tailLines, limitBytes, timestamps and container, and refuses as the API server does", async () => {
  await withKubeRay({ delayMs: 10 }, async (standin) => {
    await startJob(standin, "etl", "python etl.py");
    await completed(standin, "etl");
    const { name } = (await submitterPod(standin, "etl")).metadata;
    assert.equal(
      (await logOf(standin, name, "?tailLines=2")).text,
      "Done.\n" + (await logOf(standin, name)).text.split("\n").at(-2) + "\n",
    );
    assert.equal((await logOf(standin, name, "?tailLines=0")).text, "");
    assert.equal((await logOf(standin, name, "?limitBytes=3")).text, "Job");
    assert.match(
      (await logOf(standin, name, "?timestamps=true")).text,
      /^\d{4}-\d\d-\d\dT[\d:]+Z Job submission/,
    );
    assert.equal(
      (await logOf(standin, name, "?sinceSeconds=3600")).text,
      (await logOf(standin, name)).text,
    );
    assert.equal(
      (await logOf(standin, name, "?container=ray-job-submitter")).status,
      200,
    );
    const other = await logOf(standin, name, "?container=other");
    assert.equal(other.status, 400);
    assert.match(other.text, /container other is not valid for pod/);
    const negative = await logOf(standin, name, "?tailLines=-1");
    assert.equal(negative.status, 422);
    assert.match(negative.text, /tailLines: Invalid value: -1/);
    const missing = await logOf(standin, "nope");
    assert.equal(missing.status, 404);
    assert.match(missing.text, /pods \\"nope\\" not found/);
    assert.equal(
      (await send(standin, "POST", `${PODS}/${name}/log`, {})).status,
      405,
    );
  });
});

Deno.test("pods/log of a container not started yet is refused: waiting to start", async () => {
  await withKubeRay({ delayMs: 10 }, async (standin) => {
    const created = await send(standin, "POST", PODS, {
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "idle" },
      spec: { containers: [{ name: "main", image: "busybox" }] },
    });
    assert.equal(created.status, 201);
    assert.equal(created.body.status.phase, "Pending");
    const log = await logOf(standin, "idle");
    assert.equal(log.status, 400);
    assert.match(
      log.text,
      /container \\"main\\" in pod \\"idle\\" is waiting to start: ContainerCreating/,
    );
  });
});

Deno.test("pods/log with follow=true streams each line as printed and ends when the container ends", async () => {
  await withKubeRay({ delayMs: 40 }, async (standin) => {
    await startJob(standin, "live", "python live.py");
    const pod = await submitterPod(standin, "live");
    const response = await fetch(
      `${standin.url}${PODS}/${pod.metadata.name}/log?follow=true`,
    );
    assert.equal(response.status, 200);
    const chunks: string[] = [];
    const decoder = new TextDecoder();
    for await (const chunk of response.body!) {
      chunks.push(decoder.decode(chunk, { stream: true }));
    }
    const text = chunks.join("");
    assert.ok(chunks.length > 1, `one chunk only: ${text}`);
    assert.match(text, /^Job submission server address/);
    assert.match(text, /Done\.\nJob '.*' succeeded\n$/);
  });
});

Deno.test("the submitter's log outlives the RayJob's cluster and goes with the RayJob", async () => {
  await withKubeRay({ delayMs: 10 }, async (standin) => {
    await startJob(standin, "etl", "python etl.py");
    const done = await completed(standin, "etl");
    const pod = await submitterPod(standin, "etl");
    const before = await logOf(standin, pod.metadata.name);
    const cluster = `${CLUSTERS}/${done.status.rayClusterName}`;
    assert.equal((await send(standin, "DELETE", cluster)).status, 200);
    await waitFor(standin, cluster, "the cluster to go", (c) => !c);
    const after = await logOf(standin, pod.metadata.name);
    assert.equal(after.status, 200);
    assert.equal(after.text, before.text);
    assert.equal((await send(standin, "DELETE", `${JOBS}/etl`)).status, 200);
    await waitFor(
      standin,
      `${PODS}/${pod.metadata.name}`,
      "the pod",
      (p) => !p,
    );
    assert.equal(await read(standin, `${BATCH_JOBS}/etl`), undefined);
    assert.equal((await logOf(standin, pod.metadata.name)).status, 404);
  });
});

Deno.test({
  name:
    "kubectl logs reads the submitter's log from the stand-in, whole and followed",
  ignore: !hasKubectl(),
  fn: async () => {
    await withKubeRay({ delayMs: 10 }, async (standin) => {
      await startJob(standin, "etl", "python etl.py");
      await completed(standin, "etl");
      const pod = await submitterPod(standin, "etl");
      const direct = (await logOf(standin, pod.metadata.name)).text;
      await withKubeconfig(standin.url, "pod-logs-", async (config, dir) => {
        const kubectl = kubectlIn(config, dir);
        assert.equal(await kubectl("logs", pod.metadata.name), direct);
        assert.equal(await kubectl("logs", "job/etl"), direct);
        assert.equal(await kubectl("logs", "-f", pod.metadata.name), direct);
        assert.equal(
          await kubectl("logs", "--tail=1", pod.metadata.name),
          direct.split("\n").at(-2) + "\n",
        );
      });
    });
  },
});
