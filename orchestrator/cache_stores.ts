/**
 * What the cache holds: per kind of domain/kinds.ts (KindStore) its objects
 * and the Events about them, one Store each, and the listeners told of
 * every change of an object (or of its events) as it is applied.
 *
 * Epochs: Kubernetes' resource versions (etcd's revision, one counter for
 * every resource) only grow, until an API server loses its data or has it
 * restored. A reflector then lists at a version lower than the last it
 * synced (a reset, reflector.ts), and the cache starts a new epoch: the
 * listeners are told first (a change of no object), so that what they
 * made of the old versions (resume points) is let go. Every reflector sees
 * the same reset, and counts its own: the epoch is the most any has
 * counted, so one reset seen by all of them is one epoch.
 */
import {
  type Kind,
  type KindName,
  type KindObject,
  type KindObjects,
  KINDS,
} from "../domain/kinds.ts";
import type { Change } from "../domain/ports.ts";
import type { KubeEvent } from "../domain/resources.ts";
import { SharedParts } from "../domain/shared_parts.ts";
import type { Reflected, StoreChange } from "./reflector.ts";
import { OrphanEvents, type OrphanEventsOptions } from "./orphan_events.ts";
import { type Changed, keyOf, Store } from "./store.ts";
import { KEPT, trimEvent } from "./trim.ts";

/** Every kind's store, by the kind's name. */
export type KindStores = {
  readonly [K in KindName]: KindStore<KindObjects[K]>;
};

export class CacheStores {
  readonly #epochs = new Epochs();
  /** The clusters' groups, held once however many clusters have them. */
  readonly #groups = new SharedParts();
  readonly #options: OrphanEventsOptions;
  readonly kinds: KindStores;

  /** `options`: how long Events about objects not held are kept. */
  constructor(options: OrphanEventsOptions = {}) {
    this.#options = options;
    this.kinds = {
      clusters: this.#kindStore("clusters"),
      templates: this.#kindStore("templates"),
      jobs: this.#kindStore("jobs"),
      services: this.#kindStore("services"),
    };
  }

  /** How many times the cache saw Kubernetes' versions start again. */
  get epoch(): number {
    return this.#epochs.current;
  }

  #kindStore<K extends KindName>(name: K): KindStore<KindObjects[K]> {
    const keep = KEPT[name];
    const shared = this.#groups;
    return new KindStore(
      KINDS[name],
      (object) => keep(object, shared),
      this.#epochs,
      this.#options,
    );
  }
}

type Listener<T> = (change: Change<T>) => void;

/**
 * One kind's objects, the Events about them (none for a kind whose Events
 * are not read), and the listeners told of every change of an object or
 * of the events about one. Events about an object the store does not hold
 * are dropped once it has been missing a while (orphan_events.ts).
 */
export class KindStore<T extends KindObject> {
  readonly objects = new Store<T>();
  /** Indexed by the `namespace/name` of the object each is about. */
  readonly events: Store<KubeEvent> | undefined;
  /**
   * An object as the cache keeps it (trim.ts); the reflectors trim what
   * they hand over with it, item by item as each page arrives, so that a
   * list of 50,000 never holds them all whole at once.
   */
  readonly trim: (object: T) => T;
  /** The involvedObject.kind of the Events about the kind's objects. */
  readonly #involved: string;
  readonly #listeners = new Set<Listener<T>>();
  readonly #epochs: Epochs;
  readonly #orphans: OrphanEvents;

  constructor(
    kind: Kind<T>,
    trim: (object: T) => T,
    epochs: Epochs,
    options: OrphanEventsOptions = {},
  ) {
    const involved = kind.resource.kind;
    this.#involved = involved;
    this.events = kind.events === undefined
      ? undefined
      : new Store<KubeEvent>((event) => involvedKey(event, involved), {
        now: options.now,
      });
    this.trim = trim;
    this.#epochs = epochs;
    this.#orphans = new OrphanEvents(options);
    epochs.onStart((started) => {
      for (const listener of this.#listeners) listener(started);
    });
  }

  /** The cache's epoch: how many resets of versions it has seen. */
  get epoch(): number {
    return this.#epochs.current;
  }

  /** Applies a change of objects as Kubernetes answered them (a write's). */
  apply(change: StoreChange<T>, namespace = ""): void {
    this.applyKept(trimmed(change, this.trim), namespace);
  }

  /** Applies a change of objects already trimmed (the reflectors'). */
  applyKept(change: StoreChange<T>, namespace = ""): void {
    this.#epochs.note(change);
    const changed = this.objects.apply(change, namespace);
    for (const pair of changed) {
      const key = keyOf((pair[1] ?? pair[0])!);
      if (pair[1]) this.#orphans.found(key);
      else if (this.#hasEvents(key)) this.#orphans.missing(key);
      if (this.#listeners.size > 0) {
        this.#tell(key, pair[1], pair[0], versionOf(change, pair));
      }
    }
    this.#dropOrphanEvents();
  }

  /** Applies a change of the Events, trimmed; tells of their objects. */
  applyEvents(change: StoreChange<KubeEvent>, namespace = ""): void {
    this.applyKeptEvents(trimmed(change, trimEvent), namespace);
  }

  /** As applyEvents, of Events already trimmed (the reflectors'). */
  applyKeptEvents(change: StoreChange<KubeEvent>, namespace = ""): void {
    this.#epochs.note(change);
    const changed = this.events?.apply(change, namespace) ?? [];
    for (const pair of changed) {
      const about = (pair[1] ?? pair[0])!.involvedObject;
      if (about?.kind !== this.#involved) continue;
      const object = this.objects.get(about.namespace ?? "", about.name ?? "");
      if (!object) {
        if (pair[1]) {
          this.#orphans.missing(involvedKey(pair[1], this.#involved)!);
        }
      } else if (this.#listeners.size > 0) {
        this.#tell(keyOf(object), object, object, versionOf(change, pair));
      }
    }
    this.#dropOrphanEvents();
  }

  /** Whether the store holds Events about the object `key` names. */
  #hasEvents(key: string): boolean {
    return this.events !== undefined &&
      !this.events.indexed(key)[Symbol.iterator]().next().done;
  }

  /**
   * Drops the Events about objects missing for longer than the orphans'
   * time (orphan_events.ts), unless held again by now; as deletions, so
   * that the store's tombstones keep a relist from bringing them back.
   */
  #dropOrphanEvents(): void {
    const events = this.events;
    if (events === undefined) return;
    for (const key of this.#orphans.expired()) {
      const at = key.indexOf("/");
      if (this.objects.get(key.slice(0, at), key.slice(at + 1))) continue;
      for (const event of [...events.indexed(key)]) {
        events.apply({ type: "delete", item: event });
      }
    }
  }

  /** The events of the object `key` (`team-a/blue`) names. */
  eventsOf(key: string): KubeEvent[] {
    return this.events === undefined ? [] : [...this.events.indexed(key)];
  }

  /**
   * Tells `listener` of every object held now, then of every change;
   * answers the function that stops it (ObjectPort.watch).
   */
  watch(listener: Listener<T>): () => void {
    const epoch = this.#epochs.current;
    for (const object of this.objects.list()) {
      listener({
        namespace: object.metadata.namespace ?? "",
        name: object.metadata.name,
        object,
        events: this.eventsOf(keyOf(object)),
        resourceVersion: object.metadata.resourceVersion ?? "",
        epoch,
      });
    }
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Tells the listeners of the object `key` names. */
  #tell(
    key: string,
    object: T | undefined,
    before: T | undefined,
    resourceVersion: string,
  ): void {
    const shown = object ?? before;
    if (shown === undefined) return;
    // The events are gathered only if a listener asks: while the cache
    // lists 10,000 objects and their events nobody does.
    let about: KubeEvent[] | undefined;
    const events = this.events;
    const change: Change<T> = {
      namespace: shown.metadata.namespace ?? "",
      name: shown.metadata.name,
      object,
      before,
      get events() {
        return about ??= events === undefined ? [] : [...events.indexed(key)];
      },
      resourceVersion,
      epoch: this.#epochs.current,
    };
    for (const listener of this.#listeners) listener(change);
  }
}

/** The cache's epoch (see above), and who is told when a new one starts. */
class Epochs {
  #epoch = 0;
  readonly #told: Listener<never>[] = [];

  get current(): number {
    return this.#epoch;
  }

  /** `tell` is told of each new epoch (a change of no object). */
  onStart(tell: Listener<never>): void {
    this.#told.push(tell);
  }

  /**
   * Starts a new epoch when a reset brings one: told at once, before the
   * change's own.
   */
  note<T extends Reflected>(change: StoreChange<T>): void {
    if (change.type !== "replace" || change.reset === undefined) return;
    if (change.reset.count <= this.#epoch) return;
    this.#epoch = change.reset.count;
    // Of no object: a change of every kind alike.
    const started: Change<never> = {
      namespace: "",
      name: "",
      events: [],
      resourceVersion: change.resourceVersion ?? "",
      epoch: this.#epoch,
    };
    for (const tell of this.#told) tell(started);
  }
}

/** The events store's index key of the object of `kind` an event is about. */
function involvedKey(event: KubeEvent, kind: string): string | undefined {
  const object = event.involvedObject;
  if (object?.kind !== kind) return undefined;
  return `${object.namespace ?? ""}/${object.name ?? ""}`;
}

/**
 * The resourceVersion of one object's change: the object's own, or, for
 * one a relist dropped, the list's (a deletion's own is the object as
 * the watch delivered it).
 */
function versionOf<T extends Reflected>(
  change: StoreChange<T>,
  [, after]: Changed<T>,
): string {
  if (after) return after.metadata?.resourceVersion ?? "";
  if (change.type === "replace") return change.resourceVersion ?? "";
  return change.item.metadata?.resourceVersion ?? "";
}

/**
 * `change` with each object as the cache keeps it (trim.ts): one transform
 * per resource, applied here, where the answers of writes and lookups
 * enter the stores (the reflectors trim as they list and watch).
 */
function trimmed<T extends Reflected>(
  change: StoreChange<T>,
  trim: (item: T) => T,
): StoreChange<T> {
  return change.type === "replace"
    ? { ...change, items: change.items.map(trim) }
    : { ...change, item: trim(change.item) };
}
