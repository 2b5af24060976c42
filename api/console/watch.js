// @ts-check
/// <reference lib="dom" />
/**
 * Following WatchClusters for good (watch_stream.js keeps the stream), so
 * that nothing polls: the watch resumes where it was, or starts afresh
 * when told it is too old, and keeps the console's clusters (state.js) as
 * Corral has them.
 */
import { openWatch } from "./api_watches.js";
import { byId } from "./html.js";
import { signIn } from "./sign_in.js";
import { followWatch, NotWatching } from "./watch_stream.js";
import { token } from "./session.js";
import { clusterKey } from "./format.js";
import { state } from "./state.js";

/** @typedef {import("./api.js").WatchAnswer} WatchAnswer */

/**
 * Says how the watch goes, in the header.
 * @param {string} text
 */
function showLive(text) {
  byId("live").textContent = text;
}

/**
 * Follows WatchClusters for good (watch_stream.js), calling `onChange`
 * whenever the clusters may have changed.
 * @param {() => void} onChange
 * @returns {Promise<void>} never settles
 */
export function watchClusters(onChange) {
  return followWatch(state.watch, {
    open: openWatch,
    apply: applyAnswer,
    refused,
    showLive,
    onChange,
    ended: () => false,
  });
}

/**
 * What a refusal does: after a 401, the watch starts again once signed in
 * (restartWatch() wakes it); anything else is said in the header, and
 * tried again after a wait.
 * @param {Response} response
 * @returns {Promise<"again">}
 */
async function refused(response) {
  if (response.status === 401) {
    showLive("");
    // The header's button says "Sign in"; the dialog says why, if a token
    // was held.
    signIn(token() ? "Token not accepted: sign in again." : "");
    await new Promise((resolve) => state.watch.wake = () => resolve(undefined));
    return "again";
  }
  const body = await response.json().catch(() => ({}));
  showLive(`Not live: ${body.message ?? `HTTP ${response.status}`}`);
  throw new NotWatching("not watching");
}

/**
 * Applies one answer of the watch to the console's clusters. A BOOKMARK
 * ending a fresh watch's first clusters removes those it did not send.
 * @param {WatchAnswer} answer
 * @param {boolean} fresh part of a fresh stream's state (watch_stream.js)
 * @param {Set<string>} seen the keys of the clusters this watch sent
 */
export function applyAnswer(answer, fresh, seen) {
  const { type, cluster, resourceVersion } = answer;
  const { clusters, watch } = state;
  if (type === "BOOKMARK") {
    // A fresh stream's state is in, the first after a 409 or code 10
    // included: what it did not send is gone.
    if (fresh) {
      for (const key of [...clusters.keys()]) {
        if (!seen.has(key)) clusters.delete(key);
      }
    }
    watch.synced = true;
    watch.resourceVersion = resourceVersion;
    return;
  }
  if (resourceVersion) watch.resourceVersion = resourceVersion;
  if (!cluster) return;
  if (type === "DELETED") clusters.delete(clusterKey(cluster));
  else {
    clusters.set(clusterKey(cluster), cluster);
    seen.add(clusterKey(cluster));
  }
}

/** Starts the watch afresh (after a sign-in), waking it if it waits. */
export function restartWatch() {
  state.watch.resourceVersion = "";
  state.watch.synced = false;
  state.watch.controller?.abort();
  state.watch.wake?.();
}
