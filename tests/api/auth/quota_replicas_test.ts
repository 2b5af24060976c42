/**
 * Quotas across replicas (api/service/quota_ledger.ts): Corrals over one
 * stand-in, as the pods of a Deployment share one API server, racing
 * creates and scale-ups of every workload kind into namespaces whose quota
 * only some of them fit. What stands in Kubernetes is followed while they
 * race, change by change through watches of the stand-in itself: it is
 * never over a quota, and once they have answered, what stands is exactly
 * what was answered OK.
 */
import assert from "node:assert/strict";
import type { RayCluster } from "../../../domain/resources.ts";
import { TRANSPORTS } from "../../harness.ts";
import { SERVE_CONFIG } from "../service_cases.ts";
import {
  clusterBody,
  CS,
  ok,
  quotaCorral,
  root,
  withTemplates,
  workers,
} from "./quota_corrals.ts";
import { clear, follower, listed, race, type Racer } from "./quota_races.ts";

const ROUNDS = 10;

/** The replicas of one test: `count` Corrals over the first one's stand-in. */
async function replicas(count: number) {
  const first = await quotaCorral();
  const all = [first];
  try {
    while (all.length < count) {
      all.push(await quotaCorral(first.corral.kubeUrl));
    }
  } catch (error) {
    for (const replica of all.reverse()) await replica[Symbol.asyncDispose]();
    throw error;
  }
  return {
    corrals: all.map((replica) => replica.corral),
    async [Symbol.asyncDispose]() {
      for (const replica of [...all].reverse()) {
        await replica[Symbol.asyncDispose]();
      }
    },
  };
}

Deno.test("quotas across 3 replicas: 6 creates at once never stand over 2 clusters / 8 CPUs, and what stands is what was answered OK", async () => {
  await using rig = await replicas(3);
  const [a] = rig.corrals;
  const namespace = "q-replicas";
  await withTemplates(a, [namespace]);
  for (let round = 0; round < ROUNDS; round++) {
    // Each cluster is 4 CPUs: 2 fit, and each replica's first create
    // finds none standing. Creates alternate transports and replicas.
    const racers = Array.from({ length: 6 }, (_, i) => {
      const name = `r${round}-${i}`;
      const [, via] = TRANSPORTS[i % 2];
      const corral = rig.corrals[i % 3];
      return {
        name: `RayCluster/${name}`,
        call: () =>
          via(
            corral,
            `${CS}/CreateCluster`,
            clusterBody(namespace, name, "root"),
            root,
          ),
      };
    });
    const stood = await race(
      a.kubeUrl,
      namespace,
      { maxClusters: 2, cpu: 8 },
      racers,
      round,
    );
    await clear(a, a.kubeUrl, namespace, stood);
  }
});

Deno.test("quotas across 2 replicas: two scale-ups of +4 CPUs at once at 8 of 12 CPUs, at most one stands", async () => {
  await using rig = await replicas(2);
  const [a, b] = rig.corrals;
  const namespace = "q-scale-replicas";
  await withTemplates(a, [namespace]);
  for (let round = 0; round < ROUNDS; round++) {
    const names = [`a${round}`, `b${round}`];
    for (const name of names) {
      await ok(
        TRANSPORTS[0][1](
          a,
          `${CS}/CreateCluster`,
          clusterBody(namespace, name, "root"),
          root,
        ),
        `create ${name}`,
      );
    }
    // 1 worker -> 3: +4 CPUs each; either fits alone, both do not.
    const racers = names.map((name, i) => {
      const [, via] = TRANSPORTS[i];
      return {
        name: `RayCluster/${name}`,
        call: () =>
          via([a, b][i], `${CS}/UpdateCluster`, {
            namespace,
            name,
            updateMask: "clusterSpec.workerGroupSpec",
            cluster: { clusterSpec: { workerGroupSpec: [workers(3)] } },
          }, root),
      };
    });
    const following = await follower(a.kubeUrl, namespace);
    const outcomes = await Promise.all(racers.map((racer) => racer.call()));
    const { most, changes } = await following.stop();
    const won = names.filter((_, i) => outcomes[i].code === 0);
    for (const outcome of outcomes) {
      if (outcome.code === 0) continue;
      assert.equal(outcome.code, 8, `round ${round}: ${outcome.message}`);
      assert.match(
        outcome.message,
        /^Cannot update cluster "q-scale-replicas\/[ab]\d+": quota exceeded: q-scale-replicas: CPUs 1[26] of 12 used, this update asks for 4 more$/,
      );
    }
    assert.ok(
      (most.cpu ?? 0) <= 12,
      `round ${round}: ${most.cpu} of 12 CPUs stood at one moment (${changes} states)`,
    );
    assert.equal(won.length, 1, `round ${round}: ${won.length} scale-ups won`);
    const clusters = await listed<RayCluster>(
      a.kubeUrl,
      `/apis/ray.io/v1/namespaces/${namespace}/rayclusters`,
    );
    const grown = clusters
      .filter((c) => c.spec.workerGroupSpecs![0].maxReplicas === 3)
      .map((c) => c.metadata.name);
    assert.deepEqual(grown, won, `round ${round}: what passed is what grew`);
    await clear(
      a,
      a.kubeUrl,
      namespace,
      names.map((name) => `RayCluster/${name}`),
    );
  }
});

Deno.test("quotas across 3 replicas: a job with its own cluster, a service and a cluster at once, when only one fits, only one stands", async () => {
  await using rig = await replicas(3);
  const [a] = rig.corrals;
  const namespace = "q-mixed-replicas";
  await withTemplates(a, [namespace]);
  // Each is a head and one worker of 2 CPUs: 4 CPUs, the whole quota.
  const spec = clusterBody(namespace, "x", "root").cluster.clusterSpec;
  for (let round = 0; round < ROUNDS; round++) {
    const [job, service, cluster] = [`j${round}`, `s${round}`, `c${round}`];
    const order = [0, 1, 2].map((i) => (i + round) % 3);
    const racers: Racer[] = [
      {
        name: `RayJob/${job}`,
        call: () =>
          TRANSPORTS[round % 2][1](
            rig.corrals[order[0]],
            "proto.RayJobService/CreateRayJob",
            {
              namespace,
              job: {
                name: job,
                user: "root",
                version: "2.9.0",
                entrypoint: "python train.py",
                clusterSpec: spec,
              },
            },
            root,
          ),
      },
      {
        name: `RayService/${service}`,
        call: () =>
          TRANSPORTS[(round + 1) % 2][1](
            rig.corrals[order[1]],
            "proto.RayServeService/CreateRayService",
            {
              namespace,
              service: {
                name: service,
                user: "root",
                version: "2.9.0",
                serveConfigV2: SERVE_CONFIG,
                clusterSpec: spec,
              },
            },
            root,
          ),
      },
      {
        name: `RayCluster/${cluster}`,
        call: () =>
          TRANSPORTS[round % 2][1](
            rig.corrals[order[2]],
            `${CS}/CreateCluster`,
            clusterBody(namespace, cluster, "root"),
            root,
          ),
      },
    ];
    const stood = await race(a.kubeUrl, namespace, { cpu: 4 }, racers, round);
    assert.equal(stood.length, 1, `round ${round}: ${stood.join(", ")}`);
    await clear(a, a.kubeUrl, namespace, stood);
  }
});
