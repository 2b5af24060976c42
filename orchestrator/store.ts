/**
 * The objects of one resource as the cache holds them: by namespace and
 * name, with each namespace's list kept sorted by name between changes (so
 * a read sorts nothing), and an optional index of the objects by a key of
 * their own (events by the cluster they are about).
 *
 * The store only moves forward. Answers reach it late and out of order (a
 * cache miss's lookup, a write's answer, a relist that was listed before a
 * delete): none replaces a newer version of the same object (same uid, a
 * higher resourceVersion), and none brings back an object it saw deleted.
 * For that a delete leaves a tombstone, namespace/name -> the uid and the
 * resourceVersion it was deleted at, kept for `tombstoneMs` and at most
 * `maxTombstones` of them (the oldest go first): an object of that uid
 * whose version is not newer is taken as the deleted one and kept out.
 *
 * A replace marked a reset (the API server's versions started again: its
 * data was lost or restored) is the one exception: versions before it mean
 * nothing after it, so the list is taken as it stands, and the tombstones
 * are forgotten. An object it holds at the same uid and version (restored
 * from a backup as it was) is still no change: it is not told again.
 */
import type { Reflected, StoreChange } from "./reflector.ts";

/** An object before and after a change: undefined where there was none. */
export type Changed<T> = [before: T | undefined, after: T | undefined];

export interface StoreOptions {
  /** How long a deletion is remembered; 5 minutes. */
  tombstoneMs?: number;
  /** The most deletions remembered; 10,000. */
  maxTombstones?: number;
  /** The clock, in ms; performance.now(). */
  now?: () => number;
}

/** A deleted object: its uid and the version it was deleted at, and when. */
interface Tombstone {
  uid: string | undefined;
  resourceVersion: string | undefined;
  at: number;
}

export class Store<T extends Reflected> {
  readonly #byNamespace = new Map<string, Map<string, T>>();
  readonly #sorted = new Map<string, T[]>();
  #all: T[] | undefined;
  readonly #index?: (item: T) => string | undefined;
  readonly #indexed = new Map<string, Map<string, T>>();
  #size = 0;
  /** By key, oldest first (a deletion moves its key to the end). */
  readonly #tombstones = new Map<string, Tombstone>();
  readonly #tombstoneMs: number;
  readonly #maxTombstones: number;
  readonly #now: () => number;

  /** `index` gives the key an object is found under by `indexed()`. */
  constructor(
    index?: (item: T) => string | undefined,
    options: StoreOptions = {},
  ) {
    this.#index = index;
    this.#tombstoneMs = options.tombstoneMs ?? 5 * 60_000;
    this.#maxTombstones = options.maxTombstones ?? 10_000;
    this.#now = options.now ?? (() => performance.now());
  }

  get size(): number {
    return this.#size;
  }

  get(namespace: string, name: string): T | undefined {
    return this.#byNamespace.get(namespace)?.get(name);
  }

  /** A namespace's objects (every namespace's when undefined), sorted. */
  list(namespace?: string): readonly T[] {
    if (namespace === undefined) {
      this.#all ??= [...this.#byNamespace.keys()].sort().flatMap((ns) =>
        this.list(ns)
      );
      return this.#all;
    }
    let sorted = this.#sorted.get(namespace);
    if (sorted === undefined) {
      const objects = this.#byNamespace.get(namespace);
      sorted = objects === undefined ? [] : [...objects.keys()].sort().map(
        (name) => objects.get(name)!,
      );
      this.#sorted.set(namespace, sorted);
    }
    return sorted;
  }

  /** The objects `index` put under `key`, in no particular order. */
  indexed(key: string): Iterable<T> {
    return this.#indexed.get(key)?.values() ?? [];
  }

  /**
   * Applies a change; answers what it changed, as [before, after] pairs (an
   * object put in place of the same version of itself is no change). A
   * replace within `namespace` ("" for all) drops what the list no longer
   * has, but for an object at a later version than the list (a write's
   * answer, applied before the list that was taken earlier). An object older than the one held (a write's answer after the
   * watch brought a later change), or one deleted since (a late lookup's
   * answer), is ignored, in an upsert and in a replace alike.
   */
  apply(change: StoreChange<T>, namespace = ""): Changed<T>[] {
    const changed: Changed<T>[] = [];
    const reset = change.type === "replace" && change.reset !== undefined;
    if (reset) this.#tombstones.clear();
    // The same version again (a relist, the watch bringing a write's
    // answer) keeps the object held, and what was made of it.
    const put = (item: T) => {
      const held = this.get(namespaceOf(item), nameOf(item));
      if (held === item) return;
      if (held !== undefined && isSameVersion(held, item)) return;
      if (!reset && held !== undefined && isOlder(item, held)) return;
      if (!reset && this.#wasDeleted(item)) return;
      this.#tombstones.delete(keyOf(item));
      this.#put(item);
      changed.push([held, item]);
    };
    switch (change.type) {
      case "replace": {
        const keep = new Set(change.items.map(keyOf));
        for (const item of [...this.#items(namespace)]) {
          if (!keep.has(keyOf(item))) {
            // Written after the list was taken (a write's answer that came
            // first): the watch from the list's version brings it again, or
            // its deletion.
            if (!reset && isAfter(item, change.resourceVersion)) continue;
            this.#remove(item);
            if (!reset) this.#bury(item, change.resourceVersion);
            changed.push([item, undefined]);
          }
        }
        for (const item of change.items) put(item);
        break;
      }
      case "upsert":
        put(change.item);
        break;
      case "delete": {
        const held = this.get(namespaceOf(change.item), nameOf(change.item));
        this.#bury(change.item);
        if (held !== undefined) {
          this.#remove(change.item);
          changed.push([held, undefined]);
        }
        break;
      }
    }
    return changed;
  }

  /**
   * Whether `item` is an object this store saw deleted: the same uid, at
   * a version no newer than its deletion (a RayCluster that finalizers keep
   * comes back from a write's delete at a newer version, with its deletion
   * time). Versions that are not numbers cannot be compared: the same uid
   * is then taken as deleted, since Kubernetes never reuses one.
   */
  #wasDeleted(item: T): boolean {
    const key = keyOf(item);
    const tombstone = this.#tombstones.get(key);
    if (tombstone === undefined) return false;
    if (this.#now() - tombstone.at > this.#tombstoneMs) {
      this.#tombstones.delete(key);
      return false;
    }
    if (tombstone.uid !== item.metadata?.uid) return false;
    const [x, y] = [item.metadata?.resourceVersion, tombstone.resourceVersion];
    if (!isNumeric(x) || !isNumeric(y)) return true;
    return BigInt(x) <= BigInt(y);
  }

  /**
   * Remembers `item` as deleted at its own version, or at `listedAt` (the
   * version of a list that no longer had it) when that is later.
   */
  #bury(item: Reflected, listedAt?: string): void {
    const key = keyOf(item);
    const own = item.metadata?.resourceVersion;
    const resourceVersion = isNumeric(listedAt) && isNumeric(own) &&
        BigInt(listedAt) > BigInt(own)
      ? listedAt
      : own;
    const now = this.#now();
    this.#tombstones.delete(key);
    this.#tombstones.set(key, {
      uid: item.metadata?.uid,
      resourceVersion,
      at: now,
    });
    // The oldest first: past their time, or beyond the bound.
    for (const [oldest, { at }] of this.#tombstones) {
      const full = this.#tombstones.size > this.#maxTombstones;
      if (!full && now - at <= this.#tombstoneMs) break;
      this.#tombstones.delete(oldest);
    }
  }

  *#items(namespace: string): Iterable<T> {
    if (namespace !== "") {
      yield* this.#byNamespace.get(namespace)?.values() ?? [];
      return;
    }
    for (const objects of this.#byNamespace.values()) yield* objects.values();
  }

  #put(item: T): void {
    const namespace = namespaceOf(item);
    let objects = this.#byNamespace.get(namespace);
    if (objects === undefined) {
      objects = new Map();
      this.#byNamespace.set(namespace, objects);
    }
    const held = objects.get(nameOf(item));
    if (held !== undefined) this.#unindex(held);
    else this.#size++;
    objects.set(nameOf(item), item);
    this.#reindex(item);
    this.#changed(namespace);
  }

  #remove(item: T): void {
    const namespace = namespaceOf(item);
    const objects = this.#byNamespace.get(namespace);
    const held = objects?.get(nameOf(item));
    if (held === undefined) return;
    objects!.delete(nameOf(item));
    if (objects!.size === 0) this.#byNamespace.delete(namespace);
    this.#size--;
    this.#unindex(held);
    this.#changed(namespace);
  }

  #reindex(item: T): void {
    const key = this.#index?.(item);
    if (key === undefined) return;
    let group = this.#indexed.get(key);
    if (group === undefined) {
      group = new Map();
      this.#indexed.set(key, group);
    }
    group.set(keyOf(item), item);
  }

  #unindex(item: T): void {
    const key = this.#index?.(item);
    if (key === undefined) return;
    const group = this.#indexed.get(key);
    group?.delete(keyOf(item));
    if (group?.size === 0) this.#indexed.delete(key);
  }

  #changed(namespace: string): void {
    this.#sorted.delete(namespace);
    this.#all = undefined;
  }
}

function namespaceOf(item: Reflected): string {
  return item.metadata?.namespace ?? "";
}

function nameOf(item: Reflected): string {
  return item.metadata?.name ?? "";
}

/** "namespace/name": an object's key, and the events index's key of a cluster. */
export function keyOf(item: Reflected): string {
  return `${namespaceOf(item)}/${nameOf(item)}`;
}

/** Whether `a` and `b` are the same version of the same object. */
function isSameVersion(a: Reflected, b: Reflected): boolean {
  return a === b ||
    (a.metadata?.uid === b.metadata?.uid &&
      !!a.metadata?.resourceVersion &&
      a.metadata.resourceVersion === b.metadata?.resourceVersion);
}

/**
 * Whether `a` is an older version of the object than `b`. resourceVersions
 * are opaque to clients, but the same object's versions come from one
 * counter on every API server in use (etcd's revision); when either is not
 * a number, `a` is taken as newer.
 */
function isOlder(a: Reflected, b: Reflected): boolean {
  const [x, y] = [a.metadata?.resourceVersion, b.metadata?.resourceVersion];
  if (a.metadata?.uid !== b.metadata?.uid) return false;
  if (!isNumeric(x) || !isNumeric(y)) return false;
  return BigInt(x) < BigInt(y);
}

/** Whether `item` is a version later than the list answered at `listedAt`. */
function isAfter(item: Reflected, listedAt: string | undefined): boolean {
  const own = item.metadata?.resourceVersion;
  if (!isNumeric(own) || !isNumeric(listedAt)) return false;
  return BigInt(own) > BigInt(listedAt);
}

function isNumeric(version: string | undefined): version is string {
  return version !== undefined && /^\d+$/.test(version);
}
