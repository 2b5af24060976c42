/** JSON values: type checks, deep equality, paths, and JSON answers. */

/** The value at a dotted path as a string; undefined when absent or null. */
export function field(object: unknown, path: string): string | undefined {
  let current: unknown = object;
  for (const part of path.split(".")) {
    if (!isRecord(current)) return undefined;
    current = current[part];
  }
  if (current === undefined || current === null) return undefined;
  return String(current);
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b)) {
    return a.length === b.length && a.every((x, i) => deepEqual(x, b[i]));
  }
  if (isRecord(a) && isRecord(b)) {
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length &&
      keys.every((k) => Object.hasOwn(b, k) && deepEqual(a[k], b[k]));
  }
  return false;
}

const NAME_SUFFIX_ALPHABET = "bcdfghjklmnpqrstvwxz2456789";

/** The 5-character suffix the real server appends to generateName. */
export function randomSuffix(length = 5): string {
  const bytes = crypto.getRandomValues(new Uint8Array(length));
  return [...bytes].map((b) =>
    NAME_SUFFIX_ALPHABET[b % NAME_SUFFIX_ALPHABET.length]
  ).join("");
}

/** A JSON answer. */
export function json(body: unknown, status = 200): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json" },
  });
}

/** The value at a field path such as `spec.groups[0].name`. */
export function valueAt(object: unknown, path: string): unknown {
  let current = object;
  for (const part of path.match(/[^.[\]]+|\[\d+\]/g) ?? []) {
    if (part.startsWith("[")) {
      current = Array.isArray(current)
        ? current[Number(part.slice(1, -1))]
        : undefined;
    } else {
      current = isRecord(current) ? current[part] : undefined;
    }
  }
  return current;
}
