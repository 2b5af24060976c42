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
 * What is made once of a kept value and kept with it (its JSON form,
 * domain/codec.ts), in a slot of its own rather than in a WeakMap: V8
 * marks a WeakMap's entries, and all their values hold, in the pause that
 * ends each full collection. With the JSON forms of 10,000 listed clusters
 * in a WeakMap, that pause was 22 to 44 ms, 20 to 35 of it the entries
 * (--trace-gc-nvp's mark.ephemeron.marking); a slot is an ordinary
 * reference, marked alongside the program.
 */
export interface KeptSlot {
  /** Its JSON form (messageToJson). */
  json?: unknown;
  /** Its JSON form as KubeRay's API server writes it (--kuberay-json). */
  gatewayJson?: Record<string, unknown>;
  /** Its protobuf encoding as the message `type` (api/grpc/server.ts). */
  proto?: { type: unknown; bytes: Uint8Array };
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
