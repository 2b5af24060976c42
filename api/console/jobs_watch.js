// @ts-check
/// <reference lib="dom" />
/**
 * Keeps `state.jobs` as the API has them, for the views that show jobs,
 * and only while one is shown, by following WatchRayJobs as watch.js
 * follows clusters (watch_stream.js keeps the stream): the jobs as they
 * are, then each change as it happens, so nothing polls. One watch covers
 * every namespace the caller may watch; where the caller may not watch
 * them so (code 7), there is one per namespace the console knows of
 * (list_poll.js's knownNamespaces(), looked at again every POLL_MS as
 * clusters come), as the jobs were read before. A namespace whose jobs
 * the caller may list but not watch (the verb `watch` is not implied by
 * `list`), and a Corral that cannot watch jobs (code 12: it has no cache),
 * have them read every POLL_MS (list_poll.js). While the watch of every
 * namespace is followed, whether each namespace the console knows of may
 * be watched is asked once (probeNamespaces): that watch leaves out, without
 * a word, a namespace where the caller may list jobs but not watch them.
 * A 401 stops it all: signing in again routes anew, which starts it
 * again. The views only read the state and redraw.
 */
import { kinds, listObjects } from "./api_objects.js";
import { openJobsWatch } from "./api_watches.js";
import { onReachableAgain } from "./connection.js";
import {
  changed,
  knownNamespaces,
  POLL_MS,
  pollList,
  readVisible,
} from "./list_poll.js";
import { state } from "./state.js";
import { followWatch, NotWatching } from "./watch_stream.js";

/** @typedef {import("./api.js").Job} Job */
/** @typedef {import("./api.js").JobWatchAnswer} JobWatchAnswer */
/** @typedef {import("./state.js").JobScope} JobScope */
/** @typedef {import("./state.js").JobsWatch} JobsWatch */

/** The key of the watch of every namespace in JobsWatch.scopes. */
const EVERY_NAMESPACE = "";

/** The gRPC code of a watch refused for lack of permission. */
const PERMISSION_DENIED = 7;

/** The gRPC code of a Corral that cannot watch (it has no cache). */
const UNIMPLEMENTED = 12;

// A stream may hang on a Corral that went away and came back: each is
// ended then, and resumes where it was (or afresh, if that is too old).
onReachableAgain(() => {
  for (const scope of state.jobsWatch?.scopes.values() ?? []) {
    scope.controller?.abort();
  }
});

/**
 * Follows the jobs, calling `onChange` whenever they may have changed,
 * until the returned function is called or a 401 comes. Each call starts
 * afresh: what the state holds is shown until the jobs as they are have
 * come, and those they do not name are then dropped.
 * @param {() => void} onChange
 * @returns {() => void} stops it
 */
export function followJobs(onChange) {
  /** @type {JobsWatch} */
  const watch = {
    scopes: new Map(),
    stopped: false,
    onChange,
    timer: undefined,
    stopPoll: undefined,
    probed: new Set(),
    probeTimer: undefined,
  };
  state.jobsWatch = watch;
  watchScope(watch, undefined);
  return () => stopJobs(watch);
}

/**
 * Ends every watch (and any reading) `watch` started.
 * @param {JobsWatch} watch
 */
function stopJobs(watch) {
  watch.stopped = true;
  clearInterval(watch.timer);
  clearInterval(watch.probeTimer);
  watch.stopPoll?.();
  endScopes(watch);
  if (state.jobsWatch === watch) state.jobsWatch = null;
}

/**
 * Ends the watches (and readings) of every namespace.
 * @param {JobsWatch} watch
 */
function endScopes(watch) {
  for (const scope of watch.scopes.values()) {
    scope.controller?.abort();
    scope.stopPoll?.();
  }
  watch.scopes.clear();
}

/**
 * A scope of `namespace` (of every namespace when undefined), not yet
 * watched nor read.
 * @param {string | undefined} namespace
 * @returns {JobScope}
 */
function newScope(namespace) {
  return {
    namespace,
    resourceVersion: "",
    controller: null,
    stateDue: false,
    synced: false,
    stopPoll: undefined,
  };
}

/**
 * Starts following the jobs of `namespace` (of every namespace when
 * undefined), until `watch` stops.
 * @param {JobsWatch} watch
 * @param {string | undefined} namespace
 */
function watchScope(watch, namespace) {
  const scope = newScope(namespace);
  const key = namespace ?? EVERY_NAMESPACE;
  watch.scopes.set(key, scope);
  followWatch(scope, {
    open: (resourceVersion, signal) => {
      // A fresh stream sends the jobs as they are, up to its BOOKMARK.
      scope.stateDue = resourceVersion === "";
      return openJobsWatch(namespace, resourceVersion, signal);
    },
    apply: (/** @type {JobWatchAnswer} */ answer, _fresh, seen) => {
      applyJobAnswer(watch, scope, answer, seen);
      // Accepted, and in step: now ask which namespaces it leaves out.
      if (answer.type === "BOOKMARK" && namespace === undefined) {
        probeNamespaces(watch);
      }
    },
    refused: (response) => refused(watch, scope, response),
    // The header's word on the watch is the clusters' watch's.
    showLive: () => {},
    onChange: watch.onChange,
    // Followed while the view shows jobs and this is still a watch it
    // wants (not after turning to namespaces one by one, or to reading).
    ended: () => watch.stopped || watch.scopes.get(key) !== scope,
  });
}

/**
 * Applies one answer of a jobs' watch to the console's jobs. The BOOKMARK
 * that ends a fresh stream's jobs as they are drops the scope's jobs it
 * did not send.
 * @param {JobsWatch} watch
 * @param {JobScope} scope the watch the answer came on
 * @param {JobWatchAnswer} answer
 * @param {Set<string>} seen the keys of the jobs this stream sent
 */
export function applyJobAnswer(watch, scope, answer, seen) {
  const { type, job, resourceVersion } = answer;
  if (type === "BOOKMARK") {
    if (scope.stateDue) dropUnseen(watch, scope.namespace, seen);
    scope.stateDue = false;
    scope.synced = true;
    scope.resourceVersion = resourceVersion;
    noteSynced(watch);
    return;
  }
  if (resourceVersion) scope.resourceVersion = resourceVersion;
  if (!job) return;
  const key = `${job.namespace}/${job.name}`;
  if (type === "DELETED") state.jobs.delete(key);
  else {
    state.jobs.set(key, /** @type {Job} */ (job));
    seen.add(key);
  }
}

/**
 * Drops the jobs of `namespace` (of every namespace when undefined) that
 * are not in `seen`, but those of a namespace whose jobs are read rather
 * than watched.
 * @param {JobsWatch} watch
 * @param {string | undefined} namespace
 * @param {Set<string>} seen
 */
function dropUnseen(watch, namespace, seen) {
  for (const key of [...state.jobs.keys()]) {
    if (seen.has(key)) continue;
    // A namespace's name has no "/": the prefix is its jobs' and no other's.
    const of = key.slice(0, key.indexOf("/"));
    if (watch.scopes.get(of)?.stopPoll) continue;
    if (namespace === undefined || of === namespace) state.jobs.delete(key);
  }
}

/**
 * Marks the jobs read once all the watches have sent theirs.
 * @param {JobsWatch} watch
 */
function noteSynced(watch) {
  if ([...watch.scopes.values()].every((scope) => scope.synced)) {
    state.jobsSynced = true;
  }
}

/**
 * What an answer other than 200 (and 409) to a jobs' watch does. A 401
 * stops every watch (api.js asked for a token). Code 7 on the watch of
 * every namespace turns to one watch per namespace; on a namespace's, to
 * reading that namespace's jobs. Code 12 turns to reading the jobs.
 * Anything else is tried again after a wait.
 * @param {JobsWatch} watch
 * @param {JobScope} scope
 * @param {Response} response
 * @returns {Promise<"stop">}
 */
async function refused(watch, scope, response) {
  const body = await response.json().catch(() => ({}));
  if (response.status === 401) {
    stopJobs(watch);
    return "stop";
  }
  if (body.code === UNIMPLEMENTED) {
    pollJobs(watch);
    return "stop";
  }
  if (body.code === PERMISSION_DENIED) {
    if (scope.namespace === undefined) watchEachNamespace(watch);
    else readNamespace(watch, scope, scope.namespace);
    return "stop";
  }
  throw new NotWatching(body.message ?? `HTTP ${response.status}`);
}

/**
 * Watches the jobs namespace by namespace, in those the console knows of
 * now and those it comes to know of; the jobs of other namespaces go.
 * @param {JobsWatch} watch
 */
function watchEachNamespace(watch) {
  clearInterval(watch.probeTimer);
  watch.scopes.delete(EVERY_NAMESPACE);
  const namespaces = new Set(knownNamespaces());
  for (const key of [...state.jobs.keys()]) {
    if (!namespaces.has(key.slice(0, key.indexOf("/")))) {
      state.jobs.delete(key);
    }
  }
  watchNewNamespaces(watch);
  // With no namespace to watch, the jobs are read: there are none.
  noteSynced(watch);
  watch.onChange();
  watch.timer = setInterval(() => watchNewNamespaces(watch), POLL_MS);
}

/**
 * Starts the watch of each namespace the console knows of and does not
 * watch yet.
 * @param {JobsWatch} watch
 */
function watchNewNamespaces(watch) {
  for (const namespace of knownNamespaces()) {
    if (!watch.scopes.has(namespace)) watchScope(watch, namespace);
  }
}

/**
 * Reads the jobs every POLL_MS instead, for a Corral that cannot watch
 * them, until `watch` stops.
 * @param {JobsWatch} watch
 */
function pollJobs(watch) {
  if (watch.stopPoll || watch.stopped) return;
  clearInterval(watch.timer);
  clearInterval(watch.probeTimer);
  endScopes(watch);
  watch.stopPoll = pollList(() => readVisible(kinds.jobs), (next) => {
    const differs = changed(state.jobs, next, state.jobsSynced);
    state.jobs = next;
    state.jobsSynced = true;
    return differs;
  }, watch.onChange);
}

/**
 * While the watch of every namespace is followed: asks whether the caller
 * may watch the jobs of each namespace the console knows of (and of each
 * it comes to know of, looked at every POLL_MS), once, with a watch of
 * that namespace ended as soon as it is answered. The watch of every
 * namespace has the jobs of those where the caller may watch them, and
 * nothing of one where it may only list them (the verb `watch` is not
 * implied by `list`): there, the jobs are read every POLL_MS instead.
 * @param {JobsWatch} watch
 */
function probeNamespaces(watch) {
  if (watch.probeTimer !== undefined || watch.stopped) return;
  const probe = () => {
    for (const namespace of knownNamespaces()) {
      if (!watch.probed.has(namespace) && !watch.scopes.has(namespace)) {
        probeNamespace(watch, namespace);
      }
    }
  };
  probe();
  watch.probeTimer = setInterval(probe, POLL_MS);
}

/**
 * Asks whether the caller may watch the jobs of `namespace`; where it may
 * not but may list them, reads them every POLL_MS (readNamespace). A
 * namespace where it may do neither shows no jobs and is not asked again.
 * A probe that fails otherwise is tried again at the next look.
 * @param {JobsWatch} watch
 * @param {string} namespace
 */
async function probeNamespace(watch, namespace) {
  watch.probed.add(namespace);
  const controller = new AbortController();
  try {
    const response = await openJobsWatch(namespace, "", controller.signal);
    // Watched: the watch of every namespace has its jobs.
    if (response.ok) return;
    const body = await response.json().catch(() => ({}));
    if (body.code !== PERMISSION_DENIED) {
      // A 401 has api.js ask for a token; anything else, ask again later.
      if (response.status !== 401) watch.probed.delete(namespace);
      return;
    }
    const current = () =>
      !watch.stopped && watch.scopes.has(EVERY_NAMESPACE) &&
      !watch.scopes.has(namespace);
    if (!current()) return;
    // Listing is asked once before reading every POLL_MS: a namespace the
    // caller may not read at all is not asked again and again.
    const listed = await listObjects(kinds.jobs, namespace).then(
      () => true,
      () => false,
    );
    if (!listed || !current()) return;
    const scope = newScope(namespace);
    watch.scopes.set(namespace, scope);
    readNamespace(watch, scope, namespace);
  } catch {
    watch.probed.delete(namespace);
  } finally {
    controller.abort();
  }
}

/**
 * Reads the jobs of `namespace` every POLL_MS instead of watching them,
 * for a caller who may list them there but not watch them, until `watch`
 * stops. The scope stays in `scopes`, so that it is not watched again,
 * and counts as read: until a list comes (never, where listing is refused
 * too), it shows no jobs.
 * @param {JobsWatch} watch
 * @param {JobScope} scope
 * @param {string} namespace
 */
function readNamespace(watch, scope, namespace) {
  scope.synced = true;
  noteSynced(watch);
  scope.stopPoll = pollList(
    () => listObjects(kinds.jobs, namespace),
    (next) => {
      const before = new Map(
        [...state.jobs].filter(([key]) => key.startsWith(`${namespace}/`)),
      );
      for (const key of before.keys()) {
        if (!next.has(key)) state.jobs.delete(key);
      }
      for (const [key, job] of next) state.jobs.set(key, job);
      return changed(before, next, true);
    },
    watch.onChange,
  );
}
