import assert from "node:assert/strict";
import type { ObservedCluster } from "../../../standin/operator/api_client.ts";
import {
  adoptedPods,
  needsScale,
  replicaStatus,
  scalePods,
  type WorkerPods,
} from "../../../standin/operator/workers.ts";

function cluster(
  workers: { groupName: string; replicas: number; maxReplicas?: number }[],
): ObservedCluster {
  return {
    metadata: { name: "blue", namespace: "team-a", uid: "u1" },
    spec: { workerGroupSpecs: workers },
  };
}

Deno.test("adoptedPods() names as many pods per group as the spec asks for", () => {
  const pods = adoptedPods(
    cluster([{ groupName: "small", replicas: 2 }, {
      groupName: "big",
      replicas: 0,
    }]),
  );
  assert.deepEqual([...pods.keys()], ["small", "big"]);
  assert.equal(pods.get("small")!.length, 2);
  for (const name of pods.get("small")!) {
    assert.match(name, /^blue-small-worker-[a-z0-9]{5}$/);
  }
  assert.deepEqual(pods.get("big"), []);
});

Deno.test("needsScale() tells whether the pods differ from the spec", async (t) => {
  const pods: WorkerPods = new Map([["small", ["p1", "p2"]], ["gone", []]]);
  const cases: [string, ObservedCluster, boolean][] = [
    ["same counts", cluster([{ groupName: "small", replicas: 2 }]), false],
    ["fewer", cluster([{ groupName: "small", replicas: 1 }]), true],
    [
      "a group added",
      cluster([
        { groupName: "small", replicas: 2 },
        { groupName: "big", replicas: 1 },
      ]),
      true,
    ],
    ["a group with pods removed", cluster([]), true],
  ];
  for (const [name, spec, want] of cases) {
    await t.step(name, () => {
      assert.equal(needsScale(pods, spec), want, `got ${!want}, want ${want}`);
    });
  }
});

Deno.test("scalePods() deletes the newest pods first and a removed group's pods, then creates, changing the pods as it goes", () => {
  const pods: WorkerPods = new Map([
    ["small", ["s1", "s2", "s3"]],
    ["old", ["o1"]],
  ]);
  const changes = scalePods(
    cluster([{ groupName: "small", replicas: 1 }, {
      groupName: "big",
      replicas: 2,
    }]),
    pods,
  );
  assert.deepEqual(changes.next().value, {
    reason: "DeletedWorkerPod",
    message: "Deleted Pod team-a/s3",
  });
  assert.deepEqual(pods.get("small"), ["s1", "s2"], "one change at a time");
  const rest = [...changes];
  assert.deepEqual(rest.map((c) => c.message).slice(0, 2), [
    "Deleted Pod team-a/s2",
    "Deleted Pod team-a/o1",
  ]);
  assert.deepEqual(rest.slice(2).map((c) => c.reason), [
    "CreatedWorkerPod",
    "CreatedWorkerPod",
  ]);
  assert.deepEqual([...pods.keys()], ["small", "big"]);
  assert.deepEqual(pods.get("small"), ["s1"]);
  assert.deepEqual(
    rest.slice(2).map((c) => c.message),
    pods.get("big")!.map((p) => `Created worker Pod team-a/${p}`),
  );
});

Deno.test("replicaStatus() sums the worker groups' counts", () => {
  assert.deepEqual(
    replicaStatus(cluster([
      { groupName: "a", replicas: 2, maxReplicas: 5 },
      { groupName: "b", replicas: 3 },
    ])),
    {
      desiredWorkerReplicas: 5,
      availableWorkerReplicas: 5,
      readyWorkerReplicas: 5,
      minWorkerReplicas: 0,
      maxWorkerReplicas: 5,
    },
  );
});
