/**
 * Leader election over a Lease at the stand-in: of two candidates exactly
 * one leads; when the leader stops without a word (as a killed process),
 * the other takes over once the lease runs out, never before.
 */
import assert from "node:assert/strict";
import { CoordinationV1Api, KubeConfig } from "@kubernetes/client-node";
import { silentLogger } from "../../api/log.ts";
import { LeaderElector } from "../../orchestrator/leader_election.ts";
import { kubeconfigFor, startStandin } from "../../standin/mod.ts";
import { until } from "../eventually.ts";

const TIMINGS = {
  leaseDurationMs: 1_500,
  renewDeadlineMs: 1_000,
  retryPeriodMs: 200,
};

function candidate(url: string, identity: string): LeaderElector {
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromString(kubeconfigFor(url));
  return new LeaderElector({
    leases: kubeConfig.makeApiClient(CoordinationV1Api),
    namespace: "corral-system",
    name: "corral-expiry",
    identity,
    log: silentLogger(),
    ...TIMINGS,
  });
}

Deno.test("LeaderElector: one of two leads, and the other takes over once the leader's lease runs out", async () => {
  const standin = startStandin({ hostname: "127.0.0.1", port: 0 });
  const a = candidate(standin.url, "a");
  const b = candidate(standin.url, "b");
  try {
    a.start();
    b.start();
    await until("a leader", () => a.isLeader() || b.isLeader());
    const [leader, other] = a.isLeader() ? [a, b] : [b, a];
    // Several renew periods: the other never leads beside the leader.
    const watchUntil = performance.now() + 1_000;
    await until("a second of renewals", () => {
      assert.ok(!other.isLeader(), "both lead at once");
      return performance.now() > watchUntil;
    });
    const stopped = performance.now();
    await leader.stop(); // no release: as a process that was killed
    await until("the other to take over", () => other.isLeader(), 5_000);
    const took = performance.now() - stopped;
    assert.ok(
      took >= TIMINGS.leaseDurationMs - TIMINGS.retryPeriodMs,
      `took over after ${took} ms, before the lease ran out`,
    );
    const lease = await (await fetch(
      `${standin.url}/apis/coordination.k8s.io/v1/namespaces/corral-system/leases/corral-expiry`,
    )).json();
    assert.equal(lease.spec.holderIdentity, other.identity);
    assert.equal(lease.spec.leaseTransitions, 1);
  } finally {
    await a.stop();
    await b.stop();
    await standin.close();
  }
});

Deno.test("LeaderElector: a leader that releases on stop hands over at once", async () => {
  const standin = startStandin({ hostname: "127.0.0.1", port: 0 });
  const a = candidate(standin.url, "a");
  const b = candidate(standin.url, "b");
  try {
    a.start();
    await until("a to lead", () => a.isLeader());
    b.start();
    await a.stop({ release: true });
    assert.ok(!a.isLeader());
    await until("b to lead", () => b.isLeader(), 1_000);
  } finally {
    await a.stop();
    await b.stop();
    await standin.close();
  }
});

Deno.test("LeaderElector: a replace with a stale resourceVersion is refused by the stand-in", async () => {
  const standin = startStandin({ hostname: "127.0.0.1", port: 0 });
  const path =
    `${standin.url}/apis/coordination.k8s.io/v1/namespaces/x/leases/l`;
  try {
    const created = await (await fetch(
      `${standin.url}/apis/coordination.k8s.io/v1/namespaces/x/leases`,
      {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          apiVersion: "coordination.k8s.io/v1",
          kind: "Lease",
          metadata: { name: "l" },
          spec: { holderIdentity: "a" },
        }),
      },
    )).json();
    const replace = (holder: string) =>
      fetch(path, {
        method: "PUT",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ ...created, spec: { holderIdentity: holder } }),
      });
    const first = await replace("b");
    await first.body?.cancel();
    assert.equal(first.status, 200);
    const second = await replace("c");
    await second.body?.cancel();
    assert.equal(second.status, 409);
  } finally {
    await standin.close();
  }
});
