// @ts-check
/// <reference lib="dom" />
/**
 * A job's page (#/jobs/<namespace>/<name>), redrawn as the jobs' watch
 * (jobs_watch.js) brings its changes: its status in plain words, when it started and ended,
 * what the operator says of it, the cluster it runs on, its log (its
 * submitter's, followed while it runs: job_log.js), its events once the
 * API reports them, and deleting it.
 */
import { eventsPanel } from "./cluster_panels.js";
import { when } from "./format.js";
import { h } from "./html.js";
import { jobLogPanel } from "./job_log.js";
import { clusterLink } from "./jobs_view.js";
import { workloadView } from "./workload_page.js";
import { workloads } from "./workloads.js";

/** @typedef {import("./api.js").Job} Job */

/**
 * @param {string} namespace
 * @param {string} name
 * @param {() => void} onChange redraws the view (once per frame)
 * @returns {import("./state.js").View}
 */
export function jobView(namespace, name, onChange) {
  // Made once: it keeps its stream and text across the page's redraws.
  const log = jobLogPanel(namespace, name);
  const view = workloadView(
    workloads.jobs,
    {
      facts: jobFacts,
      // A cluster's events panel takes anything with events.
      panels: (job) => {
        log.update(job);
        return [
          log.element,
          "events" in job &&
          eventsPanel(/** @type {any} */ ({ events: job.events ?? [] })),
        ];
      },
    },
    namespace,
    name,
    onChange,
  );
  return {
    update: view.update,
    close: () => {
      log.close();
      view.close?.();
    },
  };
}

/**
 * What the job is and where it stands.
 * @param {Job} job
 * @returns {import("./workload_page.js").Fact[]}
 */
function jobFacts(job) {
  return [
    ["Status", "job-status", job.jobStatus || "PENDING"],
    ["Deployment", "job-deployment", job.jobDeploymentStatus],
    ["Message", "job-message", job.message],
    ["Cluster", "job-cluster", clusterLink(job)],
    ["Entrypoint", "job-entrypoint", h("code", {}, job.entrypoint)],
    ["Job ID", "job-id", job.jobId],
    ["Namespace", "job-namespace", job.namespace],
    ["Owner", "job-user", job.user],
    ["Submitted", "job-created", when(job.createdAt)],
    ["Started", "job-start", when(job.startTime)],
    ["Ended", "job-end", when(job.endTime)],
  ];
}
