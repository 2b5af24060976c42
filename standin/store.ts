/**
 * The one generic in-memory store behind every resource type: objects, one
 * global resourceVersion counter and, per type, the bounded history of
 * changes that watches replay and consistent lists are rebuilt from.
 */

import type { KubeObject, ResourceType } from "./types.ts";

/** A change to a stored object, as watches stream it. */
export interface StoreEvent {
  type: "ADDED" | "MODIFIED" | "DELETED";
  resource: ResourceType;
  /** The object after the change (for DELETED, its last state). */
  object: KubeObject;
  /** The object before the change (MODIFIED and DELETED). */
  previous?: KubeObject;
  /** The revision of the change: the object's new resourceVersion. */
  revision: number;
}

export function storeKey(resource: ResourceType): string {
  return `${resource.plural}.${resource.group}`;
}

function objectKey(namespace: string, name: string): string {
  return `${namespace}/${name}`;
}

export function keyOf(object: KubeObject): string {
  return objectKey(object.metadata.namespace ?? "", object.metadata.name ?? "");
}

/** The retained changes of one resource type. */
interface History {
  events: StoreEvent[];
  /** Every change of the type after this revision is in `events`. */
  start: number;
}

/**
 * All objects of all types, keyed by resource and namespace/name, with one
 * global resourceVersion counter (as etcd's revision) and, per resource
 * type, a bounded history of changes (as the watch cache keeps) from which
 * watches replay and consistent list snapshots are rebuilt. Objects go in
 * and out as deep copies, so callers can never mutate what is stored;
 * events handed to listeners are shared and must not be mutated.
 */
export class ObjectStore {
  #revision = 0;
  #objects = new Map<string, Map<string, KubeObject>>();
  #history = new Map<string, History>();
  #historyLimit: number;
  #listeners = new Set<(event: StoreEvent) => void>();

  constructor(historyLimit: number) {
    this.#historyLimit = historyLimit;
  }

  get revision(): string {
    return String(this.#revision);
  }

  get revisionNumber(): number {
    return this.#revision;
  }

  nextRevision(): string {
    this.#revision += 1;
    return String(this.#revision);
  }

  #table(resource: ResourceType): Map<string, KubeObject> {
    const key = storeKey(resource);
    let table = this.#objects.get(key);
    if (!table) {
      table = new Map();
      this.#objects.set(key, table);
    }
    return table;
  }

  #historyOf(resource: ResourceType): History {
    const key = storeKey(resource);
    let history = this.#history.get(key);
    if (!history) {
      history = { events: [], start: 0 };
      this.#history.set(key, history);
    }
    return history;
  }

  get(
    resource: ResourceType,
    namespace: string,
    name: string,
  ): KubeObject | undefined {
    const found = this.#table(resource).get(objectKey(namespace, name));
    return found ? structuredClone(found) : undefined;
  }

  /** Objects of one namespace (or all), sorted as etcd keys sort. */
  list(resource: ResourceType, namespace?: string): KubeObject[] {
    return this.select(resource, { namespace })!.map((o) => structuredClone(o));
  }

  /**
   * The objects of one namespace (or all) that `keep` keeps, sorted as etcd
   * keys sort, as they are now or were at `revision` (undefined when that
   * revision has left the history). They are the store's own: read them,
   * never change them (a list clones only the page it answers).
   */
  select(
    resource: ResourceType,
    options: {
      namespace?: string;
      revision?: number;
      /** The first key (namespace/name) wanted: a page's start. */
      from?: string;
      keep?: (object: KubeObject) => boolean;
    },
  ): readonly KubeObject[] | undefined {
    const { namespace, revision, from = "", keep } = options;
    let table = this.#table(resource);
    if (revision !== undefined) {
      const changes = this.changesSince(resource, revision);
      if (changes === undefined) return undefined;
      if (changes.length > 0) table = new Map(table);
      for (const change of changes.toReversed()) {
        if (change.type === "ADDED") table.delete(keyOf(change.object));
        else if (change.previous) {
          table.set(keyOf(change.object), change.previous);
        }
      }
    }
    // The table's keys are the objects' keys: pages of a large list filter
    // and sort on them without making any.
    const chosen: [string, KubeObject][] = [];
    for (const entry of table) {
      const [key, object] = entry;
      if (key < from) continue;
      if (
        namespace !== undefined &&
        (object.metadata.namespace ?? "") !== namespace
      ) continue;
      if (keep === undefined || keep(object)) chosen.push(entry);
    }
    return chosen.sort(([a], [b]) => a < b ? -1 : a > b ? 1 : 0)
      .map(([, object]) => object);
  }

  /**
   * The oldest revision a watch or snapshot of this type can start from:
   * undefined when the whole history is retained.
   */
  oldestRevision(resource: ResourceType): number | undefined {
    const history = this.#historyOf(resource);
    if (history.start === 0) return undefined;
    return history.events.length > 0
      ? history.events[0].revision - 1
      : history.start;
  }

  /** Changes of one type after `revision`; undefined when no longer kept. */
  changesSince(
    resource: ResourceType,
    revision: number,
  ): StoreEvent[] | undefined {
    const oldest = this.oldestRevision(resource);
    if (oldest !== undefined && revision < oldest) return undefined;
    return this.#historyOf(resource).events.filter((e) =>
      e.revision > revision
    );
  }

  put(resource: ResourceType, object: KubeObject): void {
    const table = this.#table(resource);
    const key = keyOf(object);
    const previous = table.get(key);
    const stored = structuredClone(object);
    table.set(key, stored);
    this.#record({
      type: previous ? "MODIFIED" : "ADDED",
      resource,
      object: stored,
      previous,
      revision: Number(object.metadata.resourceVersion),
    });
  }

  remove(resource: ResourceType, object: KubeObject): void {
    const table = this.#table(resource);
    const key = keyOf(object);
    const previous = table.get(key);
    if (table.delete(key)) {
      this.#record({
        type: "DELETED",
        resource,
        object: structuredClone(object),
        previous,
        revision: Number(object.metadata.resourceVersion),
      });
    }
  }

  subscribe(listener: (event: StoreEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  #record(event: StoreEvent): void {
    const history = this.#historyOf(event.resource);
    history.events.push(event);
    while (history.events.length > this.#historyLimit) {
      history.start = history.events.shift()!.revision;
    }
    // A listener may subscribe another (a watch starting): a snapshot
    // keeps it from seeing this event twice.
    for (const listener of [...this.#listeners]) listener(event);
  }
}
