// @ts-check
/// <reference lib="dom" />
/**
 * What the console knows, held here and nowhere else. Each part has one
 * writer: the watch (watch.js) writes `clusters` and `watch`; the jobs'
 * watch (jobs_watch.js) writes `jobs`, `jobsSynced` and `jobsWatch`; the
 * services' poll
 * (services_poll.js) writes `services` and `servicesSynced`; the router
 * (router.js) writes `view` and `redrawQueued`. Views only read.
 */

/** @typedef {import("./api.js").Cluster} Cluster */
/** @typedef {import("./api.js").Job} Job */
/** @typedef {import("./api.js").Service} Service */

/**
 * What is on the page: `update` redraws it from the state, when it shows
 * clusters or jobs; `close`, when there, ends what it started (the jobs'
 * watch) as another view replaces it.
 * @typedef {{ update?: () => void, close?: () => void }} View
 */

/**
 * How far the watch is.
 * @typedef {object} WatchProgress
 * @property {string} resourceVersion where to resume; empty to start afresh
 * @property {boolean} synced whether the clusters as they are have all come
 * @property {AbortController | null} controller ends the watch's request
 * @property {(() => void) | null} wake resumes a watch waiting for a token
 */

/**
 * How far one watch of jobs is: every namespace's, or one namespace's.
 * @typedef {object} JobScope
 * @property {string | undefined} namespace undefined for every namespace
 * @property {string} resourceVersion where to resume; empty to start afresh
 * @property {AbortController | null} controller ends the watch's request
 * @property {boolean} stateDue whether a fresh stream's jobs as they are
 *   are still coming (those it did not send go at its BOOKMARK)
 * @property {boolean} synced whether its jobs as they are have all come
 * @property {(() => void) | undefined} stopPoll ends the reading of its
 *   jobs, where the caller may list them but not watch them
 */

/**
 * The jobs' watches while a view that shows jobs is open.
 * @typedef {object} JobsWatch
 * @property {Map<string, JobScope>} scopes by namespace, "" for every namespace
 * @property {boolean} stopped whether the view closed (or a 401 came)
 * @property {() => void} onChange redraws the view
 * @property {ReturnType<typeof setInterval> | undefined} timer looks for
 *   namespaces to watch, when they are watched one by one
 * @property {(() => void) | undefined} stopPoll ends the reading of a
 *   Corral that cannot watch jobs
 * @property {Set<string>} probed the namespaces asked whether their jobs
 *   may be watched, while the watch of every namespace is followed
 * @property {ReturnType<typeof setInterval> | undefined} probeTimer looks
 *   for namespaces to ask that of
 */

/**
 * @typedef {object} ConsoleState
 * @property {Map<string, Cluster>} clusters by "namespace/name", as the watch has them
 * @property {WatchProgress} watch
 * @property {Map<string, Job>} jobs by "namespace/name", as the jobs' watch has them
 * @property {boolean} jobsSynced whether the jobs as they are have all come once
 * @property {JobsWatch | null} jobsWatch while a view shows jobs
 * @property {Map<string, Service>} services by "namespace/name", as last read
 * @property {boolean} servicesSynced whether the services have been read once
 * @property {View | null} view
 * @property {boolean} redrawQueued whether a redraw waits for the next frame
 */

/** @type {ConsoleState} */
export const state = {
  clusters: new Map(),
  watch: { resourceVersion: "", synced: false, controller: null, wake: null },
  jobs: new Map(),
  jobsSynced: false,
  jobsWatch: null,
  services: new Map(),
  servicesSynced: false,
  view: null,
  redrawQueued: false,
};

/** The namespaces that have clusters, in the order first seen. */
export function clusterNamespaces() {
  return [...new Set([...state.clusters.values()].map((c) => c.namespace))];
}
