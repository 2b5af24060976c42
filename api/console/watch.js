// @ts-check
/// <reference lib="dom" />
/**
 * Following WatchClusters for good (newline-delimited JSON over fetch,
 * which, unlike EventSource, can send the token), so that nothing polls:
 * the watch resumes where it was, or starts afresh when told it is too
 * old, and keeps the console's clusters (state.js) as Corral has them.
 */
import { openWatch } from "./api.js";
import { byId } from "./html.js";
import { signIn } from "./sign_in.js";
import { reportUnreachable } from "./connection.js";
import { token } from "./session.js";
import { clusterKey } from "./format.js";
import { state } from "./state.js";

/** @typedef {import("./api.js").WatchAnswer} WatchAnswer */

/**
 * The longest wait between two tries: a person waiting for Corral to come
 * back sees it within this (and a request's time) of its return.
 */
const MAX_BACKOFF_MS = 2_000;

/** A watch that failed in a way already shown. */
class NotWatching extends Error {}

/**
 * Says how the watch goes, in the header.
 * @param {string} text
 */
function showLive(text) {
  byId("live").textContent = text;
}

/**
 * Follows WatchClusters for good, calling `onChange` whenever the clusters
 * may have changed; waits longer after each failure, up to MAX_BACKOFF_MS.
 * @param {() => void} onChange
 * @returns {Promise<never>}
 */
export async function watchClusters(onChange) {
  let backoff = 500;
  for (;;) {
    const controller = new AbortController();
    state.watch.controller = controller;
    const fresh = state.watch.resourceVersion === "";
    try {
      const response = await openWatch(
        state.watch.resourceVersion,
        controller.signal,
      );
      if (await startsAgain(response)) continue;
      showLive(fresh ? "Loading…" : "Live");
      backoff = 500;
      await follow(response, fresh, onChange);
    } catch (error) {
      if (controller.signal.aborted) continue;
      if (!(error instanceof NotWatching)) {
        // A stream cut mid-way is Corral gone too (send() saw the start).
        if (error instanceof TypeError) reportUnreachable();
        showLive("Reconnecting…");
      }
    }
    await new Promise((resolve) => setTimeout(resolve, backoff));
    backoff = Math.min(backoff * 2, MAX_BACKOFF_MS);
  }
}

/**
 * Whether the watch is to start again at once: after a sign-in, when the
 * token was refused (401), or afresh, when it resumed too far back (409).
 * Any other failure throws NotWatching, having said so.
 * @param {Response} response
 */
async function startsAgain(response) {
  if (response.status === 401) {
    showLive("");
    // The header's button says "Sign in"; the dialog says why, if a token
    // was held.
    signIn(token() ? "Token not accepted: sign in again." : "");
    await new Promise((resolve) => state.watch.wake = () => resolve(undefined));
    return true;
  }
  if (response.status === 409) {
    state.watch.resourceVersion = ""; // too old: start afresh
    return true;
  }
  if (!response.ok) {
    const body = await response.json().catch(() => ({}));
    showLive(`Not live: ${body.message ?? `HTTP ${response.status}`}`);
    throw new NotWatching("not watching");
  }
  return false;
}

/**
 * Applies the watch's answers as they come, until the stream ends; calls
 * `onChange` after each chunk.
 * @param {Response} response
 * @param {boolean} fresh whether the watch started with no resourceVersion
 * @param {() => void} onChange
 */
async function follow(response, fresh, onChange) {
  /** What this watch sent, to tell what is gone when it is fresh. */
  const seen = new Set();
  const body = /** @type {NonNullable<Response["body"]>} */ (response.body);
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  let buffered = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffered += value;
    let at;
    while ((at = buffered.indexOf("\n")) >= 0) {
      const line = JSON.parse(buffered.slice(0, at));
      buffered = buffered.slice(at + 1);
      if (line.error) throw new Error(line.error.message);
      applyAnswer(line.result, fresh, seen);
      if (line.result.type === "BOOKMARK") showLive("Live");
    }
    onChange();
  }
}

/**
 * Applies one answer of the watch to the console's clusters. A BOOKMARK
 * ending a fresh watch's first clusters removes those it did not send.
 * @param {WatchAnswer} answer
 * @param {boolean} fresh
 * @param {Set<string>} seen the keys of the clusters this watch sent
 */
export function applyAnswer(answer, fresh, seen) {
  const { type, cluster, resourceVersion } = answer;
  const { clusters, watch } = state;
  if (type === "BOOKMARK") {
    if (fresh && !watch.synced) {
      // The state is in: what this watch did not send is gone.
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
