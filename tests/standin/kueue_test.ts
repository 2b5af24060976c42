import assert from "node:assert/strict";
import { until } from "../eventually.ts";
import {
  type Capacity,
  clusterRequest,
  decide,
  quantityOf,
  type Workload,
} from "../../standin/kueue/admission.ts";
import { startSimulatedOperator } from "../../standin/mod.ts";
import { startStandin } from "../../standin/server.ts";
import type { Standin } from "../../standin/mod.ts";
import {
  clusterSpec,
  eventReasons,
  type Json,
  KUBERAY_CRDS,
  NS,
  RAY,
  rayJob,
  read,
  send,
  waitFor,
} from "./kuberay.ts";

const CLUSTERS = `${RAY}/rayclusters`;
const JOBS = `${RAY}/rayjobs`;
const KUEUE = "/apis/kueue.x-k8s.io/v1beta1";
const QUEUE_LABEL = "kueue.x-k8s.io/queue-name";

/** A stand-in serving Kueue's queues (dev mode's: 8 CPUs, 32Gi, 2 GPUs). */
async function withKueue(
  fn: (standin: Standin) => Promise<void>,
  nominalQuota: Record<string, string | number> = {
    cpu: 8,
    memory: "32Gi",
    "nvidia.com/gpu": 2,
  },
): Promise<void> {
  const standin = startStandin({
    crds: KUBERAY_CRDS,
    kueue: { dev: { nominalQuota } },
  });
  const operator = startSimulatedOperator({
    server: standin.url,
    delayMs: 0,
    retryIntervalMs: 10,
    kueue: true,
  });
  try {
    await fn(standin);
  } finally {
    await operator.stop();
    await standin.close();
  }
}

/** A cluster spec whose head and each of `workers` workers ask `cpu`. */
function sized(cpu: string, workers = 1) {
  const spec = clusterSpec(workers) as Json;
  spec.headGroupSpec.template.spec.containers[0].resources = {
    limits: { cpu, memory: "1Gi" },
  };
  spec.workerGroupSpecs[0].template.spec.containers[0].resources = {
    requests: { cpu, memory: "1Gi" },
  };
  return spec;
}

function queuedCluster(name: string, spec: unknown, queue = "default") {
  return {
    apiVersion: "ray.io/v1",
    kind: "RayCluster",
    metadata: { name, labels: { [QUEUE_LABEL]: queue } },
    spec: { ...(spec as Json), suspend: true },
  };
}

async function create(standin: Standin, path: string, body: unknown) {
  const answer = await send(standin, "POST", path, body);
  assert.equal(answer.status, 201, JSON.stringify(answer.body));
  return answer.body;
}

const admitted = (o: Json) => o?.spec?.suspend === false;

Deno.test("quantityOf() reads Kubernetes quantities", () => {
  const table: [unknown, number][] = [
    ["500m", 0.5],
    ["2", 2],
    [4, 4],
    ["1Gi", 2 ** 30],
    ["1G", 1e9],
    ["nonsense", 0],
  ];
  for (const [value, want] of table) {
    assert.equal(quantityOf(value), want, `quantityOf(${value})`);
  }
});

Deno.test("clusterRequest() counts the head and each group at its replicas, requests before limits", () => {
  assert.deepEqual(clusterRequest(sized("2", 3)), {
    cpu: 8,
    memory: 4 * 2 ** 30,
  });
});

Deno.test("decide() admits in creation order while requests fit; StrictFIFO stops at the first that does not", () => {
  const w = (name: string, cpu: number, suspended = true): Workload => ({
    kind: "RayCluster",
    namespace: NS,
    name,
    uid: name,
    creationTimestamp: `2026-01-01T00:00:0${name.length}Z`,
    seen: 0,
    queue: "default",
    suspended,
    request: { cpu },
  });
  const capacity: Capacity = {
    name: "dev",
    strategy: "BestEffortFIFO",
    nominal: { cpu: 8 },
  };
  const running = w("r", 4, false);
  const best = decide([w("bbbb", 2), w("ccc", 3), w("dd", 2), running], {
    ...capacity,
  });
  // dd (older) first: 4 + 2 = 6; ccc (3) does not fit; bbbb (2) does.
  assert.deepEqual(best.admit.map((x) => x.name), ["dd", "bbbb"]);
  assert.match(best.pending[0].reason, /insufficient unused quota for cpu/);
  const strict = decide([w("bbbb", 2), w("ccc", 3), w("dd", 2), running], {
    ...capacity,
    strategy: "StrictFIFO",
  });
  assert.deepEqual(strict.admit.map((x) => x.name), ["dd"]);
  assert.deepEqual(strict.pending.map((x) => x.workload.name), [
    "ccc",
    "bbbb",
  ]);
  const huge = decide([w("big", 9)], capacity);
  assert.match(huge.pending[0].reason, /request > maximum capacity \(9 > 8\)/);
});

Deno.test("the stand-in gives every namespace a LocalQueue default on a ClusterQueue of dev mode's size", async () => {
  await withKueue(async (standin) => {
    const cq = await read(standin, `${KUEUE}/clusterqueues/dev`);
    assert.deepEqual(
      cq.spec.resourceGroups[0].flavors[0].resources.map((r: Json) => r.name),
      ["cpu", "memory", "nvidia.com/gpu"],
    );
    assert.equal(
      (await read(standin, `${KUEUE}/namespaces/default/localqueues/default`))
        .spec.clusterQueue,
      "dev",
    );
    // A namespace made on first write gets one too.
    await create(standin, CLUSTERS, queuedCluster("first", sized("1")));
    const lq = await read(
      standin,
      `${KUEUE}/namespaces/${NS}/localqueues/default`,
    );
    assert.equal(lq.spec.clusterQueue, "dev");
  });
});

Deno.test("the simulated Kueue admits queued RayClusters in creation order while they fit, and the next when one is deleted", async () => {
  await withKueue(async (standin) => {
    // 3 CPUs each (head 1 + 2 workers at 1): two fit in 8, the third not.
    for (const name of ["one", "two", "three"]) {
      await create(standin, CLUSTERS, queuedCluster(name, sized("1", 2)));
    }
    const path = (name: string) => `${CLUSTERS}/${name}`;
    await waitFor(
      standin,
      path("one"),
      "one ready",
      (c) => admitted(c) && c.status?.state === "ready",
    );
    await waitFor(
      standin,
      path("two"),
      "two ready",
      (c) => admitted(c) && c.status?.state === "ready",
    );
    const three = await waitFor(
      standin,
      path("three"),
      "three suspended",
      (c) => c?.status?.state === "suspended",
    );
    assert.equal(three.spec.suspend, true);
    await waitFor(
      standin,
      `${KUEUE}/namespaces/${NS}/localqueues/default`,
      "the queue's counts",
      (q) =>
        q?.status?.pendingWorkloads === 1 &&
        q?.status?.admittedWorkloads === 2,
    );
    const reasons = await eventReasons(standin, "RayCluster", "three");
    assert.ok(reasons.includes("Pending"), `events: ${reasons}`);

    assert.equal((await send(standin, "DELETE", path("one"))).status, 200);
    const admittedThree = await waitFor(
      standin,
      path("three"),
      "three ready",
      (c) => admitted(c) && c.status?.state === "ready",
    );
    assert.equal(admittedThree.spec.suspend, false);
    assert.ok(
      (await eventReasons(standin, "RayCluster", "three")).includes("Started"),
    );
  });
});

Deno.test("the simulated Kueue leaves a cluster in a queue that does not exist suspended, saying why", async () => {
  await withKueue(async (standin) => {
    await create(standin, CLUSTERS, queuedCluster("lost", sized("1"), "nope"));
    let pending: Json[] = [];
    await until("a Pending event", async () => {
      const answer = await send(
        standin,
        "GET",
        `/api/v1/namespaces/${NS}/events`,
      );
      pending = (answer.body.items as Json[]).filter((e) =>
        e.reason === "Pending"
      );
      return pending.length > 0;
    });
    assert.equal(pending[0].message, "LocalQueue nope doesn't exist");
    assert.equal((await read(standin, `${CLUSTERS}/lost`)).spec.suspend, true);
  });
});

Deno.test("the simulated Kueue runs a queued RayJob when there is room and frees it when the job finishes", async () => {
  await withKueue(async (standin) => {
    // The job's cluster takes 6 of the 8 CPUs; the cluster behind it 4.
    await create(
      standin,
      JOBS,
      rayJob("train", {
        rayClusterSpec: sized("2", 2),
        shutdownAfterJobFinishes: true,
        suspend: true,
      }, { [QUEUE_LABEL]: "default" }),
    );
    await create(standin, CLUSTERS, queuedCluster("later", sized("2", 1)));
    const done = await waitFor(
      standin,
      `${JOBS}/train`,
      "the job to complete",
      (j) => j?.status?.jobDeploymentStatus === "Complete",
      20_000,
    );
    assert.equal(done.spec.suspend, false);
    await waitFor(
      standin,
      `${CLUSTERS}/later`,
      "later admitted once the job ended",
      (c) => admitted(c) && c.status?.state === "ready",
    );
  }, { cpu: 8, memory: "32Gi" });
});
