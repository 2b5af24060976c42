/**
 * Parts of objects held once however many objects have them, frozen: the
 * cache's cluster groups (orchestrator/trim.ts) and the converted
 * clusters' specs (api/service/converted_clusters.ts). Clusters made from
 * the same compute templates and images have parts equal to the letter.
 */

/**
 * Parts of objects held once however many objects have them: share(part)
 * answers the part equal to `part` already held (deeply equal), else holds
 * `part`, frozen, and answers it. Parts are found by a hash of their JSON
 * text (the text itself is not kept: for parts that are all different it
 * would double what they cost) and held weakly: a part no object has any
 * more is dropped with its entry.
 */
export class SharedParts {
  readonly #parts = new Map<number, WeakRef<object>>();
  readonly #dropped = new FinalizationRegistry<number>((hash) => {
    if (this.#parts.get(hash)?.deref() === undefined) this.#parts.delete(hash);
  });

  /** The parts held, for tests. */
  get size(): number {
    return this.#parts.size;
  }

  share<T extends object>(part: T): T {
    // Frozen: held here already (a cluster trimmed twice, once as the
    // reflector hands it over and once as it enters the store).
    if (Object.isFrozen(part)) return part;
    const hash = hashOf(JSON.stringify(part));
    const held = this.#parts.get(hash)?.deref();
    if (held !== undefined && deepEqual(held, part)) return held as T;
    // A collision with a different part keeps the first: rare, and costs
    // only the sharing.
    if (held !== undefined) return part;
    deepFreeze(part);
    this.#parts.set(hash, new WeakRef(part));
    this.#dropped.register(part, hash);
    return part;
  }
}

/** A 53-bit hash of `text` (cyrb53). */
function hashOf(text: string): number {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 2654435761);
    h2 = Math.imul(h2 ^ c, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^
    Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^
    Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return 4294967296 * (2097151 & h2) + (h1 >>> 0);
}

/** Whether two JSON values are equal, member for member. */
function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || !a || !b) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  const [x, y] = [a as Record<string, unknown>, b as Record<string, unknown>];
  return keys.every((key) => key in y && deepEqual(x[key], y[key]));
}

function deepFreeze(value: unknown): void {
  if (typeof value !== "object" || value === null || Object.isFrozen(value)) {
    return;
  }
  for (const member of Object.values(value)) deepFreeze(member);
  Object.freeze(value);
}
