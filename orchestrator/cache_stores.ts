/**
 * What the cache holds: the managed RayClusters, the compute-template
 * ConfigMaps and the Events about RayClusters, one Store each, and the
 * listeners told of every change of a cluster (or of its events) as it is
 * applied.
 *
 * Epochs: Kubernetes' resource versions (etcd's revision, one counter for
 * every resource) only grow, until an API server loses its data or has it
 * restored. A reflector then lists at a version lower than the last it
 * synced (a reset, reflector.ts), and the cache starts a new epoch: the
 * listeners are told first (a change of no cluster), so that what they
 * made of the old versions (resume points) is let go. Every reflector sees
 * the same reset, and counts its own: the epoch is the most any has
 * counted, so one reset seen by all of them is one epoch.
 */
import type { ClusterChange, JobChange } from "../domain/ports.ts";
import type { ConfigMap, KubeEvent, RayCluster } from "../domain/resources.ts";
import type { RayJobResource } from "../domain/job_conversions.ts";
import type { RayServiceResource } from "../domain/service_resources.ts";
import type { Reflected, StoreChange } from "./reflector.ts";
import { type Changed, keyOf, Store } from "./store.ts";
import {
  trimCluster,
  trimConfigMap,
  trimEvent,
  trimMetadataOnly,
} from "./trim.ts";
import { SharedParts } from "../domain/shared_parts.ts";

type Listener = (change: ClusterChange) => void;
type JobListener = (change: JobChange) => void;

export class CacheStores {
  readonly clusters = new Store<RayCluster>();
  readonly templates = new Store<ConfigMap>();
  readonly events = new Store<KubeEvent>(involvedKey);
  readonly jobs = new Store<RayJobResource>();
  /** The managed RayServices, and the Events about RayServices. */
  readonly services = new Store<RayServiceResource>();
  readonly serviceEvents = new Store<KubeEvent>(involvedServiceKey);
  /** The Events about RayJobs, indexed by the job's `namespace/name`. */
  readonly jobEvents = new Store<KubeEvent>(involvedJobKey);
  readonly #listeners = new Set<Listener>();
  readonly #jobListeners = new Set<JobListener>();
  /** How many times Kubernetes' versions started again (see above). */
  #epoch = 0;

  /** How many times the cache saw Kubernetes' versions start again. */
  get epoch(): number {
    return this.#epoch;
  }

  /** The clusters' groups, held once however many clusters have them. */
  readonly #groups = new SharedParts();
  /**
   * A cluster as the cache keeps it (trim.ts), its groups shared with the
   * clusters held; the reflectors trim what they hand over with it, item by
   * item as each page arrives, and a cluster trimmed again costs little.
   */
  readonly trimCluster = (cluster: RayCluster): RayCluster =>
    trimCluster(cluster, this.#groups);

  /** Applies a change to the clusters' store and tells the listeners. */
  applyClusters(change: StoreChange<RayCluster>, namespace = ""): void {
    this.#noteReset(change);
    const changed = this.clusters.apply(
      trimmed(change, this.trimCluster),
      namespace,
    );
    if (this.#listeners.size === 0) return;
    for (const pair of changed) {
      const key = keyOf((pair[1] ?? pair[0])!);
      this.#tell(key, pair[1], pair[0], versionOf(change, pair));
    }
  }

  /** Applies a change the templates' watch brought. */
  applyTemplates(change: StoreChange<ConfigMap>, namespace: string): void {
    this.#noteReset(change);
    this.templates.apply(trimmed(change, trimConfigMap), namespace);
  }

  /** Applies a change the jobs' watch brought. */
  applyJobs(change: StoreChange<RayJobResource>, namespace = ""): void {
    this.#noteReset(change);
    const changed = this.jobs.apply(
      trimmed(change, trimMetadataOnly),
      namespace,
    );
    if (this.#jobListeners.size === 0) return;
    for (const pair of changed) {
      const key = keyOf((pair[1] ?? pair[0])!);
      this.#tellJob(key, pair[1], pair[0], versionOf(change, pair));
    }
  }

  /** Applies a change to the events' store; tells of their clusters. */
  applyEvents(change: StoreChange<KubeEvent>, namespace = ""): void {
    this.#noteReset(change);
    const changed = this.events.apply(trimmed(change, trimEvent), namespace);
    if (this.#listeners.size === 0) return;
    for (const pair of changed) {
      const object = (pair[1] ?? pair[0])!.involvedObject;
      if (object?.kind !== "RayCluster") continue;
      const cluster = this.clusters.get(
        object.namespace ?? "",
        object.name ?? "",
      );
      if (cluster) {
        this.#tell(keyOf(cluster), cluster, cluster, versionOf(change, pair));
      }
    }
  }

  /** Applies a change the services' watch brought. */
  applyServices(
    change: StoreChange<RayServiceResource>,
    namespace = "",
  ): void {
    this.#noteReset(change);
    this.services.apply(trimmed(change, trimMetadataOnly), namespace);
  }

  /** Applies a change the watch of events about services brought. */
  applyServiceEvents(change: StoreChange<KubeEvent>, namespace: string): void {
    this.#noteReset(change);
    this.serviceEvents.apply(trimmed(change, trimEvent), namespace);
  }

  /** The events of the service `key` (`team-a/web`) names. */
  serviceEventsOf(key: string): KubeEvent[] {
    return [...this.serviceEvents.indexed(key)];
  }

  /** Applies a change the job events' watch brought. */
  applyJobEvents(change: StoreChange<KubeEvent>, namespace = ""): void {
    this.#noteReset(change);
    const changed = this.jobEvents.apply(
      trimmed(change, trimEvent),
      namespace,
    );
    if (this.#jobListeners.size === 0) return;
    for (const pair of changed) {
      const object = (pair[1] ?? pair[0])!.involvedObject;
      if (object?.kind !== "RayJob") continue;
      const job = this.jobs.get(object.namespace ?? "", object.name ?? "");
      if (job) this.#tellJob(keyOf(job), job, job, versionOf(change, pair));
    }
  }

  /** The events of the job `key` (`namespace/name`) names. */
  jobEventsOf(key: string): KubeEvent[] {
    return [...this.jobEvents.indexed(key)];
  }

  /** The events of the cluster `key` names. */
  eventsOf(key: string): KubeEvent[] {
    return [...this.events.indexed(key)];
  }

  /**
   * Tells `listener` of every cluster held now, then of every change;
   * answers the function that stops it (Orchestrator.watchClusterChanges).
   */
  watchClusterChanges(listener: Listener): () => void {
    for (const cluster of this.clusters.list()) {
      listener({
        namespace: cluster.metadata.namespace ?? "",
        name: cluster.metadata.name,
        cluster,
        events: this.eventsOf(keyOf(cluster)),
        resourceVersion: cluster.metadata.resourceVersion ?? "",
        epoch: this.#epoch,
      });
    }
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * Tells `listener` of every job held now, then of every change of a
   * RayJob or of the events about one; answers the function that stops it
   * (Orchestrator.watchJobChanges).
   */
  watchJobChanges(listener: JobListener): () => void {
    for (const job of this.jobs.list()) {
      listener({
        namespace: job.metadata.namespace ?? "",
        name: job.metadata.name,
        job,
        events: this.jobEventsOf(keyOf(job)),
        resourceVersion: job.metadata.resourceVersion ?? "",
        epoch: this.#epoch,
      });
    }
    this.#jobListeners.add(listener);
    return () => this.#jobListeners.delete(listener);
  }

  /** Tells the job listeners of the job `key` names (as #tell). */
  #tellJob(
    key: string,
    job: RayJobResource | undefined,
    before: RayJobResource | undefined,
    resourceVersion: string,
  ): void {
    const object = job ?? before;
    if (object === undefined) return;
    let about: KubeEvent[] | undefined;
    const events = this.jobEvents;
    const change: JobChange = {
      namespace: object.metadata.namespace ?? "",
      name: object.metadata.name,
      job,
      before,
      get events() {
        return about ??= [...events.indexed(key)];
      },
      resourceVersion,
      epoch: this.#epoch,
    };
    for (const listener of this.#jobListeners) listener(change);
  }

  /** Tells the listeners of the clusters `key` names. */
  #tell(
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
    const events = this.events;
    const change: ClusterChange = {
      namespace: object.metadata.namespace ?? "",
      name: object.metadata.name,
      cluster,
      before,
      get events() {
        return about ??= [...events.indexed(key)];
      },
      resourceVersion,
      epoch: this.#epoch,
    };
    for (const listener of this.#listeners) listener(change);
  }

  /**
   * Starts a new epoch when a reset brings one: told to the listeners at
   * once, before the change's own.
   */
  #noteReset<T extends Reflected>(change: StoreChange<T>): void {
    if (change.type !== "replace" || change.reset === undefined) return;
    if (change.reset.count <= this.#epoch) return;
    this.#epoch = change.reset.count;
    // Of no object: a change of clusters and of jobs alike.
    const started = {
      namespace: "",
      name: "",
      events: [],
      resourceVersion: change.resourceVersion ?? "",
      epoch: this.#epoch,
    };
    for (const listener of this.#listeners) listener(started);
    for (const listener of this.#jobListeners) listener(started);
  }
}

/** The events store's index key of the cluster an event is about. */
function involvedKey(event: KubeEvent): string | undefined {
  const object = event.involvedObject;
  if (object?.kind !== "RayCluster") return undefined;
  return `${object.namespace ?? ""}/${object.name ?? ""}`;
}

/** The service events store's index key of the service an event is about. */
function involvedServiceKey(event: KubeEvent): string | undefined {
  const object = event.involvedObject;
  if (object?.kind !== "RayService") return undefined;
  return `${object.namespace ?? ""}/${object.name ?? ""}`;
}

/** The job events store's index key of the RayJob an event is about. */
function involvedJobKey(event: KubeEvent): string | undefined {
  const object = event.involvedObject;
  if (object?.kind !== "RayJob") return undefined;
  return `${object.namespace ?? ""}/${object.name ?? ""}`;
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

/**
 * `change` with each object as the cache keeps it (trim.ts): one transform
 * per resource, applied here, where the reflectors' changes and the
 * answers of writes and lookups enter the stores.
 */
function trimmed<T extends Reflected>(
  change: StoreChange<T>,
  trim: (item: T) => T,
): StoreChange<T> {
  return change.type === "replace"
    ? { ...change, items: change.items.map(trim) }
    : { ...change, item: trim(change.item) };
}
