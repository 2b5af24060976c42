/**
 * The Orchestrator with reads from memory: reflectors (cache_reflectors.ts,
 * reflector.ts) list and watch every kind of domain/kinds.ts and the Events
 * about it (per served namespace, or cluster-wide), and reads are answered
 * from their stores (cache_stores.ts) with no Kubernetes call, by one port
 * per kind written once (cache_objects.ts).
 *
 * - Get that misses asks Kubernetes before answering NOT_FOUND, so an
 *   object another replica created a moment ago is found (and kept); one
 *   lookup per name at a time, 404s remembered for a second, and at most
 *   `misses.qps` lookups a second in all (cache_misses.ts). What a lookup finds
 *   is answered as the store then holds it: an object the watch deleted
 *   meanwhile is NOT_FOUND, not brought back (store.ts).
 * - A read with `fresh: true` asks Kubernetes, for every read of every kind.
 * - Writes go to Kubernetes; what it answers goes into the store at once,
 *   so a replica reads its own writes before the watch brings them.
 * - Until the first lists are in, and while a watch has been down longer
 *   than `staleAfterMs`, reads go to Kubernetes directly (and readiness says
 *   why not ready); but while the API server does not answer at all (a
 *   hung one: its watches quiet, its probes unanswered) they are UNAVAILABLE
 *   at once rather than each waiting out --kube-timeout.
 */
import type { KubeConfig } from "@kubernetes/client-node";
import { type KindName, type KindObjects, KINDS } from "../domain/kinds.ts";
import type { Logger } from "../domain/log.ts";
import type {
  CacheState,
  CallOptions,
  JobLogPort,
  KindPorts,
  ManagedObjects,
  Orchestrator,
  QuotaRecordPort,
} from "../domain/ports.ts";
import { CachedObjects } from "./cache_objects.ts";
import { CacheReflectors } from "./cache_reflectors.ts";
import {
  LookupAllowance,
  MissLookups,
  type MissOptions,
} from "./cache_misses.ts";
import { CacheStores } from "./cache_stores.ts";
import type { RayClusterCoordinates } from "./client_ports.ts";
import { fetchWatch, type WatchTransport } from "./watch_stream.ts";

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
  /** The limits of a get's lookups when the cache misses. */
  misses?: MissOptions;
  /** The API server's BOOKMARK interval: a watch silent twice this is restarted. */
  bookmarkIntervalMs?: number;
}

export interface CachedOrchestrator extends Orchestrator {
  /** Resolves once every first list is in. */
  readonly synced: Promise<void>;
  cacheState(): CacheState;
  managedObjects(): ManagedObjects;
  close(): Promise<void>;
}

export function createCachedOrchestrator(
  options: CacheOptions,
): CachedOrchestrator {
  return new CachedKubernetesOrchestrator(options);
}

/**
 * Reads from the stores while the reflectors keep them in step, from
 * `direct` otherwise; writes through `direct`, their answers kept.
 */
export class CachedKubernetesOrchestrator implements CachedOrchestrator {
  /** An own field, not a getter: callers may reach it through a Proxy. */
  readonly synced: Promise<void>;
  readonly clusters: CachedObjects<KindObjects["clusters"]>;
  readonly templates: CachedObjects<KindObjects["templates"]>;
  readonly jobs: CachedObjects<KindObjects["jobs"]>;
  readonly services: CachedObjects<KindObjects["services"]>;
  /** Never cached: replicas take turns on the records' resourceVersions. */
  readonly quotaRecords: QuotaRecordPort;
  /** The jobs' logs: always read from Kubernetes, as the direct one does. */
  readonly jobLogs?: JobLogPort;
  readonly #direct: Orchestrator;
  readonly #stores = new CacheStores();
  readonly #reflectors: CacheReflectors;

  constructor(options: CacheOptions) {
    this.#direct = options.direct;
    this.quotaRecords = options.direct.quotaRecords;
    this.jobLogs = options.direct.jobLogs;
    this.#reflectors = new CacheReflectors({
      watch: options.watch ?? fetchWatch(options.kubeConfig),
      rayCluster: options.rayCluster,
      namespaces: options.namespaces,
      staleAfterMs: options.staleAfterMs ?? 30_000,
      log: options.log,
      backoffMs: options.backoffMs,
      bookmarkIntervalMs: options.bookmarkIntervalMs,
    }, this.#stores);
    this.synced = this.#reflectors.synced;
    // One allowance: --cache-miss-qps is the rate of every lookup.
    const allowance = new LookupAllowance(options.misses);
    const direct: KindPorts = options.direct;
    const port = <K extends KindName>(name: K) =>
      new CachedObjects<KindObjects[K]>(
        KINDS[name],
        direct[name],
        this.#stores.kinds[name],
        new MissLookups(options.misses, allowance),
        this.#reflectors,
      );
    this.clusters = port("clusters");
    this.templates = port("templates");
    this.jobs = port("jobs");
    this.services = port("services");
  }

  start(): void {
    this.#reflectors.start();
  }

  cacheState(): CacheState {
    const reason = this.#reflectors.notInStep();
    return {
      inStep: reason === undefined,
      ...(reason === undefined ? {} : { reason }),
      objects: this.#objects(),
      lastInStep: this.#reflectors.lastInStep(),
      relists: this.#reflectors.relists(),
      restarts: this.#reflectors.restarts(),
      syncAges: this.#reflectors.syncAges(),
    };
  }

  managedObjects(): ManagedObjects {
    const { clusters, jobs, services } = this.#stores.kinds;
    return {
      clusters: clusters.objects.list(),
      jobs: jobs.objects.list(),
      services: services.objects.list(),
    };
  }

  async close(): Promise<void> {
    await this.#reflectors.stop();
  }

  ping(call?: CallOptions): Promise<void> {
    return this.#direct.ping(call);
  }

  /** Objects held, by store (domain/kinds.ts: store). */
  #objects(): Record<string, number> {
    const objects: Record<string, number> = {};
    for (const [name, held] of Object.entries(this.#stores.kinds)) {
      const { store } = KINDS[name as KindName];
      objects[store.objects] = held.objects.size;
      if (store.events !== undefined) {
        objects[store.events] = held.events?.size ?? 0;
      }
    }
    return objects;
  }
}
