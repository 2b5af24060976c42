/**
 * The events of a RayCluster: core/v1 Events read (never written) into the
 * service's ClusterEvents, and picked out of a list of events by the
 * cluster they are about.
 */
import type { KubeEvent, RayCluster } from "./resources.ts";
import { parseKubernetesTime } from "./timestamps.ts";
import type { ClusterEvent } from "./types.ts";

/**
 * The events about this RayCluster: involvedObject of kind RayCluster with the
 * same namespace and name, and the same uid when both carry one, so events
 * of a deleted namesake or of another namespace's cluster never show.
 * Ordered by last occurrence, oldest first (stable for ties).
 */
export function eventsOfCluster(
  resource: RayCluster,
  events: readonly KubeEvent[],
): KubeEvent[] {
  const { name, namespace, uid } = resource.metadata ?? { name: "" };
  const matching = events.filter((event) => {
    const object = event.involvedObject ?? {};
    if (object.kind !== "RayCluster") return false;
    if (object.name !== name) return false;
    if ((object.namespace ?? "") !== (namespace ?? "")) return false;
    if (object.uid && uid && object.uid !== uid) return false;
    return true;
  });
  return matching
    .map((event, index) => ({ event, index, at: lastSeen(event) }))
    .sort((a, b) => a.at - b.at || a.index - b.index)
    .map(({ event }) => event);
}

/** `team-a/blue`: the key of an object in maps such as eventsByCluster's. */
export function namespacedName(namespace: string, name: string): string {
  return `${namespace}/${name}`;
}

/**
 * Events by the namespace and name of the RayCluster they are about
 * (`team-a/blue`), so that reading N clusters looks at each event once
 * rather than N times. eventsOfCluster still checks each group's uid.
 */
export function eventsByCluster(
  events: readonly KubeEvent[],
): Map<string, KubeEvent[]> {
  const groups = new Map<string, KubeEvent[]>();
  for (const event of events) {
    const object = event.involvedObject ?? {};
    if (object.kind !== "RayCluster") continue;
    const key = namespacedName(object.namespace ?? "", object.name ?? "");
    const group = groups.get(key);
    if (group) group.push(event);
    else groups.set(key, [event]);
  }
  return groups;
}

function lastSeen(event: KubeEvent): number {
  const time = parseKubernetesTime(event.lastTimestamp) ??
    parseKubernetesTime(event.eventTime) ??
    parseKubernetesTime(event.firstTimestamp) ??
    parseKubernetesTime(event.metadata?.creationTimestamp);
  return time?.getTime() ?? 0;
}

/**
 * A ClusterEvent from a core/v1 Event. id is the event's uid (its name when
 * it has none), name its name. first/last timestamps fall back to eventTime
 * (events.k8s.io/v1 writers leave them unset). count defaults to 1: an
 * event that exists happened at least once, and writers of new-style events
 * omit count for a single occurrence.
 */
export function clusterEventFromResource(event: KubeEvent): ClusterEvent {
  const metadata = event.metadata ?? { name: "" };
  const eventTime = parseKubernetesTime(event.eventTime);
  return {
    id: metadata.uid || metadata.name || "",
    name: metadata.name ?? "",
    createdAt: parseKubernetesTime(metadata.creationTimestamp),
    firstTimestamp: parseKubernetesTime(event.firstTimestamp) ?? eventTime,
    lastTimestamp: parseKubernetesTime(event.lastTimestamp) ?? eventTime,
    reason: event.reason ?? "",
    message: event.message ?? "",
    type: event.type ?? "",
    count: typeof event.count === "number" && event.count > 0 ? event.count : 1,
  };
}
