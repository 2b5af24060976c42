/**
 * WatchRayJobs, served from the cache as WatchClusters is: the jobs' feed
 * (the jobs' ObjectPort.watch: a RayJob's changes and those of the
 * events about it) through the fan-out of watch_fanout.ts. A change's job
 * is converted once, when first sent, with the events about it as they
 * were when the change arrived.
 */
import { jobFromResource } from "../../domain/job_conversions.ts";
import type { RayJobResource } from "../../domain/job_conversions.ts";
import type { Change, Orchestrator } from "../../domain/ports.ts";
import type { RayJob, WatchRayJobsResponse } from "../../domain/types.ts";
import {
  type FeedChange,
  WatchFanout,
  type WatchKind,
  type WatchTuning,
} from "./watch_fanout.ts";

/** What WatchRayJobs says and sends. */
const JOBS: WatchKind<RayJob, WatchRayJobsResponse> = {
  noun: "jobs",
  method: "WatchRayJobs",
  answer: (type, job, resourceVersion) => ({
    type,
    ...(job ? { job } : {}),
    resourceVersion,
  }),
};

/** The jobs' watches: one fan-out of the jobs' changes. */
export type JobWatch = WatchFanout<RayJob, WatchRayJobsResponse>;

/**
 * The fan-out over `orchestrator`'s cache; undefined when it has none
 * (--cache off), and WatchRayJobs is then refused.
 */
export function jobWatchFor(
  orchestrator: Orchestrator,
  tuning: WatchTuning = {},
): JobWatch | undefined {
  const feed = orchestrator.jobs.watch?.bind(orchestrator.jobs);
  if (!feed) return undefined;
  return new WatchFanout(JOBS, {
    feed: (listener) => feed((change) => listener(jobFeedChange(change))),
    inStep: () => orchestrator.cacheState?.().inStep ?? false,
    synced: orchestrator.synced,
    ...tuning,
  });
}

/** A job's change as the fan-out takes it. */
function jobFeedChange(change: Change<RayJobResource>): FeedChange<RayJob> {
  const { namespace, name, resourceVersion, epoch, before } = change;
  const job = change.object;
  const shown = job ?? before;
  if (shown === undefined) return { namespace, name, resourceVersion, epoch };
  return {
    namespace,
    name,
    resourceVersion,
    epoch,
    type: job ? (before ? "MODIFIED" : "ADDED") : "DELETED",
    capture: () => {
      // The events as they are now: gathered only for a change kept.
      const events = change.events;
      return () => jobFromResource(shown, events);
    },
  };
}
