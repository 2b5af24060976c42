/**
 * A controller's work queue, as controller-runtime's: reconciles run by
 * key (`namespace/name`), never two of one key at once; a key added while
 * its reconcile runs is reconciled again when it ends; a reconcile may ask
 * to run again after a delay (RequeueAfter), and the earliest asked time
 * wins. The timers and the reconciles in flight are owned here: stop()
 * clears the one and waits for the other.
 */

import type { Logger } from "../../domain/log.ts";

/** How long after a reconcile that threw it runs again. */
const RETRY_AFTER_ERROR_MS = 1000;

/** Reconciles one key; resolves to a delay to run again after, or none. */
export type Reconcile = (key: string) => Promise<number | undefined>;

interface Slot {
  timer?: ReturnType<typeof setTimeout>;
  /** When the timer fires, in ms since the epoch. */
  due?: number;
  running?: Promise<void>;
  /** Added while running: run again at once when done. */
  again?: boolean;
}

export class WorkQueue {
  #reconcile: Reconcile;
  #log?: Logger;
  #slots = new Map<string, Slot>();
  #stopped = false;

  constructor(reconcile: Reconcile, log?: Logger) {
    this.#reconcile = reconcile;
    this.#log = log;
  }

  /** Reconciles `key` after `delayMs` (0: as soon as it is not running). */
  add(key: string, delayMs = 0): void {
    if (this.#stopped) return;
    const slot = this.#slots.get(key) ?? {};
    this.#slots.set(key, slot);
    if (slot.running && delayMs === 0) {
      slot.again = true;
      return;
    }
    const due = Date.now() + delayMs;
    if (slot.timer !== undefined) {
      if ((slot.due ?? 0) <= due) return;
      clearTimeout(slot.timer);
    }
    slot.due = due;
    slot.timer = setTimeout(() => this.#run(key), delayMs);
  }

  /** Clears every timer and waits for the reconciles in flight. */
  async stop(): Promise<void> {
    this.#stopped = true;
    for (const slot of this.#slots.values()) {
      if (slot.timer !== undefined) clearTimeout(slot.timer);
      slot.timer = undefined;
    }
    const running = [...this.#slots.values()].flatMap((s) =>
      s.running ? [s.running] : []
    );
    await Promise.allSettled(running);
  }

  #run(key: string): void {
    const slot = this.#slots.get(key);
    if (!slot || this.#stopped) return;
    slot.timer = undefined;
    slot.due = undefined;
    if (slot.running) {
      slot.again = true;
      return;
    }
    slot.running = this.#reconcile(key).then(
      (after) => {
        if (after !== undefined) this.add(key, after);
      },
      (error) => {
        this.#log?.error("Failed to reconcile", {
          key,
          error: error instanceof Error ? error.message : String(error),
        });
        // As controller-runtime requeues a reconcile that returned an error.
        this.add(key, RETRY_AFTER_ERROR_MS);
      },
    ).finally(() => {
      slot.running = undefined;
      if (slot.again) {
        slot.again = false;
        this.add(key, 0);
      } else if (slot.timer === undefined) {
        this.#slots.delete(key);
      }
    });
  }
}
