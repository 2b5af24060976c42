/**
 * The objects the cache holds Events about but not the object itself, and
 * since when: a KindStore drops those Events once their object has been
 * missing for `orphanEventsMs` (5 minutes by default).
 *
 * Why: the cache lists and watches every Event about a kind
 * (involvedObject.kind=RayCluster), and Kubernetes keeps Events an hour
 * after their last update (kube-apiserver's --event-ttl), whatever became
 * of their object. Events about a deleted object, or about one of the kind
 * the cache does not hold (a RayCluster Corral does not manage), are shown
 * by no read, and the cache held them all: under a steady stream of
 * creates and deletes its Events grew for the whole hour (bench/soak.ts).
 * An Event may arrive before its object does (the objects' and the Events'
 * watches are separate streams), which is why they are kept for a while
 * rather than refused.
 *
 * Bound: the Events of objects held, and the Events that arrived about
 * objects not held over the last `orphanEventsMs`. Dropped Events leave
 * the store's tombstones, so a relist does not bring the same versions
 * back while those last; one that does brings them back for another
 * `orphanEventsMs` at most.
 */

export interface OrphanEventsOptions {
  /** How long Events about an object not held are kept; 5 minutes. */
  orphanEventsMs?: number;
  /** The clock, in ms; performance.now(). */
  now?: () => number;
}

/** The default of orphanEventsMs: the store's tombstones' time. */
export const DEFAULT_ORPHAN_EVENTS_MS = 5 * 60_000;

export class OrphanEvents {
  /**
   * Objects' keys (`namespace/name`), since when they are missing: in
   * insertion order, which is that order, since a key is only ever added
   * at the end, with the clock's time.
   */
  readonly #since = new Map<string, number>();
  readonly #keepMs: number;
  readonly #now: () => number;

  constructor(options: OrphanEventsOptions = {}) {
    this.#keepMs = options.orphanEventsMs ?? DEFAULT_ORPHAN_EVENTS_MS;
    this.#now = options.now ?? (() => performance.now());
  }

  /** Notes that Events about the object `key` are held without it. */
  missing(key: string): void {
    if (!this.#since.has(key)) this.#since.set(key, this.#now());
  }

  /** Notes that the object `key` is held (again). */
  found(key: string): void {
    this.#since.delete(key);
  }

  /**
   * The keys missing for longer than orphanEventsMs, forgotten as they are
   * answered: whose Events go, unless the object is held by now.
   */
  *expired(): Iterable<string> {
    const before = this.#now() - this.#keepMs;
    for (const [key, since] of this.#since) {
      if (since > before) return;
      this.#since.delete(key);
      yield key;
    }
  }

  /** How many objects' Events are held without them (for tests). */
  get size(): number {
    return this.#since.size;
  }
}
