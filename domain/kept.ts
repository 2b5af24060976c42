/**
 * Kept answers: values shared between requests, which the encoders and the
 * HTTP gateway may remember their encodings of.
 *
 * - What is kept: a message (or a list of them, or a whole answer) that
 *   nothing will change again, such as a cached cluster converted once
 *   (api/service/converted_clusters.ts) or a whole cached list answer.
 * - Keyed by: the value itself. Whoever remembers something about a kept
 *   value does so in a WeakMap keyed by it, so the memory goes with it.
 * - Who writes it: whoever makes a value to share calls keep(): the
 *   converted clusters and their lists, a whole list's answer
 *   (api/service/service.ts) and the cluster watch's events. freeze()
 *   alone marks a value as well.
 * - Who reads it: domain/codec.ts (keeps a kept message's JSON form) and
 *   api/http/gateway.ts (keeps a kept answer's body, its compressed form
 *   and a kept stream message's frame).
 * - Why not a field: messages are plain objects whose own fields are
 *   encoded; a marker field would be one more to skip everywhere. The mark
 *   is the frozen state itself: it is what makes sharing safe (a kept value
 *   that changed would leave every remembered encoding stale), and
 *   Object.isFrozen() is a check without a lookup.
 */

/** Marks `value` as kept: frozen, so that it can never change again. */
export function keep<T>(value: T): T {
  return Object.freeze(value) as T;
}

/** Whether `value` is kept: shared, never to change, its encodings reusable. */
export function isKept(value: unknown): boolean {
  return Object.isFrozen(value);
}

/**
 * What is made once of a kept value and kept with it (its JSON forms,
 * domain/codec.ts; its protobuf bytes, api/grpc/server.ts: KeptForms), in
 * a slot of its own rather than in a WeakMap: V8
 * marks a WeakMap's entries, and all their values hold, in the pause that
 * ends each full collection. With the JSON forms of 10,000 listed clusters
 * in a WeakMap, that pause was 22 to 44 ms, 20 to 35 of it the entries
 * (--trace-gc-nvp's mark.ephemeron.marking); a slot is an ordinary
 * reference, marked alongside the program.
 */
export interface KeptSlot {
  /** Its JSON form (messageToJson). */
  json?: Record<string, unknown>;
  /** Its JSON form as KubeRay's API server writes it (--kuberay-json). */
  gatewayJson?: Record<string, unknown>;
  /** Its protobuf encoding as the message `type` (api/grpc/server.ts). */
  proto?: { type: object; bytes: Uint8Array };
}

const SLOT = Symbol("kept slot");

/**
 * Keeps `value` (keep()) with an empty slot. The slot is no member: not
 * enumerable, so no encoder, spread or comparison sees it.
 */
export function keepWithSlot<T extends object>(value: T): T {
  if (!isKept(value)) {
    Object.defineProperty(value, SLOT, { value: {}, enumerable: false });
  }
  return keep(value);
}

/** The slot of a value kept by keepWithSlot(); undefined for any other. */
export function slotOf(value: object): KeptSlot | undefined {
  return (value as { [SLOT]?: KeptSlot })[SLOT];
}

/**
 * One form made of kept values (their JSON, their protobuf bytes): made
 * once a value, and kept in its slot where it has one (keepWithSlot), else
 * in a WeakMap, whose entries are fine for the few kept values without a
 * slot (a whole list's answer). A value that is not kept gets its form
 * made anew each time.
 */
export class KeptForms<K extends keyof KeptSlot> {
  readonly #field: K;
  readonly #forms = new WeakMap<object, NonNullable<KeptSlot[K]>>();

  /** Forms kept in the slot's `field`. */
  constructor(field: K) {
    this.#field = field;
  }

  /**
   * `value`'s form: `make(true)`'s, made once, when `value` has a slot, or
   * is kept and `keepable`; `make(false)`'s, made now, otherwise.
   */
  of(
    value: object,
    keepable: boolean,
    make: (kept: boolean) => NonNullable<KeptSlot[K]>,
  ): NonNullable<KeptSlot[K]> {
    const slot = slotOf(value);
    if (slot) return slot[this.#field] ??= make(true);
    if (!keepable || !isKept(value)) return make(false);
    let form = this.#forms.get(value);
    if (form === undefined) {
      form = make(true);
      this.#forms.set(value, form);
    }
    return form;
  }
}
