/**
 * Where one reflector's store is in the API server's versions, and what
 * that tells: which version its next list asks for, and whether the API
 * server's versions started again (a reset: its data lost, or restored
 * from a backup).
 *
 * Stands apart from the list/watch loop (reflector.ts) because it is the
 * one part that reasons about versions across reflectors: a list's answer
 * compared with the last version synced, and after a loss a consistent
 * read compared with the highest any reflector of the cache synced
 * (version_line.ts). The loop only asks it where to list from, tells it
 * what it synced, and lists again when it says the store is behind.
 */
import type { Logger } from "../domain/log.ts";
import type { VersionLine } from "./version_line.ts";

/** Where a reset found is told. */
export interface ResetReport {
  /** What is reflected, for logs: "rayclusters". */
  resource: string;
  /** The namespace watched, or "" for every namespace. */
  namespace: string;
  log: Logger;
  /** Told of each reset this reflector finds. */
  onEvent?: (event: "reset") => void;
}

export class SyncedVersions {
  readonly #report: ResetReport;
  /**
   * The last resourceVersion synced (a list's, an event's, a bookmark's);
   * "" before the first list.
   */
  #lastSynced = "";
  /** A list is in: versions synced since can be compared. */
  #listed = false;
  /** That version is gone (410, or too large): the next list asks for "". */
  #lastSyncedGone = false;
  /** The versions shared with the cache's other reflectors. */
  readonly #versions: VersionLine;
  /** The epoch of #versions this reflector's store is of. */
  #epoch = 0;

  constructor(versions: VersionLine, report: ResetReport) {
    this.#versions = versions;
    this.#report = report;
  }

  /** A list is in: versions synced since can be compared. */
  get listed(): boolean {
    return this.#listed;
  }

  /**
   * Listed before, and a reset was found since (by this reflector or
   * another) in `epoch`, the shared versions' epoch: the store is of the
   * data before.
   */
  behindAt(epoch: number): boolean {
    return this.#listed && this.#epoch < epoch;
  }

  /**
   * Listed, and of another epoch than the shared versions': another
   * reflector found the versions started again.
   */
  get leftBehind(): boolean {
    return this.#listed && this.#epoch !== this.#versions.epoch;
  }

  /**
   * Of another epoch than the shared versions': a watch's events of the
   * data before another reflector's reset mean nothing now.
   */
  get stale(): boolean {
    return this.#epoch !== this.#versions.epoch;
  }

  /**
   * The version a list asks for, as client-go's reflector asks: "0" until
   * a list has succeeded, then the last version synced; "" (a consistent
   * read) once that is gone, or when `behind` a reset.
   */
  listFrom(behind: boolean): string {
    const consistent = behind || this.#lastSyncedGone;
    return consistent ? "" : this.#lastSynced || "0";
  }

  /** The last version synced is gone (410, or too large): list from "". */
  markGone(): void {
    this.#lastSyncedGone = true;
  }

  /** A watch's event or bookmark at `version`. */
  noteEvent(version: string): void {
    this.#lastSynced = version;
    this.#versions.note(version, this.#epoch);
  }

  /**
   * Whether the API server's versions started again, asked after a loss:
   * its current version (a consistent read of one object) lower than the
   * highest any reflector of the cache synced. Only a consistent read is
   * compared with other resources' versions: an API server's watch cache
   * of a quiet resource may lag behind another's. A reset found starts a
   * new epoch, of which every reflector (this one too) lists again.
   */
  async check(
    ask: ((signal: AbortSignal) => Promise<string>) | undefined,
    signal: AbortSignal,
  ): Promise<void> {
    if (ask === undefined) return;
    const epoch = this.#versions.epoch;
    const current = await ask(signal);
    // Another reflector found the reset meanwhile.
    if (this.#versions.epoch !== epoch) return;
    const highest = this.#versions.highestWith(this.#lastSynced);
    if (!wentBack(current, highest)) return;
    this.#wentBack(highest, current);
    this.#versions.startAgain(current);
  }

  /**
   * A list answered at `resourceVersion` replaces the store: a reset when
   * the reflector was `behind` one found, or when the list went back from
   * the last version synced (a consistent read, from the highest the cache
   * synced: see check()). Answers the reset, if it is one.
   */
  listedAt(
    resourceVersion: string,
    behind: boolean,
  ): { count: number } | undefined {
    const versions = this.#versions;
    const since = this.#lastSyncedGone
      ? versions.highestWith(this.#lastSynced)
      : this.#lastSynced;
    let reset: { count: number } | undefined;
    if (behind) reset = { count: versions.epoch };
    else if (this.#listed && wentBack(resourceVersion, since)) {
      this.#wentBack(since, resourceVersion);
      // This reflector's epoch first: the others are told, not it.
      this.#epoch = versions.epoch + 1;
      reset = { count: versions.startAgain(resourceVersion) };
    }
    this.#epoch = versions.epoch;
    this.#listed = true;
    this.#lastSynced = resourceVersion;
    versions.note(resourceVersion, this.#epoch);
    this.#lastSyncedGone = false;
    return reset;
  }

  /** A list answered at a version lower than the last one synced. */
  #wentBack(from: string, to: string): void {
    this.#report.onEvent?.("reset");
    this.#report.log.warn(
      "Kubernetes' resource versions went back (its data was lost or restored); the cache starts over from this list",
      {
        resource: this.#report.resource,
        namespace: this.#report.namespace || undefined,
        lastSynced: from,
        listedAt: to,
      },
    );
  }
}

/**
 * Whether a list's version `listed` is lower than `synced`, the last
 * version synced before it. Versions are opaque to clients, but one API
 * server's (etcd's revision) only grow: lower means its data is not the
 * data the cache saw. Versions that are not numbers are never lower.
 */
export function wentBack(listed: string, synced: string): boolean {
  const numeric = /^\d{1,30}$/;
  return numeric.test(listed) && numeric.test(synced) &&
    BigInt(listed) < BigInt(synced);
}
