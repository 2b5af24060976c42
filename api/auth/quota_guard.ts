/**
 * Holding quotas (quota.ts) while clusters are written, in one replica and
 * across replicas.
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
 *   its delete. Updates (scale-ups) are checked before their write only:
 *   two replicas scaling up at the same instant can each pass.
 *
 * Writes no quota applies to take no turn and make no extra call.
 */
import { Code } from "../../domain/errors.ts";
import type { RayJobResource } from "../../domain/job_conversions.ts";
import type { Logger } from "../../domain/log.ts";
import type { CallOptions, Orchestrator } from "../../domain/ports.ts";
import type { RayCluster } from "../../domain/resources.ts";
import type { RayServiceResource } from "../../domain/service_resources.ts";
import { HttpError } from "../errors.ts";
import type { Caller } from "./caller.ts";
import {
  type AppliedQuota,
  clusterUsage,
  DIMENSIONS,
  type Holding,
  holdingsOf,
  ownerOf,
  quotaExcess,
  quotasFor,
  type Usage,
  zeroUsage,
} from "./quota.ts";

/** What a handler hands the guard of its call. */
export interface QuotaCall {
  caller: Caller;
  scope: { namespace: string };
  /** `Cannot create cluster "team-a/blue"`: the refusal's first words. */
  action: string;
  kube: CallOptions;
  /** Told of a create undone after losing a race. */
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
}

/** The holding of a RayCluster, RayJob or RayService about to be written. */
export function holdingOf(
  object: RayCluster | RayJobResource | RayServiceResource,
): Holding {
  const spec = object.kind === "RayCluster"
    ? object.spec
    : object.kind === "RayJob"
    ? object.spec.rayClusterSpec
    : object.spec.rayClusterConfig;
  return {
    key: `${object.kind}/${object.metadata.name}`,
    owner: ownerOf(object.metadata),
    usage: clusterUsage(spec),
  };
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
      this.orchestrator.listClusters(namespace, options),
      this.orchestrator.listJobs(namespace, options),
      this.orchestrator.listServices(namespace, options),
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
    if (!intent.remove) return written;
    // The re-check across replicas: the others' writes as they are now,
    // this one as what it adds.
    const others = (await this.holdings(namespace, call.kube))
      .filter((holding) => holding.key !== intent.holding.key);
    const lost = quotaExcess(quotas, others, intent.holding, intent.what);
    if (lost === undefined) return written;
    const what = { namespace, object: intent.holding.key, quota: lost };
    try {
      await intent.remove();
      call.log?.warn("Deleted a create over quota after a race", what);
    } catch (error) {
      // Refused all the same: what stays is the namespace's to clean up,
      // and the log says which.
      call.log?.error("Failed to delete a create over quota", {
        ...what,
        error: String(error),
      });
    }
    throw quotaError(call.action, lost);
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
