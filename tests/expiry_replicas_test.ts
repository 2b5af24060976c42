/**
 * Expiry across replicas: two main.ts processes in kubernetes mode against
 * one stand-in, each campaigning for the Lease. A cluster whose lifetime
 * ends is deleted by exactly one of them (one Expired event at the API
 * server, one "Deleted expired cluster" line between both logs); when the
 * leader is killed (SIGKILL: no release of the Lease), the other takes
 * over within the lease duration and deletes the next one, once.
 */
import assert from "node:assert/strict";
import { kubeconfigFor, startStandin } from "../standin/mod.ts";
import { until } from "./eventually.ts";
import {
  ANONYMOUS,
  FREE_PORTS,
  type MainProcess,
  NO_SHUTDOWN_DELAY,
  startMain,
} from "./main_process.ts";

const NS = "team-a";
const LEASE_MS = 2_000;

function startReplica(label: string, kubeconfig: string) {
  return startMain({
    name: `replica ${label}`,
    startTimeoutMs: 60_000,
    args: [
      "--orchestrator",
      "kubernetes",
      "--kubeconfig",
      kubeconfig,
      ...FREE_PORTS,
      ...NO_SHUTDOWN_DELAY,
      ...ANONYMOUS,
      "--leader-elect-lease-duration",
      `${LEASE_MS}ms`,
      "--leader-elect-renew-deadline",
      "1500ms",
      "--leader-elect-retry-period",
      "250ms",
      "--leader-elect-identity",
      `replica-${label}`,
      "--expiry-interval",
      "100ms",
    ],
  });
}

const leads = (main: MainProcess) =>
  main.records.filter((r) => r.msg === "Became leader").length >
    main.records.filter((r) => r.msg === "Stopped leading").length;

const deletions = (mains: MainProcess[], name: string) =>
  mains.flatMap((m) => m.records).filter((r) =>
    r.msg === "Deleted expired cluster" && r.name === name
  ).length;

async function createCluster(main: MainProcess, name: string, ttl: string) {
  const response = await fetch(
    `${main.http}/apis/v1alpha2/namespaces/${NS}/clusters`,
    {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        name,
        user: "ada",
        version: "2.9.0",
        ttl,
        clusterSpec: { headGroupSpec: {}, workerGroupSpec: [] },
      }),
    },
  );
  const text = await response.text();
  assert.equal(response.status, 200, text);
}

Deno.test("expiry: of two replicas exactly one deletes; killed, the leader is replaced within the lease duration", async () => {
  const standin = startStandin({ hostname: "127.0.0.1", port: 0 });
  const kubeconfig = await Deno.makeTempFile({ suffix: ".kubeconfig" });
  await Deno.writeTextFile(kubeconfig, kubeconfigFor(standin.url));
  const mains: MainProcess[] = [];
  const gone = async (name: string) => {
    const response = await fetch(
      `${standin.url}/apis/ray.io/v1/namespaces/${NS}/rayclusters/${name}`,
    );
    await response.body?.cancel();
    return response.status === 404;
  };
  const expiredEvents = async (name: string) =>
    (await (await fetch(
      `${standin.url}/api/v1/namespaces/${NS}/events?fieldSelector=involvedObject.name%3D${name},reason%3DExpired`,
    )).json()).items.length;
  try {
    mains.push(
      ...await Promise.all([
        startReplica("a", kubeconfig),
        startReplica("b", kubeconfig),
      ]),
    );
    await until("a leader", () => mains.some(leads), 10_000);
    const leader = mains.find(leads)!;
    const other = mains.find((m) => m !== leader)!;

    await createCluster(other, "short", "1s");
    await until("short to be deleted", () => gone("short"), 10_000);
    await until("its log line", () => deletions(mains, "short") > 0);
    // The event is recorded after the delete.
    await until("its event", async () => await expiredEvents("short") > 0);
    assert.equal(await expiredEvents("short"), 1);
    assert.equal(deletions(mains, "short"), 1);
    assert.equal(mains.filter(leads).length, 1, "one leader");

    await createCluster(other, "orphan", "1s");
    const killed = performance.now();
    await leader.kill();
    await until("the other to lead", () => leads(other), LEASE_MS + 5_000);
    const took = performance.now() - killed;
    await until("orphan to be deleted", () => gone("orphan"), 10_000);
    await until("its log line", () => deletions([other], "orphan") > 0);
    await until("its event", async () => await expiredEvents("orphan") > 0);
    assert.equal(deletions(mains, "orphan"), 1);
    assert.equal(await expiredEvents("orphan"), 1);
    assert.ok(took < LEASE_MS + 2_000, `took over after ${took} ms`);
  } finally {
    for (const main of mains) await main.stop();
    await standin.close();
    await Deno.remove(kubeconfig);
  }
});
