/**
 * The changes a watch fan-out (watch_fanout.ts) keeps for resuming: the
 * last `historySize` of them, and the version after which every change is
 * kept (its horizon). A watch resumed from a version the history covers
 * gets the changes after it; from an older one it is ABORTED, as the
 * Kubernetes API server's watch cache answers 410 Gone. It stands apart
 * from the fan-out, which offers each change to the streams open when it
 * comes: this holds the changes for the streams still to open. It holds
 * the versions of one epoch only: the fan-out starts it over when
 * Kubernetes' versions start again.
 */
import { Code, ServiceError } from "../../domain/errors.ts";
import type { Entry } from "./watch_entry.ts";

export class WatchHistory<M> {
  readonly #entries: Entry<M>[] = [];
  /** Every change after this version is in #entries; undefined: none yet. */
  #horizon: bigint | undefined;
  /** Changes kept to resume from. */
  readonly #size: number;

  constructor(size: number) {
    this.#size = size;
  }

  /** Whether changes are kept yet (until then, nobody resumes). */
  get started(): boolean {
    return this.#horizon !== undefined;
  }

  /**
   * Keeps changes from now on, after `revision` (the version reached):
   * resuming from now is possible. Once started, it stays so.
   */
  start(revision: bigint): void {
    this.#horizon ??= revision;
  }

  /** Keeps a change; past the size, the oldest goes. */
  add(entry: Entry<M>): void {
    this.#entries.push(entry);
    if (this.#entries.length > this.#size) {
      this.#horizon = this.#entries.shift()!.version;
    }
  }

  /** Forgets every change: the versions started again at `version`. */
  restart(version: bigint): void {
    this.#entries.length = 0;
    if (this.#horizon !== undefined) this.#horizon = version;
  }

  /**
   * The changes after version `from` (as the client gave it: `given`) of
   * a started history; ABORTED when they are not all kept.
   */
  after(from: bigint, given: string): readonly Entry<M>[] {
    if (from < this.#horizon!) {
      throw new ServiceError(
        Code.ABORTED,
        `Cannot resume the watch from resource_version ${given}: it is too old (the oldest this server can resume from is ${this.#horizon}); watch again without a resource_version to start from the current state`,
      );
    }
    const first = this.#entries.findIndex((entry) => entry.version > from);
    return first < 0 ? [] : this.#entries.slice(first);
  }
}
