import assert from "node:assert/strict";
import {
  defaultResources,
  type OperatorActivity,
  rayClusterResource,
  type SimulatedOperator,
  type SimulatedOperatorOptions,
  type Standin,
  startSimulatedOperator,
  startStandin,
} from "../../standin/mod.ts";
import { RAY_CRD } from "../orchestrator/cluster_shapes.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

const RC = "/apis/ray.io/v1/namespaces/team-a/rayclusters";

async function send(
  standin: Standin,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: Json }> {
  const response = await fetch(`${standin.url}${path}`, {
    method,
    headers: body === undefined ? {} : { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: await response.json() };
}

async function withOperator(
  options: Partial<SimulatedOperatorOptions>,
  fn: (standin: Standin, operator: SimulatedOperator) => Promise<void>,
): Promise<void> {
  const standin = startStandin();
  const operator = startSimulatedOperator({
    server: standin.url,
    delayMs: 0,
    retryIntervalMs: 10,
    ...options,
  });
  try {
    await fn(standin, operator);
  } finally {
    await operator.stop();
    await standin.close();
  }
}

function cluster(
  name: string,
  options: {
    serviceType?: string;
    ports?: { name: string; containerPort: number }[];
    workers?: { groupName: string; replicas: number }[];
  } = {},
) {
  return {
    apiVersion: "ray.io/v1",
    kind: "RayCluster",
    metadata: { name },
    spec: {
      rayVersion: "2.9.0",
      headGroupSpec: {
        ...(options.serviceType ? { serviceType: options.serviceType } : {}),
        rayStartParams: {},
        template: {
          spec: {
            containers: [{
              name: "ray-head",
              image: "rayproject/ray:2.9.0",
              ...(options.ports ? { ports: options.ports } : {}),
            }],
          },
        },
      },
      workerGroupSpecs: (options.workers ?? []).map((w) => ({
        ...w,
        rayStartParams: {},
        template: { spec: { containers: [] } },
      })),
    },
  };
}

const CORRAL_PORTS = [
  { name: "redis", containerPort: 6379 },
  { name: "head", containerPort: 10001 },
  { name: "dashboard", containerPort: 8265 },
  { name: "metrics", containerPort: 8080 },
];

async function create(standin: Standin, body: unknown): Promise<Json> {
  const answer = await send(standin, "POST", RC, body);
  assert.equal(answer.status, 201, JSON.stringify(answer.body));
  return answer.body;
}

/** Polls until the cluster has a state; fails after `timeoutMs`. */
async function waitForState(
  standin: Standin,
  name: string,
  timeoutMs = 3000,
): Promise<Json> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const answer = await send(standin, "GET", `${RC}/${name}`);
    if (answer.body.status?.state) return answer.body;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`cluster "${name}" got no state within ${timeoutMs} ms`);
}

async function clusterEvents(standin: Standin, name: string): Promise<Json[]> {
  const selector = encodeURIComponent(
    `involvedObject.kind=RayCluster,involvedObject.name=${name}`,
  );
  const answer = await send(
    standin,
    "GET",
    `/api/v1/namespaces/team-a/events?fieldSelector=${selector}`,
  );
  return answer.body.items;
}

/**
 * The operator's activities as they happen, with the time each was
 * reported; `next` resolves on the first (past or future) that matches.
 */
function activities() {
  const seen: (OperatorActivity & { at: number })[] = [];
  const waiting: {
    match: (a: OperatorActivity) => boolean;
    resolve: (a: OperatorActivity & { at: number }) => void;
  }[] = [];
  return {
    seen,
    record(activity: OperatorActivity): void {
      const entry = { ...activity, at: performance.now() };
      seen.push(entry);
      for (const w of [...waiting]) {
        if (w.match(entry)) {
          waiting.splice(waiting.indexOf(w), 1);
          w.resolve(entry);
        }
      }
    },
    next(
      match: (a: OperatorActivity) => boolean,
      what: string,
      timeoutMs = 5000,
    ): Promise<OperatorActivity & { at: number }> {
      const found = seen.find(match);
      if (found) return Promise.resolve(found);
      const { promise, resolve, reject } = Promise.withResolvers<
        OperatorActivity & { at: number }
      >();
      const timer = setTimeout(() => {
        waiting.splice(waiting.indexOf(entry), 1);
        reject(new Error(`the operator never reported ${what}`));
      }, timeoutMs);
      const entry = {
        match,
        resolve: (a: OperatorActivity & { at: number }) => {
          clearTimeout(timer);
          resolve(a);
        },
      };
      waiting.push(entry);
      return promise;
    },
  };
}

Deno.test("simulated operator makes a ClusterIP cluster ready with the head container's ports as endpoints", async () => {
  await withOperator({}, async (standin) => {
    await create(
      standin,
      cluster("blue", {
        serviceType: "ClusterIP",
        ports: [...CORRAL_PORTS, { name: "serve", containerPort: 8000 }],
      }),
    );
    const ready = await waitForState(standin, "blue");
    assert.equal(ready.status.state, "ready");
    assert.deepEqual(ready.status.endpoints, {
      dashboard: "8265",
      head: "10001",
      metrics: "8080",
      redis: "6379",
      serve: "8000",
    });
    assert.equal(ready.metadata.generation, 1, "status writes keep generation");
  });
});

Deno.test("simulated operator uses the default head ports when the container declares none", async () => {
  await withOperator({}, async (standin) => {
    await create(standin, cluster("plain"));
    const ready = await waitForState(standin, "plain");
    assert.deepEqual(ready.status.endpoints, {
      dashboard: "8265",
      head: "10001",
      metrics: "8080",
      redis: "6379",
    });
  });
});

Deno.test("simulated operator allocates distinct NodePorts in 30000-32767 for NodePort clusters", async () => {
  await withOperator({}, async (standin) => {
    await create(
      standin,
      cluster("a", { serviceType: "NodePort", ports: CORRAL_PORTS }),
    );
    await create(
      standin,
      cluster("b", { serviceType: "NodePort", ports: CORRAL_PORTS }),
    );
    const ports: number[] = [];
    for (const name of ["a", "b"]) {
      const ready = await waitForState(standin, name);
      assert.deepEqual(
        Object.keys(ready.status.endpoints).sort(),
        ["dashboard", "head", "metrics", "redis"],
      );
      for (const value of Object.values(ready.status.endpoints)) {
        assert.match(value as string, /^\d+$/);
        ports.push(Number(value));
      }
    }
    assert.equal(new Set(ports).size, 8, `got ${ports}, want 8 distinct ports`);
    for (const port of ports) {
      assert.ok(port >= 30000 && port <= 32767, `got ${port}, want a NodePort`);
    }
  });
});

Deno.test("simulated operator records Normal events whose involvedObject is the cluster", async () => {
  await withOperator({}, async (standin) => {
    const created = await create(
      standin,
      cluster("blue", {
        ports: CORRAL_PORTS,
        workers: [{ groupName: "small", replicas: 2 }],
      }),
    );
    await waitForState(standin, "blue");
    const events = await clusterEvents(standin, "blue");
    assert.deepEqual(
      events.map((e) => e.reason).sort(),
      [
        "CreatedHeadPod",
        "CreatedService",
        "CreatedWorkerPod",
        "CreatedWorkerPod",
      ],
    );
    for (const e of events) {
      assert.deepEqual(
        {
          apiVersion: e.involvedObject.apiVersion,
          kind: e.involvedObject.kind,
          namespace: e.involvedObject.namespace,
          name: e.involvedObject.name,
          uid: e.involvedObject.uid,
        },
        {
          apiVersion: "ray.io/v1",
          kind: "RayCluster",
          namespace: "team-a",
          name: "blue",
          uid: created.metadata.uid,
        },
      );
      assert.equal(e.type, "Normal");
      assert.equal(e.count, 1);
      assert.equal(e.source.component, "raycluster-controller");
      assert.equal(e.metadata.namespace, "team-a");
      assert.match(e.metadata.name, /^blue\.[0-9a-f]+$/);
      assert.match(e.firstTimestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
      assert.equal(e.lastTimestamp, e.firstTimestamp);
    }
    const byReason = Object.fromEntries(
      events.map((e) => [e.reason, e.message]),
    );
    assert.equal(
      byReason.CreatedService,
      "Created service team-a/blue-head-svc",
    );
    assert.match(
      byReason.CreatedHeadPod,
      /^Created head Pod team-a\/blue-head-[a-z0-9]{5}$/,
    );
    assert.match(
      byReason.CreatedWorkerPod,
      /^Created worker Pod team-a\/blue-small-worker-[a-z0-9]{5}$/,
    );
  });
});

Deno.test("simulated operator waits delayMs before acting", async () => {
  const log = activities();
  await withOperator(
    { delayMs: 300, onActivity: log.record },
    async (standin) => {
      const created = await create(standin, cluster("slow"));
      const uid = created.metadata.uid;
      const observed = await log.next(
        (a) => a.type === "observed" && a.uid === uid,
        "observing the cluster",
      );
      // Seen, and the delay not over: nothing written yet.
      const early = await send(standin, "GET", `${RC}/slow`);
      assert.equal(early.body.status, undefined, "no state before the delay");
      assert.equal((await clusterEvents(standin, "slow")).length, 0);
      const reconciling = await log.next(
        (a) => a.type === "reconciling" && a.uid === uid,
        "reconciling the cluster",
      );
      const waited = reconciling.at - observed.at;
      assert.ok(waited >= 295, `waited ${waited} ms, want at least 300`);
      const ready = await waitForState(standin, "slow");
      assert.equal(ready.status.state, "ready");
    },
  );
});

/**
 * Creates the cluster, then starts the operator; returns once the operator
 * has observed the cluster (its first list runs at once).
 */
async function seenByOperator(
  standin: Standin,
  body: unknown,
  options: Partial<SimulatedOperatorOptions>,
): Promise<
  {
    created: Json;
    operator: SimulatedOperator;
    log: ReturnType<typeof activities>;
  }
> {
  const created = await create(standin, body);
  const log = activities();
  const operator = startSimulatedOperator({
    server: standin.url,
    delayMs: 100,
    retryIntervalMs: 200,
    onActivity: log.record,
    ...options,
  });
  await log.next(
    (a) => a.type === "observed" && a.uid === created.metadata.uid,
    "observing the cluster",
  );
  return { created, operator, log };
}

Deno.test("simulated operator never touches a namesake created after the cluster it saw was deleted", async () => {
  const standin = startStandin();
  const { created: first, operator, log } = await seenByOperator(
    standin,
    cluster("blue"),
    {},
  );
  try {
    // Replaced before the delay runs out and before the next poll.
    assert.equal((await send(standin, "DELETE", `${RC}/blue`)).status, 200);
    const second = await create(standin, cluster("blue"));
    await waitForState(standin, "blue");
    // The first cluster's delay ran out before the second's (same delay,
    // seen earlier): had its timer survived the delete, its reconcile would
    // have begun before the namesake's ended.
    const namesake = await log.next(
      (a) => a.type === "reconciled" && a.uid === second.metadata.uid,
      "the end of the namesake's reconcile",
    );
    assert.equal(namesake.outcome, "ready");
    assert.deepEqual(
      log.seen.filter((a) =>
        a.uid === first.metadata.uid && a.type === "reconciled" &&
        a.outcome !== "skipped"
      ),
      [],
      "no write on behalf of the deleted cluster",
    );
    const events = await clusterEvents(standin, "blue");
    assert.deepEqual(
      [...new Set(events.map((e) => e.involvedObject.uid))],
      [second.metadata.uid],
    );
    assert.notEqual(first.metadata.uid, second.metadata.uid);
    assert.equal(
      events.filter((e) => e.reason === "CreatedService").length,
      1,
      "one reconcile of the namesake, none on behalf of the first cluster",
    );
  } finally {
    await operator.stop();
    await standin.close();
  }
});

Deno.test("simulated operator leaves a cluster whose state was set meanwhile alone", async () => {
  const standin = startStandin();
  const { created, operator, log } = await seenByOperator(
    standin,
    cluster("done"),
    {},
  );
  try {
    const marked = await send(standin, "PUT", `${RC}/done/status`, {
      ...created,
      status: { state: "failed" },
    });
    assert.equal(marked.status, 200);
    // The delay ran out and the operator re-read the cluster: it must have
    // left it alone.
    const reconciled = await log.next(
      (a) => a.type === "reconciled" && a.uid === created.metadata.uid,
      "the end of its reconcile",
    );
    assert.equal(reconciled.outcome, "skipped");
    const done = await send(standin, "GET", `${RC}/done`);
    assert.equal(done.body.status.state, "failed");
    assert.equal((await clusterEvents(standin, "done")).length, 0);
  } finally {
    await operator.stop();
    await standin.close();
  }
});

Deno.test("simulated operator does nothing after stop()", async () => {
  // A second kind of cluster, watched by a second operator: the control
  // that shows how long a running operator takes to act.
  const sentinels = {
    group: "sentinel.example",
    version: "v1",
    plural: "sentinels",
  };
  const standin = startStandin({
    resources: [...defaultResources(), rayClusterResource(sentinels)],
  });
  const control = startSimulatedOperator({
    server: standin.url,
    delayMs: 0,
    retryIntervalMs: 10,
    ...sentinels,
  });
  try {
    const log = activities();
    const operator = startSimulatedOperator({
      server: standin.url,
      delayMs: 0,
      retryIntervalMs: 10,
      onActivity: log.record,
    });
    await operator.stop();
    await create(standin, cluster("late"));
    // Created after "late": once the control has made it ready, a running
    // operator would have seen and readied "late" too.
    const sentinel = await send(
      standin,
      "POST",
      `/apis/${sentinels.group}/v1/namespaces/team-a/${sentinels.plural}`,
      { ...cluster("sentinel"), apiVersion: `${sentinels.group}/v1` },
    );
    assert.equal(sentinel.status, 201, JSON.stringify(sentinel.body));
    const deadline = Date.now() + 3000;
    for (;;) {
      const got = await send(
        standin,
        "GET",
        `/apis/${sentinels.group}/v1/namespaces/team-a/${sentinels.plural}/sentinel`,
      );
      if (got.body.status?.state === "ready") break;
      assert.ok(Date.now() < deadline, "the control operator acted");
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const late = await send(standin, "GET", `${RC}/late`);
    assert.equal(late.body.status, undefined);
    assert.deepEqual(log.seen, [], "no activity after stop()");
  } finally {
    await control.stop();
    await standin.close();
  }
});

Deno.test("simulated operator keeps polling when the API server is unreachable, and stops cleanly", async () => {
  // A listener that drops every connection: each one is a list attempt.
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = listener.addr.port;
  let attempts = 0;
  const accepting = (async () => {
    for await (const connection of listener) {
      attempts++;
      connection.close();
    }
  })();
  const log = activities();
  const operator = startSimulatedOperator({
    server: `http://127.0.0.1:${port}`,
    delayMs: 0,
    retryIntervalMs: 10,
    onActivity: log.record,
  });
  let standin: Standin | undefined;
  try {
    const deadline = Date.now() + 5000;
    while (attempts < 3) {
      assert.ok(Date.now() < deadline, `${attempts} attempts, want 3`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    // The API server comes up at that address: the operator, still
    // polling, finds it and readies a cluster.
    listener.close();
    await accepting;
    standin = startStandin({ port });
    const created = await create(standin, cluster("back"));
    await log.next(
      (a) => a.type === "reconciled" && a.uid === created.metadata.uid,
      "a reconcile once the server is back",
    );
    assert.equal((await waitForState(standin, "back")).status.state, "ready");
  } finally {
    // Leaves no timer or request behind: the test's sanitizers fail it if
    // stop() does.
    await operator.stop();
    await standin?.close();
  }
});

Deno.test("simulated operator's status writes pass the KubeRay CRD's schema unpruned", async () => {
  const standin = startStandin({ crds: [RAY_CRD] });
  const operator = startSimulatedOperator({
    server: standin.url,
    delayMs: 0,
    retryIntervalMs: 10,
  });
  try {
    await create(
      standin,
      cluster("blue", {
        serviceType: "NodePort",
        ports: CORRAL_PORTS,
        workers: [{ groupName: "small", replicas: 2 }],
      }),
    );
    const ready = await waitForState(standin, "blue");
    assert.deepEqual(Object.keys(ready.status).sort(), [
      "availableWorkerReplicas",
      "desiredWorkerReplicas",
      "endpoints",
      "head",
      "lastUpdateTime",
      "maxWorkerReplicas",
      "minWorkerReplicas",
      "observedGeneration",
      "readyWorkerReplicas",
      "state",
      "stateTransitionTimes",
    ]);
    assert.equal(ready.status.state, "ready");
    assert.equal(ready.status.desiredWorkerReplicas, 2);
  } finally {
    await operator.stop();
    await standin.close();
  }
});

Deno.test("simulated operator reacts to a scale as the operator does: pod events, counts in the status, still ready", async () => {
  const seen = activities();
  await withOperator({ onActivity: seen.record }, async (standin) => {
    await create(
      standin,
      cluster("blue", { workers: [{ groupName: "small", replicas: 2 }] }),
    );
    const ready = await waitForState(standin, "blue");
    const reasons = async () =>
      (await clusterEvents(standin, "blue")).map((e: Json) => e.reason);
    assert.deepEqual(
      (await reasons()).filter((r: string) => r.endsWith("WorkerPod")),
      ["CreatedWorkerPod", "CreatedWorkerPod"],
    );
    // Scale "small" from 2 to 1 and add "big" with 3.
    const spec = structuredClone(ready.spec);
    spec.workerGroupSpecs[0].replicas = 1;
    spec.workerGroupSpecs.push({
      ...spec.workerGroupSpecs[0],
      groupName: "big",
      replicas: 3,
    });
    const updated = await send(standin, "PUT", `${RC}/blue`, {
      ...ready,
      spec,
    });
    assert.equal(updated.status, 200, JSON.stringify(updated.body));
    await seen.next(
      (a) => a.type === "scaled" && a.outcome === "ready",
      "the scale",
    );
    const events = (await clusterEvents(standin, "blue")).filter((e: Json) =>
      e.reason.endsWith("WorkerPod")
    );
    assert.deepEqual(events.map((e: Json) => e.reason), [
      "CreatedWorkerPod",
      "CreatedWorkerPod",
      "DeletedWorkerPod",
      "CreatedWorkerPod",
      "CreatedWorkerPod",
      "CreatedWorkerPod",
    ]);
    // The pod deleted is one of those created, named as the operator does.
    const created = events.filter((e: Json) => e.reason === "CreatedWorkerPod")
      .map((e: Json) => e.message.replace("Created worker Pod ", ""));
    const deleted = events[2].message.replace("Deleted Pod ", "");
    assert.ok(created.includes(deleted), `${deleted} in ${created}`);
    assert.match(deleted, /^team-a\/blue-small-worker-/);
    const after = (await send(standin, "GET", `${RC}/blue`)).body;
    assert.equal(after.status.state, "ready");
    assert.equal(after.status.desiredWorkerReplicas, 4);
    assert.equal(after.status.readyWorkerReplicas, 4);
    assert.equal(after.status.observedGeneration, after.metadata.generation);
    assert.equal(after.metadata.generation, 2);
    // Removing a group deletes its pods.
    const removed = await send(standin, "PUT", `${RC}/blue`, {
      ...after,
      spec: {
        ...after.spec,
        workerGroupSpecs: [after.spec.workerGroupSpecs[0]],
      },
    });
    assert.equal(removed.status, 200);
    await seen.next(
      (a) =>
        a.type === "scaled" &&
        seen.seen.filter((s) => s.type === "scaled").length === 2,
      "the second scale",
    );
    const deletions = (await reasons()).filter((r: string) =>
      r === "DeletedWorkerPod"
    );
    assert.equal(deletions.length, 4);
    const final = (await send(standin, "GET", `${RC}/blue`)).body;
    assert.equal(final.status.state, "ready");
    assert.equal(final.status.desiredWorkerReplicas, 1);
  });
});
