/**
 * Deletes what has expired (the annotation corral.dev/expires-at), and
 * warns in its events before: a Warning `ExpiringSoon` once the expiry is
 * within the warning time (--expiry-warning, 1 h), a Normal `Expired` once
 * Corral has deleted it. What is deleted is the object that owns the
 * cluster (domain/expiring.ts): a cluster made directly, a RayJob or a
 * RayService, whose clusters go with them; never a cluster the operator
 * made for one of those, which it would make again.
 *
 * Only the leader acts (orchestrator/leader_election.ts): every pass, and
 * again right before each delete, asks `leader.isLeader()`, which holds
 * only while the Lease was renewed within the renew deadline, so a replica
 * that lost the Lease stops before another may take it. The listings come
 * from the orchestrator (the cache: no Kubernetes call), and wait while a
 * cache is not in step; an object found due is read fresh before it is
 * deleted, so an extend that just happened is seen. A delete answered
 * NOT_FOUND (someone else deleted it) records nothing: exactly one Expired
 * event per deleted object.
 *
 * The warning is recorded once per expiry time: remembered here, and on a
 * new leader looked up among the object's events (the message names the
 * expiry time), so a takeover does not warn twice.
 */
import { Code, ServiceError } from "../../domain/errors.ts";
import {
  expiryAnnotation,
  expiryOf,
  formatDuration,
} from "../../domain/expiry.ts";
import {
  type Expiring,
  expiringOf,
  type ExpiryListing,
} from "../../domain/expiring.ts";
import {
  type KindObject,
  type KindObjects,
  KINDS,
  type WorkloadKindName,
} from "../../domain/kinds.ts";
import type { Logger } from "../../domain/log.ts";
import type { ObjectPort, Orchestrator } from "../../domain/ports.ts";
import { Passes } from "./passes.ts";

/** Who may act: the leader election's answer, asked before every write. */
export interface Leadership {
  isLeader(): boolean;
}

/**
 * Where the worker records its events (orchestrator/expiry_events.ts):
 * about `object`, of the Kubernetes kind its `kind` says.
 */
export interface ExpiryEvents {
  record(
    object: KindObject,
    type: "Normal" | "Warning",
    reason: string,
    message: string,
  ): Promise<void>;
}

/** What the worker reads and deletes of one kind. */
type ExpiringPort<T> = Pick<
  ObjectPort<T>,
  "list" | "get" | "delete" | "events"
>;

/** The kinds that expire, in the order a pass lists them. */
const EXPIRING_KINDS = [
  "clusters",
  "jobs",
  "services",
] as const satisfies readonly WorkloadKindName[];

export interface ExpiryWorkerOptions {
  orchestrator:
    & Pick<Orchestrator, "cacheState">
    & {
      readonly [K in WorkloadKindName]: ExpiringPort<KindObjects[K]>;
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
  readonly #passes: Passes;

  constructor(options: ExpiryWorkerOptions) {
    this.#options = options;
    this.#warningMs = options.warningMs ?? 3_600_000;
    this.#now = options.now ?? (() => new Date());
    this.#passes = new Passes(
      () => this.runOnce(),
      options.intervalMs ?? 5_000,
    );
  }

  start(): void {
    this.#passes.start();
  }

  stop(): Promise<void> {
    return this.#passes.stop();
  }

  /**
   * One pass over everything that expires: warn those within the warning
   * time, delete those due. Does nothing unless leading; never throws (a
   * kind's listing that fails, and each object's failure, are logged and
   * tried again next pass).
   */
  async runOnce(): Promise<void> {
    if (!this.#options.leader.isLeader()) return;
    // A cache not in step (starting, or its API server struggling) would
    // answer the listing with an unpaginated list of every cluster from
    // Kubernetes on each pass: 80 MB at 50,000 clusters, every 5 s, when
    // the API server is weakest. The pass once it is in step catches up.
    if (this.#options.orchestrator.cacheState?.().inStep === false) return;
    const listing = await this.#listing();
    const now = this.#now().getTime();
    for (const expiring of expiringOf(listing)) {
      if (this.#passes.stopped || !this.#options.leader.isLeader()) return;
      const { kind, object, expiresAt } = expiring;
      try {
        if (expiresAt.getTime() <= now) await this.#expire(expiring);
        else if (expiresAt.getTime() - now <= this.#warningMs) {
          await this.#warn(expiring);
        }
      } catch (error) {
        this.#options.log.warn(`Failed to expire ${KINDS[kind].noun}`, {
          namespace: object.metadata.namespace,
          name: object.metadata.name,
          error: messageOf(error),
        });
      }
    }
  }

  /**
   * Every object of the kinds that expire, in the served namespaces; a
   * kind whose listing failed (logged) is left undefined.
   */
  async #listing(): Promise<ExpiryListing> {
    const lists = await Promise.all(EXPIRING_KINDS.map(async (kind) => {
      try {
        return await this.#list(kind);
      } catch (error) {
        this.#options.log.warn(`Failed to list ${kind} for expiry`, {
          error: messageOf(error),
        });
        return undefined;
      }
    }));
    const [clusters, jobs, services] = lists;
    return {
      clusters: clusters as KindObjects["clusters"][] | undefined,
      jobs: jobs as KindObjects["jobs"][] | undefined,
      services: services as KindObjects["services"][] | undefined,
    };
  }

  /** Every object of `kind` of the served namespaces. */
  async #list(kind: WorkloadKindName): Promise<KindObject[]> {
    const { orchestrator, namespaces = [] } = this.#options;
    const port = orchestrator[kind] as ExpiringPort<KindObject>;
    if (namespaces.length === 0) return await port.list();
    const lists = await Promise.all(
      namespaces.map((namespace) => port.list(namespace)),
    );
    return lists.flat();
  }

  /** Deletes a due object read fresh, then records Expired. */
  async #expire({ kind, object: listed }: Expiring): Promise<void> {
    const { orchestrator, events, log, leader } = this.#options;
    const port = orchestrator[kind] as ExpiringPort<KindObject>;
    const { noun } = KINDS[kind];
    const namespace = listed.metadata.namespace ?? "";
    const name = listed.metadata.name ?? "";
    const fresh = await present(port.get(namespace, name, { fresh: true }));
    if (!fresh || fresh.metadata.uid !== listed.metadata.uid) return;
    const expiresAt = expiryOf(fresh.metadata.annotations);
    if (!expiresAt || expiresAt.getTime() > this.#now().getTime()) return;
    if (!leader.isLeader()) return;
    const deleted = await present(
      port.delete(namespace, name).then(() => true),
    );
    if (!deleted) return;
    const at = expiryAnnotation(expiresAt);
    log.info(`Deleted expired ${noun}`, { namespace, name, expiresAt: at });
    await events.record(
      asKind(kind, fresh),
      "Normal",
      EXPIRED,
      `Deleted ${noun} "${namespace}/${name}": its lifetime ended at ${at}`,
    );
  }

  /** Records ExpiringSoon once per object and expiry time. */
  async #warn({ kind, object, expiresAt }: Expiring): Promise<void> {
    const at = expiryAnnotation(expiresAt);
    const key = `${object.metadata.uid}/${at}`;
    if (this.#warned.has(key)) return;
    const namespace = object.metadata.namespace ?? "";
    const name = object.metadata.name ?? "";
    const port = this.#options.orchestrator[kind] as ExpiringPort<KindObject>;
    const recorded = await port.events(namespace, name);
    const already = recorded.some((event) =>
      event.reason === EXPIRING_SOON &&
      event.involvedObject.uid === object.metadata.uid &&
      (event.message ?? "").includes(` expires at ${at} `)
    );
    if (!already) {
      if (!this.#options.leader.isLeader()) return;
      await this.#options.events.record(
        asKind(kind, object),
        "Warning",
        EXPIRING_SOON,
        warning(kind, `${namespace}/${name}`, at, this.#in(expiresAt)),
      );
      this.#options.log.info(`Warned of expiring ${KINDS[kind].noun}`, {
        namespace,
        name,
        expiresAt: at,
      });
    }
    this.#warned.add(key);
  }

  /** How long until `expiresAt`: "29m59s". */
  #in(expiresAt: Date): string {
    return formatDuration(expiresAt.getTime() - this.#now().getTime());
  }
}

/**
 * ExpiringSoon's message: a cluster is told to extend itself; a job or a
 * service, which have no extend, that its clusters go with it.
 */
function warning(
  kind: WorkloadKindName,
  key: string,
  at: string,
  left: string,
): string {
  const noun = KINDS[kind].noun;
  const what = `${noun[0].toUpperCase()}${noun.slice(1)} "${key}"`;
  return kind === "clusters"
    ? `${what} expires at ${at} (in ${left}) and will then be deleted: extend it to keep it`
    : `${what} expires at ${at} (in ${left}) and will then be deleted, with its cluster`;
}

/**
 * `object` with its kind's Kubernetes kind and apiVersion set, for its
 * Events' involvedObject (a listed object may lack them).
 */
function asKind(
  kind: WorkloadKindName,
  object: { apiVersion?: string; metadata: KindObject["metadata"] },
): KindObject {
  return {
    ...object,
    apiVersion: object.apiVersion ?? "",
    kind: KINDS[kind].resource.kind,
  };
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
