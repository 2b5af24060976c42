import { isPlainObject } from "./message_form.ts";
/**
 * JSON merge patches (RFC 7386), as the Kubernetes API server applies a
 * PATCH of application/merge-patch+json: an object patch merges into the
 * target key by key, `null` removes a key, and anything else (a list, a
 * value) replaces what was there.
 */

/** `target` with `patch` merged in; neither is changed. */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isPlainObject(patch)) return patch;
  const merged: Record<string, unknown> = isPlainObject(target)
    ? { ...target }
    : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete merged[key];
    else merged[key] = mergePatch(merged[key], value);
  }
  return merged;
}
