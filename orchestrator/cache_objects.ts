/**
 * One kind's port (domain/ports.ts: ObjectPort) with reads from the cache's
 * store of the kind (cache_stores.ts: KindStore), written once for every
 * kind of domain/kinds.ts; cache.ts says when reads come from memory.
 *
 * - A read with `fresh: true` (a get, a list, an events list) asks
 *   Kubernetes, whatever the store holds: the read an update builds on, a
 *   quota's count that must see another replica's writes.
 * - A get that misses asks Kubernetes before answering NOT_FOUND
 *   (cache_misses.ts); what it finds is answered as the store then holds it.
 * - Writes go to Kubernetes; what it answers goes into the store at once,
 *   while the cache is in step. While it is not (a lost watch lists
 *   again: the API server may have come back without its data) the answer
 *   is left to the list, which replaces the store: an answer kept before
 *   it would be news of an API server the cache has not listed yet, told
 *   to watchers at versions that mean nothing to them.
 */
import { Code, ServiceError } from "../domain/errors.ts";
import { type Kind, type KindObject, listedName } from "../domain/kinds.ts";
import type {
  CallOptions,
  Change,
  ListOptions,
  ObjectPort,
} from "../domain/ports.ts";
import type { KubeEvent } from "../domain/resources.ts";
import type { MissLookups } from "./cache_misses.ts";
import type { KindStore } from "./cache_stores.ts";

/**
 * Whether the cache answers reads now (CacheReflectors.staleness), and
 * keeps answers (CacheReflectors.notInStep).
 */
export interface CacheGate {
  /**
   * Undefined while reads come from memory; else why not, and whether it
   * is because the API server does not answer at all.
   */
  staleness(): { reason: string; unanswered: boolean } | undefined;
  /** Undefined while the cache is in step; else why not. */
  notInStep(): string | undefined;
}

/** A write's answer, as the store applies it. */
type WriteChange<T> = { type: "upsert" | "delete"; item: T };

/**
 * At most this many write answers wait for the store to be back in step
 * (the oldest go first): a replica out of step for long keeps no more.
 */
const MAX_PENDING = 1_000;

/**
 * Reads from `held` while the cache is in step, from `direct` otherwise;
 * writes through `direct`, their answers kept.
 */
export class CachedObjects<T extends KindObject> implements ObjectPort<T> {
  readonly #kind: Kind<T>;
  readonly #direct: ObjectPort<T>;
  readonly #held: KindStore<T>;
  readonly #misses: MissLookups<T>;
  readonly #gate: CacheGate;
  /**
   * Write answers made while the cache was out of step, with the epoch
   * they were made in: kept for the first read once it is back in step
   * (#caughtUp), so that a relist taken just before a write does not hide
   * that write from this replica until the watch brings it.
   */
  #pending: { change: WriteChange<T>; epoch: number }[] = [];

  constructor(
    kind: Kind<T>,
    direct: ObjectPort<T>,
    held: KindStore<T>,
    misses: MissLookups<T>,
    gate: CacheGate,
  ) {
    this.#kind = kind;
    this.#direct = direct;
    this.#held = held;
    this.#misses = misses;
    this.#gate = gate;
  }

  async create(object: T, call?: CallOptions): Promise<T> {
    const created = await this.#direct.create(object, call);
    this.#keep({ type: "upsert", item: created });
    return created;
  }

  async get(namespace: string, name: string, call?: CallOptions): Promise<T> {
    if (call?.fresh || this.#readDirectly("get", namespace, name)) {
      const found = await this.#direct.get(namespace, name, call);
      this.#keep({ type: "upsert", item: found });
      return found;
    }
    this.#caughtUp();
    const held = this.#held.objects.get(namespace, name);
    if (held !== undefined) return held;
    const action = this.#action("get", namespace, name);
    const found = await this.#misses.find(
      `${namespace}/${name}`,
      action,
      (lookup) => this.#direct.get(namespace, name, lookup),
      call,
    );
    return this.#asHeld(found, action);
  }

  async list(namespace?: string, call?: ListOptions): Promise<T[]> {
    if (call?.fresh || this.#readDirectly("list")) {
      // What Kubernetes holds now, another replica's writes included; the
      // store is left to the watch (a list is no news of any one object).
      return await this.#direct.list(namespace, call);
    }
    this.#caughtUp();
    // The store's own array, the same object until something changes (the
    // handlers keep what they made of it while it stays the same).
    const held = this.#held.objects.list(namespace) as T[];
    const names = call?.names;
    if (names === undefined) return held;
    const wanted = new Set(names);
    return held.filter((object) => wanted.has(listedName(this.#kind, object)));
  }

  async update(object: T, call?: CallOptions): Promise<T> {
    const updated = await this.#direct.update(object, call);
    this.#keep({ type: "upsert", item: updated });
    return updated;
  }

  async delete(
    namespace: string,
    name: string,
    call?: CallOptions,
  ): Promise<void> {
    await this.#direct.delete(namespace, name, call);
    // Gone from this replica's reads at once; an object that finalizers
    // keep comes back (with its deletion time) from the watch or a get.
    const held = this.#held.objects.get(namespace, name);
    if (held) this.#keep({ type: "delete", item: held });
  }

  async events(
    namespace?: string,
    name?: string,
    call?: CallOptions,
  ): Promise<KubeEvent[]> {
    if (call?.fresh || this.#readDirectly("list events")) {
      return await this.#direct.events(namespace, name, call);
    }
    this.#caughtUp();
    if (name !== undefined) {
      return this.#held.eventsOf(`${namespace ?? ""}/${name}`);
    }
    // Only the events about the kind's objects are listed into the store.
    return (this.#held.events?.list(namespace) ?? []) as KubeEvent[];
  }

  watch(listener: (change: Change<T>) => void): () => void {
    return this.#held.watch(listener);
  }

  /**
   * What a miss's lookup found, as the store holds it once put there: the
   * newer version when the watch brought one meanwhile, NOT_FOUND when the
   * watch saw it deleted meanwhile (a late answer brings nothing back).
   */
  #asHeld(found: T, action: string): T {
    if (!this.#inStep()) return found;
    this.#held.apply({ type: "upsert", item: found });
    const { namespace = "", name } = found.metadata;
    const held = this.#held.objects.get(namespace, name);
    if (held === undefined) {
      throw new ServiceError(Code.NOT_FOUND, `${action}: not found`);
    }
    return held;
  }

  #inStep(): boolean {
    return this.#gate.notInStep() === undefined;
  }

  /**
   * Applies what Kubernetes answered while the cache is in step; else keeps
   * it for when it is (a store out of step is being listed again, and may be
   * replaced, so the answer would be lost).
   */
  #keep(change: WriteChange<T>): void {
    if (this.#inStep()) return this.#held.apply(change);
    if (this.#pending.length >= MAX_PENDING) this.#pending.shift();
    this.#pending.push({ change, epoch: this.#held.epoch });
  }

  /**
   * Before a read from memory: the write answers kept while out of step,
   * applied now the store is listed again. The store takes none older than
   * what it holds, nor one it saw deleted since; an answer of an epoch
   * before the current one (an API server that lost its data since) is
   * dropped, since what it names may be what was lost.
   */
  #caughtUp(): void {
    if (this.#pending.length === 0 || !this.#inStep()) return;
    const epoch = this.#held.epoch;
    for (const kept of this.#pending) {
      if (kept.epoch === epoch) this.#held.apply(kept.change);
    }
    this.#pending = [];
  }

  /**
   * Whether a read goes to Kubernetes (the cache is not in step); throws
   * UNAVAILABLE, the action first, when the API server does not answer.
   * The action's words are made only then: a read from memory makes none.
   */
  #readDirectly(
    verb: "get" | "list" | "list events",
    namespace?: string,
    name?: string,
  ): boolean {
    const staleness = this.#gate.staleness();
    if (staleness === undefined) return false;
    if (staleness.unanswered) {
      throw new ServiceError(
        Code.UNAVAILABLE,
        `${
          this.#action(verb, namespace, name)
        }: Kubernetes API unavailable: it does not answer (${staleness.reason})`,
      );
    }
    return true;
  }

  /**
   * The failed action's words: `Cannot get cluster "team-a/blue"`,
   * `Cannot list clusters`, `Cannot list cluster events`.
   */
  #action(
    verb: "get" | "list" | "list events",
    namespace?: string,
    name?: string,
  ): string {
    const { noun } = this.#kind;
    switch (verb) {
      case "get":
        return `Cannot get ${noun} "${namespace}/${name}"`;
      case "list":
        return `Cannot list ${noun}s`;
      case "list events":
        return `Cannot list ${noun} events`;
    }
  }
}
