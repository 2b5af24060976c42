/**
 * Deletes clusters whose expiry (annotation corral.dev/expires-at) has
 * come, and warns in their events before: a Warning `ExpiringSoon` once
 * the expiry is within the warning time (--expiry-warning, 1 h), a Normal
 * `Expired` once Corral has deleted the cluster.
 *
 * Only the leader acts (orchestrator/leader_election.ts): every pass, and
 * again right before each delete, asks `leader.isLeader()`, which holds
 * only while the Lease was renewed within the renew deadline, so a replica
 * that lost the Lease stops before another may take it. The listing comes
 * from the orchestrator (the cache: no Kubernetes call), and waits while
 * a cache is not in step; a cluster found due is read fresh before it is
 * deleted, so an extend that just happened is seen. A delete answered NOT_FOUND (someone else deleted it) records
 * nothing: exactly one Expired event per deleted cluster.
 *
 * The warning is recorded once per expiry time: remembered here, and on a
 * new leader looked up among the cluster's events (the message names the
 * expiry time), so a takeover does not warn twice.
 */
import { Code, ServiceError } from "../../domain/errors.ts";
import {
  expiryAnnotation,
  expiryOf,
  formatDuration,
} from "../../domain/expiry.ts";
import type { Logger } from "../../domain/log.ts";
import type { Orchestrator } from "../../domain/ports.ts";
import type { RayCluster } from "../../domain/resources.ts";

/** Who may act: the leader election's answer, asked before every write. */
export interface Leadership {
  isLeader(): boolean;
}

/** Where the worker records its events (orchestrator/expiry_events.ts). */
export interface ExpiryEvents {
  record(
    cluster: RayCluster,
    type: "Normal" | "Warning",
    reason: string,
    message: string,
  ): Promise<void>;
}

export interface ExpiryWorkerOptions {
  orchestrator: Pick<Orchestrator, "cacheState"> & {
    clusters: Pick<
      Orchestrator["clusters"],
      "list" | "get" | "delete" | "events"
    >;
  };
  events: ExpiryEvents;
  leader: Leadership;
  log: Logger;
  /** How long before the expiry the warning is recorded; 1 h. */
  warningMs?: number;
  /** Time between passes; 5 s. */
  intervalMs?: number;
  /**
   * The served namespaces (--namespaces), each listed on its own (a
   * namespaced Role cannot list across namespaces); empty: all at once.
   */
  namespaces?: readonly string[];
  now?: () => Date;
}

export const EXPIRING_SOON = "ExpiringSoon";
export const EXPIRED = "Expired";

/** One pass at a time, every intervalMs, until stop(). */
export class ExpiryWorker {
  readonly #options: ExpiryWorkerOptions;
  readonly #warningMs: number;
  readonly #now: () => Date;
  /** "<uid>/<expiry>" of the warnings recorded or found recorded. */
  readonly #warned = new Set<string>();
  #timer: ReturnType<typeof setInterval> | undefined;
  #pass: Promise<void> | undefined;
  #stopped = false;

  constructor(options: ExpiryWorkerOptions) {
    this.#options = options;
    this.#warningMs = options.warningMs ?? 3_600_000;
    this.#now = options.now ?? (() => new Date());
  }

  start(): void {
    if (this.#timer !== undefined || this.#stopped) return;
    this.#timer = setInterval(() => {
      // A pass still running (a slow API) is not overlapped.
      this.#pass ??= this.runOnce().finally(() => this.#pass = undefined);
    }, this.#options.intervalMs ?? 5_000);
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    clearInterval(this.#timer);
    this.#timer = undefined;
    await this.#pass;
  }

  /**
   * One pass over every cluster: warn those within the warning time,
   * delete those due. Does nothing unless leading; never throws (each
   * cluster's failure is logged and tried again next pass).
   */
  async runOnce(): Promise<void> {
    if (!this.#options.leader.isLeader()) return;
    // A cache not in step (starting, or its API server struggling) would
    // answer the listing with an unpaginated list of every cluster from
    // Kubernetes on each pass: 80 MB at 50,000 clusters, every 5 s, when
    // the API server is weakest. The pass once it is in step catches up.
    if (this.#options.orchestrator.cacheState?.().inStep === false) return;
    let clusters: RayCluster[];
    try {
      clusters = await this.#clusters();
    } catch (error) {
      this.#options.log.warn("Failed to list clusters for expiry", {
        error: messageOf(error),
      });
      return;
    }
    const now = this.#now().getTime();
    for (const cluster of clusters) {
      const expiresAt = expiryOf(cluster.metadata.annotations);
      if (!expiresAt || cluster.metadata.deletionTimestamp) continue;
      if (this.#stopped || !this.#options.leader.isLeader()) return;
      try {
        if (expiresAt.getTime() <= now) await this.#expire(cluster);
        else if (expiresAt.getTime() - now <= this.#warningMs) {
          await this.#warn(cluster, expiresAt);
        }
      } catch (error) {
        this.#options.log.warn("Failed to expire cluster", {
          namespace: cluster.metadata.namespace,
          name: cluster.metadata.name,
          error: messageOf(error),
        });
      }
    }
  }

  /** Every cluster of the served namespaces. */
  async #clusters(): Promise<RayCluster[]> {
    const { orchestrator, namespaces = [] } = this.#options;
    if (namespaces.length === 0) return await orchestrator.clusters.list();
    const lists = await Promise.all(
      namespaces.map((namespace) => orchestrator.clusters.list(namespace)),
    );
    return lists.flat();
  }

  /** Deletes a due cluster read fresh, then records Expired. */
  async #expire(listed: RayCluster): Promise<void> {
    const { orchestrator, events, log, leader } = this.#options;
    const namespace = listed.metadata.namespace ?? "";
    const name = listed.metadata.name ?? "";
    const fresh = await present(
      orchestrator.clusters.get(namespace, name, { fresh: true }),
    );
    if (!fresh || fresh.metadata.uid !== listed.metadata.uid) return;
    const expiresAt = expiryOf(fresh.metadata.annotations);
    if (!expiresAt || expiresAt.getTime() > this.#now().getTime()) return;
    if (!leader.isLeader()) return;
    const deleted = await present(
      orchestrator.clusters.delete(namespace, name).then(() => true),
    );
    if (!deleted) return;
    const at = expiryAnnotation(expiresAt);
    log.info("Deleted expired cluster", { namespace, name, expiresAt: at });
    await events.record(
      fresh,
      "Normal",
      EXPIRED,
      `Deleted cluster "${namespace}/${name}": its lifetime ended at ${at}`,
    );
  }

  /** Records ExpiringSoon once per cluster and expiry time. */
  async #warn(cluster: RayCluster, expiresAt: Date): Promise<void> {
    const at = expiryAnnotation(expiresAt);
    const key = `${cluster.metadata.uid}/${at}`;
    if (this.#warned.has(key)) return;
    const namespace = cluster.metadata.namespace ?? "";
    const name = cluster.metadata.name ?? "";
    const recorded = await this.#options.orchestrator.clusters.events(
      namespace,
      name,
    );
    const message = `Cluster "${namespace}/${name}" expires at ${at} (in ${
      formatDuration(expiresAt.getTime() - this.#now().getTime())
    }) and will then be deleted: extend it to keep it`;
    const already = recorded.some((event) =>
      event.reason === EXPIRING_SOON &&
      event.involvedObject.uid === cluster.metadata.uid &&
      (event.message ?? "").includes(` expires at ${at} `)
    );
    if (!already) {
      if (!this.#options.leader.isLeader()) return;
      await this.#options.events.record(
        cluster,
        "Warning",
        EXPIRING_SOON,
        message,
      );
      this.#options.log.info("Warned of expiring cluster", {
        namespace,
        name,
        expiresAt: at,
      });
    }
    this.#warned.add(key);
  }
}

/** The promise's value, or undefined when it failed NOT_FOUND. */
async function present<T>(promise: Promise<T>): Promise<T | undefined> {
  try {
    return await promise;
  } catch (error) {
    if (error instanceof ServiceError && error.code === Code.NOT_FOUND) {
      return undefined;
    }
    throw error;
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
