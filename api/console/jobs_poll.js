// @ts-check
/// <reference lib="dom" />
/**
 * Keeps `state.jobs` as the API has them, for the views that show jobs,
 * and only while one is shown. The API has no watch of jobs yet, so this
 * reads ListAllRayJobs every 2 s; it is the one module that does, and the
 * one to change (to a stream, as watch.js follows clusters) once
 * WatchRayJobs exists: the views only read the state and redraw.
 */
import { ApiError, listJobs } from "./api.js";
import { lastNamespace } from "./session.js";
import { clusterNamespaces, state } from "./state.js";

/** How often the jobs are read again. */
export const POLL_MS = 2_000;

/** The gRPC code of an answer refused for lack of permission. */
const PERMISSION_DENIED = 7;

/**
 * The jobs the caller may see: every namespace's, else (when listing them
 * all is not allowed) those of the namespaces the console knows of.
 */
async function readJobs() {
  try {
    return await listJobs();
  } catch (error) {
    if (!(error instanceof ApiError && error.code === PERMISSION_DENIED)) {
      throw error;
    }
  }
  const namespaces = new Set(clusterNamespaces());
  const last = lastNamespace();
  if (last) namespaces.add(last);
  const lists = await Promise.all(
    [...namespaces].map((ns) => listJobs(ns).catch(() => [])),
  );
  return lists.flat();
}

/**
 * Reads the jobs now and every POLL_MS after, calling `onChange` when they
 * differ from what the state had; stops on a 401 (signing in again routes
 * anew, which starts it again) and when the returned function is called.
 * @param {() => void} onChange
 * @returns {() => void} stops it
 */
export function pollJobs(onChange) {
  let stopped = false;
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let timer;
  async function read() {
    try {
      const jobs = await readJobs();
      if (stopped) return;
      const next = new Map(jobs.map((j) => [`${j.namespace}/${j.name}`, j]));
      const changed = !state.jobsSynced ||
        JSON.stringify([...next]) !== JSON.stringify([...state.jobs]);
      state.jobs = next;
      state.jobsSynced = true;
      if (changed) onChange();
    } catch (error) {
      if (error instanceof ApiError && error.status === 401) return;
    }
    if (!stopped) timer = setTimeout(read, POLL_MS);
  }
  read();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}
