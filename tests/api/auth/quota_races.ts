/**
 * Races of quota'd writes, judged from the API server's side: what stands
 * in a namespace, read from the stand-in itself, and followed change by
 * change through its watches while the racers run, never over a quota;
 * once they have answered, what stands is exactly what was answered OK.
 */
import assert from "node:assert/strict";
import {
  type Dimension,
  DIMENSIONS,
  holdingsOf,
  sumUsage,
  type Usage,
} from "../../../api/auth/quota.ts";
import type { RayJobResource } from "../../../domain/job_conversions.ts";
import type { RayCluster } from "../../../domain/resources.ts";
import type { RayServiceResource } from "../../../domain/service_resources.ts";
import { eventually } from "../../eventually.ts";
import { type Corral, type Outcome, TRANSPORTS } from "../../harness.ts";
import { CS, ok, root } from "./quota_corrals.ts";

/** What stands in a namespace, read from the stand-in itself. */
interface Standing {
  /** "RayCluster/a", "RayJob/b", "RayService/c": not those owned by another. */
  names: string[];
  usage: Usage;
}

export async function listed<T>(kubeUrl: string, path: string): Promise<T[]> {
  const response = await fetch(`${kubeUrl}${path}`);
  assert.equal(response.status, 200, path);
  return ((await response.json()) as { items: T[] }).items;
}

export async function standing(kubeUrl: string, namespace: string) {
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
export async function follower(kubeUrl: string, namespace: string) {
  const at = `/apis/ray.io/v1/namespaces/${namespace}`;
  const held = {
    rayclusters: new Map<string, RayCluster>(),
    rayjobs: new Map<string, RayJobResource>(),
    rayservices: new Map<string, RayServiceResource>(),
  };
  const most: Partial<Record<Dimension, number>> = {};
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
    for (const dimension of DIMENSIONS) {
      most[dimension] = Math.max(most[dimension] ?? 0, usage[dimension]);
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
export interface Racer {
  name: string;
  call: () => Promise<Outcome>;
}

/**
 * Runs `racers` at once while following; asserts no state over `limits`,
 * every answer OK or RESOURCE_EXHAUSTED, and what stands is what passed.
 */
export async function race(
  kubeUrl: string,
  namespace: string,
  limits: Partial<Record<Dimension, number>>,
  racers: Racer[],
  round: number,
): Promise<string[]> {
  const following = await follower(kubeUrl, namespace);
  const outcomes = await Promise.all(racers.map((racer) => racer.call()));
  const after = await standing(kubeUrl, namespace);
  const { most, changes } = await following.stop();
  for (const outcome of outcomes) {
    assert.ok(
      outcome.code === 0 || outcome.code === 8,
      `round ${round}: ${outcome.code} ${outcome.message}`,
    );
  }
  for (const dimension of DIMENSIONS) {
    const limit = limits[dimension];
    if (limit === undefined) continue;
    const seen = most[dimension] ?? 0;
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
export async function clear(
  corral: Corral,
  kubeUrl: string,
  namespace: string,
  names: string[],
) {
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
    const { names } = await standing(kubeUrl, namespace);
    return names.length === 0 ? true : undefined;
  });
}
