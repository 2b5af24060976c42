// @ts-check
/// <reference lib="dom" />
/**
 * What the console knows, held here and nowhere else. Each part has one
 * writer: the watch (watch.js) writes `clusters` and `watch`; the router
 * (router.js) writes `view` and `redrawQueued`. Views only read.
 */

/** @typedef {import("./api.js").Cluster} Cluster */

/**
 * What is on the page: `update` redraws it from the state, when it shows
 * clusters.
 * @typedef {{ update?: () => void }} View
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
 * @typedef {object} ConsoleState
 * @property {Map<string, Cluster>} clusters by "namespace/name", as the watch has them
 * @property {WatchProgress} watch
 * @property {View | null} view
 * @property {boolean} redrawQueued whether a redraw waits for the next frame
 */

/** @type {ConsoleState} */
export const state = {
  clusters: new Map(),
  watch: { resourceVersion: "", synced: false, controller: null, wake: null },
  view: null,
  redrawQueued: false,
};

/** The namespaces that have clusters, in the order first seen. */
export function clusterNamespaces() {
  return [...new Set([...state.clusters.values()].map((c) => c.namespace))];
}
