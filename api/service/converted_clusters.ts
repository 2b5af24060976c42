/**
 * Clusters converted once: the message of a RayCluster with its events is
 * kept for as long as the cache holds that very RayCluster object and the
 * events about it have not changed, so a list of 10,000 cached clusters
 * converts none of them again (and refers to the kept messages rather than
 * copying them). Objects read from Kubernetes directly (--cache=off) are
 * new on every read: their messages are made and dropped with them.
 *
 * Kept messages are kept answers (domain/kept.ts), down to their last
 * member: they are shared between requests, and the encoders may keep their
 * encoding (domain/codec.ts).
 */
import { KINDS } from "../../domain/kinds.ts";
import {
  eventsByCluster,
  namespacedName,
} from "../../domain/event_conversions.ts";
import { isKept, keep, keepWithSlot } from "../../domain/kept.ts";
import { SharedParts } from "../../domain/shared_parts.ts";
import type { KubeEvent, RayCluster } from "../../domain/resources.ts";
import type { Cluster } from "../../domain/types.ts";

export class ConvertedClusters {
  readonly #kept = new WeakMap<RayCluster, KeptCluster>();
  readonly #lists = new WeakMap<
    readonly RayCluster[],
    { events: readonly KubeEvent[]; clusters: readonly Cluster[] }
  >();
  /**
   * Cluster specs held once however many clusters have equal ones: a kept
   * message is kept until its RayCluster changes, and V8 marks every
   * object of every one of them in each full collection (after a list of
   * 10,000 clusters, GetCluster's p99 rose to tens of ms while they were
   * each a tree of their own).
   */
  readonly #specs = new SharedParts();

  /**
   * The messages of a list of RayClusters with the events of their
   * namespace(s); the same frozen array while the cache hands out the same
   * two arrays (it does until something changes).
   */
  list(
    resources: readonly RayCluster[],
    events: readonly KubeEvent[],
  ): readonly Cluster[] {
    const kept = this.#lists.get(resources);
    if (kept !== undefined && kept.events === events) return kept.clusters;
    const byCluster = eventsByCluster(events);
    const clusters = keep(resources.map((resource) =>
      this.of(
        resource,
        byCluster.get(
          namespacedName(
            resource.metadata.namespace ?? "",
            resource.metadata.name,
          ),
        ) ?? [],
      )
    ));
    this.#lists.set(resources, { events, clusters });
    return clusters;
  }

  /** The message of `resource` with `events` (those about it, or more). */
  of(resource: RayCluster, events: readonly KubeEvent[]): Cluster {
    const kept = this.#keptOf(resource);
    // The very event objects as last time (the cache's, until they
    // change): no key to make, on every GetCluster.
    if (kept !== undefined && sameItems(kept.eventObjects, events)) {
      return kept.cluster;
    }
    const key = eventsKey(events);
    if (kept !== undefined && kept.events === key) {
      kept.eventObjects = events;
      return kept.cluster;
    }
    const converted = KINDS.clusters.message(resource, events);
    const cluster: Cluster = {
      ...converted,
      ...(converted.clusterSpec
        ? { clusterSpec: this.#specs.share(converted.clusterSpec) }
        : {}),
    };
    for (const member of Object.values(cluster)) keepDeeply(member);
    keepWithSlot(cluster);
    this.#keep(resource, { events: key, eventObjects: events, cluster });
    return cluster;
  }

  /**
   * The message kept for `resource`: in a slot of the resource (the
   * cache's object, which nothing else changes), so that 10,000 kept
   * messages are no WeakMap entries for V8's full collections to mark in
   * their pause (domain/kept.ts, keepWithSlot, says what that cost); in
   * the WeakMap for a resource that cannot take one.
   */
  #keptOf(resource: RayCluster): KeptCluster | undefined {
    return (resource as Slotted)[CONVERTED] ?? this.#kept.get(resource);
  }

  #keep(resource: RayCluster, kept: KeptCluster): void {
    if (!Object.isExtensible(resource)) {
      return void this.#kept.set(resource, kept);
    }
    Object.defineProperty(resource, CONVERTED, {
      value: kept,
      enumerable: false,
      writable: true,
      configurable: true,
    });
  }
}

/** Where a RayCluster holds its converted message; no member of it. */
const CONVERTED = Symbol("converted cluster");

type Slotted = RayCluster & { [CONVERTED]?: KeptCluster };

interface KeptCluster {
  /** The uid and version of each event the message was made with. */
  events: string;
  /** The event objects it was last asked for with. */
  eventObjects: readonly KubeEvent[];
  cluster: Cluster;
}

function eventsKey(events: readonly KubeEvent[]): string {
  return events.map((event) =>
    `${event.metadata?.uid ?? event.metadata?.name}@${
      event.metadata?.resourceVersion ?? ""
    }`
  ).join(",");
}

function sameItems<T>(a: readonly T[], b: readonly T[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Keeps `value` and every object in it. */
function keepDeeply<T>(value: T): T {
  if (value === null || typeof value !== "object" || isKept(value)) {
    return value;
  }
  if (value instanceof Date) return keep(value);
  for (const member of Object.values(value)) keepDeeply(member);
  return keep(value);
}
