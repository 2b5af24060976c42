/**
 * The port through which the service reaches Kubernetes. Implementations
 * translate every Kubernetes failure into a ServiceError (domain/errors.ts):
 * NotFound -> NOT_FOUND, AlreadyExists -> ALREADY_EXISTS, Conflict on
 * update/delete -> ABORTED, Invalid -> INVALID_ARGUMENT with the causes'
 * fields, 401 -> UNAUTHENTICATED, 403 -> PERMISSION_DENIED, 429/5xx/network ->
 * UNAVAILABLE, time-out -> DEADLINE_EXCEEDED. Each method makes O(1)
 * Kubernetes calls.
 */
import type { KindName, KindObjects } from "./kinds.ts";
import type { KubeEvent } from "./resources.ts";

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
   * Read from Kubernetes even where a cache holds the objects: the read an
   * update builds on (its resourceVersion is the write's precondition), a
   * quota's count of what a namespace holds (another replica's writes
   * included). Gets, lists and events lists alike, of every kind.
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

/**
 * The workloads a cache holds, as it holds them (orchestrator/trim.ts),
 * every namespace's: read in memory, with no Kubernetes call, for the
 * gauges of what Corral manages (api/managed_metrics.ts).
 */
export interface ManagedObjects {
  clusters: readonly KindObjects["clusters"][];
  jobs: readonly KindObjects["jobs"][];
  services: readonly KindObjects["services"][];
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
 * A namespace's quota record as Kubernetes stores it: the charges of the
 * writes in flight there (api/service/quota_ledger.ts reads and writes
 * them), and the resourceVersion that makes the next write conditional.
 */
export interface QuotaRecord {
  /** The charges, as the ledger encoded them. */
  charges: string;
  resourceVersion: string;
}

/**
 * Where each namespace's quota record lives (a ConfigMap of Corral's own).
 * Always read from Kubernetes, never a cache: the record is what replicas
 * take turns on.
 */
export interface QuotaRecordPort {
  /** The namespace's record; undefined when it has none. */
  read(
    namespace: string,
    options?: CallOptions,
  ): Promise<QuotaRecord | undefined>;
  /**
   * Writes the namespace's record: a create when `resourceVersion` is
   * undefined (ALREADY_EXISTS when another writer created it meanwhile),
   * else a replace with that resourceVersion as its precondition (ABORTED
   * when the record has moved on, NOT_FOUND when it is gone). Returns the
   * record as stored. Never retried.
   */
  write(
    namespace: string,
    charges: string,
    resourceVersion: string | undefined,
    options?: CallOptions,
  ): Promise<QuotaRecord>;
  /** The namespaces that hold a record, among `namespaces` (all when empty). */
  namespaces(
    namespaces: readonly string[],
    options?: CallOptions,
  ): Promise<string[]>;
}

/** What a read of a job's log takes besides CallOptions. */
export interface JobLogOptions extends CallOptions {
  /** Only the last lines, this many; the whole log when undefined. */
  tailLines?: number;
}

/**
 * A RayJob's log where KubeRay keeps it: the log of its submitter pod (in
 * K8sJobMode the operator's batch/v1 Job named after the RayJob, whose
 * pod runs `ray job submit`, which tails the job's output to its stdout).
 * The pod is the RayJob's (through its Job), so the log is there for as
 * long as the RayJob, its cluster deleted or not. FAILED_PRECONDITION
 * while no submitter has started (none yet, or its container waiting).
 */
export interface JobLogPort {
  /** The log so far. */
  read(
    namespace: string,
    name: string,
    options?: JobLogOptions,
  ): Promise<string>;
  /**
   * The log so far, then each part as it is printed, ending when the
   * submitter's container ends; `options.signal` aborting ends it too.
   */
  follow(
    namespace: string,
    name: string,
    options?: JobLogOptions,
  ): Promise<AsyncIterable<string>>;
}

/** One object port per kind, by the kind's name (domain/kinds.ts). */
export type KindPorts = {
  readonly [K in KindName]: ObjectPort<KindObjects[K]>;
};

/**
 * Every kind's port (KindPorts: `clusters`, `templates`, `jobs`,
 * `services`), and what concerns them all. Every method takes CallOptions
 * last. Reads are retried with a bounded backoff when the Kubernetes API is
 * unavailable; writes never are. `fresh: true` makes every read (get, list,
 * events) of every kind ask Kubernetes, whatever a cache holds.
 */
export interface Orchestrator extends KindPorts {
  /** The quota records: Kubernetes' own, whatever reads a cache answers. */
  readonly quotaRecords: QuotaRecordPort;

  /** The jobs' logs, always from Kubernetes; absent where none are read. */
  readonly jobLogs?: JobLogPort;

  /**
   * Asks the Kubernetes API for its version: resolves when it answered at
   * all, for readiness.
   */
  ping(options?: CallOptions): Promise<void>;

  /** Resolves once a cache is first in step (every first list is in). */
  readonly synced?: Promise<void>;

  /** Starts what runs in the background (a cache's watches). */
  start?(): void;
  /** The state of the cache reads come from, when there is one. */
  cacheState?(): CacheState;
  /**
   * The workloads the cache holds now, when there is a cache; what it held
   * last while it is out of step (CacheState says since when).
   */
  managedObjects?(): ManagedObjects;
  /** Stops what runs in the background (watches). */
  close?(): Promise<void>;
}
