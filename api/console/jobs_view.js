// @ts-check
/// <reference lib="dom" />
/**
 * The jobs view (#/jobs): every job the caller may see, with its status,
 * its deployment's, its cluster and when it started and ended, redrawn as
 * the jobs' watch (jobs_watch.js) brings their changes.
 */
import { h } from "./html.js";
import { ageCell, workloadListView } from "./workload_list.js";
import { workloads } from "./workloads.js";

/** @typedef {import("./api.js").Job} Job */

/**
 * @param {() => void} onChange redraws the view (once per frame)
 * @returns {import("./state.js").View}
 */
export function jobsView(onChange) {
  return workloadListView(workloads.jobs, {
    columns: ["Status", "Deployment", "Cluster", "Started", "Ended"],
    cells: (job) => [
      h("td", {}, job.jobDeploymentStatus),
      h("td", {}, clusterLink(job)),
      ageCell(job.startTime),
      ageCell(job.endTime),
    ],
    none: "No jobs yet: submit one.",
  }, onChange);
}

/**
 * The link to the cluster a job runs on, when it names one.
 * @param {Job} job
 */
export function clusterLink(job) {
  const name = job.rayClusterName || job.clusterSelector?.["ray.io/cluster"];
  return name
    ? h("a", { href: `#/clusters/${job.namespace}/${name}` }, name)
    : "";
}
