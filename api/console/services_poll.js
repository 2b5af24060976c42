// @ts-check
/// <reference lib="dom" />
/**
 * Keeps `state.services` as the API has them, for the views that show
 * services, and only while one is shown: the API has no watch of
 * services, so this reads ListAllRayServices every 2 s (list_poll.js).
 */
import { kinds } from "./api_objects.js";
import { changed, pollList, readVisible } from "./list_poll.js";
import { state } from "./state.js";

/**
 * Reads the services now and every POLL_MS after, calling `onChange` when
 * they differ from what the state had; stops on a 401 and when the
 * returned function is called.
 * @param {() => void} onChange
 * @returns {() => void} stops it
 */
export function pollServices(onChange) {
  return pollList(() => readVisible(kinds.services), (next) => {
    const differs = changed(state.services, next, state.servicesSynced);
    state.services = next;
    state.servicesSynced = true;
    return differs;
  }, onChange);
}
