/**
 * What the handlers of every resource share: the orchestrator and the
 * settings they act with, and the kept answers of whole lists.
 */
import { Code, ServiceError } from "../../domain/errors.ts";
import { isKept, keep } from "../../domain/kept.ts";
import {
  type Keyed,
  type Page,
  pageCursor,
  type PageRequest,
} from "../../domain/pagination.ts";
import type { Scope } from "./rpcs.ts";
import type {
  CallOptions,
  ObjectPort,
  Orchestrator,
} from "../../domain/ports.ts";
import type { KubeEvent } from "../../domain/resources.ts";
import { DEFAULT_LIMITS, type Limits } from "../../domain/limits.ts";
import { ConvertedClusters } from "./converted_clusters.ts";
import type { ClusterWatch, JobWatch } from "./kind_watch.ts";
import { QuotaGuard } from "./quota_guard.ts";
import type { Cluster, ListClustersResponse } from "../../domain/types.ts";

export interface ServiceOptions {
  orchestrator: Orchestrator;
  /** apiVersion of the RayClusters written, e.g. "ray.io/v1". */
  clusterApiVersion: string;
  now?: () => Date;
  /** Upper bounds of what a request may ask for; DEFAULT_LIMITS when unset. */
  limits?: Limits;
  /** The clusters' messages, made once (shared with `watches`). */
  converted?: ConvertedClusters;
  /** WatchClusters' fan-out; without it (no cache) the method is refused. */
  watches?: ClusterWatch;
  /** WatchRayJobs' fan-out; without it (no cache) the method is refused. */
  jobWatches?: JobWatch;
}

/** ServiceOptions with their defaults filled in. */
export interface Service {
  orchestrator: Orchestrator;
  clusterApiVersion: string;
  now: () => Date;
  limits: Limits;
  converted: ConvertedClusters;
  watches?: ClusterWatch;
  jobWatches?: JobWatch;
  /** Holds the policy's quotas on creates and scale-ups (quota_guard.ts). */
  quotas: QuotaGuard;
}

export function serviceOf(options: ServiceOptions): Service {
  return {
    orchestrator: options.orchestrator,
    clusterApiVersion: options.clusterApiVersion,
    now: options.now ?? (() => new Date()),
    limits: options.limits ?? DEFAULT_LIMITS,
    converted: options.converted ?? new ConvertedClusters(),
    watches: options.watches,
    jobWatches: options.jobWatches,
    quotas: new QuotaGuard(options.orchestrator),
  };
}

/**
 * Whole-list answers kept with the kept list they answer (domain/kept.ts:
 * the gateway then keeps their JSON text too), so polling an unchanged list
 * of thousands encodes nothing again.
 */
const keptAnswers = new WeakMap<readonly Cluster[], ListClustersResponse>();

/** The answer of a page of clusters; the same object for the same kept list. */
export function clusterListAnswer(page: Page<Cluster>): ListClustersResponse {
  const { items, nextPageToken } = page;
  if (nextPageToken !== "" || !isKept(items)) {
    return { clusters: items, nextPageToken, continue: nextPageToken };
  }
  let kept = keptAnswers.get(items);
  if (kept === undefined) {
    kept = keep({ clusters: items, nextPageToken: "", continue: "" });
    keptAnswers.set(items, kept);
  }
  return kept;
}

/**
 * The items outside the namespaces `hidden` leaves out; `items` itself when
 * it leaves out none, so that a kept list stays kept (and its answer's
 * encodings with it).
 */
export function visible<T extends { namespace: string }>(
  items: T[],
  hidden: ((namespace: string) => boolean) | undefined,
): T[] {
  if (!hidden || !items.some((item) => hidden(item.namespace))) return items;
  return items.filter((item) => !hidden(item.namespace));
}

/**
 * What `read` (a fresh read of the object a call changes) answers, its
 * NOT_FOUND worded as the call's own: `Cannot update cluster "a/b": not
 * found`.
 */
export async function readToChange<T>(
  action: string,
  read: Promise<T>,
): Promise<T> {
  try {
    return await read;
  } catch (error) {
    throw error instanceof ServiceError && error.code === Code.NOT_FOUND
      ? new ServiceError(Code.NOT_FOUND, `${action}: not found`, {
        cause: error,
      })
      : error;
  }
}

/** Where a list reads: one namespace, several, or (undefined) all. */
export type Namespaces = string | readonly string[] | undefined;

/**
 * The messages of a kind's objects in `namespace`, listed with the events
 * about them (none, with no call, for a kind whose Events are not read)
 * and made by `convert`, in the order the
 * port lists them (the page cursor orders what is not in order).
 */
export async function listedIn<R, M>(
  port: ObjectPort<R>,
  namespace: Namespaces,
  kube: CallOptions,
  convert: (resources: R[], events: KubeEvent[]) => M[],
): Promise<M[]> {
  if (typeof namespace === "object") {
    const lists = await Promise.all(
      namespace.map((ns) => listedIn(port, ns, kube, convert)),
    );
    return lists.flat();
  }
  const [resources, events] = await Promise.all([
    port.list(namespace, kube),
    port.events(namespace, undefined, kube),
  ]);
  return convert(resources, events);
}

/** One object of a kind, and the events about it. */
export function withEvents<R>(
  port: ObjectPort<R>,
  namespace: string,
  name: string,
  kube: CallOptions,
): Promise<[R, KubeEvent[]]> {
  return Promise.all([
    port.get(namespace, name, kube),
    port.events(namespace, name, kube),
  ]);
}

/**
 * Each object's messages made from `resources`, with the events about it:
 * grouped once, so that N objects do not each look at every event.
 */
export function eachWithEvents<
  R extends { metadata: { namespace?: string; name: string } },
  M,
>(
  resources: R[],
  events: KubeEvent[],
  convert: (resource: R, events: KubeEvent[]) => M,
): M[] {
  const byObject = Map.groupBy(events, (event) => {
    const object = event.involvedObject ?? {};
    return `${object.namespace ?? ""}/${object.name ?? ""}`;
  });
  return resources.map((resource) => {
    const { namespace = "", name } = resource.metadata;
    return convert(resource, byObject.get(`${namespace}/${name}`) ?? []);
  });
}

/**
 * A page of what `read` lists where the call's scope reaches: one
 * namespace's (the page token's list named `${plural}/${namespace}`), or
 * every namespace a list across namespaces covers (named `plural`), those
 * the scope hides left out; and how many there are in all.
 */
export async function listPage<M extends Keyed>(
  request: PageRequest,
  plural: string,
  { scope, action }: { scope: Scope; action: string },
  read: (namespace: Namespaces) => Promise<M[]>,
): Promise<Page<M> & { total: number }> {
  const one = scope.kind === "namespace";
  const cursor = pageCursor(
    request,
    one ? `${plural}/${scope.namespace}` : plural,
    action,
  );
  const items = one
    ? await read(scope.namespace)
    : visible(await read(scope.namespaces), scope.hidden);
  return { ...cursor.page(items), total: items.length };
}
