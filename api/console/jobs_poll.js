// @ts-check
/// <reference lib="dom" />
/**
 * Keeps `state.jobs` as the API has them, for the views that show jobs,
 * and only while one is shown. The API has no watch of jobs yet, so this
 * reads ListAllRayJobs every 2 s (list_poll.js); it is the one module to
 * change (to a stream, as watch.js follows clusters) once WatchRayJobs
 * exists: the views only read the state and redraw.
 */
import { listJobs } from "./api.js";
import { changed, pollList, readVisible } from "./list_poll.js";
import { state } from "./state.js";

/**
 * Reads the jobs now and every POLL_MS after, calling `onChange` when they
 * differ from what the state had; stops on a 401 and when the returned
 * function is called.
 * @param {() => void} onChange
 * @returns {() => void} stops it
 */
export function pollJobs(onChange) {
  return pollList(() => readVisible(listJobs), (next) => {
    const differs = changed(state.jobs, next, state.jobsSynced);
    state.jobs = next;
    state.jobsSynced = true;
    return differs;
  }, onChange);
}
