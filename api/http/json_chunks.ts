/**
 * A JSON value's text in chunks, for an answer too large to keep encoded
 * (json_answers.ts): the members of an object one by one, an array's items
 * a batch at a time, each batch encoded when it is asked for. The chunks
 * joined are JSON.stringify(value).
 */

/** Items of an array encoded per chunk: about 1.5 MB of clusters. */
const BATCH = 1_000;

/** The text of `value` in chunks, JSON.stringify(value) once joined. */
export function* jsonChunks(value: unknown): Generator<string> {
  if (Array.isArray(value)) {
    yield "[";
    for (let i = 0; i < value.length; i += BATCH) {
      const batch = JSON.stringify(value.slice(i, i + BATCH));
      yield (i === 0 ? "" : ",") + batch.slice(1, -1);
    }
    yield "]";
    return;
  }
  if (value === null || typeof value !== "object") {
    yield JSON.stringify(value) ?? "null";
    return;
  }
  yield "{";
  let first = true;
  for (const [key, member] of Object.entries(value)) {
    // As JSON.stringify leaves them out.
    if (member === undefined || typeof member === "function") continue;
    yield `${first ? "" : ","}${JSON.stringify(key)}:`;
    first = false;
    if (Array.isArray(member)) yield* jsonChunks(member);
    else yield JSON.stringify(member);
  }
  yield "}";
}

/**
 * About how many bytes `value`'s JSON text takes: its arrays (top-level or
 * members of a top-level object) by the length of their first items times
 * their length. Enough to tell a list of 50,000 from one of 10.
 */
export function estimatedJsonBytes(value: unknown): number {
  const arrays = Array.isArray(value)
    ? [value]
    : value !== null && typeof value === "object"
    ? Object.values(value).filter(Array.isArray)
    : [];
  let bytes = 0;
  for (const items of arrays) {
    const sample = items.slice(0, 16);
    if (sample.length === 0) continue;
    bytes += JSON.stringify(sample).length / sample.length * items.length;
  }
  return bytes;
}
