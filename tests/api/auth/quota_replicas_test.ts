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
import { holdingsOf, sumUsage, type Usage } from "../../../api/auth/quota.ts";
import type { RayJobResource } from "../../../domain/job_conversions.ts";
import type { RayCluster } from "../../../domain/resources.ts";
import type { RayServiceResource } from "../../../domain/service_resources.ts";
import { eventually } from "../../eventually.ts";
import { type Corral, type Outcome, TRANSPORTS } from "../../harness.ts";
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

const ROUNDS = 10;

/** What stands in a namespace, read from the stand-in itself. */
interface Standing {
  /** "RayCluster/a", "RayJob/b", "RayService/c": not those owned by another. */
  names: string[];
  usage: Usage;
}

async function listed<T>(kubeUrl: string, path: string): Promise<T[]> {
  const response = await fetch(`${kubeUrl}${path}`);
  assert.equal(response.status, 200, path);
  return ((await response.json()) as { items: T[] }).items;
}

async function standing(kubeUrl: string, namespace: string) {
  const at = `/apis/ray.io/v1/namespaces/${namespace}`;
  const [clusters, jobs, services] = await Promise.all([
    listed<RayCluster>(kubeUrl, `${at}/rayclusters`),
    listed<RayJobResource>(kubeUrl, `${at}/rayjobs`),
    listed<RayServiceResource>(kubeUrl, `${at}/rayservices`),
  ]);
  const holdings = holdingsOf(clusters, jobs, services);
  const unowned = clusters.filter((c) =>
    !((c.metadata as { ownerReferences?: unknown[] }).ownerReferences?.length)
  );
  return {
    names: [
      ...unowned.map((c) => `RayCluster/${c.metadata.name}`),
      ...jobs.map((j) => `RayJob/${j.metadata.name}`),
      ...services.map((s) => `RayService/${s.metadata.name}`),
    ].sort(),
    usage: sumUsage(holdings),
  } satisfies Standing;
}

/**
 * Follows every change of what stands while running, through watches of
 * the stand-in (every state a watch goes through, not samples of some):
 * answers the largest usage of any moment, dimension by dimension. The
 * three kinds come on three streams, so a moment is as their events
 * arrive; within a round only creates and updates happen.
 */
async function follower(kubeUrl: string, namespace: string) {
  const at = `/apis/ray.io/v1/namespaces/${namespace}`;
  const held = {
    rayclusters: new Map<string, RayCluster>(),
    rayjobs: new Map<string, RayJobResource>(),
    rayservices: new Map<string, RayServiceResource>(),
  };
  const most: Partial<Usage> = {};
  let changes = 0;
  const measure = () => {
    const usage = sumUsage(
      holdingsOf(
        [...held.rayclusters.values()],
        [...held.rayjobs.values()],
        [...held.rayservices.values()],
      ),
    );
    changes++;
    for (const [dimension, value] of Object.entries(usage)) {
      const key = dimension as keyof Usage;
      most[key] = Math.max(most[key] ?? 0, value);
    }
  };
  const stop = new AbortController();
  const streams = await Promise.all(
    (Object.keys(held) as (keyof typeof held)[]).map(async (plural) => {
      const list = await fetch(`${kubeUrl}${at}/${plural}`);
      const { items, metadata } = await list.json() as {
        items: { metadata: { name: string } }[];
        metadata: { resourceVersion: string };
      };
      const store = held[plural] as Map<string, unknown>;
      for (const item of items) store.set(item.metadata.name, item);
      const watch = await fetch(
        `${kubeUrl}${at}/${plural}?watch=true&resourceVersion=${metadata.resourceVersion}`,
        { signal: stop.signal },
      );
      return { store, body: watch.body! };
    }),
  );
  measure();
  const readers = streams.map(({ body }) =>
    body.pipeThrough(new TextDecoderStream()).getReader()
  );
  const following = streams.map(async ({ store }, i) => {
    const lines = readers[i];
    let buffered = "";
    try {
      for (;;) {
        const { value, done } = await lines.read();
        if (done) return;
        buffered += value;
        let end;
        while ((end = buffered.indexOf("\n")) >= 0) {
          const line = buffered.slice(0, end).trim();
          buffered = buffered.slice(end + 1);
          if (line === "") continue;
          const event = JSON.parse(line) as {
            type: string;
            object: { metadata: { name: string } };
          };
          if (event.type === "DELETED") {
            store.delete(event.object.metadata.name);
          } else if (event.type !== "BOOKMARK") {
            store.set(event.object.metadata.name, event.object);
          }
          measure();
        }
      }
    } catch (error) {
      if (!stop.signal.aborted) throw error;
    }
  });
  return {
    async stop() {
      stop.abort();
      await Promise.all(readers.map((reader) => reader.cancel()));
      await Promise.all(following);
      return { most, changes };
    },
  };
}

/** Each racing request: its name as it stands, and the call. */
interface Racer {
  name: string;
  call: () => Promise<Outcome>;
}

/**
 * Runs `racers` at once while sampling; asserts no sample over `limits`,
 * every answer OK or RESOURCE_EXHAUSTED, and what stands is what passed.
 */
async function race(
  corral: Corral,
  namespace: string,
  limits: Partial<Usage>,
  racers: Racer[],
  round: number,
): Promise<string[]> {
  const following = await follower(corral.kubeUrl, namespace);
  const outcomes = await Promise.all(racers.map((racer) => racer.call()));
  const after = await standing(corral.kubeUrl, namespace);
  const { most, changes } = await following.stop();
  for (const outcome of outcomes) {
    assert.ok(
      outcome.code === 0 || outcome.code === 8,
      `round ${round}: ${outcome.code} ${outcome.message}`,
    );
  }
  for (const [dimension, limit] of Object.entries(limits)) {
    const seen = most[dimension as keyof Usage] ?? 0;
    assert.ok(
      seen <= limit,
      `round ${round}: ${dimension} ${seen} of ${limit} stood at one moment (${changes} states)`,
    );
  }
  const passed = racers.filter((_, i) => outcomes[i].code === 0)
    .map((racer) => racer.name).sort();
  assert.deepEqual(after.names, passed, `round ${round}: what stands`);
  assert.ok(passed.length > 0, `round ${round}: every request was refused`);
  return passed;
}

/** Deletes what stands in `namespace` and waits until nothing does. */
async function clear(corral: Corral, namespace: string, names: string[]) {
  const [, via] = TRANSPORTS[0];
  const deletes: Record<string, [string, string]> = {
    RayCluster: [CS, "DeleteCluster"],
    RayJob: ["proto.RayJobService", "DeleteRayJob"],
    RayService: ["proto.RayServeService", "DeleteRayService"],
  };
  for (const qualified of names) {
    const [kind, name] = qualified.split("/");
    const [service, method] = deletes[kind];
    await ok(
      via(corral, `${service}/${method}`, { namespace, name }, root),
      `delete ${qualified}`,
    );
  }
  await eventually(`${namespace} empty`, async () => {
    const { names } = await standing(corral.kubeUrl, namespace);
    return names.length === 0 ? true : undefined;
  });
}

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
      a,
      namespace,
      { maxClusters: 2, cpu: 8 },
      racers,
      round,
    );
    await clear(a, namespace, stood);
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
    await clear(a, namespace, names.map((name) => `RayCluster/${name}`));
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
    const stood = await race(a, namespace, { cpu: 4 }, racers, round);
    assert.equal(stood.length, 1, `round ${round}: ${stood.join(", ")}`);
    await clear(a, namespace, stood);
  }
});
