/**
 * Holding quotas (api/auth/quota.ts: what the policy allows, and how a
 * workload counts) while workloads are written, in one replica and across
 * replicas: a write protocol, so it lives with the writes, beside the
 * handlers that make them, not with the policy.
 *
 * Every write a quota applies to is charged before it is made, in the
 * namespace's quota record that all replicas share, and released once it
 * is made or has failed (quota_ledger.ts says how, and why that holds
 * every quota at every moment, whatever the number of replicas). A write
 * refused is refused before anything is written; a write answered OK is
 * what stands. Within a replica, a namespace's charges and releases take
 * turns (a promise chain), so a replica does not race itself for the
 * record; the writes themselves do not wait for one another.
 *
 * Writes no quota applies to, and updates that grow nothing, take no turn
 * and make no extra call.
 */
import { Code } from "../../domain/errors.ts";
import type { RayJobResource } from "../../domain/job_conversions.ts";
import type { Logger } from "../../domain/log.ts";
import type { CallOptions, Orchestrator } from "../../domain/ports.ts";
import type { RayCluster } from "../../domain/resources.ts";
import type { RayServiceResource } from "../../domain/service_resources.ts";
import { HttpError } from "../errors.ts";
import type { Caller } from "../auth/caller.ts";
import {
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
import { type LedgerOptions, QuotaLedger } from "./quota_ledger.ts";

/** What a handler hands the guard of its call. */
export interface QuotaCall {
  caller: Caller;
  scope: { namespace: string };
  /** `Cannot create cluster "team-a/blue"`: the refusal's first words. */
  action: string;
  kube: CallOptions;
  /** Told of a charge it could not release. */
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

/**
 * Whether `after` holds more than `before` of anything a quota may limit:
 * a dimension, or an extended resource by name (one accelerator swapped
 * for another of the same count grows the new one).
 */
function growsAny(after: Usage, before: Usage): boolean {
  if (DIMENSIONS.some((d) => after[d] > before[d])) return true;
  return Object.entries(after.extended ?? {}).some(([name, amount]) =>
    amount > (before.extended?.[name] ?? 0)
  );
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
  /** Per namespace, the end of the chain of record writes taking turns. */
  readonly #turns = new Map<string, Promise<unknown>>();
  readonly #ledger: QuotaLedger;

  constructor(
    private readonly orchestrator: Orchestrator,
    ledger: LedgerOptions = {},
  ) {
    this.#ledger = new QuotaLedger(orchestrator.quotaRecords, ledger);
  }

  /**
   * Runs `intent.write` if it fits every quota that applies to the caller
   * in the namespace, charged while it runs; throws quotaError naming the
   * quota, its usage and the request otherwise, having written nothing.
   */
  async write<T>(call: QuotaCall, intent: QuotaWrite<T>): Promise<T> {
    const { namespace } = call.scope;
    const quotas = quotasFor(
      call.caller.quotas?.() ?? [],
      namespace,
      call.caller.identity,
    );
    const grows = growsAny(intent.holding.usage, intent.before ?? zeroUsage());
    if (quotas.length === 0 || !grows) return intent.write();
    const charged = await this.#inTurn(namespace, () =>
      this.#ledger.charge({
        namespace,
        holding: intent.holding,
        standing: () => this.holdings(namespace, call.kube),
        decide: (held) =>
          quotaExcess(quotas, held, intent.holding, intent.what),
        kube: call.kube,
      }));
    if ("refused" in charged) throw quotaError(call.action, charged.refused);
    try {
      return await intent.write();
    } finally {
      // Released even when the caller has gone: its signal is not passed.
      const kube = { observe: call.kube.observe };
      await this.#inTurn(
        namespace,
        () => this.#ledger.release(namespace, charged.id, kube, call.log),
      );
    }
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
