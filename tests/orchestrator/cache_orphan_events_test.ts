/**
 * The Events the cache keeps about objects it does not hold (one deleted,
 * one it never held, one whose object has not arrived yet): kept for
 * orphanEventsMs after the object goes missing, then dropped
 * (orchestrator/orphan_events.ts), on a clock the test moves.
 */
import assert from "node:assert/strict";
import type { RayJobResource } from "../../domain/job_conversions.ts";
import type { KubeEvent } from "../../domain/resources.ts";
import { CacheStores } from "../../orchestrator/cache_stores.ts";
import { ManualClock } from "../manual_clock.ts";

const NS = "team-a";
const MINUTE = 60_000;

function rayJob(name: string, resourceVersion: string): RayJobResource {
  return {
    apiVersion: "ray.io/v1",
    kind: "RayJob",
    metadata: { name, namespace: NS, uid: `uid-${name}`, resourceVersion },
    spec: { entrypoint: "python train.py" },
  } as unknown as RayJobResource;
}

function event(name: string, about: string, resourceVersion: string) {
  return {
    metadata: { name, namespace: NS, uid: `uid-${name}`, resourceVersion },
    involvedObject: { kind: "RayJob", namespace: NS, name: about },
    reason: "Submitted",
    message: `RayJob ${about}`,
  } as KubeEvent;
}

function jobsOn(clock: ManualClock) {
  return new CacheStores({ now: clock.now }).kinds.jobs;
}

/** The names of the events held about the job `name`. */
function eventsOf(jobs: ReturnType<typeof jobsOn>, name: string): string[] {
  return jobs.eventsOf(`${NS}/${name}`).map((e) => e.metadata!.name!).sort();
}

Deno.test("The cache drops the Events about a deleted object 5 minutes after it went, not before, and a relist does not bring them back", () => {
  const clock = new ManualClock();
  const jobs = jobsOn(clock);
  jobs.apply({ type: "upsert", item: rayJob("train", "1") });
  jobs.applyEvents({ type: "upsert", item: event("train.1", "train", "2") });
  jobs.applyEvents({ type: "upsert", item: event("train.2", "train", "3") });
  jobs.apply({ type: "delete", item: rayJob("train", "4") });
  clock.advance(5 * MINUTE - 1);
  jobs.apply({ type: "upsert", item: rayJob("other", "5") });
  assert.deepEqual(eventsOf(jobs, "train"), ["train.1", "train.2"]);
  clock.advance(1);
  jobs.apply({ type: "upsert", item: rayJob("other", "6") });
  assert.deepEqual(eventsOf(jobs, "train"), []);
  assert.equal(jobs.events!.size, 0);
  // The Events' relist still has them (Kubernetes keeps Events an hour).
  jobs.applyEvents({
    type: "replace",
    items: [event("train.1", "train", "2"), event("train.2", "train", "3")],
    resourceVersion: "7",
  });
  assert.equal(jobs.events!.size, 0);
});

Deno.test("The cache keeps the Events that arrive before their object, and drops those of an object it never holds after 5 minutes", () => {
  const clock = new ManualClock();
  const jobs = jobsOn(clock);
  jobs.applyEvents({ type: "upsert", item: event("late.1", "late", "1") });
  jobs.applyEvents({ type: "upsert", item: event("never.1", "never", "2") });
  clock.advance(MINUTE);
  jobs.apply({ type: "upsert", item: rayJob("late", "3") });
  clock.advance(10 * MINUTE);
  jobs.apply({ type: "upsert", item: rayJob("late", "4") });
  assert.deepEqual(eventsOf(jobs, "late"), ["late.1"]);
  assert.deepEqual(eventsOf(jobs, "never"), []);
});

Deno.test("Under a steady stream of creates and deletes the cache holds the Events of the objects it holds and of the last 5 minutes' deletions, not of every one", () => {
  const clock = new ManualClock();
  const jobs = jobsOn(clock);
  let version = 0;
  const rv = () => String(++version);
  // One job a second, three Events each, deleted 20 s later: two hours.
  for (let i = 0; i < 7_200; i++) {
    jobs.apply({ type: "upsert", item: rayJob(`job-${i}`, rv()) });
    for (let e = 0; e < 3; e++) {
      jobs.applyEvents({
        type: "upsert",
        item: event(`job-${i}.${e}`, `job-${i}`, rv()),
      });
    }
    if (i >= 20) {
      jobs.apply({ type: "delete", item: rayJob(`job-${i - 20}`, rv()) });
    }
    clock.advance(1_000);
  }
  // 20 held and 300 deleted in the last 5 minutes, 3 Events each.
  assert.equal(jobs.objects.size, 20);
  assert.ok(
    jobs.events!.size <= (20 + 300) * 3,
    `${jobs.events!.size} Events held`,
  );
});
