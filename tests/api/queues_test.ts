/**
 * Queues (Kueue) through both transports, against a stand-in that serves
 * Kueue's queues and runs the simulated operator and Kueue: a queued
 * cluster is created suspended with the label kueue.x-k8s.io/queue-name
 * and reads "waiting for capacity" until the ClusterQueue has room; the
 * policy's default queue; a queue not allowed (code 7) and a bad one
 * (code 3); a queued RayJob waits, then runs.
 */
import assert from "node:assert/strict";
import { startSimulatedOperator } from "../../standin/mod.ts";
import { startStandin } from "../../standin/server.ts";
import { until } from "../eventually.ts";
import { type Corral, startCorral, TRANSPORTS } from "../harness.ts";
import { sampleCluster } from "./cases.ts";
import { WATCH_TRANSPORTS } from "./stream_watchers.ts";
import {
  ALICE,
  bearer,
  fileAccess,
  tokenFileText,
} from "./auth/access_fixtures.ts";
import { allowAll, policyText, users } from "./auth/policy_fixtures.ts";

const POLICY = policyText([allowAll(users("alice"), ["team-a", "team-b"])], {
  queues: [
    { namespaces: ["team-a"], default: "default" },
    { namespaces: ["team-b"], allowed: ["default"] },
  ],
});

const CS = "proto.ClusterService";
const JS = "proto.RayJobService";
const QUEUE_LABEL = "kueue.x-k8s.io/queue-name";

/** Head and one worker of the template "small" (2 CPUs): 4 CPUs. */
function cluster(name: string, extra: Record<string, unknown> = {}) {
  return {
    ...sampleCluster({
      name,
      user: "alice",
      version: "2.9.0",
      clusterSpec: {
        headGroupSpec: { computeTemplate: "small" },
        workerGroupSpec: [{
          groupName: "workers",
          computeTemplate: "small",
          replicas: 1,
        }],
      },
    }),
    ...extra,
  };
}

type Run = typeof TRANSPORTS[number][1];

async function stored(
  corral: Corral,
  ns: string,
  plural: string,
  name: string,
) {
  const response = await fetch(
    `${corral.kubeUrl}/apis/ray.io/v1/namespaces/${ns}/${plural}/${name}`,
  );
  return response.status === 200 ? await response.json() : undefined;
}

Deno.test("queues: a queued cluster waits for capacity, then runs; the policy's default, allowed and bad queues; a queued job, on both transports", async (t) => {
  // 6 CPUs: one cluster of 4 at a time.
  const standin = startStandin({
    kueue: { dev: { nominalQuota: { cpu: 6, memory: "64Gi" } } },
  });
  const operator = startSimulatedOperator({
    server: standin.url,
    delayMs: 20,
    retryIntervalMs: 10,
    kueue: true,
  });
  const files = await fileAccess({
    tokens: tokenFileText([ALICE]),
    policy: POLICY,
  });
  const corral = await startCorral({
    access: files.access,
    kubeUrl: standin.url,
    cache: {},
  });
  const authorization = bearer(ALICE);
  try {
    for (const ns of ["team-a", "team-b"]) {
      const [, run] = TRANSPORTS[0];
      const made = await run(
        corral,
        "proto.ComputeTemplateService/CreateComputeTemplate",
        {
          namespace: ns,
          computeTemplate: { name: "small", namespace: ns, cpu: 2, memory: 4 },
        },
        { authorization },
      );
      assert.equal(made.code, 0, made.message);
    }
    for (const [transport, run] of TRANSPORTS) {
      await t.step(
        transport,
        () => queuedClusters(corral, run, transport, authorization),
      );
      await t.step(
        `${transport}: refusals`,
        () => refusals(corral, run, transport, authorization),
      );
      await t.step(
        `${transport}: a queued job`,
        () => queuedJob(corral, run, transport, authorization),
      );
    }
  } finally {
    await corral.close();
    await files.close();
    await operator.stop();
    await standin.close();
  }
});

async function queuedClusters(
  corral: Corral,
  run: Run,
  transport: string,
  authorization: string,
) {
  const call = (rpc: string, request: Record<string, unknown>) =>
    run(corral, `${CS}/${rpc}`, request, { authorization });
  const ns = "team-a";
  const first = `first-${transport}`;
  const second = `second-${transport}`;
  // No queue named: the policy's default for team-a.
  const a = await call("CreateCluster", {
    namespace: ns,
    cluster: cluster(first),
  });
  assert.equal(a.code, 0, a.message);
  assert.equal(a.result?.queue, "default");
  const rayCluster = await stored(corral, ns, "rayclusters", first);
  assert.equal(rayCluster.metadata.labels[QUEUE_LABEL], "default");
  assert.equal(rayCluster.spec.suspend, true);
  const get = (name: string) => call("GetCluster", { namespace: ns, name });
  await until(
    `${first} ready`,
    async () => (await get(first)).result?.clusterState === "ready",
  );

  const b = await call("CreateCluster", {
    namespace: ns,
    cluster: cluster(second, { queue: "default" }),
  });
  assert.equal(b.code, 0, b.message);
  assert.equal(b.result?.clusterState, "waiting for capacity");
  // The operator's "suspended" reads as waiting too, with Kueue's reason
  // among the events.
  let waiting: Record<string, unknown> | undefined;
  await until(`${second} suspended with a reason`, async () => {
    waiting = (await get(second)).result;
    const events = (waiting?.events ?? []) as { reason: string }[];
    return (await stored(corral, ns, "rayclusters", second))?.status?.state ===
        "suspended" && events.some((e) => e.reason === "Pending");
  });
  assert.equal(waiting?.clusterState, "waiting for capacity");
  const pending = (waiting?.events as { reason: string; message: string }[])
    .find((e) => e.reason === "Pending");
  assert.match(pending!.message, /insufficient unused quota for cpu/);

  // Capacity frees when the first goes: the second is admitted and ready,
  // and a watch sees it go from waiting to ready.
  const [, open] = WATCH_TRANSPORTS.find(([name]) =>
    name.toLowerCase() === transport
  )!;
  const watch = await open(corral, { namespace: ns }, authorization);
  try {
    const deleted = await call("DeleteCluster", { namespace: ns, name: first });
    assert.equal(deleted.code, 0, deleted.message);
    await until(
      `${second} ready`,
      async () => (await get(second)).result?.clusterState === "ready",
    );
    const states = () =>
      watch.answers.map((a) => a.cluster as Record<string, unknown> | null)
        .filter((c) => c?.name === second).map((c) => c!.clusterState);
    await until("the watch to see it ready", () => states().includes("ready"));
    assert.equal(states()[0], "waiting for capacity", `${states()}`);
  } finally {
    watch.close();
  }
  const gone = await call("DeleteCluster", { namespace: ns, name: second });
  assert.equal(gone.code, 0, gone.message);
  await until(`${second} gone`, async () => (await get(second)).code === 5);
}

async function refusals(
  corral: Corral,
  run: Run,
  transport: string,
  authorization: string,
) {
  const call = (rpc: string, request: Record<string, unknown>) =>
    run(corral, rpc, request, { authorization });
  const bad = await call(`${CS}/CreateCluster`, {
    namespace: "team-a",
    cluster: cluster(`bad-${transport}`, { queue: "Not_A_Queue" }),
  });
  assert.equal(bad.code, 3);
  assert.match(
    bad.message,
    /^Cannot create cluster "team-a\/bad-\w+": .*cluster\.queue: must be a Kubernetes object name/,
  );
  const refused = await call(`${CS}/CreateCluster`, {
    namespace: "team-b",
    cluster: cluster(`other-${transport}`, {
      namespace: "team-b",
      queue: "gpu",
    }),
  });
  assert.equal(refused.code, 7);
  assert.match(
    refused.message,
    /cluster\.queue: queue "gpu" is not allowed \(allowed: "default"\)/,
  );
  // team-b has no default: a create naming no queue is not queued.
  const plain = await call(`${CS}/CreateCluster`, {
    namespace: "team-b",
    cluster: cluster(`plain-${transport}`, { namespace: "team-b" }),
  });
  assert.equal(plain.code, 0, plain.message);
  assert.equal(plain.result?.queue ?? "", "");
  const rayCluster = await stored(
    corral,
    "team-b",
    "rayclusters",
    `plain-${transport}`,
  );
  assert.equal(rayCluster.metadata.labels[QUEUE_LABEL], undefined);
  assert.equal(rayCluster.spec.suspend, undefined);
  await call(`${CS}/DeleteCluster`, {
    namespace: "team-b",
    name: `plain-${transport}`,
  });
  // A caller cannot put the label on the pods by hand.
  const labelled = await call(`${CS}/CreateCluster`, {
    namespace: "team-b",
    cluster: cluster(`sneaky-${transport}`, {
      namespace: "team-b",
      clusterSpec: {
        headGroupSpec: { labels: { [QUEUE_LABEL]: "default" } },
        workerGroupSpec: [],
      },
    }),
  });
  assert.equal(labelled.code, 3);
  assert.match(
    labelled.message,
    /cluster\.clusterSpec\.headGroupSpec\.labels\["kueue\.x-k8s\.io\/queue-name"\]: is reserved/,
  );
  // A queued job needs shutdownAfterJobFinishes (and its own cluster).
  const job = await call(`${JS}/CreateRayJob`, {
    namespace: "team-a",
    job: {
      name: `keep-${transport}`,
      user: "alice",
      entrypoint: "python -c 'print(1)'",
      clusterSpec: { headGroupSpec: {} },
      queue: "default",
    },
  });
  assert.equal(job.code, 3);
  assert.match(
    job.message,
    /job\.shutdownAfterJobFinishes: must be true for a job with a queue/,
  );
}

async function queuedJob(
  corral: Corral,
  run: Run,
  transport: string,
  authorization: string,
) {
  const call = (rpc: string, request: Record<string, unknown>) =>
    run(corral, rpc, request, { authorization });
  const ns = "team-a";
  const holder = `holder-${transport}`;
  const name = `train-${transport}`;
  const held = await call(`${CS}/CreateCluster`, {
    namespace: ns,
    cluster: cluster(holder),
  });
  assert.equal(held.code, 0, held.message);
  await until(
    `${holder} ready`,
    async () =>
      (await call(`${CS}/GetCluster`, { namespace: ns, name: holder })).result
        ?.clusterState === "ready",
  );
  const created = await call(`${JS}/CreateRayJob`, {
    namespace: ns,
    job: {
      name,
      user: "alice",
      version: "2.9.0",
      entrypoint: "python -c 'print(1)'",
      shutdownAfterJobFinishes: true,
      clusterSpec: (cluster("x") as Record<string, unknown>).clusterSpec,
      queue: "default",
    },
  });
  assert.equal(created.code, 0, created.message);
  assert.equal(created.result?.queue, "default");
  assert.equal(created.result?.suspend, true);
  assert.equal(
    created.result?.message,
    'waiting for capacity in queue "default"',
  );
  const get = () => call(`${JS}/GetRayJob`, { namespace: ns, name });
  await until(
    `${name} suspended`,
    async () => (await get()).result?.jobDeploymentStatus === "Suspended",
  );
  assert.equal(
    (await get()).result?.message,
    'waiting for capacity in queue "default"',
  );
  await call(`${CS}/DeleteCluster`, { namespace: ns, name: holder });
  await until(
    `${name} complete`,
    async () => (await get()).result?.jobDeploymentStatus === "Complete",
    20_000,
  );
  assert.equal((await get()).result?.suspend ?? false, false);
  await call(`${JS}/DeleteRayJob`, { namespace: ns, name });
  await until(`${name} gone`, async () => (await get()).code === 5);
}
