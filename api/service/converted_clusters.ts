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
import {
  clusterFromResource,
  eventsByCluster,
  namespacedName,
} from "../../domain/conversions.ts";
import { isKept, keep } from "../../domain/kept.ts";
import type { KubeEvent, RayCluster } from "../../domain/resources.ts";
import type { Cluster } from "../../domain/types.ts";

export class ConvertedClusters {
  readonly #kept = new WeakMap<
    RayCluster,
    { events: string; cluster: Cluster }
  >();
  readonly #lists = new WeakMap<
    readonly RayCluster[],
    { events: readonly KubeEvent[]; clusters: readonly Cluster[] }
  >();

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
    const key = events.map((event) =>
      `${event.metadata?.uid ?? event.metadata?.name}@${
        event.metadata?.resourceVersion ?? ""
      }`
    ).join(",");
    const kept = this.#kept.get(resource);
    if (kept !== undefined && kept.events === key) return kept.cluster;
    const cluster = keepDeeply(clusterFromResource(resource, events));
    this.#kept.set(resource, { events: key, cluster });
    return cluster;
  }
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
