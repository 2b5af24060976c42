/**
 * WatchClusters and WatchRayJobs, served from the cache: the feed of one
 * kind's port (ObjectPort.watch: an object's changes and those of the
 * events about it) through the fan-out of watch_fanout.ts, which says how
 * watches start, resume, keep up and end. A kind watched is a declaration
 * (WatchedKind: the RPC's words, its answer, and the message of an object);
 * what turns its changes into the fan-out's is written once here. Each
 * change is converted once, when first sent, with the events about its
 * object as they were when the change arrived, and the same frozen message
 * goes to every watcher that may see it.
 */
import {
  jobFromResource,
  type RayJobResource,
} from "../../domain/job_conversions.ts";
import type { Change, ObjectPort, Orchestrator } from "../../domain/ports.ts";
import type { KubeEvent, RayCluster } from "../../domain/resources.ts";
import type {
  Cluster,
  RayJob,
  WatchClustersResponse,
  WatchRayJobsResponse,
} from "../../domain/types.ts";
import type { ConvertedClusters } from "./converted_clusters.ts";
import {
  type FanoutOptions,
  type FeedChange,
  WatchFanout,
  type WatchKind,
  type WatchTuning,
} from "./watch_fanout.ts";

export type { WatchRequest, WatchTuning } from "./watch_fanout.ts";

/**
 * A kind watched: what its RPC says and sends (WatchKind), the port whose
 * cache feeds it, and the message of one of its objects (of type T).
 */
export interface WatchedKind<T, I, M> extends WatchKind<I, M> {
  /** The kind's port (its feed: ObjectPort.watch, a cache's only). */
  port(orchestrator: Orchestrator): ObjectPort<T>;
  /**
   * The message of `object`, with the events about it; the clusters'
   * made once (`converted`, whose kept messages the lists share).
   */
  message(
    object: T,
    events: readonly KubeEvent[],
    converted: ConvertedClusters,
  ): I;
}

/** WatchClusters. */
export const CLUSTER_WATCH: WatchedKind<
  RayCluster,
  Cluster,
  WatchClustersResponse
> = {
  noun: "clusters",
  method: "WatchClusters",
  port: (orchestrator) => orchestrator.clusters,
  message: (cluster, events, converted) => converted.of(cluster, events),
  answer: (type, cluster, resourceVersion) => ({
    type,
    ...(cluster ? { cluster } : {}),
    resourceVersion,
  }),
};

/** WatchRayJobs. */
export const JOB_WATCH: WatchedKind<
  RayJobResource,
  RayJob,
  WatchRayJobsResponse
> = {
  noun: "jobs",
  method: "WatchRayJobs",
  port: (orchestrator) => orchestrator.jobs,
  message: (job, events) => jobFromResource(job, events),
  answer: (type, job, resourceVersion) => ({
    type,
    ...(job ? { job } : {}),
    resourceVersion,
  }),
};

/** The clusters' watches: one fan-out of the clusters' changes. */
export type ClusterWatch = WatchFanout<Cluster, WatchClustersResponse>;
/** The jobs' watches: one fan-out of the jobs' changes. */
export type JobWatch = WatchFanout<RayJob, WatchRayJobsResponse>;
/** One answer of WatchClusters, as the handlers hand it to a transport. */
export type WatchEvent = WatchClustersResponse;

export interface KindWatchOptions<T> extends Omit<FanoutOptions<T>, "feed"> {
  /**
   * The kind's feed (ObjectPort.watch): tells a new listener of every
   * object held, at once, then of every change.
   */
  feed: (listener: (change: Change<T>) => void) => () => void;
  converted: ConvertedClusters;
}

/**
 * The fan-out of `kind` over `orchestrator`'s cache; undefined when it has
 * none (--cache off), and the kind's watch RPC is then refused.
 */
export function watchOf<T, I, M>(
  kind: WatchedKind<T, I, M>,
  orchestrator: Orchestrator,
  converted: ConvertedClusters,
  tuning: WatchTuning = {},
): WatchFanout<I, M> | undefined {
  const port = kind.port(orchestrator);
  const feed = port.watch?.bind(port);
  if (!feed) return undefined;
  return fanoutOf(kind, {
    feed,
    inStep: () => orchestrator.cacheState?.().inStep ?? false,
    synced: orchestrator.synced,
    converted,
    ...tuning,
  });
}

/**
 * The watches of every kind watched over `orchestrator`'s cache (none
 * without one), as the handlers take them.
 */
export function watchesOf(
  orchestrator: Orchestrator,
  converted: ConvertedClusters,
  tuning: WatchTuning = {},
): { watches?: ClusterWatch; jobWatches?: JobWatch } {
  return {
    watches: watchOf(CLUSTER_WATCH, orchestrator, converted, tuning),
    jobWatches: watchOf(JOB_WATCH, orchestrator, converted, tuning),
  };
}

/** The fan-out of `kind` over `options.feed`. */
export function fanoutOf<T, I, M>(
  kind: WatchedKind<T, I, M>,
  options: KindWatchOptions<T>,
): WatchFanout<I, M> {
  const { feed, converted, ...rest } = options;
  return new WatchFanout<I, M>(kind, {
    ...rest,
    feed: (listener) =>
      feed((change) => listener(feedChange(kind, change, converted))),
  });
}

/** An object's change as the fan-out takes it. */
function feedChange<T, I, M>(
  kind: WatchedKind<T, I, M>,
  change: Change<T>,
  converted: ConvertedClusters,
): FeedChange<I> {
  const { namespace, name, resourceVersion, epoch, object, before } = change;
  const shown = object ?? before;
  if (shown === undefined) return { namespace, name, resourceVersion, epoch };
  return {
    namespace,
    name,
    resourceVersion,
    epoch,
    type: object ? (before ? "MODIFIED" : "ADDED") : "DELETED",
    capture: () => {
      // The events as they are now: gathered only for a change kept.
      const events = change.events;
      return () => kind.message(shown, events, converted);
    },
  };
}
