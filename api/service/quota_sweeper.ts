/**
 * The leader's sweep of the quota records (quota_ledger.ts): every pass,
 * each namespace's record loses the charges older than the ledger's
 * `pendingMs`, those a replica left behind when it stopped between a
 * charge and its release. Such a charge is dropped by the next charge or
 * release in its namespace anyway, and counts for no longer than
 * `pendingMs` in any decision; the sweep only keeps a record that nothing
 * writes from holding it.
 *
 * Only the leader sweeps (the expiry's Lease, startup/expiry.ts), and it
 * asks before each namespace, as the expiry worker does. A sweep writes a
 * record only when it drops something, on the condition that the record
 * is still as read, so it never takes a charge made meanwhile.
 */
import type { Logger } from "../../domain/log.ts";
import type { QuotaRecordPort } from "../../domain/ports.ts";
import type { Leadership } from "./expiry_worker.ts";
import { Passes } from "./passes.ts";
import type { QuotaLedger } from "./quota_ledger.ts";

export interface QuotaSweeperOptions {
  ledger: QuotaLedger;
  records: Pick<QuotaRecordPort, "namespaces">;
  leader: Leadership;
  log: Logger;
  /** The served namespaces (--namespaces); empty: all. */
  namespaces?: readonly string[];
  /** Time between passes; 30 s. */
  intervalMs?: number;
}

export class QuotaSweeper {
  readonly #options: QuotaSweeperOptions;
  readonly #passes: Passes;

  constructor(options: QuotaSweeperOptions) {
    this.#options = options;
    this.#passes = new Passes(
      () => this.runOnce(),
      options.intervalMs ?? 30_000,
    );
  }

  start(): void {
    this.#passes.start();
  }

  stop(): Promise<void> {
    return this.#passes.stop();
  }

  /** One pass over every record. Never throws: a failure is logged. */
  async runOnce(): Promise<void> {
    const { ledger, records, leader, log } = this.#options;
    if (!leader.isLeader()) return;
    let namespaces: string[];
    try {
      namespaces = await records.namespaces(this.#options.namespaces ?? []);
    } catch (error) {
      log.warn("Failed to list quota records", { error: String(error) });
      return;
    }
    for (const namespace of namespaces) {
      if (this.#passes.stopped || !leader.isLeader()) return;
      try {
        await ledger.sweep(namespace);
      } catch (error) {
        log.warn("Failed to sweep a quota record", {
          namespace,
          error: String(error),
        });
      }
    }
  }
}
