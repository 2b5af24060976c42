// @ts-check
/// <reference lib="dom" />
/**
 * How the console words what it shows: a cluster's key and size, ages and
 * times, and the badges of states and statuses.
 */
import { h } from "./html.js";

/** @typedef {import("./api.js").Cluster} Cluster */

/**
 * How a badge is coloured (console.css's .state.<kind>).
 * @typedef {"ready" | "failed" | "pending" | "other"} BadgeKind
 */

/**
 * The kinds of a cluster's states: pending also for a queued cluster
 * waiting for capacity; any other is "other".
 * @type {Map<string, BadgeKind>}
 */
const CLUSTER_STATE_KINDS = new Map([
  ["ready", "ready"],
  ["failed", "failed"],
  ["pending", "pending"],
  ["waiting for capacity", "pending"],
]);

/**
 * The kinds of a job's statuses, the same for a job submitted to a running
 * cluster; any other (RUNNING, STOPPED) is "other".
 * @type {Map<string, BadgeKind>}
 */
const JOB_STATUS_KINDS = new Map([
  ["SUCCEEDED", "ready"],
  ["FAILED", "failed"],
  ["PENDING", "pending"],
]);

/**
 * The kinds of a service's health (serviceHealth()).
 * @type {Map<string, BadgeKind>}
 */
const SERVICE_HEALTH_KINDS = new Map([
  ["Running", "ready"],
  ["Unhealthy", "failed"],
  ["Pending", "pending"],
]);

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
  const kind = CLUSTER_STATE_KINDS.get(text) ?? "other";
  return h("span", { class: `state ${kind}` }, text);
}

/**
 * A status as a badge, coloured by its kind, the status also in its
 * data-status.
 * @param {string} status
 * @param {BadgeKind} kind
 */
function statusBadge(status, kind) {
  return h("span", { class: `state ${kind}`, "data-status": status }, status);
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
  const deploymentFailed = text !== "SUCCEEDED" &&
    job.jobDeploymentStatus === "Failed";
  return statusBadge(
    text,
    deploymentFailed ? "failed" : JOB_STATUS_KINDS.get(text) ?? "other",
  );
}

/**
 * The status of a job submitted to a running cluster as a badge, coloured
 * as a job's: SUCCEEDED as ready, FAILED as failed, PENDING as pending,
 * RUNNING and STOPPED other.
 * @param {string | undefined} status
 */
export function submissionBadge(status) {
  const text = status || "PENDING";
  return statusBadge(text, JOB_STATUS_KINDS.get(text) ?? "other");
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
  return statusBadge(text, SERVICE_HEALTH_KINDS.get(text) ?? "other");
}

/**
 * An application's or deployment's status (RUNNING, HEALTHY, DEPLOYING,
 * DEPLOY_FAILED...) as a badge.
 * @param {string} status
 */
export function serveBadge(status) {
  return statusBadge(
    status,
    status === "RUNNING" || status === "HEALTHY"
      ? "ready"
      : /FAILED|UNHEALTHY/.test(status)
      ? "failed"
      : "pending",
  );
}
