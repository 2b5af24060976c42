/**
 * When the simulated operator reconciles: it keeps each cluster it has
 * seen, by uid, and `delayMs` after first seeing one without a state makes
 * it ready; `delayMs` after seeing a ready one whose worker groups ask for
 * another number of pods, scales it, once at a time (a change seen
 * meanwhile is taken up when the running step ends). A cluster seen with a
 * state is adopted as it is. A suspended cluster (spec.suspend, as Kueue
 * creates a queued one) is marked `suspended` and waits; once spec.suspend
 * is cleared it is made ready as a new one. The timers and the reconciles
 * in flight are owned here: stop() clears the one and waits for the other.
 */

import type { Logger } from "../../domain/log.ts";
import type { ObservedCluster } from "./api_client.ts";
import type { DashboardPool } from "../dashboard/pool.ts";
import type { NodePortPool } from "./endpoints.ts";
import type { Outcome, RayClusterReconciler } from "./reconciler.ts";
import { adoptedPods, needsScale, type WorkerPods } from "./workers.ts";

/** A step of the simulated operator, about one cluster. */
export interface OperatorActivity {
  /**
   * observed: first seen, in a list or a watch event (and its delay
   * started, unless it already has a state); reconciling: its delay ran
   * out; reconciled: the reconcile ended, `outcome` telling how.
   */
  type: "observed" | "reconciling" | "reconciled" | "scaled";
  namespace: string;
  name: string;
  uid: string;
  /**
   * For reconciled: ready (status written), skipped (gone, replaced by a
   * namesake, or given a state meanwhile) or failed (status write refused).
   * For scaled: ready (pods and status follow the spec), skipped or failed.
   */
  outcome?: Outcome;
}

/** What the operator keeps of a cluster it has seen. */
interface Entry {
  timer?: ReturnType<typeof setTimeout>;
  nodePorts: number[];
  /** Worker pod names by group, once the cluster is ready. */
  pods?: WorkerPods;
  /** The cluster as last seen, to scale to once a scale in progress ends. */
  latest?: ObservedCluster;
  /** Seen suspended and not made ready: waits for spec.suspend to clear. */
  suspended?: boolean;
}

export interface SchedulerOptions {
  reconciler: RayClusterReconciler;
  nodePorts: NodePortPool;
  /** The simulated dashboards, one closed with its cluster. */
  dashboards: DashboardPool;
  delayMs: number;
  /** Aborted when the operator stops: no reconcile starts after that. */
  signal: AbortSignal;
  onActivity?: (activity: OperatorActivity) => void;
  log?: Logger;
}

export class Scheduler {
  #options: SchedulerOptions;
  /**
   * Clusters seen, by uid: their pending timer, allocated NodePorts and,
   * once ready, their simulated worker pods' names by group.
   */
  #seen = new Map<string, Entry>();
  #inFlight = new Set<Promise<unknown>>();

  constructor(options: SchedulerOptions) {
    this.#options = options;
  }

  /** A list's items, every cluster there is: forgets those gone. */
  listed(clusters: ObservedCluster[]): void {
    const present = new Set(clusters.map((c) => c.metadata.uid));
    for (const uid of [...this.#seen.keys()]) {
      if (!present.has(uid)) this.release(uid);
    }
    for (const cluster of clusters) this.observe(cluster);
  }

  /** A cluster seen in a list or a watch event. */
  observe(cluster: ObservedCluster): void {
    const entry = this.#seen.get(cluster.metadata.uid);
    if (entry) {
      entry.latest = cluster;
      if (entry.suspended) {
        this.#resumeIfAdmitted(entry, cluster);
        return;
      }
      // A ready cluster whose worker groups changed: scale, once.
      if (
        entry.pods && entry.timer === undefined &&
        needsScale(entry.pods, cluster)
      ) {
        entry.timer = this.#later(
          () => this.#scale(cluster),
          "Failed to scale cluster",
          cluster,
        );
      }
      return;
    }
    const state = cluster.status?.state;
    if (cluster.spec?.suspend) this.#suspend(cluster);
    else if (state && state !== "suspended") this.#adopt(cluster);
    else this.#schedule(cluster);
    this.#report("observed", cluster);
  }

  /** Forgets a cluster gone: its timer, NodePorts and dashboard. */
  release(uid: string): void {
    const entry = this.#seen.get(uid);
    if (!entry) return;
    if (entry.timer !== undefined) clearTimeout(entry.timer);
    this.#options.nodePorts.release(entry.nodePorts);
    this.#track(this.#options.dashboards.release(uid)).catch(() => {});
    this.#seen.delete(uid);
  }

  /** Clears every timer and waits for the reconciles in flight. */
  async stop(): Promise<void> {
    for (const entry of this.#seen.values()) {
      if (entry.timer !== undefined) clearTimeout(entry.timer);
    }
    while (this.#inFlight.size > 0) {
      await Promise.allSettled([...this.#inFlight]);
    }
  }

  #schedule(cluster: ObservedCluster): void {
    const entry: Entry = { nodePorts: [] };
    this.#seen.set(cluster.metadata.uid, entry);
    entry.timer = this.#later(
      () => this.#makeReady(cluster),
      "Failed to reconcile cluster",
      cluster,
    );
  }

  /**
   * A suspended cluster: marked `suspended` (unless it says so already),
   * then left until spec.suspend is cleared (#resumeIfAdmitted).
   */
  #suspend(cluster: ObservedCluster): void {
    const entry: Entry = { nodePorts: [], suspended: true };
    this.#seen.set(cluster.metadata.uid, entry);
    if (cluster.status?.state === "suspended") return;
    this.#track(this.#options.reconciler.markSuspended(cluster)).catch(
      (error) =>
        this.#options.log?.error("Failed to suspend cluster", {
          namespace: cluster.metadata.namespace,
          name: cluster.metadata.name,
          error: error instanceof Error ? error.message : String(error),
        }),
    );
  }

  /** A suspended cluster whose spec.suspend was cleared: made ready. */
  #resumeIfAdmitted(entry: Entry, cluster: ObservedCluster): void {
    if (cluster.spec?.suspend || entry.timer !== undefined) return;
    entry.suspended = false;
    entry.timer = this.#later(
      () => this.#makeReady(cluster),
      "Failed to reconcile cluster",
      cluster,
    );
  }

  /**
   * Keeps the NodePorts and pods of a cluster made ready earlier (e.g.
   * before a restart).
   */
  #adopt(cluster: ObservedCluster): void {
    this.#seen.set(cluster.metadata.uid, {
      nodePorts: this.#options.nodePorts.adopt(cluster),
      pods: adoptedPods(cluster),
    });
  }

  /** Runs `step` after the delay, tracked; logs `failure` if it throws. */
  #later(
    step: () => Promise<void>,
    failure: string,
    cluster: ObservedCluster,
  ): ReturnType<typeof setTimeout> {
    const { log, delayMs } = this.#options;
    return setTimeout(() => {
      this.#track(step()).catch((error) =>
        log?.error(failure, {
          namespace: cluster.metadata.namespace,
          name: cluster.metadata.name,
          error: error instanceof Error ? error.message : String(error),
        })
      );
    }, delayMs);
  }

  async #makeReady(cluster: ObservedCluster): Promise<void> {
    const entry = this.#seen.get(cluster.metadata.uid);
    if (!entry || this.#options.signal.aborted) return;
    entry.timer = undefined;
    this.#report("reconciling", cluster);
    const { outcome, pods } = await this.#options.reconciler.makeReady(
      cluster,
      entry.nodePorts,
    );
    if (pods) {
      entry.pods = pods;
      this.#followUp(entry);
    }
    this.#report("reconciled", cluster, outcome);
  }

  async #scale(cluster: ObservedCluster): Promise<void> {
    const entry = this.#seen.get(cluster.metadata.uid);
    if (!entry?.pods || this.#options.signal.aborted) return;
    let outcome;
    try {
      ({ outcome } = await this.#options.reconciler.scale(
        cluster,
        entry.pods,
      ));
    } finally {
      entry.timer = undefined;
    }
    this.#report("scaled", cluster, outcome);
    this.#followUp(entry);
  }

  /**
   * Takes up a change seen while a step ran, unless the cluster was deleted
   * meanwhile (released: taking it up would adopt it again).
   */
  #followUp(entry: Entry): void {
    const { latest } = entry;
    if (
      latest && this.#seen.get(latest.metadata.uid) === entry &&
      !this.#options.signal.aborted
    ) {
      this.observe(latest);
    }
  }

  #track<T>(promise: Promise<T>): Promise<T> {
    this.#inFlight.add(promise);
    promise.finally(() => this.#inFlight.delete(promise)).catch(() => {});
    return promise;
  }

  #report(
    type: OperatorActivity["type"],
    cluster: ObservedCluster,
    outcome?: OperatorActivity["outcome"],
  ): void {
    const { namespace, name, uid } = cluster.metadata;
    this.#options.onActivity?.({
      type,
      namespace,
      name,
      uid,
      ...(outcome ? { outcome } : {}),
    });
  }
}
