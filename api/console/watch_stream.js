// @ts-check
/// <reference lib="dom" />
/**
 * Following one of the API's watches (WatchClusters, WatchRayJobs) for as
 * long as it is wanted: newline-delimited JSON over fetch, which, unlike
 * EventSource, can send the token. The watch resumes where it was after a
 * stream ends (the server ends each after --watch-max-duration, with a
 * BOOKMARK to resume from) or breaks, waiting longer after each failure;
 * it starts afresh when told its resume point is too old (409) or that the
 * server's versions started again (code 10 in the stream). What the
 * answers mean, and what a refusal does, is the caller's (watch.js for the
 * clusters, jobs_watch.js for the jobs): this module only keeps the stream.
 */
import { reportUnreachable } from "./connection.js";
import { readResults, StreamError } from "./ndjson.js";

/**
 * The longest wait between two tries: a person waiting for Corral to come
 * back sees it within this (and a request's time) of its return.
 */
const MAX_BACKOFF_MS = 2_000;

/** The first wait after a failure, doubled after each one after it. */
const FIRST_BACKOFF_MS = 500;

/** The gRPC code of a watch to start again without a resume point. */
const ABORTED = 10;

/** A watch that failed in a way already shown: tried again after a wait. */
export class NotWatching extends Error {}

/**
 * Where a watch is, written by the follower's `apply` (the resume point)
 * and by followWatch() (the request under way).
 * @typedef {object} WatchPoint
 * @property {string} resourceVersion where to resume; empty to start afresh
 * @property {AbortController | null} controller ends the stream under way
 */

/**
 * What one watch is for.
 * @template A
 * @typedef {object} Follower
 * @property {(resourceVersion: string, signal: AbortSignal) => Promise<Response>} open
 *   starts the stream (a call in api_watches.js)
 * @property {(answer: A, fresh: boolean, seen: Set<string>) => void} apply
 *   takes one answer into the state, and its resourceVersion into the
 *   WatchPoint; `fresh` says the answer is part of the state a stream
 *   started with no resume point sends, up to and including its first
 *   BOOKMARK, and `seen` (one per stream) is the apply's own to fill
 * @property {(response: Response) => Promise<"again" | "stop">} refused
 *   what an answer other than 200 and 409 does: start again at once, or
 *   stop following; throws NotWatching to try again after a wait
 * @property {(text: string) => void} showLive says how the watch goes
 * @property {() => void} onChange called after each chunk of answers
 * @property {() => boolean} ended whether the watch is no longer wanted
 *   (checked before each try; abort the controller to end one under way)
 */

/**
 * Follows a watch until `follower.ended()` or its refusal says stop,
 * resuming from `point.resourceVersion` each time.
 * @template A
 * @param {WatchPoint} point
 * @param {Follower<A>} follower
 * @returns {Promise<void>}
 */
export async function followWatch(point, follower) {
  let backoff = FIRST_BACKOFF_MS;
  while (!follower.ended()) {
    const controller = new AbortController();
    point.controller = controller;
    const fresh = point.resourceVersion === "";
    try {
      const response = await follower.open(
        point.resourceVersion,
        controller.signal,
      );
      if (response.status === 409) {
        await response.body?.cancel();
        point.resourceVersion = ""; // too old: start afresh
        continue;
      }
      if (!response.ok) {
        if (await follower.refused(response) === "stop") return;
        continue;
      }
      follower.showLive(fresh ? "Loading…" : "Live");
      backoff = FIRST_BACKOFF_MS;
      await readAnswers(response, fresh, follower);
    } catch (error) {
      if (controller.signal.aborted) continue;
      if (error instanceof StreamError && error.code === ABORTED) {
        point.resourceVersion = ""; // the server's versions started again
      }
      if (!(error instanceof NotWatching)) {
        // A stream cut mid-way is Corral gone too (send() saw the start).
        if (error instanceof TypeError) reportUnreachable();
        follower.showLive("Reconnecting…");
      }
    }
    await new Promise((resolve) => setTimeout(resolve, backoff));
    backoff = Math.min(backoff * 2, MAX_BACKOFF_MS);
  }
}

/**
 * Applies the stream's answers as they come, until it ends; calls
 * `onChange` after each chunk. An error line throws it (a StreamError;
 * code 10 is to watch again, afresh).
 * @template A
 * @param {Response} response
 * @param {boolean} fresh whether the stream started with no resourceVersion
 * @param {Follower<A>} follower
 */
async function readAnswers(response, fresh, follower) {
  /** Filled by `apply`: what this stream sent. */
  const seen = new Set();
  let stateDue = fresh;
  await readResults(response, (answer) => {
    follower.apply(answer, stateDue, seen);
    if (answer.type === "BOOKMARK") {
      // A fresh stream's state ends at its first BOOKMARK.
      stateDue = false;
      follower.showLive("Live");
    }
  }, () => follower.onChange());
}
