// @ts-check
/// <reference lib="dom" />
/**
 * Keeping a kind of object the API has no watch of (services) as the API
 * has it, by reading its list again every 2 s while a view that shows it
 * is open. services_poll.js says what it reads and where in the state it
 * goes; this module does the reading, the fallback to the namespaces the
 * console knows of, and the timing. Jobs are watched (jobs_watch.js, with
 * the same fallback), and read this way only from a Corral that cannot
 * watch them.
 */
import { ApiError } from "./api.js";
import { listObjects } from "./api_objects.js";
import { lastNamespace } from "./session.js";
import { clusterNamespaces } from "./state.js";

/** How often the objects are read again. */
export const POLL_MS = 2_000;

/** The gRPC code of an answer refused for lack of permission. */
const PERMISSION_DENIED = 7;

/**
 * The objects of a kind the caller may see: every namespace's, else, when
 * listing them all is not allowed, those of the namespaces the console
 * knows of (listed one by one).
 * @template T
 * @param {import("./api_objects.js").Kind<T>} kind
 * @returns {Promise<T[]>}
 */
export async function readVisible(kind) {
  try {
    return await listObjects(kind);
  } catch (error) {
    if (!(error instanceof ApiError && error.code === PERMISSION_DENIED)) {
      throw error;
    }
  }
  const lists = await Promise.all(
    knownNamespaces().map((ns) => listObjects(kind, ns).catch(() => [])),
  );
  return lists.flat();
}

/**
 * The namespaces the console knows of: those that have clusters, and the
 * last one a form named.
 * @returns {string[]}
 */
export function knownNamespaces() {
  const namespaces = new Set(clusterNamespaces());
  const last = lastNamespace();
  if (last) namespaces.add(last);
  return [...namespaces];
}

/**
 * Reads the objects now and every POLL_MS after, keyed by
 * "namespace/name", and hands them to `store`, which keeps them and says
 * whether they changed; calls `onChange` when they did. Stops on a 401
 * (signing in again routes anew, which starts it again) and when the
 * returned function is called.
 * @template {{ namespace: string, name: string }} T
 * @param {() => Promise<T[]>} read
 * @param {(next: Map<string, T>) => boolean} store
 * @param {() => void} onChange
 * @returns {() => void} stops it
 */
export function pollList(read, store, onChange) {
  let stopped = false;
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let timer;
  async function once() {
    try {
      const objects = await read();
      if (stopped) return;
      const next = new Map(objects.map((o) => [`${o.namespace}/${o.name}`, o]));
      if (store(next)) onChange();
    } catch (error) {
      if (error instanceof ApiError && error.status === 401) return;
    }
    if (!stopped) timer = setTimeout(once, POLL_MS);
  }
  once();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}

/**
 * Whether `next` differs from `before`, or nothing was read before.
 * @param {Map<string, unknown>} before
 * @param {Map<string, unknown>} next
 * @param {boolean} synced whether `before` was ever read
 */
export function changed(before, next, synced) {
  return !synced || JSON.stringify([...next]) !== JSON.stringify([...before]);
}
