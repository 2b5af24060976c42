/**
 * The expiry worker of two replicas, each with its own leader election,
 * orchestrator and event recorder, against one stand-in behind a counting
 * proxy: a cluster whose lifetime ends is deleted by exactly one of them
 * (one DELETE reaches the API, one Expired event); when the leader stops
 * without a word, the other takes over within the lease duration and
 * deletes it, once; the ExpiringSoon warning is recorded once, a new
 * leader included.
 */
import assert from "node:assert/strict";
import {
  CoordinationV1Api,
  CoreV1Api,
  KubeConfig,
} from "@kubernetes/client-node";
import { silentLogger } from "../../../api/log.ts";
import {
  EXPIRED,
  EXPIRING_SOON,
  ExpiryWorker,
} from "../../../api/service/expiry_worker.ts";
import { expiryAnnotation } from "../../../domain/expiry.ts";
import { KubernetesEventRecorder } from "../../../orchestrator/expiry_events.ts";
import { LeaderElector } from "../../../orchestrator/leader_election.ts";
import { createKubernetesOrchestrator } from "../../../orchestrator/mod.ts";
import { kubeconfigFor, startStandin } from "../../../standin/mod.ts";
import { startFaultProxy } from "../../fault_proxy.ts";
import { until } from "../../eventually.ts";

const NS = "team-a";
const LEASE = { leaseDurationMs: 1_500, renewDeadlineMs: 1_000 };

interface Replica {
  elector: LeaderElector;
  worker: ExpiryWorker;
  /** Passes the worker started (leading or not). */
  passes(): number;
  stop(): Promise<void>;
}

function replica(url: string, identity: string, warningMs = 0): Replica {
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromString(kubeconfigFor(url));
  const log = silentLogger();
  const elector = new LeaderElector({
    leases: kubeConfig.makeApiClient(CoordinationV1Api),
    namespace: "corral-system",
    name: "corral-expiry",
    identity,
    retryPeriodMs: 200,
    log,
    ...LEASE,
  });
  let passes = 0;
  const worker = new ExpiryWorker({
    orchestrator: createKubernetesOrchestrator({ kubeConfig }),
    events: new KubernetesEventRecorder(
      kubeConfig.makeApiClient(CoreV1Api),
    ),
    leader: {
      isLeader: () => {
        passes++;
        return elector.isLeader();
      },
    },
    log,
    warningMs,
    intervalMs: 50,
  });
  elector.start();
  worker.start();
  return {
    elector,
    worker,
    passes: () => passes,
    async stop() {
      await worker.stop();
      await elector.stop();
    },
  };
}

async function createCluster(url: string, name: string, expiresAt: Date) {
  const response = await fetch(
    `${url}/apis/ray.io/v1/namespaces/${NS}/rayclusters`,
    {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        apiVersion: "ray.io/v1",
        kind: "RayCluster",
        metadata: {
          name,
          labels: { "app.kubernetes.io/managed-by": "kuberay-apiserver" },
          annotations: { "corral.dev/expires-at": expiryAnnotation(expiresAt) },
        },
        spec: { headGroupSpec: { template: { spec: { containers: [] } } } },
      }),
    },
  );
  assert.equal(response.status, 201, await response.text());
}

async function exists(url: string, name: string): Promise<boolean> {
  const response = await fetch(
    `${url}/apis/ray.io/v1/namespaces/${NS}/rayclusters/${name}`,
  );
  await response.body?.cancel();
  return response.status === 200;
}

async function eventReasons(url: string, name: string): Promise<string[]> {
  const list = await (await fetch(
    `${url}/api/v1/namespaces/${NS}/events?fieldSelector=involvedObject.name%3D${name}`,
  )).json();
  return (list.items as { reason: string }[]).map((e) => e.reason);
}

/** Waits until every replica started `more` passes after now. */
async function morePasses(replicas: Replica[], more: number) {
  const from = replicas.map((r) => r.passes());
  await until(
    `${more} more passes`,
    () => replicas.every((r, i) => r.passes() >= from[i] + more),
  );
}

Deno.test("ExpiryWorker: a cluster whose lifetime ends is deleted by exactly one of two replicas", async () => {
  const standin = startStandin({ hostname: "127.0.0.1", port: 0 });
  const proxy = await startFaultProxy(standin.url);
  const replicas = [replica(proxy.url, "a"), replica(proxy.url, "b")];
  try {
    await until(
      "a leader",
      () => replicas.some((r) => r.elector.isLeader()),
    );
    await createCluster(standin.url, "short", new Date(Date.now() + 1_000));
    await until(
      "the cluster to be deleted",
      async () => !(await exists(standin.url, "short")),
      5_000,
    );
    await morePasses(replicas, 5);
    assert.equal(
      proxy.count("DELETE", /\/rayclusters\/short$/),
      1,
      "DELETE calls",
    );
    assert.deepEqual(await eventReasons(standin.url, "short"), [EXPIRED]);
    assert.equal(
      replicas.filter((r) => r.elector.isLeader()).length,
      1,
      "leaders",
    );
  } finally {
    for (const r of replicas) await r.stop();
    await proxy.close();
    await standin.close();
  }
});

Deno.test("ExpiryWorker: when the leader stops without a word, the other takes over within the lease duration and deletes once", async () => {
  const standin = startStandin({ hostname: "127.0.0.1", port: 0 });
  const proxy = await startFaultProxy(standin.url);
  const replicas = [replica(proxy.url, "a"), replica(proxy.url, "b")];
  try {
    await until(
      "a leader",
      () => replicas.some((r) => r.elector.isLeader()),
    );
    const leader = replicas.find((r) => r.elector.isLeader())!;
    const other = replicas.find((r) => r !== leader)!;
    await createCluster(standin.url, "orphan", new Date(Date.now() + 500));
    const stopped = performance.now();
    await leader.stop(); // no release: as a killed process
    await until(
      "the other to lead",
      () => other.elector.isLeader(),
      LEASE.leaseDurationMs + 2_000,
    );
    await until(
      "the cluster to be deleted",
      async () => !(await exists(standin.url, "orphan")),
      5_000,
    );
    const took = performance.now() - stopped;
    assert.ok(took < 2 * LEASE.leaseDurationMs + 1_000, `took ${took} ms`);
    await morePasses([other], 5);
    assert.equal(proxy.count("DELETE", /\/rayclusters\/orphan$/), 1);
    assert.deepEqual(await eventReasons(standin.url, "orphan"), [EXPIRED]);
  } finally {
    for (const r of replicas) await r.stop();
    await proxy.close();
    await standin.close();
  }
});

Deno.test("ExpiryWorker: ExpiringSoon is recorded once within the warning time, by a new leader too", async () => {
  const standin = startStandin({ hostname: "127.0.0.1", port: 0 });
  const hour = 3_600_000;
  const first = replica(standin.url, "a", hour);
  let second: Replica | undefined;
  try {
    await until("a to lead", () => first.elector.isLeader());
    await createCluster(
      standin.url,
      "later",
      new Date(Date.now() + 30 * 60_000),
    );
    await createCluster(
      standin.url,
      "much-later",
      new Date(Date.now() + 2 * hour),
    );
    await until(
      "the warning",
      async () => (await eventReasons(standin.url, "later")).length > 0,
    );
    await morePasses([first], 5);
    await first.elector.stop({ release: true });
    await first.worker.stop();
    second = replica(standin.url, "b", hour);
    await until("b to lead", () => second!.elector.isLeader());
    await morePasses([second], 5);
    assert.deepEqual(await eventReasons(standin.url, "later"), [
      EXPIRING_SOON,
    ]);
    assert.deepEqual(await eventReasons(standin.url, "much-later"), []);
    assert.ok(await exists(standin.url, "later"));
    const [event] = (await (await fetch(
      `${standin.url}/api/v1/namespaces/${NS}/events?fieldSelector=involvedObject.name%3Dlater`,
    )).json()).items;
    assert.equal(event.type, "Warning");
    assert.match(
      event.message,
      /^Cluster "team-a\/later" expires at \S+Z \(in (29m\d+s|30m)\)/,
    );
  } finally {
    await first.stop();
    await second?.stop();
    await standin.close();
  }
});

Deno.test("ExpiryWorker: no pass lists while the cache is not in step (the listing would be every cluster, from Kubernetes)", async () => {
  let inStep = false;
  let listings = 0;
  const port = {
    list: () => (listings++, Promise.resolve([])),
    get: () => Promise.reject(new Error("not called")),
    delete: () => Promise.reject(new Error("not called")),
    events: () => Promise.resolve([]),
  };
  const worker = new ExpiryWorker({
    orchestrator: {
      clusters: port,
      jobs: port,
      services: port,
      cacheState: () => ({
        inStep,
        objects: {},
        lastInStep: {},
        relists: {},
        restarts: {},
        syncAges: [],
      }),
    },
    events: { record: () => Promise.resolve() },
    leader: { isLeader: () => true },
    log: silentLogger(),
  });
  await worker.runOnce();
  assert.equal(listings, 0);
  inStep = true;
  await worker.runOnce();
  assert.equal(listings, 3, "clusters, jobs and services");
});
