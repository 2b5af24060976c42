/**
 * Events expire, as kube-apiserver's --event-ttl (1 hour by default) has
 * them: etcd keeps each Event under a lease of that length from its last
 * write, and deletes it when the lease runs out, which a watch sees as
 * DELETED. Without it the stand-in kept every Event it was ever sent, and
 * under a steady stream of creates and deletes (bench/soak.ts) its memory,
 * which in embedded mode is Corral's process's, grew without end.
 *
 * Here an Event expires `eventTtlMs` after its last write, on the stand-in's
 * clock (State.now, which tests move); expired Events are deleted at the
 * next write of any object (on a microtask, as the garbage collector
 * deletes), not by a timer of their own: an idle stand-in keeps them a
 * little longer, and holds nothing more.
 */
import type { State } from "./state.ts";
import { keyOf, type StoreEvent } from "./store.ts";
import type { KubeObject, ResourceType } from "./types.ts";

/** kube-apiserver's --event-ttl default: one hour. */
export const DEFAULT_EVENT_TTL_MS = 60 * 60_000;

/** Whether `resource` is core/v1 Events. */
function isEvents(resource: ResourceType): boolean {
  return resource.group === "" && resource.plural === "events";
}

/**
 * The Events' last writes, and the store listener that records them and
 * deletes the expired. One per stand-in.
 */
export class EventTtl {
  /** Event keys by last write, oldest first (a write moves its key last). */
  readonly #written = new Map<string, { at: number; event: KubeObject }>();
  #resource: ResourceType | undefined;
  #sweeping = false;

  constructor(readonly state: State, readonly ttlMs: number) {}

  /** The store listener (ObjectStore.subscribe). */
  observe(change: StoreEvent): void {
    if (isEvents(change.resource)) {
      this.#resource = change.resource;
      const key = keyOf(change.object);
      this.#written.delete(key);
      if (change.type !== "DELETED") {
        this.#written.set(key, { at: this.state.now(), event: change.object });
      }
    }
    if (this.#sweeping || this.#written.size === 0) return;
    this.#sweeping = true;
    queueMicrotask(() => {
      this.#sweeping = false;
      this.#expire();
    });
  }

  /** Deletes the Events last written more than ttlMs ago. */
  #expire(): void {
    const resource = this.#resource;
    if (!resource) return;
    const before = this.state.now() - this.ttlMs;
    for (const [key, { at, event }] of this.#written) {
      if (at > before) break;
      this.#written.delete(key);
      const held = this.state.store.get(
        resource,
        event.metadata.namespace ?? "",
        event.metadata.name ?? "",
      );
      if (!held) continue;
      held.metadata.resourceVersion = this.state.store.nextRevision();
      this.state.store.remove(resource, held);
    }
  }

  /** How many Events are held (for tests). */
  get size(): number {
    return this.#written.size;
  }
}
