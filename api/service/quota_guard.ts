/**
 * Holding quotas (api/auth/quota.ts: what the policy allows, and how a
 * workload counts) while workloads are written, in one replica and across
 * replicas: a write protocol, so it lives with the writes, beside the
 * handlers that make them, not with the policy.
 *
 * - In one replica, the writes a quota applies to take turns per namespace
 *   (a promise chain): each counts what the namespace holds, read fresh
 *   from Kubernetes (never the cache, which may lag a write just made),
 *   refuses what would exceed a quota before anything is written, then
 *   writes.
 * - Across replicas, nothing in the namespace takes turns, so a create is
 *   checked again after its write, on a fresh list that now holds it: if
 *   the namespace is over a quota the new cluster counts towards, the
 *   create deletes what it wrote and is refused. Of two racing creates the
 *   one whose re-check comes last sees both writes, so they never both
 *   stand; both may lose (each refused, the namespace under its quota),
 *   never both win. The loser exists for the moment between its write and
 *   its delete.
 * - A scale-up holds the same way: checked again after its write, on a
 *   fresh list, against the quotas its increase counts towards (the
 *   namespace's others as they are now, plus what this write adds). Over,
 *   it puts the cluster back as it was read, by an update carrying the
 *   resourceVersion of its own write as precondition, so nothing another
 *   writer stored since is overwritten (putBack: past the operator's
 *   status writes, never past another writer's spec): on that conflict the
 *   cluster stays as it is, the log says so, and the scale-up is refused
 *   all the same.
 *   Of two replicas scaling up at once, the later re-check sees both, so
 *   at most one stands; UpdateCluster and UpdateRayService alike.
 *
 * Writes no quota applies to take no turn and make no extra call.
 */
import { Code, ServiceError } from "../../domain/errors.ts";
import type { RayJobResource } from "../../domain/job_conversions.ts";
import type { Logger } from "../../domain/log.ts";
import type {
  CallOptions,
  ObjectPort,
  Orchestrator,
} from "../../domain/ports.ts";
import { type KindObjects, KINDS } from "../../domain/kinds.ts";
import type { RayCluster } from "../../domain/resources.ts";
import type { RayServiceResource } from "../../domain/service_resources.ts";
import { HttpError } from "../errors.ts";
import type { Caller } from "../auth/caller.ts";
import {
  type AppliedQuota,
  DIMENSIONS,
  type Holding,
  holdingsOf,
  ownerOf,
  quotaExcess,
  quotasFor,
  type Usage,
  workloadUsage,
  zeroUsage,
} from "../auth/quota.ts";

/** What a handler hands the guard of its call. */
export interface QuotaCall {
  caller: Caller;
  scope: { namespace: string };
  /** `Cannot create cluster "team-a/blue"`: the refusal's first words. */
  action: string;
  kube: CallOptions;
  /** Told of a create or scale-up undone after losing a race. */
  log?: Logger;
}

/** One write the guard checks. */
export interface QuotaWrite<T> {
  /** The cluster as it will be once written. */
  holding: Holding;
  /** How the message names it: "this cluster", "this job's cluster". */
  what: string;
  /** Its usage now (an update's current cluster); nothing for a create. */
  before?: Usage;
  write: () => Promise<T>;
  /** A create's undo, when its re-check after the write finds it over. */
  remove?: () => Promise<void>;
  /**
   * An update's undo, when its re-check after the write finds it over:
   * puts back what `before` counts, failing (and changing nothing) when
   * `written` is no longer what is stored.
   */
  restore?: (written: T) => Promise<void>;
}

/**
 * The holding of a RayCluster, RayJob or RayService about to be written:
 * every pod it runs (a RayJob's submitter too, on an existing cluster as
 * well), quota_usage.ts counting.
 */
export function holdingOf(
  object: RayCluster | RayJobResource | RayServiceResource,
): Holding {
  return {
    key: `${object.kind}/${object.metadata.name}`,
    owner: ownerOf(object.metadata),
    usage: workloadUsage(object),
  };
}

/** A RayCluster or RayService, as far as a put-back needs. */
interface Written {
  metadata: RayCluster["metadata"];
  spec: unknown;
}

/**
 * Puts an object of `kind` back as it was read (`read`) after an update
 * was refused once written (`written`: a scale-up that lost its re-check
 * to another replica): its spec, labels and annotations, by an update
 * whose precondition is `written`'s resourceVersion. When that has moved on
 * only because someone else wrote what the update did not (the operator's
 * status, a finalizer), once more on the fresh object, keeping what they
 * wrote. When anyone changed what the update wrote, nothing is
 * overwritten: ABORTED says so, and the object stays as they left it.
 */
export async function putBack<K extends "clusters" | "services">(
  orchestrator: Orchestrator,
  kind: K,
  read: KindObjects[K],
  written: KindObjects[K],
  kube: CallOptions,
): Promise<void> {
  const port = orchestrator[kind] as unknown as ObjectPort<KindObjects[K]>;
  const { labels, annotations } = read.metadata;
  const back = (base: KindObjects[K]) =>
    port.update(
      {
        ...base,
        metadata: { ...base.metadata, labels, annotations },
        spec: read.spec,
      } as KindObjects[K],
      kube,
    );
  try {
    await back(written);
    return;
  } catch (error) {
    if (!(error instanceof ServiceError) || error.code !== Code.ABORTED) {
      throw error;
    }
  }
  const { namespace = "", name } = written.metadata;
  const now = await port.get(namespace, name, { ...kube, fresh: true });
  if (updatedPart(now) !== updatedPart(written)) {
    throw new ServiceError(
      Code.ABORTED,
      `Cannot put back ${
        KINDS[kind].noun
      } "${namespace}/${name}": changed by another writer since the scale-up`,
    );
  }
  await back(now);
}

/** What an update writes of an object, comparable as one string. */
function updatedPart(object: Written): string {
  const { labels, annotations } = object.metadata;
  return JSON.stringify({ spec: object.spec, labels, annotations });
}

/** RESOURCE_EXHAUSTED answered 403 on HTTP: a refusal, not a rate (429). */
export function quotaError(action: string, why: string): HttpError {
  return new HttpError(
    403,
    Code.RESOURCE_EXHAUSTED,
    `${action}: quota exceeded: ${why}`,
  );
}

export class QuotaGuard {
  /** Per namespace, the end of the chain of writes taking turns there. */
  readonly #turns = new Map<string, Promise<unknown>>();

  constructor(private readonly orchestrator: Orchestrator) {}

  /**
   * Runs `intent.write` if it fits every quota that applies to the caller
   * in the namespace; throws quotaError naming the quota, its usage and
   * the request otherwise, before writing (or, for a create that lost a
   * race with another replica, after undoing its write).
   */
  async write<T>(call: QuotaCall, intent: QuotaWrite<T>): Promise<T> {
    const { namespace } = call.scope;
    const quotas = quotasFor(
      call.caller.quotas?.() ?? [],
      namespace,
      call.caller.identity,
    );
    const before = intent.before ?? zeroUsage();
    const grows = DIMENSIONS.some((d) => intent.holding.usage[d] > before[d]);
    if (quotas.length === 0 || !grows) return intent.write();
    return await this.#inTurn(
      namespace,
      () => this.#checked(call, quotas, intent),
    );
  }

  /**
   * What the namespace holds: read from Kubernetes for a decision (the
   * cache may lag a write just made), from `kube` as it says otherwise.
   */
  async holdings(
    namespace: string,
    kube: CallOptions,
    fresh = true,
  ): Promise<Holding[]> {
    const options = fresh ? { ...kube, fresh: true } : kube;
    const [clusters, jobs, services] = await Promise.all([
      this.orchestrator.clusters.list(namespace, options),
      this.orchestrator.jobs.list(namespace, options),
      this.orchestrator.services.list(namespace, options),
    ]);
    return holdingsOf(clusters, jobs, services);
  }

  async #checked<T>(
    call: QuotaCall,
    quotas: AppliedQuota[],
    intent: QuotaWrite<T>,
  ): Promise<T> {
    const { namespace } = call.scope;
    const excess = quotaExcess(
      quotas,
      await this.holdings(namespace, call.kube),
      intent.holding,
      intent.what,
    );
    if (excess !== undefined) throw quotaError(call.action, excess);
    const written = await intent.write();
    if (!intent.remove && !intent.restore) return written;
    const lost = await this.#recheck(call, quotas, intent);
    if (lost === undefined) return written;
    await this.#undo(call, intent, written, lost);
    throw quotaError(call.action, lost);
  }

  /**
   * Undoes a write that lost its re-check. Never throws: the write is
   * refused all the same, and what stays (an undo that failed) is the
   * namespace's to clean up, so the log says which and why.
   */
  async #undo<T>(
    call: QuotaCall,
    intent: QuotaWrite<T>,
    written: T,
    lost: string,
  ): Promise<void> {
    const what = {
      namespace: call.scope.namespace,
      object: intent.holding.key,
      quota: lost,
    };
    const [done, failed] = intent.remove
      ? ["Deleted a create over quota", "Failed to delete a create over quota"]
      : [
        "Put back a scale-up over quota",
        "Failed to put back a scale-up over quota",
      ];
    try {
      await (intent.remove ? intent.remove() : intent.restore!(written));
      call.log?.warn(`${done} after a race`, what);
    } catch (error) {
      call.log?.error(failed, { ...what, error: String(error) });
    }
  }

  /**
   * The re-check across replicas, after the write: the others' writes as
   * they are now, this one as what it adds to what it held before (an
   * update's `before`; nothing for a create), so only a quota this write's
   * increase counts towards can refuse it.
   */
  async #recheck<T>(
    call: QuotaCall,
    quotas: AppliedQuota[],
    intent: QuotaWrite<T>,
  ): Promise<string | undefined> {
    const { key, owner } = intent.holding;
    const others = (await this.holdings(call.scope.namespace, call.kube))
      .filter((holding) => holding.key !== key);
    const held = intent.before === undefined
      ? others
      : [...others, { key, owner, usage: intent.before }];
    return quotaExcess(quotas, held, intent.holding, intent.what);
  }

  /** Runs `work` once the namespace's earlier turns have ended. */
  async #inTurn<T>(namespace: string, work: () => Promise<T>): Promise<T> {
    const previous = this.#turns.get(namespace) ?? Promise.resolve();
    const turn = previous.catch(() => {}).then(work);
    const settled = turn.catch(() => {});
    this.#turns.set(namespace, settled);
    try {
      return await turn;
    } finally {
      // The last turn of a namespace leaves no entry behind.
      if (this.#turns.get(namespace) === settled) this.#turns.delete(namespace);
    }
  }
}
