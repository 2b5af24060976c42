// @ts-check
/// <reference lib="dom" />
/**
 * The selected job of a cluster's "Jobs on this cluster" panel
 * (cluster_jobs.js): its details, Stop and Delete, and its log, followed
 * live with WatchJobLog until the job ends. One job is followed at a time:
 * selecting another, or leaving the page, aborts the stream.
 */
import { errorMessage } from "./api.js";
import {
  deleteSubmission,
  openJobLog,
  stopSubmission,
} from "./api_submissions.js";
import { reportUnreachable } from "./connection.js";
import { submissionBadge } from "./format.js";
import { h } from "./html.js";
import { readResults } from "./ndjson.js";

/** @typedef {import("./api.js").Submission} Submission */
/** @typedef {import("./api.js").LogAnswer} LogAnswer */

/** The statuses a job does not leave. */
const TERMINAL = new Set(["STOPPED", "SUCCEEDED", "FAILED"]);

/**
 * What the panel shows of its selected job.
 * @typedef {object} SubmissionView
 * @property {string} namespace
 * @property {string} cluster
 * @property {HTMLElement} element where the details and log are drawn
 * @property {HTMLElement} facts the details, redrawn as the list is read
 * @property {string | null} id the selected job's submission id
 * @property {string} [status] the job's status, as its log stream last said
 * @property {AbortController | null} controller ends the log's stream
 * @property {() => void} onEnd called when the job is seen to end or is deleted
 * @property {() => void} onStatus called when the stream says a new status
 */

/**
 * A time in milliseconds since the epoch (a number, or text as 64-bit
 * numbers go in JSON) as the browser's locale writes it; empty for 0.
 * @param {number | string | undefined} millis
 */
export function submissionTime(millis) {
  const value = Number(millis ?? 0);
  return value > 0 ? new Date(value).toLocaleString() : "";
}

/**
 * Shows the job `id` (with what the list knows of it, when it is listed)
 * and follows its log, ending the stream of the job shown before.
 * @param {SubmissionView} view
 * @param {string} id
 * @param {Submission | undefined} submission
 */
export function showSubmission(view, id, submission) {
  closeSubmission(view);
  view.id = id;
  view.status = submission?.status;
  const controller = new AbortController();
  view.controller = controller;
  const log = h("pre", {
    class: "log",
    id: "submission-log",
    "aria-live": "polite",
    "aria-label": `The log of ${id}`,
  });
  const note = h(
    "p",
    { class: "muted", id: "submission-log-note" },
    "Following the log…",
  );
  const error = h("p", { class: "error", id: "submission-error" });
  view.facts = h("dl", { class: "facts" });
  showFacts(view, submission);
  view.element.replaceChildren(
    h("h3", {}, `Job ${id}`),
    view.facts,
    actions(view, id, error),
    error,
    log,
    note,
  );
  showStoppable(view, submission);
  followLog(view, controller, { log, note });
}

/**
 * Enables Stop while the selected job may still run: a job that ended
 * (its status from the log stream, else the list's) has nothing to stop.
 * @param {SubmissionView} view
 * @param {Submission} [submission] what the list says of it
 */
function showStoppable(view, submission) {
  const stop = /** @type {HTMLButtonElement | null} */ (
    view.element.querySelector("#stop-submission")
  );
  if (!stop) return;
  const status = view.status ?? submission?.status ?? "";
  stop.disabled = TERMINAL.has(status);
  stop.title = stop.disabled ? `The job has ended: ${status}.` : "";
}

/**
 * Draws the selected job's facts from what the list last said of it (the
 * status from the log stream, which is newer); nothing but the status
 * while the list does not have it yet (just submitted).
 * @param {SubmissionView} view
 * @param {Submission | undefined} submission
 */
export function showFacts(view, submission) {
  if (submission && submission.submissionId !== view.id) return;
  const status = h(
    "span",
    { id: "submission-status" },
    submissionBadge(view.status ?? submission?.status),
  );
  view.facts.replaceChildren(
    h("dt", {}, "Status"),
    h("dd", {}, status),
    ...(submission ? listedFacts(submission) : []),
  );
  showStoppable(view, submission);
}

/**
 * What the list says of a job, as terms and their descriptions.
 * @param {Submission} submission
 * @returns {HTMLElement[]}
 */
function listedFacts(submission) {
  return [
    h("dt", {}, "Entrypoint"),
    h("dd", {}, h("code", {}, submission.entrypoint)),
    h("dt", {}, "Started"),
    h("dd", {}, submissionTime(submission.startTime)),
    h("dt", {}, "Ended"),
    h("dd", {}, submissionTime(submission.endTime)),
    h("dt", {}, "Message"),
    h("dd", { id: "submission-message" }, submission.message),
    ...runtimeEnvFacts(submission),
  ];
}

/**
 * The job's runtime environment, a line per key; nothing when it has none.
 * @param {Submission} submission
 * @returns {HTMLElement[]}
 */
function runtimeEnvFacts(submission) {
  const entries = Object.entries(submission.runtimeEnv ?? {});
  if (entries.length === 0) return [];
  return [
    h("dt", {}, "Runtime environment"),
    h(
      "dd",
      {},
      entries.map(([k, v]) => h("div", {}, h("code", {}, `${k}: ${v}`))),
    ),
  ];
}

/**
 * Ends the shown job's log stream, if it has one.
 * @param {SubmissionView} view
 */
export function closeSubmission(view) {
  view.controller?.abort();
  view.controller = null;
}

/**
 * Stop and Delete; what they fail with is said in `error`. Ray deletes
 * only a job that has ended, and says so when asked to delete one that
 * has not: that refusal is shown as it is.
 * @param {SubmissionView} view
 * @param {string} id
 * @param {HTMLElement} error
 */
function actions(view, id, error) {
  /**
   * @param {string} label
   * @param {string} buttonId
   * @param {() => Promise<void>} act
   */
  const button = (label, buttonId, act) => {
    const element = h("button", {
      type: "button",
      class: "danger",
      id: buttonId,
      onclick: async () => {
        element.disabled = true;
        error.textContent = "";
        try {
          await act();
        } catch (e) {
          error.textContent = `Cannot ${label.toLowerCase()} the job: ${
            errorMessage(e)
          }`;
        } finally {
          element.disabled = false;
          showStoppable(view);
        }
      },
    }, label);
    return element;
  };
  return h(
    "p",
    { class: "scale" },
    button("Stop", "stop-submission", async () => {
      await stopSubmission(view.namespace, view.cluster, id);
    }),
    button("Delete", "delete-submission", async () => {
      await deleteSubmission(view.namespace, view.cluster, id);
      if (view.id !== id) return;
      closeSubmission(view);
      view.id = null;
      view.element.replaceChildren();
      view.onEnd();
    }),
  );
}

/**
 * Follows the job's log until it ends: each answer's text is added to
 * `log`, its status shown. A stream that fails is said in `note`;
 * selecting the job again follows it afresh (the first answer is the
 * whole log so far).
 * @param {SubmissionView} view
 * @param {AbortController} controller
 * @param {{ log: HTMLElement, note: HTMLElement }} shown
 */
async function followLog(view, controller, shown) {
  try {
    const response = await openJobLog(
      view.namespace,
      view.cluster,
      /** @type {string} */ (view.id),
      controller.signal,
    );
    await readResults(
      response,
      (/** @type {LogAnswer | undefined} */ answer) => {
        shown.log.append(answer?.log ?? "");
        shown.log.scrollTop = shown.log.scrollHeight;
        if (answer?.status && answer.status !== view.status) {
          view.status = answer.status;
          view.facts.querySelector("#submission-status")?.replaceChildren(
            submissionBadge(answer.status),
          );
          showStoppable(view);
          view.onStatus();
        }
      },
    );
    shown.note.textContent = TERMINAL.has(view.status ?? "")
      ? `The job ended: ${view.status}.`
      : "The log stream ended before the job did: select the job to follow it again.";
    view.onEnd();
  } catch (error) {
    if (controller.signal.aborted) return;
    // A stream cut mid-way is Corral gone (send() saw its start).
    if (error instanceof TypeError) reportUnreachable();
    shown.note.textContent = `Not following the log: ${
      errorMessage(error)
    }. Select the job to follow it again.`;
  }
}
