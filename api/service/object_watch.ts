/**
 * Watches of whole objects (the Kubernetes-shaped routes' `?watch=1`:
 * api/http/ray_objects.ts), served from the cache as WatchClusters is:
 * one fan-out per workload kind (watch_fanout.ts) over the kind's feed
 * (ObjectPort.watch), whose answers are Kubernetes watch events, the
 * object as stored in each. The cache holds only Corral's objects, so only
 * those are ever told of. A change of the Events about an object, which
 * the feed tells too, moves the versions on and is not sent: the object
 * did not change.
 */
import type { WorkloadKindName } from "../../domain/kinds.ts";
import { KINDS } from "../../domain/kinds.ts";
import type { Change, Orchestrator } from "../../domain/ports.ts";
import type { RayObject } from "./object_writes.ts";
import {
  type FeedChange,
  WatchFanout,
  type WatchKind,
  type WatchTuning,
} from "./watch_fanout.ts";

/** One event of a Kubernetes watch. */
export interface KubeWatchEvent {
  type: "ADDED" | "MODIFIED" | "DELETED" | "BOOKMARK";
  /** The object; of a BOOKMARK, its kind and resourceVersion alone. */
  object: unknown;
}

/** The watches of one kind's objects. */
export type ObjectWatch = WatchFanout<RayObject, KubeWatchEvent>;

/** Every workload kind's watches, over one cache; none without a cache. */
export class ObjectWatches {
  readonly #watches = new Map<WorkloadKindName, ObjectWatch>();

  /**
   * The fan-outs over `orchestrator`'s cache, whose objects are of
   * `apiVersion` (a BOOKMARK says it).
   */
  constructor(
    orchestrator: Orchestrator,
    apiVersion: string,
    tuning: WatchTuning = {},
  ) {
    for (const kind of ["clusters", "jobs", "services"] as const) {
      const watch = objectWatchOf(kind, orchestrator, apiVersion, tuning);
      if (watch) this.#watches.set(kind, watch);
    }
  }

  /** The watches of `kind`; undefined without a cache. */
  of(kind: WorkloadKindName): ObjectWatch | undefined {
    return this.#watches.get(kind);
  }

  /** Ends every watch, cleanly, and the feeds. */
  close(): void {
    for (const watch of this.#watches.values()) watch.close();
  }
}

/** The fan-out of `kind`'s objects; undefined when its port has no feed. */
function objectWatchOf(
  kind: WorkloadKindName,
  orchestrator: Orchestrator,
  apiVersion: string,
  tuning: WatchTuning,
): ObjectWatch | undefined {
  const port = orchestrator[kind];
  const feed = port.watch?.bind(port) as
    | ((listener: (change: Change<RayObject>) => void) => () => void)
    | undefined;
  if (!feed) return undefined;
  const { kind: objectKind, plural } = KINDS[kind].resource;
  const watched: WatchKind<RayObject, KubeWatchEvent> = {
    noun: plural,
    method: `watch of ${plural}`,
    answer: (type, object, resourceVersion) =>
      type === "BOOKMARK"
        ? {
          type,
          object: {
            kind: objectKind,
            apiVersion,
            metadata: { resourceVersion },
          },
        }
        : { type, object },
  };
  return new WatchFanout<RayObject, KubeWatchEvent>(watched, {
    feed: (listener) => feed((change) => listener(feedChange(change))),
    inStep: () => orchestrator.cacheState?.().inStep ?? false,
    synced: orchestrator.synced,
    ...tuning,
  });
}

/**
 * An object's change as the fan-out takes it; a change of the Events about
 * it (the same object before and after) only moves the versions on.
 */
function feedChange(change: Change<RayObject>): FeedChange<RayObject> {
  const { namespace, name, resourceVersion, epoch, object, before } = change;
  const shown = object ?? before;
  if (shown === undefined || object === before) {
    return { namespace, name, resourceVersion, epoch };
  }
  return {
    namespace,
    name,
    resourceVersion,
    epoch,
    type: object ? (before ? "MODIFIED" : "ADDED") : "DELETED",
    capture: () => () => shown,
  };
}
