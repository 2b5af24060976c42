/**
 * The quota ledger: usage charged before a write, in a record every
 * replica shares (one per namespace, kept in Kubernetes: QuotaRecordPort),
 * as Kubernetes' ResourceQuota admission charges a ResourceQuota's status
 * before an object is stored, whichever API server replica admits it.
 *
 * A charge stands for one write in flight: the holding it will be once
 * written, under an id of its own. What a namespace holds, for a quota's
 * decision, is what stands in Kubernetes (read fresh) with every live
 * charge on top, each holding at the larger of the two. The protocol:
 *
 *   1. read the record (its charges and resourceVersion);
 *   2. then read what stands;
 *   3. decide on both; refuse, having written nothing, when over;
 *   4. write the record with this charge added, on the condition that it
 *      is still at the version read (else, from 1 again);
 *   5. write the workload;
 *   6. release the charge (whether the write succeeded or not).
 *
 * Why no replica is ever over a quota, at any moment: of two deciders,
 * the record lets one charge at a time (4). A decider that read the
 * record before another's charge fails its own step 4; one that read it
 * after the charge counts the charge; one that read it after the release
 * reads what stands after that (2 follows 1), which holds the write,
 * since the release follows it (6 follows 5). So every write is counted by
 * every later decision, from its charge on.
 *
 * A charge outlives its write by no more than a release: a replica that
 * stops between 4 and 6 leaves one behind, which counts for at most
 * `pendingMs` (far longer than a write may take: --kube-timeout) and is
 * then dropped by the next charge or release there, or by the leader's
 * sweep (quota_sweeper.ts). Clocks of replicas are assumed to agree to
 * well within `pendingMs`, as leases assume.
 */
import { Code, ServiceError } from "../../domain/errors.ts";
import type { Logger } from "../../domain/log.ts";
import type {
  CallOptions,
  QuotaRecord,
  QuotaRecordPort,
} from "../../domain/ports.ts";
import { type Holding, largerUsage, type Usage } from "../auth/quota.ts";

/** One write in flight, as the record keeps it. */
export interface Charge {
  /** The holding's key: "RayCluster/blue". */
  key: string;
  owner: string;
  /** What it will hold once written. */
  usage: Usage;
  /** When it was charged, ms since the epoch (the charging replica's clock). */
  at: number;
}

/** A record's charges by their ids. */
export type Charges = Record<string, Charge>;

export interface LedgerOptions {
  now?: () => number;
  /** How long a charge counts unreleased; 60 s. */
  pendingMs?: number;
  /** Step 4's tries before the write is refused UNAVAILABLE; 30. */
  attempts?: number;
  log?: Logger;
}

export const DEFAULT_PENDING_MS = 60_000;
const DEFAULT_ATTEMPTS = 30;

/** A record's text as charges; unreadable text holds none. */
export function chargesOf(text: string): Charges {
  if (text === "") return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return {};
  }
  const charges: Charges = {};
  if (typeof parsed !== "object" || parsed === null) return charges;
  for (const [id, value] of Object.entries(parsed)) {
    const charge = value as Partial<Charge> | null;
    if (
      typeof charge?.key !== "string" || typeof charge.at !== "number" ||
      typeof charge.usage !== "object" || charge.usage === null
    ) continue;
    charges[id] = {
      key: charge.key,
      owner: typeof charge.owner === "string" ? charge.owner : "",
      usage: charge.usage as Usage,
      at: charge.at,
    };
  }
  return charges;
}

/** The charges younger than `pendingMs` at `now`. */
export function liveCharges(
  charges: Charges,
  now: number,
  pendingMs: number,
): Charges {
  const live: Charges = {};
  for (const [id, charge] of Object.entries(charges)) {
    if (now - charge.at < pendingMs) live[id] = charge;
  }
  return live;
}

/**
 * What stands with the charges on top: one holding per key, at the larger
 * of what stands and what each charge of that key will hold.
 */
export function chargedHoldings(
  standing: readonly Holding[],
  charges: Charges,
): Holding[] {
  const byKey = new Map<string, Holding>();
  for (const holding of standing) byKey.set(holding.key, holding);
  for (const { key, owner, usage } of Object.values(charges)) {
    const held = byKey.get(key);
    byKey.set(
      key,
      held === undefined
        ? { key, owner, usage }
        : { ...held, usage: largerUsage(held.usage, usage) },
    );
  }
  return [...byKey.values()];
}

/** One charge to make: the holding to be written and how to decide on it. */
export interface ChargeRequest {
  namespace: string;
  holding: Holding;
  /** What the namespace holds now, read fresh from Kubernetes (step 2). */
  standing: () => Promise<Holding[]>;
  /** Why it does not fit, or undefined when it does (step 3). */
  decide: (holdings: Holding[]) => string | undefined;
  kube: CallOptions;
}

/** The outcome of a charge: its id to release, or why it was refused. */
export type ChargeOutcome = { id: string } | { refused: string };

export class QuotaLedger {
  readonly #records: QuotaRecordPort;
  readonly #now: () => number;
  readonly #pendingMs: number;
  readonly #attempts: number;
  readonly #log: Logger | undefined;

  constructor(records: QuotaRecordPort, options: LedgerOptions = {}) {
    this.#records = records;
    this.#now = options.now ?? Date.now;
    this.#pendingMs = options.pendingMs ?? DEFAULT_PENDING_MS;
    this.#attempts = options.attempts ?? DEFAULT_ATTEMPTS;
    this.#log = options.log;
  }

  /** Steps 1-4: the charge made, or why it would exceed a quota. */
  async charge(request: ChargeRequest): Promise<ChargeOutcome> {
    const { namespace, holding, kube } = request;
    const id = crypto.randomUUID();
    for (let attempt = 1; attempt <= this.#attempts; attempt++) {
      const record = await this.#records.read(namespace, kube);
      const standing = await request.standing();
      const charges = this.#live(record);
      const refused = request.decide(chargedHoldings(standing, charges));
      if (refused !== undefined) return { refused };
      charges[id] = { ...holding, at: this.#now() };
      if (await this.#written(namespace, charges, record, kube)) return { id };
      await backOff(attempt, kube.signal);
    }
    throw busy(namespace, this.#attempts);
  }

  /**
   * Step 6: the charge `id` taken off the record (and any charge past
   * `pendingMs` with it). Never throws: a charge left behind counts only
   * until `pendingMs`, so the log says so and the write's answer stands.
   */
  async release(
    namespace: string,
    id: string,
    kube: CallOptions,
    log = this.#log,
  ): Promise<void> {
    try {
      await this.#rewrite(namespace, kube, (charges) => {
        delete charges[id];
      });
    } catch (error) {
      log?.warn("Failed to release a quota charge", {
        namespace,
        charge: id,
        error: String(error),
      });
    }
  }

  /** The record of `namespace` without the charges past `pendingMs`. */
  async sweep(namespace: string, kube: CallOptions = {}): Promise<void> {
    await this.#rewrite(namespace, kube, () => {});
  }

  /**
   * Writes the record with `change` made to its live charges, when that
   * changes it; again on a fresh read while others write it meanwhile.
   */
  async #rewrite(
    namespace: string,
    kube: CallOptions,
    change: (charges: Charges) => void,
  ): Promise<void> {
    for (let attempt = 1; attempt <= this.#attempts; attempt++) {
      const record = await this.#records.read(namespace, kube);
      if (record === undefined) return;
      const charges = this.#live(record);
      change(charges);
      if (JSON.stringify(charges) === record.charges) return;
      if (await this.#written(namespace, charges, record, kube)) return;
      await backOff(attempt, kube.signal);
    }
    throw busy(namespace, this.#attempts);
  }

  #live(record: QuotaRecord | undefined): Charges {
    return liveCharges(
      chargesOf(record?.charges ?? ""),
      this.#now(),
      this.#pendingMs,
    );
  }

  /**
   * Step 4: true when written at the version read; false when another
   * writer came first (the record moved on, was created, or was deleted).
   */
  async #written(
    namespace: string,
    charges: Charges,
    record: QuotaRecord | undefined,
    kube: CallOptions,
  ): Promise<boolean> {
    try {
      await this.#records.write(
        namespace,
        JSON.stringify(charges),
        record?.resourceVersion,
        kube,
      );
      return true;
    } catch (error) {
      if (error instanceof ServiceError && LOST_RACE.has(error.code)) {
        return false;
      }
      throw error;
    }
  }
}

/** How a conditional write of the record loses to another writer. */
const LOST_RACE = new Set<number>([
  Code.ABORTED,
  Code.ALREADY_EXISTS,
  Code.NOT_FOUND,
]);

/** UNAVAILABLE: others kept writing the record; the caller may try again. */
function busy(namespace: string, attempts: number): ServiceError {
  return new ServiceError(
    Code.UNAVAILABLE,
    `Cannot charge quota in namespace "${namespace}": its quota record changed under each of ${attempts} attempts; try again`,
  );
}

/**
 * A pause after losing the record to another writer, random so that the
 * losers of one round do not meet again in the next: up to 5 ms times the
 * attempt, at most 50 ms.
 */
function backOff(attempt: number, signal?: AbortSignal): Promise<void> {
  const ms = Math.random() * Math.min(50, 5 * attempt);
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
