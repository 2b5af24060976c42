/**
 * WatchClusters, served from the cache: the clusters' feed
 * (the clusters' ObjectPort.watch) through the fan-out of watch_fanout.ts,
 * which says how watches start, resume, keep up and end. Each change is
 * converted once (ConvertedClusters), with the events about its cluster as
 * they were when the change arrived, and the same frozen message goes to
 * every watcher that may see it.
 */
import type { Change, Orchestrator } from "../../domain/ports.ts";
import type { RayCluster } from "../../domain/resources.ts";
import type { Cluster, WatchClustersResponse } from "../../domain/types.ts";
import type { ConvertedClusters } from "./converted_clusters.ts";
import {
  type FanoutOptions,
  type FeedChange,
  WatchFanout,
  type WatchKind,
  type WatchTuning,
} from "./watch_fanout.ts";

export type { WatchRequest, WatchTuning } from "./watch_fanout.ts";

/** One answer of WatchClusters, as the handlers hand it to a transport. */
export type WatchEvent = WatchClustersResponse;

export interface ClusterWatchOptions
  extends Omit<FanoutOptions<Cluster>, "feed"> {
  /**
   * The cache's feed (the clusters' ObjectPort.watch): tells a new
   * listener of every cluster held, at once, then of every change.
   */
  feed: (listener: (change: Change<RayCluster>) => void) => () => void;
  converted: ConvertedClusters;
}

/** What WatchClusters says and sends. */
const CLUSTERS: WatchKind<Cluster, WatchClustersResponse> = {
  noun: "clusters",
  method: "WatchClusters",
  answer: (type, cluster, resourceVersion) => ({
    type,
    ...(cluster ? { cluster } : {}),
    resourceVersion,
  }),
};

/**
 * The fan-out over `orchestrator`'s cache; undefined when it has none
 * (--cache off), and WatchClusters is then refused.
 */
export function watchFor(
  orchestrator: Orchestrator,
  converted: ConvertedClusters,
  tuning: WatchTuning = {},
): ClusterWatch | undefined {
  const feed = orchestrator.clusters.watch?.bind(orchestrator.clusters);
  if (!feed) return undefined;
  return new ClusterWatch({
    feed,
    inStep: () => orchestrator.cacheState?.().inStep ?? false,
    synced: orchestrator.synced,
    converted,
    ...tuning,
  });
}

/** The clusters' watches: one fan-out of the clusters' changes. */
export class ClusterWatch extends WatchFanout<Cluster, WatchClustersResponse> {
  constructor(options: ClusterWatchOptions) {
    const { feed, converted, ...rest } = options;
    super(CLUSTERS, {
      ...rest,
      feed: (listener) =>
        feed((change) => listener(clusterFeedChange(change, converted))),
    });
  }
}

/** A cluster's change as the fan-out takes it. */
function clusterFeedChange(
  change: Change<RayCluster>,
  converted: ConvertedClusters,
): FeedChange<Cluster> {
  const { namespace, name, resourceVersion, epoch } = change;
  const { object: cluster, before } = change;
  const shown = cluster ?? before;
  if (shown === undefined) return { namespace, name, resourceVersion, epoch };
  return {
    namespace,
    name,
    resourceVersion,
    epoch,
    type: cluster ? (before ? "MODIFIED" : "ADDED") : "DELETED",
    capture: () => {
      // The events as they are now: gathered only for a change kept.
      const events = change.events;
      return () => converted.of(shown, events);
    },
  };
}
