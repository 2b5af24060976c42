/**
 * The resource versions every reflector of one cache shares: Kubernetes'
 * versions are etcd's revision, one counter for every resource, so what
 * one reflector synced (a list's, an event's, a bookmark's version) tells
 * the others where the API server was. A consistent read (which answers
 * etcd's current revision) lower than the highest any of them synced
 * means the API server lost its data, or had it restored, even where the
 * reflector's own resource changed too little to tell. (Other answers are
 * compared with the reflector's own versions only: an API server's watch
 * cache of a quiet resource may lag behind another's.)
 *
 * When one reflector finds the versions started again (a reset), the line
 * starts a new epoch at the version it listed, and tells the others: each
 * of them lists again, as of the new epoch, whatever its own versions say
 * (a reflector whose last version is below where the new API server
 * already is would otherwise take its answer for news of the same data).
 */

/** A version as a number; undefined for text that is none. */
function numberOf(version: string): bigint | undefined {
  return /^\d{1,30}$/.test(version) ? BigInt(version) : undefined;
}

export class VersionLine {
  #epoch = 0;
  #highest = "";
  readonly #told = new Set<() => void>();

  /** How many times the versions started again. */
  get epoch(): number {
    return this.#epoch;
  }

  /** The highest version synced in this epoch; "" before any. */
  get highest(): string {
    return this.#highest;
  }

  /**
   * The higher of `version` and the highest synced in this epoch: what a
   * consistent read must not be lower than. Versions that are not numbers
   * are taken as they are.
   */
  highestWith(version: string): string {
    const [own, line] = [numberOf(version), numberOf(this.#highest)];
    if (own === undefined || line === undefined) return version;
    return line > own ? this.#highest : version;
  }

  /** A version synced by a reflector in `epoch` (one of an older epoch is not this one's). */
  note(version: string, epoch: number): void {
    if (epoch !== this.#epoch) return;
    const [given, line] = [numberOf(version), numberOf(this.#highest)];
    if (given === undefined) return;
    if (line === undefined || given > line) this.#highest = version;
  }

  /**
   * The versions started again: a new epoch, whose highest version is
   * `version` (the list that showed it); the others are told. Answers the
   * new epoch.
   */
  startAgain(version: string): number {
    this.#epoch++;
    this.#highest = numberOf(version) === undefined ? "" : version;
    for (const tell of [...this.#told]) tell();
    return this.#epoch;
  }

  /** `tell` is told of each new epoch; answers the function that stops it. */
  onStartAgain(tell: () => void): () => void {
    this.#told.add(tell);
    return () => this.#told.delete(tell);
  }
}
