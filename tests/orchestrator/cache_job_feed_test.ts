/**
 * The cache's feed of the jobs' changes (the jobs' KindStore.watch), the
 * one WatchRayJobs fans out: the jobs held first, then each change of a
 * RayJob or of the events about one, and a new epoch; and WatchRayJobs'
 * fan-out over it, whose open watches end with code 10 at a new epoch.
 */
import assert from "node:assert/strict";
import { JOB_WATCH, watchOf } from "../../api/service/kind_watch.ts";
import { ConvertedClusters } from "../../api/service/converted_clusters.ts";
import { Code, type ServiceError } from "../../domain/errors.ts";
import type { RayJobResource } from "../../domain/job_conversions.ts";
import type { Change, Orchestrator } from "../../domain/ports.ts";
import type { KubeEvent } from "../../domain/resources.ts";
import type { WatchRayJobsResponse } from "../../domain/types.ts";
import { CacheStores } from "../../orchestrator/cache_stores.ts";

const NS = "team-a";

function rayJob(name: string, resourceVersion: string): RayJobResource {
  return {
    apiVersion: "ray.io/v1",
    kind: "RayJob",
    metadata: { name, namespace: NS, uid: `uid-${name}`, resourceVersion },
    spec: { entrypoint: "python train.py" },
  } as unknown as RayJobResource;
}

function event(
  name: string,
  kind: string,
  about: string,
  resourceVersion: string,
): KubeEvent {
  return {
    metadata: { name, namespace: NS, uid: `uid-${name}`, resourceVersion },
    involvedObject: { kind, namespace: NS, name: about },
    reason: "Submitted",
    message: `${kind} ${about}`,
  } as KubeEvent;
}

/** A change as a test reads it. */
function told(change: Change<RayJobResource>): string {
  const state = change.object
    ? (change.before ? "changed" : "new")
    : (change.before ? "gone" : "epoch");
  const events = change.events.map((e) => e.metadata?.name).join(",");
  return `${state} ${change.name} @${change.resourceVersion}.${change.epoch}${
    events ? ` [${events}]` : ""
  }`;
}

Deno.test("The jobs' KindStore.watch() tells the jobs held, then each RayJob's change and its events', not a cluster's, then a new epoch", () => {
  const stores = new CacheStores();
  const jobs = stores.kinds.jobs;
  jobs.apply({ type: "replace", items: [rayJob("held", "5")] });
  const seen: string[] = [];
  const stop = jobs.watch((change) => seen.push(told(change)));
  jobs.apply({ type: "upsert", item: rayJob("train", "6") });
  jobs.apply({ type: "upsert", item: rayJob("train", "7") });
  jobs.applyEvents(
    { type: "upsert", item: event("train.1", "RayJob", "train", "8") },
    NS,
  );
  // About a cluster of the same name, or a job not held: nothing.
  stores.kinds.clusters.applyEvents({
    type: "upsert",
    item: event("c.1", "RayCluster", "train", "9"),
  });
  jobs.applyEvents(
    { type: "upsert", item: event("x.1", "RayJob", "unknown", "10") },
    NS,
  );
  jobs.apply({ type: "delete", item: rayJob("train", "11") });
  jobs.apply({
    type: "replace",
    items: [],
    resourceVersion: "3",
    reset: { count: 1 },
  });
  stop();
  jobs.apply({ type: "upsert", item: rayJob("after", "4") });
  assert.deepEqual(seen, [
    "new held @5.0",
    "new train @6.0",
    "changed train @7.0",
    "changed train @8.0 [train.1]",
    "gone train @11.0 [train.1]",
    "epoch  @3.1",
    "gone held @3.1",
  ]);
});

Deno.test("WatchRayJobs' fan-out over the cache's feed: the state, a change with its events, and code 10 for open watches at a new epoch", async () => {
  const stores = new CacheStores();
  const jobs = stores.kinds.jobs;
  jobs.apply({ type: "replace", items: [rayJob("held", "5")] });
  // The cache's feed and state, as an Orchestrator with a cache has them.
  const cache = {
    jobs: {
      watch: (listener: (change: Change<RayJobResource>) => void) =>
        jobs.watch(listener),
    },
    cacheState: () => ({ inStep: true }),
  } as unknown as Orchestrator;
  const watches = watchOf(JOB_WATCH, cache, new ConvertedClusters())!;
  try {
    const watch = watches.watch({ namespaces: [NS] });
    const next = async () => {
      const { value } = await watch.next();
      return [value.type, value.job?.name, value.resourceVersion];
    };
    assert.deepEqual(await next(), ["ADDED", "held", ""]);
    assert.deepEqual(await next(), ["BOOKMARK", undefined, "5"]);
    jobs.applyEvents(
      { type: "upsert", item: event("held.1", "RayJob", "held", "6") },
      NS,
    );
    const value = (await watch.next()).value as WatchRayJobsResponse;
    assert.deepEqual(
      [
        value.type,
        value.job?.events.map((e) => e.reason),
        value.resourceVersion,
      ],
      ["MODIFIED", ["Submitted"], "6"],
    );
    jobs.apply({
      type: "replace",
      items: [],
      resourceVersion: "2",
      reset: { count: 1 },
    });
    await assert.rejects(
      () => watch.next(),
      (error: ServiceError) =>
        error.code === Code.ABORTED && /started again/.test(error.message),
    );
  } finally {
    watches.close();
  }
});
