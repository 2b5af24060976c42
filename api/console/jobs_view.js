// @ts-check
/// <reference lib="dom" />
/**
 * The jobs view (#/jobs): every job the caller may see, with its status,
 * its deployment's, its cluster and when it started and ended, redrawn as
 * the jobs' watch (jobs_watch.js) brings their changes.
 */
import { age, jobBadge } from "./format.js";
import { h, showPage } from "./html.js";
import { followJobs } from "./jobs_watch.js";
import { state } from "./state.js";

/** @typedef {import("./api.js").Job} Job */

/**
 * @param {() => void} onChange redraws the view (once per frame)
 * @returns {import("./state.js").View}
 */
export function jobsView(onChange) {
  const body = h("tbody");
  const empty = h("p", { class: "empty" });
  showPage(
    h("h1", {}, "Jobs"),
    h("p", {}, h("a", { href: "#/new-job", id: "new-job" }, "New job")),
    h(
      "table",
      { id: "jobs" },
      h(
        "thead",
        {},
        h(
          "tr",
          {},
          [
            "Namespace",
            "Name",
            "Status",
            "Deployment",
            "Cluster",
            "Started",
            "Ended",
          ]
            .map((t) => h("th", {}, t)),
        ),
      ),
      body,
    ),
    empty,
  );
  const show = () => {
    const jobs = [...state.jobs.values()].sort((a, b) =>
      `${a.namespace}/${a.name}`.localeCompare(`${b.namespace}/${b.name}`)
    );
    body.replaceChildren(...jobs.map(jobRow));
    empty.textContent = !state.jobsSynced
      ? "Loading…"
      : jobs.length === 0
      ? "No jobs yet: submit one."
      : "";
  };
  show();
  return { update: show, close: followJobs(onChange) };
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

/** @param {Job} job */
function jobRow(job) {
  const key = `${job.namespace}/${job.name}`;
  return h(
    "tr",
    { "data-job": key },
    h("td", {}, job.namespace),
    h("td", {}, h("a", { href: `#/jobs/${key}` }, job.name)),
    h("td", {}, jobBadge(job)),
    h("td", {}, job.jobDeploymentStatus),
    h("td", {}, clusterLink(job)),
    h("td", { title: job.startTime ?? "" }, age(job.startTime)),
    h("td", { title: job.endTime ?? "" }, age(job.endTime)),
  );
}
