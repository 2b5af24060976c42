// @ts-check
/// <reference lib="dom" />
/** How the console words what it shows of a cluster. */
import { h } from "./html.js";

/** @typedef {import("./api.js").Cluster} Cluster */

/**
 * A cluster's key in the console's state and in its page's path.
 * @param {Pick<Cluster, "namespace" | "name">} cluster
 */
export function clusterKey(cluster) {
  return `${cluster.namespace}/${cluster.name}`;
}

/**
 * Age as kubectl prints it: 45s, 12m, 3h, 5d; empty when not known.
 * @param {string | null | undefined} timestamp
 * @param {number} [now] ms since the epoch: Date.now() unless a test says
 */
export function age(timestamp, now = Date.now()) {
  if (!timestamp) return "";
  const seconds = Math.max(0, (now - Date.parse(timestamp)) / 1000);
  if (seconds < 120) return `${Math.floor(seconds)}s`;
  if (seconds < 7200) return `${Math.floor(seconds / 60)}m`;
  if (seconds < 172800) return `${Math.floor(seconds / 3600)}h`;
  return `${Math.floor(seconds / 86400)}d`;
}

/**
 * A cluster's state as a badge, coloured by its kind: ready, failed,
 * pending (no state yet, or a queued cluster waiting for capacity) or
 * other.
 * @param {string | undefined} state
 */
export function stateBadge(state) {
  const text = state || "pending";
  const kind = text === "ready"
    ? "ready"
    : text === "failed"
    ? "failed"
    : text === "pending" || text === "" || text === "waiting for capacity"
    ? "pending"
    : "other";
  return h("span", { class: `state ${kind}` }, text);
}

/**
 * How many workers a cluster asks for, over its groups.
 * @param {Cluster} cluster
 */
export function workerCount(cluster) {
  return (cluster.clusterSpec?.workerGroupSpec ?? [])
    .reduce((sum, group) => sum + (group.replicas ?? 0), 0);
}

/**
 * A job's status as a badge, coloured as a cluster's state: SUCCEEDED as
 * ready, FAILED (or a deployment that failed) as failed, PENDING (no
 * status yet) as pending.
 * @param {import("./api.js").Job} job
 */
export function jobBadge(job) {
  const text = job.jobStatus || "PENDING";
  const kind = text === "SUCCEEDED"
    ? "ready"
    : text === "FAILED" || job.jobDeploymentStatus === "Failed"
    ? "failed"
    : text === "PENDING"
    ? "pending"
    : "other";
  return h("span", { class: `state ${kind}`, "data-status": text }, text);
}

/**
 * A time as the browser's locale writes it, with its age; empty when not
 * known.
 * @param {string | null | undefined} timestamp
 */
export function when(timestamp) {
  if (!timestamp) return "";
  return `${new Date(timestamp).toLocaleString()} (${age(timestamp)} ago)`;
}

/**
 * A service's health in a word: the operator's status (Running), else
 * Unhealthy when an application failed or is unhealthy, else Pending.
 * @param {import("./api.js").Service} service
 */
export function serviceHealth(service) {
  const status = service.rayServiceStatus;
  if (status?.applicationStatus) return status.applicationStatus;
  const bad = ["DEPLOY_FAILED", "UNHEALTHY"];
  return (status?.serveApplicationStatus ?? []).some((app) =>
      bad.includes(app.status)
    )
    ? "Unhealthy"
    : "Pending";
}

/**
 * A service's health as a badge, coloured as a cluster's state: Running
 * as ready, Unhealthy as failed, Pending as pending.
 * @param {import("./api.js").Service} service
 */
export function serviceBadge(service) {
  const text = serviceHealth(service);
  const kind = text === "Running"
    ? "ready"
    : text === "Unhealthy"
    ? "failed"
    : text === "Pending"
    ? "pending"
    : "other";
  return h("span", { class: `state ${kind}`, "data-status": text }, text);
}

/**
 * An application's or deployment's status (RUNNING, HEALTHY, DEPLOYING,
 * DEPLOY_FAILED...) as a badge.
 * @param {string} status
 */
export function serveBadge(status) {
  const kind = status === "RUNNING" || status === "HEALTHY"
    ? "ready"
    : /FAILED|UNHEALTHY/.test(status)
    ? "failed"
    : "pending";
  return h("span", { class: `state ${kind}`, "data-status": status }, status);
}
