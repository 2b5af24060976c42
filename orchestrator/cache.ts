/**
 * The Orchestrator with reads from memory: reflectors (cache_reflectors.ts,
 * reflector.ts) list and watch the managed RayClusters, the
 * compute-template ConfigMaps and the Events about RayClusters (per served
 * namespace, or cluster-wide), and reads are answered from their stores
 * (cache_stores.ts) with no Kubernetes call.
 *
 * - Get that misses asks Kubernetes before answering NOT_FOUND, so an
 *   object another replica created a moment ago is found (and kept); one
 *   lookup per name at a time, 404s remembered for a second, and at most
 *   `misses.qps` lookups a second in all (cache_misses.ts). What a lookup finds
 *   is answered as the store then holds it: an object the watch deleted
 *   meanwhile is NOT_FOUND, not brought back (store.ts).
 * - Writes go to Kubernetes; what it answers goes into the store at once,
 *   so a replica reads its own writes before the watch brings them.
 * - Until the first lists are in, and while a watch has been down longer
 *   than `staleAfterMs`, reads go to Kubernetes directly (and readiness says
 *   why not ready); but while the API server does not answer at all (a
 *   hung one: its watches quiet, its probes unanswered) they are UNAVAILABLE
 *   at once rather than each waiting out --kube-timeout.
 */
import type { KubeConfig } from "@kubernetes/client-node";
import { Code, ServiceError } from "../domain/errors.ts";
import type { Logger } from "../domain/log.ts";
import type {
  CacheState,
  CallOptions,
  ClusterChange,
  JobChange,
  Orchestrator,
} from "../domain/ports.ts";
import {
  type ConfigMap,
  isComputeTemplate,
  type KubeEvent,
  LABEL,
  type RayCluster,
} from "../domain/resources.ts";
import type { RayJobResource } from "../domain/job_conversions.ts";
import type { RayServiceResource } from "../domain/service_resources.ts";
import { CacheReflectors } from "./cache_reflectors.ts";
import {
  LookupAllowance,
  MissLookups,
  type MissOptions,
} from "./cache_misses.ts";
import { CacheStores } from "./cache_stores.ts";
import type { RayClusterCoordinates } from "./client_ports.ts";
import type { Reflected } from "./reflector.ts";
import type { Store } from "./store.ts";
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
  readonly #direct: Orchestrator;
  readonly #stores = new CacheStores();
  readonly #reflectors: CacheReflectors;
  readonly #clusterMisses: MissLookups<RayCluster>;
  readonly #templateMisses: MissLookups<ConfigMap>;
  readonly #jobMisses: MissLookups<RayJobResource>;
  readonly #serviceMisses: MissLookups<RayServiceResource>;

  constructor(options: CacheOptions) {
    this.#direct = options.direct;
    // One allowance: --cache-miss-qps is the rate of every lookup.
    const allowance = new LookupAllowance(options.misses);
    this.#clusterMisses = new MissLookups(options.misses, allowance);
    this.#templateMisses = new MissLookups(options.misses, allowance);
    this.#jobMisses = new MissLookups(options.misses, allowance);
    this.#serviceMisses = new MissLookups(options.misses, allowance);
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
  }

  start(): void {
    this.#reflectors.start();
  }

  cacheState(): CacheState {
    const reason = this.#reflectors.notInStep();
    const { clusters, templates, events, jobs, jobEvents } = this.#stores;
    return {
      inStep: reason === undefined,
      ...(reason === undefined ? {} : { reason }),
      objects: {
        rayclusters: clusters.size,
        configmaps: templates.size,
        events: events.size,
        rayjobs: jobs.size,
        rayservices: this.#stores.services.size,
        serviceevents: this.#stores.serviceEvents.size,
        jobevents: jobEvents.size,
      },
      lastInStep: this.#reflectors.lastInStep(),
      relists: this.#reflectors.relists(),
      restarts: this.#reflectors.restarts(),
      syncAges: this.#reflectors.syncAges(),
    };
  }

  async close(): Promise<void> {
    await this.#reflectors.stop();
  }

  watchClusterChanges(listener: (change: ClusterChange) => void): () => void {
    return this.#stores.watchClusterChanges(listener);
  }

  watchJobChanges(listener: (change: JobChange) => void): () => void {
    return this.#stores.watchJobChanges(listener);
  }

  async createCluster(
    cluster: RayCluster,
    call?: CallOptions,
  ): Promise<RayCluster> {
    const created = await this.#direct.createCluster(cluster, call);
    this.#stores.applyClusters({ type: "upsert", item: created });
    return created;
  }

  async getCluster(
    namespace: string,
    name: string,
    call?: CallOptions,
  ): Promise<RayCluster> {
    const stores = this.#stores;
    const action = `Cannot get cluster "${namespace}/${name}"`;
    if (call?.fresh || this.#readDirectly(action)) {
      // The read an update builds on answers what Kubernetes holds.
      const found = await this.#direct.getCluster(namespace, name, call);
      if (this.#inStep()) stores.applyClusters({ type: "upsert", item: found });
      return found;
    }
    const held = stores.clusters.get(namespace, name);
    if (held !== undefined) return held;
    const found = await this.#clusterMisses.find(
      `${namespace}/${name}`,
      action,
      (lookup) => this.#direct.getCluster(namespace, name, lookup),
      call,
    );
    return this.#asHeld(
      stores.clusters,
      found,
      (item) => stores.applyClusters({ type: "upsert", item }),
      action,
    );
  }

  async listClusters(
    namespace?: string,
    call?: CallOptions,
  ): Promise<RayCluster[]> {
    if (this.#readDirectly("Cannot list clusters")) {
      return await this.#direct.listClusters(namespace, call);
    }
    // The store's own array, the same object until something changes (the
    // handlers keep what they made of it while it stays the same).
    return this.#stores.clusters.list(namespace) as RayCluster[];
  }

  async updateCluster(
    cluster: RayCluster,
    call?: CallOptions,
  ): Promise<RayCluster> {
    const updated = await this.#direct.updateCluster(cluster, call);
    this.#stores.applyClusters({ type: "upsert", item: updated });
    return updated;
  }

  async deleteCluster(
    namespace: string,
    name: string,
    call?: CallOptions,
  ): Promise<void> {
    await this.#direct.deleteCluster(namespace, name, call);
    // Gone from this replica's reads at once; a RayCluster that finalizers
    // keep comes back (with its deletion time) from the watch or a get.
    const held = this.#stores.clusters.get(namespace, name);
    if (held) this.#stores.applyClusters({ type: "delete", item: held });
  }

  async listClusterEvents(
    namespace?: string,
    name?: string,
    call?: CallOptions,
  ): Promise<KubeEvent[]> {
    if (this.#readDirectly("Cannot list cluster events")) {
      return await this.#direct.listClusterEvents(namespace, name, call);
    }
    if (name !== undefined) {
      return this.#stores.eventsOf(`${namespace ?? ""}/${name}`);
    }
    // Only events about RayClusters are listed into the store.
    return this.#stores.events.list(namespace) as KubeEvent[];
  }

  async createComputeTemplate(
    configMap: ConfigMap,
    call?: CallOptions,
  ): Promise<ConfigMap> {
    const created = await this.#direct.createComputeTemplate(configMap, call);
    this.#stores.templates.apply({ type: "upsert", item: created });
    return created;
  }

  async getComputeTemplate(
    namespace: string,
    name: string,
    call?: CallOptions,
  ): Promise<ConfigMap> {
    const action = `Cannot get compute template "${namespace}/${name}"`;
    if (this.#readDirectly(action)) {
      return await this.#direct.getComputeTemplate(namespace, name, call);
    }
    const templates = this.#stores.templates;
    const held = templates.get(namespace, name);
    if (held !== undefined) return held;
    const found = await this.#templateMisses.find(
      `${namespace}/${name}`,
      action,
      (lookup) => this.#direct.getComputeTemplate(namespace, name, lookup),
      call,
    );
    return this.#asHeld(
      templates,
      found,
      (item) => templates.apply({ type: "upsert", item }),
      action,
    );
  }

  async listComputeTemplates(
    namespace?: string,
    names?: string[],
    call?: CallOptions,
  ): Promise<ConfigMap[]> {
    if (this.#readDirectly("Cannot list compute templates")) {
      return await this.#direct.listComputeTemplates(namespace, names, call);
    }
    const all = this.#stores.templates.list(namespace).filter(
      isComputeTemplate,
    );
    if (names === undefined) return all;
    const wanted = new Set(names);
    return all.filter((configMap) =>
      wanted.has(configMap.metadata.labels?.[LABEL.computeTemplate] ?? "")
    );
  }

  async deleteComputeTemplate(
    namespace: string,
    name: string,
    call?: CallOptions,
  ): Promise<void> {
    await this.#direct.deleteComputeTemplate(namespace, name, call);
    const templates = this.#stores.templates;
    const held = templates.get(namespace, name);
    if (held) templates.apply({ type: "delete", item: held });
  }

  // Jobs: as clusters, reads from the jobs' store while in step.

  async createJob(
    job: RayJobResource,
    call?: CallOptions,
  ): Promise<RayJobResource> {
    const created = await this.#direct.createJob(job, call);
    this.#stores.applyJobs({ type: "upsert", item: created });
    return created;
  }

  async getJob(
    namespace: string,
    name: string,
    call?: CallOptions,
  ): Promise<RayJobResource> {
    const jobs = this.#stores.jobs;
    const action = `Cannot get job "${namespace}/${name}"`;
    if (call?.fresh || this.#readDirectly(action)) {
      const found = await this.#direct.getJob(namespace, name, call);
      if (this.#inStep()) {
        this.#stores.applyJobs({ type: "upsert", item: found });
      }
      return found;
    }
    const held = jobs.get(namespace, name);
    if (held !== undefined) return held;
    const found = await this.#jobMisses.find(
      `${namespace}/${name}`,
      action,
      (lookup) => this.#direct.getJob(namespace, name, lookup),
      call,
    );
    return this.#asHeld(
      jobs,
      found,
      (item) => this.#stores.applyJobs({ type: "upsert", item }),
      action,
    );
  }

  async listJobs(
    namespace?: string,
    call?: CallOptions,
  ): Promise<RayJobResource[]> {
    if (this.#readDirectly("Cannot list jobs")) {
      return await this.#direct.listJobs(namespace, call);
    }
    return this.#stores.jobs.list(namespace) as RayJobResource[];
  }

  async updateJob(
    job: RayJobResource,
    call?: CallOptions,
  ): Promise<RayJobResource> {
    const updated = await this.#direct.updateJob(job, call);
    this.#stores.applyJobs({ type: "upsert", item: updated });
    return updated;
  }

  async deleteJob(
    namespace: string,
    name: string,
    call?: CallOptions,
  ): Promise<void> {
    await this.#direct.deleteJob(namespace, name, call);
    const held = this.#stores.jobs.get(namespace, name);
    if (held) this.#stores.applyJobs({ type: "delete", item: held });
  }

  // Services: as clusters, reads from the services' store while in step.

  async createService(
    service: RayServiceResource,
    call?: CallOptions,
  ): Promise<RayServiceResource> {
    const created = await this.#direct.createService(service, call);
    this.#stores.applyServices({ type: "upsert", item: created });
    return created;
  }

  /** As getCluster: from the store, a miss asking Kubernetes once. */
  async getService(
    namespace: string,
    name: string,
    call?: CallOptions,
  ): Promise<RayServiceResource> {
    const services = this.#stores.services;
    const put = (item: RayServiceResource) =>
      this.#stores.applyServices({ type: "upsert", item });
    const action = `Cannot get service "${namespace}/${name}"`;
    if (call?.fresh || this.#readDirectly(action)) {
      const found = await this.#direct.getService(namespace, name, call);
      if (this.#inStep()) put(found);
      return found;
    }
    const held = services.get(namespace, name);
    if (held !== undefined) return held;
    const found = await this.#serviceMisses.find(
      `${namespace}/${name}`,
      action,
      (lookup) => this.#direct.getService(namespace, name, lookup),
      call,
    );
    return this.#asHeld(services, found, put, action);
  }

  async listServices(
    namespace?: string,
    call?: CallOptions,
  ): Promise<RayServiceResource[]> {
    if (this.#readDirectly("Cannot list services")) {
      return await this.#direct.listServices(namespace, call);
    }
    return this.#stores.services.list(namespace) as RayServiceResource[];
  }

  async updateService(
    service: RayServiceResource,
    call?: CallOptions,
  ): Promise<RayServiceResource> {
    const updated = await this.#direct.updateService(service, call);
    this.#stores.applyServices({ type: "upsert", item: updated });
    return updated;
  }

  async deleteService(
    namespace: string,
    name: string,
    call?: CallOptions,
  ): Promise<void> {
    await this.#direct.deleteService(namespace, name, call);
    const held = this.#stores.services.get(namespace, name);
    if (held) this.#stores.applyServices({ type: "delete", item: held });
  }

  async listServiceEvents(
    namespace?: string,
    name?: string,
    call?: CallOptions,
  ): Promise<KubeEvent[]> {
    if (this.#readDirectly("Cannot list service events")) {
      return await this.#direct.listServiceEvents(namespace, name, call);
    }
    if (name !== undefined) {
      return this.#stores.serviceEventsOf(`${namespace ?? ""}/${name}`);
    }
    return this.#stores.serviceEvents.list(namespace) as KubeEvent[];
  }

  async listJobEvents(
    namespace?: string,
    name?: string,
    call?: CallOptions,
  ): Promise<KubeEvent[]> {
    if (this.#readDirectly("Cannot list job events")) {
      return await this.#direct.listJobEvents(namespace, name, call);
    }
    if (name !== undefined) {
      return this.#stores.jobEventsOf(`${namespace ?? ""}/${name}`);
    }
    // Only events about RayJobs are listed into this store.
    return this.#stores.jobEvents.list(namespace) as KubeEvent[];
  }

  ping(call?: CallOptions): Promise<void> {
    return this.#direct.ping(call);
  }

  /**
   * What a miss's lookup found, as the store holds it once put there: the
   * newer version when the watch brought one meanwhile, NOT_FOUND when the
   * watch saw it deleted meanwhile (a late answer brings nothing back).
   */
  #asHeld<T extends Reflected>(
    store: Store<T>,
    found: T,
    put: (item: T) => void,
    action: string,
  ): T {
    if (!this.#inStep()) return found;
    put(found);
    const { namespace = "", name = "" } = found.metadata ?? {};
    const held = store.get(namespace, name);
    if (held === undefined) {
      throw new ServiceError(Code.NOT_FOUND, `${action}: not found`);
    }
    return held;
  }

  #inStep(): boolean {
    return this.#reflectors.notInStep() === undefined;
  }

  /**
   * Whether a read goes to Kubernetes (the cache is not in step); throws
   * UNAVAILABLE, `action` first, when the API server does not answer.
   */
  #readDirectly(action: string): boolean {
    const staleness = this.#reflectors.staleness();
    if (staleness === undefined) return false;
    if (staleness.unanswered) {
      throw new ServiceError(
        Code.UNAVAILABLE,
        `${action}: Kubernetes API unavailable: it does not answer (${staleness.reason})`,
      );
    }
    return true;
  }
}
