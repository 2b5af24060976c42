// @ts-check
/// <reference lib="dom" />
/**
 * A job's page (#/jobs/<namespace>/<name>), redrawn as the jobs' watch
 * (jobs_watch.js) brings its changes: its status in plain words, when it started and ended,
 * what the operator says of it, the cluster it runs on, its events once
 * the API reports them, and deleting it.
 */
import { errorMessage } from "./api.js";
import { deleteObject, kinds } from "./api_objects.js";
import { eventsPanel } from "./cluster_panels.js";
import { jobBadge, when } from "./format.js";
import { h, panel, showPage } from "./html.js";
import { clusterLink } from "./jobs_view.js";
import { followJobs } from "./jobs_watch.js";
import { state } from "./state.js";

/** @typedef {import("./api.js").Job} Job */

/**
 * @param {string} namespace
 * @param {string} name
 * @param {() => void} onChange redraws the view (once per frame)
 * @returns {import("./state.js").View}
 */
export function jobView(namespace, name, onChange) {
  const banner = h("p", { class: "banner", role: "alert" });
  const show = () => {
    const job = state.jobs.get(`${namespace}/${name}`);
    if (!job) {
      showPage(
        h("p", {}, h("a", { href: "#/jobs" }, "← Jobs")),
        h("h1", {}, name),
        h(
          "p",
          { class: "empty" },
          state.jobsSynced
            ? `There is no job "${name}" in namespace "${namespace}".`
            : "Loading…",
        ),
      );
      return;
    }
    showPage(
      h("p", {}, h("a", { href: "#/jobs" }, "← Jobs")),
      h("h1", {}, `${job.name} `, jobBadge(job)),
      banner,
      aboutJob(job),
      // A cluster's events panel takes anything with events.
      "events" in job &&
        eventsPanel(/** @type {any} */ ({ events: job.events ?? [] })),
      panel(
        "delete",
        "Delete",
        h("button", {
          type: "button",
          id: "delete-job",
          "data-write": "",
          onclick: async () => {
            try {
              await deleteObject(kinds.jobs, namespace, name);
              location.hash = "#/jobs";
            } catch (error) {
              banner.textContent = errorMessage(error);
            }
          },
        }, "Delete this job"),
      ),
    );
  };
  show();
  return { update: show, close: followJobs(onChange) };
}

/**
 * What the job is and where it stands.
 * @param {Job} job
 */
function aboutJob(job) {
  /** @type {[string, string, import("./html.js").Child][]} */
  const facts = [
    ["Status", "job-status", job.jobStatus || "PENDING"],
    ["Deployment", "job-deployment", job.jobDeploymentStatus],
    ["Message", "job-message", job.message],
    ["Cluster", "job-cluster", clusterLink(job)],
    ["Entrypoint", "job-entrypoint", h("code", {}, job.entrypoint)],
    ["Namespace", "job-namespace", job.namespace],
    ["Owner", "job-user", job.user],
    ["Submitted", "job-created", when(job.createdAt)],
    ["Started", "job-start", when(job.startTime)],
    ["Ended", "job-end", when(job.endTime)],
  ];
  return panel(
    "about",
    "About",
    h(
      "dl",
      { class: "facts" },
      facts.filter(([, , value]) => value !== "" && value !== undefined)
        .flatMap(([label, id, value]) => [
          h("dt", {}, label),
          h("dd", { id }, value),
        ]),
    ),
  );
}
