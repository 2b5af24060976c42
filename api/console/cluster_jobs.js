// @ts-check
/// <reference lib="dom" />
/**
 * A ready cluster's "Jobs on this cluster" panel: the jobs submitted to
 * its Ray dashboard through Corral (RayJobSubmissionService), a form to
 * submit one, and the selected one's details and live log
 * (submission_view.js). The panel is made once per cluster page and kept
 * across the page's redraws, so that what is typed, the selection and the
 * log being followed survive the cluster's watch changing it. Its list is
 * read every POLL_MS while the page is open; close() ends that and the
 * log's stream.
 */
import { ApiError, errorMessage } from "./api.js";
import { listSubmissions, submitJob } from "./api_submissions.js";
import { submissionBadge } from "./format.js";
import { field, h, panel } from "./html.js";
import { POLL_MS } from "./list_poll.js";
import {
  closeSubmission,
  showFacts,
  showSubmission,
  submissionTime,
} from "./submission_view.js";

/** @typedef {import("./api.js").Submission} Submission */

/**
 * The gRPC codes of a list that asking again would not change: no
 * permission (7), the cluster gone (5) or not ready (9).
 */
const FINAL_CODES = [5, 7, 9];

/**
 * The panel's state, kept for the cluster page's life.
 * @typedef {object} JobsPanel
 * @property {string} namespace
 * @property {string} cluster the cluster's name
 * @property {HTMLElement} element the panel, put on the page at each redraw
 * @property {HTMLTableSectionElement} rows the submissions' rows
 * @property {HTMLParagraphElement} listError why the list is not current
 * @property {import("./submission_view.js").SubmissionView} view the selected job
 * @property {Submission[]} submissions as last read, newest first
 * @property {ReturnType<typeof setTimeout> | undefined} timer the next read
 * @property {boolean} closed whether the page was left
 */

/**
 * The panel of the cluster `namespace/cluster`, reading its jobs now and
 * every POLL_MS until closeJobsPanel().
 * @param {string} namespace
 * @param {string} cluster
 * @returns {JobsPanel}
 */
export function jobsPanel(namespace, cluster) {
  const rows = h("tbody", { id: "submissions" });
  const listError = h("p", { class: "error", id: "submissions-error" });
  /** @type {JobsPanel} */
  const jobs = {
    namespace,
    cluster,
    element: h("section"),
    rows,
    listError,
    view: {
      namespace,
      cluster,
      element: h("div", { id: "submission" }),
      facts: h("dl"),
      id: null,
      controller: null,
      onEnd: () => readSoon(jobs),
      onStatus: () => showRows(jobs),
    },
    submissions: [],
    timer: undefined,
    closed: false,
  };
  jobs.element = panel(
    "cluster-jobs",
    "Jobs on this cluster",
    submitForm(jobs),
    listError,
    h(
      "table",
      {},
      h(
        "thead",
        {},
        h(
          "tr",
          {},
          ["Submission", "Status", "Started", "Ended", "Entrypoint"].map((t) =>
            h("th", {}, t)
          ),
        ),
      ),
      rows,
    ),
    jobs.view.element,
  );
  showRows(jobs);
  readList(jobs);
  return jobs;
}

/**
 * Ends the panel's reads and its log stream: the page is left.
 * @param {JobsPanel} jobs
 */
export function closeJobsPanel(jobs) {
  jobs.closed = true;
  clearTimeout(jobs.timer);
  closeSubmission(jobs.view);
}

/**
 * Reads the list, shows it, and reads it again in POLL_MS. A failure is
 * said above the list, which stays as last read.
 * @param {JobsPanel} jobs
 */
async function readList(jobs) {
  clearTimeout(jobs.timer);
  try {
    const submissions = await listSubmissions(jobs.namespace, jobs.cluster);
    if (jobs.closed) return;
    jobs.submissions = submissions.sort((a, b) =>
      Number(b.startTime ?? 0) - Number(a.startTime ?? 0)
    );
    jobs.listError.textContent = "";
    showRows(jobs);
    showFacts(
      jobs.view,
      submissions.find((s) => s.submissionId === jobs.view.id),
    );
  } catch (error) {
    if (jobs.closed) return;
    jobs.listError.textContent = `Cannot list the jobs: ${errorMessage(error)}`;
    // Asking again would be refused again: a 401 has asked for a token
    // (signing in routes anew, which makes a new panel), a caller without
    // `proxy` here keeps the refusal's message, and a cluster gone or no
    // longer ready has its page say so (the watch brings it).
    if (
      error instanceof ApiError &&
      (error.status === 401 || FINAL_CODES.includes(error.code ?? 0))
    ) return;
  }
  jobs.timer = setTimeout(() => readList(jobs), POLL_MS);
}

/**
 * Reads the list at once (after a submit, or when a job ended), rather
 * than at the next poll.
 * @param {JobsPanel} jobs
 */
function readSoon(jobs) {
  if (!jobs.closed) readList(jobs);
}

/**
 * Draws the rows from the list; the selected job's status is the one its
 * log stream last said, which is newer than the list's.
 * @param {JobsPanel} jobs
 */
function showRows(jobs) {
  if (jobs.submissions.length === 0) {
    jobs.rows.replaceChildren(
      h(
        "tr",
        {},
        h("td", { colspan: 5, class: "muted" }, "No jobs yet: submit one."),
      ),
    );
    return;
  }
  jobs.rows.replaceChildren(
    ...jobs.submissions.map((submission) => {
      const id = submission.submissionId;
      const selected = id === jobs.view.id;
      const status = selected && jobs.view.status
        ? jobs.view.status
        : submission.status;
      return h(
        "tr",
        { "data-submission": id, class: selected ? "selected" : "" },
        h(
          "td",
          {},
          h("button", {
            type: "button",
            class: "link",
            "aria-pressed": selected ? "true" : "false",
            onclick: () => select(jobs, id),
          }, id),
        ),
        h("td", {}, submissionBadge(status)),
        h("td", {}, submissionTime(submission.startTime)),
        h("td", {}, submissionTime(submission.endTime)),
        h("td", {}, h("code", {}, submission.entrypoint)),
      );
    }),
  );
}

/**
 * Shows a job's details and follows its log.
 * @param {JobsPanel} jobs
 * @param {string} id
 */
function select(jobs, id) {
  const submission = jobs.submissions.find((s) => s.submissionId === id);
  showSubmission(jobs.view, id, submission);
  showRows(jobs);
}

/**
 * The submit form: the entrypoint and, optionally, a runtime environment
 * in YAML. A submitted job is selected at once, its log followed.
 * @param {JobsPanel} jobs
 */
function submitForm(jobs) {
  const entrypoint = h("input", {
    autocomplete: "off",
    placeholder: "python -c \"print('hello')\"",
  });
  const runtimeEnv = h("textarea", {
    id: "submission-runtime-env",
    rows: 3,
    placeholder: "pip:\n  - numpy",
    "aria-describedby": "submission-runtime-env-error",
  });
  const error = h("p", { class: "error", id: "submission-form-error" });
  const submit = h(
    "button",
    { type: "submit", id: "submit-submission" },
    "Submit",
  );
  const form = h(
    "form",
    {
      class: "submission-form",
      onsubmit: async (event) => {
        event.preventDefault();
        error.textContent = "";
        const local = localWorkingDir(runtimeEnv.value);
        if (local !== undefined) {
          error.textContent = localDirRefusal(local, jobs);
          return;
        }
        submit.disabled = true;
        try {
          const id = await submitJob(jobs.namespace, jobs.cluster, {
            entrypoint: entrypoint.value,
            ...(runtimeEnv.value.trim()
              ? { runtimeEnv: runtimeEnv.value }
              : {}),
          });
          entrypoint.value = "";
          select(jobs, id);
          readSoon(jobs);
        } catch (e) {
          error.textContent = `Cannot submit the job: ${errorMessage(e)}`;
        } finally {
          submit.disabled = false;
        }
      },
    },
    field("Entrypoint", "submission-entrypoint", entrypoint, "entrypoint"),
    h(
      "div",
      {},
      h(
        "label",
        { for: "submission-runtime-env" },
        "Runtime environment (YAML, optional)",
      ),
      runtimeEnv,
    ),
    error,
    h("p", {}, submit),
  );
  return form;
}

/**
 * The runtime environment's `working_dir` when it names a directory on
 * this machine (such as "./") rather than a URI Ray fetches itself
 * (an s3, gs or https URI of a zip); undefined when it names none or a
 * URI.
 * Read from the YAML's top-level key, as typed.
 * @param {string} yaml
 */
export function localWorkingDir(yaml) {
  const line = /^working_dir[ \t]*:[ \t]*(.*)$/m.exec(yaml);
  if (!line) return undefined;
  const value = line[1].replace(/[ \t]+#.*$/, "").trim().replace(
    /^(["'])(.*)\1$/,
    "$2",
  );
  return value === "" || /^[a-z][a-z0-9+.-]*:\/\//i.test(value)
    ? undefined
    : value;
}

/**
 * Why a browser does not send a local working directory, and what does:
 * a page may not read a folder of this machine, and Ray on the cluster
 * cannot see it; the command line packs and uploads it.
 * @param {string} dir
 * @param {JobsPanel} jobs
 */
function localDirRefusal(dir, jobs) {
  return `Cannot submit the job: working_dir ${
    JSON.stringify(dir)
  } is a folder on this computer, which a browser cannot upload to the cluster. Use a URI Ray can fetch (an s3, gs or https URI of a zip file), or upload the folder from the command line: corral jobs run --cluster ${jobs.cluster} -n ${jobs.namespace} --working-dir ${dir} -- ENTRYPOINT`;
}
