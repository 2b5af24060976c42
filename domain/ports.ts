/**
 * The port through which the service reaches Kubernetes. Implementations
 * translate every Kubernetes failure into a ServiceError (domain/errors.ts):
 * NotFound -> NOT_FOUND, AlreadyExists -> ALREADY_EXISTS, Conflict on
 * update/delete -> ABORTED, Invalid -> INVALID_ARGUMENT with the causes'
 * fields, 401 -> UNAUTHENTICATED, 403 -> PERMISSION_DENIED, 429/5xx/network ->
 * UNAVAILABLE, time-out -> DEADLINE_EXCEEDED. Each method makes O(1)
 * Kubernetes calls.
 */
import type { ConfigMap, KubeEvent, RayCluster } from "./resources.ts";
import type { RayJobResource } from "./job_conversions.ts";
import type { RayServiceResource } from "./service_resources.ts";

/** One Kubernetes API call as it ended, for logs and metrics. */
export interface KubernetesCallRecord {
  verb: "create" | "get" | "list" | "delete" | "update";
  /** The resource's plural name: "rayclusters", "configmaps", "events". */
  resource: string;
  /** "ok", or the name of the service code it failed with ("UNAVAILABLE"). */
  outcome: string;
  seconds: number;
}

/** What a request hands every Kubernetes call it causes. */
export interface CallOptions {
  /** Aborts the calls: the caller went away or its deadline passed. A
   * ServiceError as the abort reason is what the call then fails with;
   * any other reason fails it with CANCELLED. */
  signal?: AbortSignal;
  /** Told of every Kubernetes call, retries included. */
  observe?: (record: KubernetesCallRecord) => void;
  /**
   * Read from Kubernetes even where a cache holds the object: the read an
   * update builds on (its resourceVersion is the write's precondition).
   */
  fresh?: boolean;
}

/**
 * What a cache of Kubernetes objects in front of the API knows of itself,
 * for readiness and metrics. Counts are by resource plural.
 */
export interface CacheState {
  /** Whether reads are answered from memory now. */
  inStep: boolean;
  /** Why not, when not. */
  reason?: string;
  /** Objects held. */
  objects: Record<string, number>;
  /** When each resource was last known in step (Date.now()), or 0. */
  lastInStep: Record<string, number>;
  /** Lists made (the first, and each after a failure or 410). */
  relists: Record<string, number>;
  /** Watches ended or failed and started again. */
  restarts: Record<string, number>;
  /**
   * Per resource and namespace watched ("" for all), seconds since its
   * store was last known in step (a list, an event, a bookmark).
   */
  syncAges: SyncAge[];
}

/** How long one resource's store in one namespace has gone without news. */
export interface SyncAge {
  /** The resource plural. */
  resource: string;
  /** The namespace watched; "" for all. */
  namespace: string;
  seconds: number;
}

/**
 * A managed RayCluster changed, or the events about it did, as a cache
 * applied the change. A change with neither `cluster` nor `before` (and
 * no name) tells only that a new epoch started.
 */
export interface ClusterChange {
  namespace: string;
  name: string;
  /** The RayCluster as it is now; undefined once it is gone. */
  cluster?: RayCluster;
  /** The RayCluster as it was before, if it was held. */
  before?: RayCluster;
  /** The events about it now (gathered when first read). */
  readonly events: readonly KubeEvent[];
  /**
   * Kubernetes' resourceVersion of the change (of the RayCluster, the
   * Event, or the list that brought it); empty when unknown.
   */
  resourceVersion: string;
  /**
   * How many times the cache saw Kubernetes' resource versions start
   * again (an API server that lost its data or had it restored): versions
   * of one epoch say nothing about those of another.
   */
  epoch: number;
}

/**
 * A change of a job the cache holds: its RayJob's, or of the events about
 * it (then `job` and `before` are the RayJob as it is). A change with
 * neither `job` nor `before` (and no name) tells only that a new epoch
 * started (as ClusterChange).
 */
export interface JobChange {
  namespace: string;
  name: string;
  /** The RayJob as it is now; undefined once it is gone. */
  job?: RayJobResource;
  /** The RayJob as it was before, if it was held. */
  before?: RayJobResource;
  /** The events about it now (gathered when first read). */
  readonly events: readonly KubeEvent[];
  /** As ClusterChange's: of the RayJob, the Event or the list. */
  resourceVersion: string;
  /** As ClusterChange's. */
  epoch: number;
}

/**
 * An object of one kind changed, or the events about it did, as a cache
 * applied the change. A change with neither `object` nor `before` (and no
 * name) tells only that a new epoch started.
 */
export interface Change<T> {
  namespace: string;
  name: string;
  /** The object as it is now; undefined once it is gone. */
  object?: T;
  /** The object as it was before, if it was held. */
  before?: T;
  /** The events about it now (gathered when first read). */
  readonly events: readonly KubeEvent[];
  /**
   * Kubernetes' resourceVersion of the change (of the object, the Event,
   * or the list that brought it); empty when unknown.
   */
  resourceVersion: string;
  /**
   * How many times the cache saw Kubernetes' resource versions start
   * again (an API server that lost its data or had it restored): versions
   * of one epoch say nothing about those of another.
   */
  epoch: number;
}

/** What a list takes besides CallOptions. */
export interface ListOptions extends CallOptions {
  /**
   * Only the objects of these names (a compute template's name is its
   * template label's: domain/kinds.ts, nameLabel), in one call.
   */
  names?: readonly string[];
}

/**
 * The reads and writes of one kind of object (domain/kinds.ts), only of
 * those that are Corral's (a RayCluster with the managed-by label, a
 * ConfigMap with the compute-template labels): any other is answered as
 * missing. Every method takes its CallOptions last.
 */
export interface ObjectPort<T> {
  /** Creates the object in metadata.namespace; returns it as stored. */
  create(object: T, options?: CallOptions): Promise<T>;
  /** The object, if it exists and is of the kind; NOT_FOUND otherwise. */
  get(namespace: string, name: string, options?: CallOptions): Promise<T>;
  /** The objects of one namespace, or of all when undefined. */
  list(namespace?: string, options?: ListOptions): Promise<T[]>;
  /**
   * Replaces an object with `object` (an update, PUT), which must carry the
   * metadata.resourceVersion it was read at: ABORTED when the stored object
   * has moved on since (Kubernetes' 409 Conflict), so nothing changes;
   * NOT_FOUND when it is gone. Returns it as stored. Never retried.
   */
  update(object: T, options?: CallOptions): Promise<T>;
  /** Deletes the object; NOT_FOUND when missing or not of the kind. */
  delete(namespace: string, name: string, options?: CallOptions): Promise<void>;
  /**
   * Events whose involvedObject is of the kind, in one namespace (or all
   * when undefined), optionally narrowed to one object's name. Callers
   * still match each event to its object by namespace, name and uid. None
   * for a kind whose Events are not read (compute templates).
   */
  events(
    namespace?: string,
    name?: string,
    options?: CallOptions,
  ): Promise<KubeEvent[]>;
  /**
   * Tells `listener` of every object the cache holds now (as changes from
   * nothing, in namespace then name order), then of every change of an
   * object or of the events about one, synchronously as the cache applies
   * it; answers the function that stops it. Only a cache has it.
   */
  watch?(listener: (change: Change<T>) => void): () => void;
}

/**
 * Every method takes CallOptions last. Reads are retried with a bounded
 * backoff when the Kubernetes API is unavailable; writes never are.
 */
export interface Orchestrator {
  /** Creates the RayCluster in metadata.namespace; returns it as stored. */
  createCluster(
    cluster: RayCluster,
    options?: CallOptions,
  ): Promise<RayCluster>;
  /**
   * The RayCluster, if it exists and carries the managed-by label;
   * NOT_FOUND otherwise.
   */
  getCluster(
    namespace: string,
    name: string,
    options?: CallOptions,
  ): Promise<RayCluster>;
  /** Managed RayClusters of one namespace, or of all when undefined. */
  listClusters(
    namespace?: string,
    options?: CallOptions,
  ): Promise<RayCluster[]>;
  /**
   * Replaces a RayCluster with `cluster` (an update, PUT), which must carry
   * the metadata.resourceVersion it was read at: ABORTED when the stored
   * object has moved on since (Kubernetes' 409 Conflict), so nothing
   * changes; NOT_FOUND when it is gone. Returns it as stored. Never retried.
   */
  updateCluster(
    cluster: RayCluster,
    options?: CallOptions,
  ): Promise<RayCluster>;
  /** Deletes a managed RayCluster; NOT_FOUND when missing or unmanaged. */
  deleteCluster(
    namespace: string,
    name: string,
    options?: CallOptions,
  ): Promise<void>;
  /**
   * Events whose involvedObject is a RayCluster, in one namespace (or all
   * when undefined), optionally narrowed to one cluster name. Callers still
   * match each event to its cluster by namespace, name and uid.
   */
  listClusterEvents(
    namespace?: string,
    name?: string,
    options?: CallOptions,
  ): Promise<KubeEvent[]>;

  /** Creates a compute-template ConfigMap; ALREADY_EXISTS on a name clash. */
  createComputeTemplate(
    configMap: ConfigMap,
    options?: CallOptions,
  ): Promise<ConfigMap>;
  /** The compute-template ConfigMap; NOT_FOUND for any other ConfigMap. */
  getComputeTemplate(
    namespace: string,
    name: string,
    options?: CallOptions,
  ): Promise<ConfigMap>;
  /**
   * Compute-template ConfigMaps of one namespace (or all when undefined),
   * optionally only those with the given template names, in one call.
   */
  listComputeTemplates(
    namespace?: string,
    names?: string[],
    options?: CallOptions,
  ): Promise<ConfigMap[]>;
  /** Deletes a compute-template ConfigMap; NOT_FOUND for any other. */
  deleteComputeTemplate(
    namespace: string,
    name: string,
    options?: CallOptions,
  ): Promise<void>;

  // Jobs (RayJobs), as clusters: only those with the managed-by label.

  /** Creates the RayJob in metadata.namespace; returns it as stored. */
  createJob(
    job: RayJobResource,
    options?: CallOptions,
  ): Promise<RayJobResource>;
  /** The managed RayJob; NOT_FOUND otherwise. */
  getJob(
    namespace: string,
    name: string,
    options?: CallOptions,
  ): Promise<RayJobResource>;
  /** Managed RayJobs of one namespace, or of all when undefined. */
  listJobs(
    namespace?: string,
    options?: CallOptions,
  ): Promise<RayJobResource[]>;
  /**
   * Replaces a RayJob, which carries the resourceVersion it was read at:
   * ABORTED when the stored one has moved on. Never retried.
   */
  updateJob(
    job: RayJobResource,
    options?: CallOptions,
  ): Promise<RayJobResource>;
  /** Deletes a managed RayJob; NOT_FOUND when missing or unmanaged. */
  deleteJob(
    namespace: string,
    name: string,
    options?: CallOptions,
  ): Promise<void>;
  /**
   * Events whose involvedObject is a RayJob, in one namespace (or all when
   * undefined), optionally of one job name; callers match each to its job
   * by namespace, name and uid (eventsOfJob).
   */
  listJobEvents(
    namespace?: string,
    name?: string,
    options?: CallOptions,
  ): Promise<KubeEvent[]>;

  // Services (RayServices), as clusters: only those with the managed-by label.

  /** Creates the RayService in metadata.namespace; returns it as stored. */
  createService(
    service: RayServiceResource,
    options?: CallOptions,
  ): Promise<RayServiceResource>;
  /** The managed RayService; NOT_FOUND otherwise. */
  getService(
    namespace: string,
    name: string,
    options?: CallOptions,
  ): Promise<RayServiceResource>;
  /** Managed RayServices of one namespace, or of all when undefined. */
  listServices(
    namespace?: string,
    options?: CallOptions,
  ): Promise<RayServiceResource[]>;
  /**
   * Replaces a RayService (PUT) carrying the resourceVersion it was read
   * at: ABORTED when it has moved on since; NOT_FOUND when gone.
   */
  updateService(
    service: RayServiceResource,
    options?: CallOptions,
  ): Promise<RayServiceResource>;
  /** Deletes a managed RayService; NOT_FOUND when missing or unmanaged. */
  deleteService(
    namespace: string,
    name: string,
    options?: CallOptions,
  ): Promise<void>;
  /**
   * Events whose involvedObject is a RayService, in one namespace (or all
   * when undefined), optionally of one service name.
   */
  listServiceEvents(
    namespace?: string,
    name?: string,
    options?: CallOptions,
  ): Promise<KubeEvent[]>;

  /**
   * Asks the Kubernetes API for its version: resolves when it answered at
   * all, for readiness.
   */
  ping(options?: CallOptions): Promise<void>;

  /**
   * Tells `listener` of every cluster the cache holds now (as changes from
   * nothing, in namespace then name order), then of every change, synchronously as the cache applies it;
   * answers the function that stops it. Only a cache has it.
   */
  watchClusterChanges?(listener: (change: ClusterChange) => void): () => void;

  /**
   * As watchClusterChanges, of the jobs: every job held now, then every
   * change of a RayJob or of the events about one. Only a cache has it.
   */
  watchJobChanges?(listener: (change: JobChange) => void): () => void;

  /** Resolves once a cache is first in step (every first list is in). */
  readonly synced?: Promise<void>;

  /** Starts what runs in the background (a cache's watches). */
  start?(): void;
  /** The state of the cache reads come from, when there is one. */
  cacheState?(): CacheState;
  /** Stops what runs in the background (watches). */
  close?(): Promise<void>;
}
