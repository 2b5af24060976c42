/**
 * The Orchestrator with reads from memory: reflectors (reflector.ts) list
 * and watch the managed RayClusters, the compute-template ConfigMaps and the
 * Events about RayClusters (per served namespace, or cluster-wide), and
 * reads are answered from their stores with no Kubernetes call.
 *
 * - Get that misses asks Kubernetes once before answering NOT_FOUND, so an
 *   object another replica created a moment ago is found (and kept).
 * - Writes go to Kubernetes; what it answers goes into the store at once,
 *   so a replica reads its own writes before the watch brings them.
 * - Until the first lists are in, and while a watch has been down longer
 *   than `staleAfterMs`, reads go to Kubernetes directly (and readiness says
 *   why not ready).
 */
import type { KubeConfig } from "@kubernetes/client-node";
import type { Logger } from "../domain/log.ts";
import type {
  CacheState,
  ClusterChange,
  Orchestrator,
} from "../domain/ports.ts";
import {
  COMPUTE_TEMPLATE_SELECTOR,
  type ConfigMap,
  isComputeTemplate,
  type KubeEvent,
  LABEL,
  MANAGED_CLUSTER_SELECTOR,
  type RayCluster,
} from "../domain/resources.ts";
import { asConfigMap, asEvent } from "./json.ts";
import type { RayClusterCoordinates } from "./client_ports.ts";
import {
  type ListAnswer,
  type Reflected,
  type Reflector,
  startReflector,
  statusOf,
  type StoreChange,
} from "./reflector.ts";
import { type Changed, keyOf, Store } from "./store.ts";
import { fetchWatch, type WatchTransport } from "./watch_stream.ts";

const CACHED_RESOURCES = ["rayclusters", "configmaps", "events"] as const;
type CachedResource = typeof CACHED_RESOURCES[number];

export const EVENTS_SELECTOR = "involvedObject.kind=RayCluster";

export interface CacheOptions {
  /** The direct orchestrator: writes, live gets, and reads until in step. */
  direct: Orchestrator;
  kubeConfig: KubeConfig;
  rayCluster: RayClusterCoordinates;
  /** Served namespaces; empty watches every namespace. */
  namespaces: readonly string[];
  /** A watch down longer than this makes the cache stale; 30 s. */
  staleAfterMs?: number;
  log: Logger;
  /** The watch transport; Deno's fetch with `kubeConfig`'s credentials. */
  watch?: WatchTransport;
  /** First backoff after a failure; 1 s. */
  backoffMs?: number;
}

export interface CachedOrchestrator extends Orchestrator {
  /** Resolves once every first list is in. */
  readonly synced: Promise<void>;
  cacheState(): CacheState;
  close(): Promise<void>;
}

/** The events store's index key of the cluster an event is about. */
function involvedKey(event: KubeEvent): string | undefined {
  const object = event.involvedObject;
  if (object?.kind !== "RayCluster") return undefined;
  return `${object.namespace ?? ""}/${object.name ?? ""}`;
}

/**
 * An object without metadata.managedFields, the API server's record of who
 * set which field: Corral never reads it, and on a real cluster it is often
 * the larger part of an object (client-go's informers drop it the same way,
 * with a transform). Objects without it are kept as they are.
 */
function withoutManagedFields<T extends Reflected>(item: T): T {
  const metadata = item.metadata as
    | (Reflected["metadata"] & { managedFields?: unknown })
    | undefined;
  if (metadata?.managedFields === undefined) return item;
  const { managedFields: _, ...rest } = metadata;
  return { ...item, metadata: rest };
}

function trimmed<T extends Reflected>(change: StoreChange<T>): StoreChange<T> {
  return change.type === "replace"
    ? { ...change, items: change.items.map(withoutManagedFields) }
    : { ...change, item: withoutManagedFields(change.item) };
}

/** Objects a list asks for at a time: client-go's pager's default. */
export const LIST_PAGE_SIZE = 500;

/**
 * A whole collection, asked for in pages of LIST_PAGE_SIZE as client-go's
 * reflector asks (its pager): from an API server that pages, each answer is
 * a few MB, where one answer of 10,000 RayClusters is tens of MB of text
 * parsed at once, which the process keeps as resident memory long after.
 *
 * The first list asks for resourceVersion 0, as client-go's first list
 * does: an API server with its watch cache answers it whole from memory
 * (the limit is ignored there), and asks nothing of etcd. A later list
 * (after a failure or a 410) asks for the latest, a consistent read that a
 * real API server pages from etcd. Pages after the first carry only the
 * continue token, which holds the first page's snapshot. When that
 * snapshot is compacted away before the last page (410 Expired), the list
 * is made again in one answer, as client-go's pager does.
 */
async function listInPages<T>(
  watch: WatchTransport,
  path: string,
  selector: Record<string, string>,
  normalize: (item: unknown) => T,
  from: { resourceVersion: "0" | ""; signal: AbortSignal },
): Promise<ListAnswer<T>> {
  const first = {
    ...selector,
    ...(from.resourceVersion === "" ? {} : { resourceVersion: "0" }),
  };
  const items: T[] = [];
  let resourceVersion: string | undefined;
  let token = "";
  do {
    let answer: ListAnswer<unknown> & { metadata?: { continue?: string } };
    try {
      answer = await watch.list(
        path,
        token === ""
          ? { ...first, limit: String(LIST_PAGE_SIZE) }
          : { ...selector, limit: String(LIST_PAGE_SIZE), continue: token },
        from.signal,
      ) as typeof answer;
    } catch (error) {
      if (token === "" || statusOf(error) !== 410) throw error;
      const whole = await watch.list(path, first, from.signal) as ListAnswer<
        unknown
      >;
      return {
        ...whole,
        items: (whole.items ?? []).map(normalize),
      };
    }
    for (const item of answer.items ?? []) items.push(normalize(item));
    resourceVersion = answer.metadata?.resourceVersion;
    token = answer.metadata?.continue ?? "";
  } while (token !== "");
  return { items, metadata: { resourceVersion } };
}

export function createCachedOrchestrator(
  options: CacheOptions,
): CachedOrchestrator {
  const { direct, log } = options;
  const { group, version, plural } = options.rayCluster;
  const staleAfterMs = options.staleAfterMs ?? 30_000;
  const watch = options.watch ?? fetchWatch(options.kubeConfig);
  const clusters = new Store<RayCluster>();
  const templates = new Store<ConfigMap>();
  const events = new Store<KubeEvent>(involvedKey);
  const stores = { rayclusters: clusters, configmaps: templates, events };
  const scopes = options.namespaces.length > 0 ? options.namespaces : [""];
  const reflectors: { resource: CachedResource; reflector: Reflector }[] = [];
  const clock = { wall: Date.now(), mono: performance.now() };
  const counts = (): Record<CachedResource, number> => ({
    rayclusters: 0,
    configmaps: 0,
    events: 0,
  });
  const relists = counts();
  const restarts = counts();

  const listeners = new Set<(change: ClusterChange) => void>();

  /** Tells the listeners of the clusters `key` names. */
  function tell(
    key: string,
    cluster: RayCluster | undefined,
    before: RayCluster | undefined,
    resourceVersion: string,
  ): void {
    const object = cluster ?? before;
    if (object === undefined) return;
    // The events are gathered only if a listener asks: while the cache
    // lists 10,000 clusters and their events nobody does.
    let about: KubeEvent[] | undefined;
    const change: ClusterChange = {
      namespace: object.metadata.namespace ?? "",
      name: object.metadata.name,
      cluster,
      before,
      get events() {
        return about ??= [...events.indexed(key)];
      },
      resourceVersion,
    };
    for (const listener of listeners) listener(change);
  }

  /**
   * The resourceVersion of one object's change: the object's own, or, for
   * one a relist dropped, the list's (a deletion's own is the object as
   * the watch delivered it).
   */
  function versionOf<T extends Reflected>(
    change: StoreChange<T>,
    [, after]: Changed<T>,
  ): string {
    if (after) return after.metadata?.resourceVersion ?? "";
    if (change.type === "replace") return change.resourceVersion ?? "";
    return change.item.metadata?.resourceVersion ?? "";
  }

  /** Applies a change to the clusters' store and tells the listeners. */
  function applyClusters(change: StoreChange<RayCluster>, namespace = "") {
    const changed = clusters.apply(trimmed(change), namespace);
    if (listeners.size === 0) return;
    for (const pair of changed) {
      const key = keyOf((pair[1] ?? pair[0])!);
      tell(key, pair[1], pair[0], versionOf(change, pair));
    }
  }

  /** Applies a change to the events' store; tells of their clusters. */
  function applyEvents(change: StoreChange<KubeEvent>, namespace = "") {
    const changed = events.apply(trimmed(change), namespace);
    if (listeners.size === 0) return;
    for (const pair of changed) {
      const object = (pair[1] ?? pair[0])!.involvedObject;
      if (object?.kind !== "RayCluster") continue;
      const cluster = clusters.get(object.namespace ?? "", object.name ?? "");
      if (cluster) {
        tell(keyOf(cluster), cluster, cluster, versionOf(change, pair));
      }
    }
  }

  let synced = false;
  let running = false;
  let markSynced!: () => void;
  const allSynced = new Promise<void>((resolve) => markSynced = resolve);

  function start(): void {
    if (running) return;
    running = true;
    clock.wall = Date.now();
    clock.mono = performance.now();
    for (const namespace of scopes) {
      const inNamespace = namespace === ""
        ? ""
        : `/namespaces/${encodeURIComponent(namespace)}`;
      const reflect = <T extends Reflected>(
        resource: CachedResource,
        apply: (change: StoreChange<T>, namespace: string) => void,
        path: string,
        selector: { labelSelector?: string; fieldSelector?: string },
        normalize: (item: unknown) => T,
      ) =>
        reflectors.push({
          resource,
          reflector: startReflector<T>({
            resource,
            namespace,
            list: (from) => listInPages(watch, path, selector, normalize, from),
            watchPath: path,
            ...selector,
            watch,
            onChange: (change) =>
              apply(
                change.type === "replace"
                  ? change
                  : { ...change, item: normalize(change.item) },
                namespace,
              ),
            onEvent: (event) => {
              if (event === "relist") relists[resource]++;
              else restarts[resource]++;
            },
            log,
            backoffMs: options.backoffMs,
          }),
        });

      reflect<RayCluster>(
        "rayclusters",
        applyClusters,
        `/apis/${group}/${version}${inNamespace}/${plural}`,
        { labelSelector: MANAGED_CLUSTER_SELECTOR },
        (item) => item as RayCluster,
      );
      reflect<ConfigMap>(
        "configmaps",
        (change, ns) => templates.apply(trimmed(change), ns),
        `/api/v1${inNamespace}/configmaps`,
        { labelSelector: COMPUTE_TEMPLATE_SELECTOR },
        asConfigMap,
      );
      reflect<KubeEvent>(
        "events",
        applyEvents,
        `/api/v1${inNamespace}/events`,
        { fieldSelector: EVENTS_SELECTOR },
        asEvent,
      );
    }
    Promise.all(reflectors.map((r) => r.reflector.synced)).then(() => {
      synced = true;
      log.info("Cache in step", {
        clusters: clusters.size,
        templates: templates.size,
        events: events.size,
        seconds: (performance.now() - clock.mono) / 1000,
      });
      markSynced();
    });
  }

  function notInStep(): string | undefined {
    if (!running) return "cache not started";
    if (!synced) return "cache has not listed everything yet";
    const now = performance.now();
    for (const { resource, reflector } of reflectors) {
      const down = reflector.downSince;
      if (down !== undefined && now - down > staleAfterMs) {
        return `cache stale: the ${resource} watch has been down for ${
          Math.round((now - down) / 1000)
        } s`;
      }
    }
    return undefined;
  }

  const inStep = () => notInStep() === undefined;

  return {
    synced: allSynced,
    start,

    cacheState() {
      const reason = notInStep();
      const lastInStep = Object.fromEntries(
        CACHED_RESOURCES.map((resource) => {
          const times = reflectors.filter((r) => r.resource === resource)
            .map((r) => r.reflector.lastInStep);
          const oldest = Math.min(...times);
          return [
            resource,
            Number.isFinite(oldest) ? clock.wall + (oldest - clock.mono) : 0,
          ];
        }),
      ) as Record<CachedResource, number>;
      return {
        inStep: reason === undefined,
        ...(reason === undefined ? {} : { reason }),
        objects: {
          rayclusters: stores.rayclusters.size,
          configmaps: stores.configmaps.size,
          events: stores.events.size,
        },
        lastInStep,
        relists: { ...relists },
        restarts: { ...restarts },
      };
    },

    async close() {
      await Promise.all(reflectors.map((r) => r.reflector.stop()));
    },

    watchClusterChanges(listener) {
      for (const cluster of clusters.list()) {
        const key = keyOf(cluster);
        listener({
          namespace: cluster.metadata.namespace ?? "",
          name: cluster.metadata.name,
          cluster,
          events: [...events.indexed(key)],
          resourceVersion: cluster.metadata.resourceVersion ?? "",
        });
      }
      listeners.add(listener);
      return () => listeners.delete(listener);
    },

    async createCluster(cluster, call) {
      const created = await direct.createCluster(cluster, call);
      applyClusters({ type: "upsert", item: created });
      return created;
    },

    async getCluster(namespace, name, call) {
      const held = inStep() && !call?.fresh
        ? clusters.get(namespace, name)
        : undefined;
      if (held !== undefined) return held;
      const found = await direct.getCluster(namespace, name, call);
      if (inStep()) applyClusters({ type: "upsert", item: found });
      return found;
    },

    async listClusters(namespace, call) {
      if (!inStep()) return await direct.listClusters(namespace, call);
      // The store's own array, the same object until something changes (the
      // handlers keep what they made of it while it stays the same).
      return clusters.list(namespace) as RayCluster[];
    },

    async updateCluster(cluster, call) {
      const updated = await direct.updateCluster(cluster, call);
      applyClusters({ type: "upsert", item: updated });
      return updated;
    },

    async deleteCluster(namespace, name, call) {
      await direct.deleteCluster(namespace, name, call);
      // Gone from this replica's reads at once; a RayCluster that finalizers
      // keep comes back (with its deletion time) from the watch or a get.
      const held = clusters.get(namespace, name);
      if (held) applyClusters({ type: "delete", item: held });
    },

    async listClusterEvents(namespace, name, call) {
      if (!inStep()) {
        return await direct.listClusterEvents(namespace, name, call);
      }
      if (name !== undefined) {
        return [...events.indexed(`${namespace ?? ""}/${name}`)];
      }
      // Only events about RayClusters are listed into the store.
      return events.list(namespace) as KubeEvent[];
    },

    async createComputeTemplate(configMap, call) {
      const created = await direct.createComputeTemplate(configMap, call);
      templates.apply({ type: "upsert", item: created });
      return created;
    },

    async getComputeTemplate(namespace, name, call) {
      const held = inStep() ? templates.get(namespace, name) : undefined;
      if (held !== undefined) return held;
      const found = await direct.getComputeTemplate(namespace, name, call);
      if (inStep()) templates.apply({ type: "upsert", item: found });
      return found;
    },

    async listComputeTemplates(namespace, names, call) {
      if (!inStep()) {
        return await direct.listComputeTemplates(namespace, names, call);
      }
      const all = templates.list(namespace).filter(isComputeTemplate);
      if (names === undefined) return all;
      const wanted = new Set(names);
      return all.filter((configMap) =>
        wanted.has(configMap.metadata.labels?.[LABEL.computeTemplate] ?? "")
      );
    },

    async deleteComputeTemplate(namespace, name, call) {
      await direct.deleteComputeTemplate(namespace, name, call);
      const held = templates.get(namespace, name);
      if (held) templates.apply({ type: "delete", item: held });
    },

    ping: (call) => direct.ping(call),
  };
}
