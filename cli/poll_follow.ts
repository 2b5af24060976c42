/**
 * Following objects the API has no watch of, by reading them again and
 * again and comparing: the changes of a watch (ADDED, MODIFIED, DELETED,
 * with one BOOKMARK once the objects as they are have all come), made from
 * reads. Jobs (job_follow.ts) and services (service_wait.ts) are followed
 * this way; a kind that gains a watch stream changes its caller, not this.
 */
import type { CorralClient } from "./client.ts";
import { ApiError } from "./errors.ts";
import { Code } from "../domain/errors.ts";

/** One change to an object, as a watch answers it. */
export interface Change<T> {
  type: "ADDED" | "MODIFIED" | "DELETED" | "BOOKMARK";
  object: T | null;
}

/** What is read: one object by its route, or a list by its route and field. */
export type Reading =
  | { one: string }
  | { list: string; field: string };

/**
 * The objects `reading` names now, by "namespace/name". One object that is
 * not there (code 5) is no object, so its coming is seen as ADDED.
 */
export async function readObjects<
  T extends { namespace: string; name: string },
>(client: CorralClient, reading: Reading): Promise<Map<string, T>> {
  const objects: T[] = [];
  if ("one" in reading) {
    try {
      objects.push(await client.call<T>("GET", reading.one));
    } catch (error) {
      if (!(error instanceof ApiError && error.code === Code.NOT_FOUND)) {
        throw error;
      }
    }
  } else {
    const answer = await client.call<Record<string, T[] | undefined>>(
      "GET",
      reading.list,
    );
    objects.push(...answer[reading.field] ?? []);
  }
  return new Map(objects.map((o) => [`${o.namespace}/${o.name}`, o]));
}

/**
 * The changes of what `read` answers, read every `everyMs` until `signal`
 * aborts: first each object there is (ADDED) and a BOOKMARK, then each
 * change as it is seen. An error of `read` ends the changes with it.
 */
export async function* pollChanges<T>(
  read: () => Promise<Map<string, T>>,
  everyMs: number,
  signal: AbortSignal,
): AsyncGenerator<Change<T>> {
  let known = new Map<string, T>();
  let first = true;
  while (!signal.aborted) {
    const now = await read();
    for (const [key, object] of now) {
      const before = known.get(key);
      if (!before) yield { type: "ADDED", object };
      else if (JSON.stringify(before) !== JSON.stringify(object)) {
        yield { type: "MODIFIED", object };
      }
    }
    for (const [key, object] of known) {
      if (!now.has(key)) yield { type: "DELETED", object };
    }
    known = now;
    if (first) yield { type: "BOOKMARK", object: null };
    first = false;
    await delay(everyMs, signal);
  }
}

/** Resolves after `ms`, or at once when `signal` aborts. */
function delay(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
    function done() {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
  });
}
