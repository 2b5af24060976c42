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
