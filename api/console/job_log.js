// @ts-check
/// <reference lib="dom" />
/**
 * The Log panel of a job's page (job_view.js): what the job's submitter
 * printed (WatchRayJobLog), followed while the job runs and kept once it
 * has ended, its cluster deleted or not. The panel is made once per page
 * and kept across its redraws; once the operator has made the submitter
 * (deployment Running), each change of the job (the jobs' watch) tries
 * the log again while it is not followed: until the submitter has started
 * (code 9) the panel says so, and a stream that ended before the job did
 * is followed afresh (its first answer is the whole log so far).
 */
import { errorMessage } from "./api.js";
import { openRayJobLog } from "./api_submissions.js";
import { reportUnreachable } from "./connection.js";
import { h, panel } from "./html.js";
import { readResults } from "./ndjson.js";

/** @typedef {import("./api.js").Job} Job */

/** FAILED_PRECONDITION: the submitter has not started yet. */
const NOT_STARTED = 9;

/**
 * Whether the job's submitter may have started: the operator has made it
 * (deployment Running) or the job has gone past that.
 * @param {Job} job
 */
function submitted(job) {
  return ["Running", "Complete", "Failed", "Suspending", "Retrying"]
    .includes(job.jobDeploymentStatus ?? "");
}

/**
 * Whether the job has ended, as its status says.
 * @param {Job} job
 */
function ended(job) {
  return ["SUCCEEDED", "FAILED", "STOPPED"].includes(job.jobStatus ?? "") ||
    ["Complete", "Failed"].includes(job.jobDeploymentStatus ?? "");
}

/**
 * The panel, and what keeps it in step with the job.
 * @param {string} namespace
 * @param {string} name
 */
export function jobLogPanel(namespace, name) {
  const log = h("pre", {
    class: "log",
    id: "job-log",
    tabindex: "0",
    "aria-label": `The log of job ${name}`,
  });
  const note = h(
    "p",
    { class: "muted", id: "job-log-note", role: "status" },
    "The log appears once the job's submitter has started.",
  );
  const element = panel("log", "Log", note, log);
  /** @type {AbortController | null} */
  let controller = null;
  /** Whether the whole log is shown: the job ended and its stream too. */
  let complete = false;
  /** @type {Job | undefined} */
  let last;

  /** @param {AbortController} aborter */
  async function follow(aborter) {
    try {
      const response = await openRayJobLog(namespace, name, aborter.signal);
      log.replaceChildren();
      note.textContent = "Following the log…";
      await readResults(response, (/** @type {{ log?: string }} */ answer) => {
        log.append(answer?.log ?? "");
        log.scrollTop = log.scrollHeight;
      });
      complete = last !== undefined && ended(last);
      note.textContent = complete
        ? "The job has ended: this is its whole log."
        : "The submitter has ended.";
    } catch (error) {
      if (aborter.signal.aborted) return;
      if (error instanceof TypeError) reportUnreachable();
      note.textContent = /** @type {{ code?: number }} */ (error).code ===
          NOT_STARTED
        ? "The log appears once the job's submitter has started."
        : `Not following the log: ${errorMessage(error)}.`;
    } finally {
      if (controller === aborter) controller = null;
    }
  }

  return {
    element,
    /**
     * Follows the log if it is not followed yet, or no longer.
     * @param {Job} job
     */
    update(job) {
      last = job;
      if (controller || complete || !submitted(job)) return;
      controller = new AbortController();
      void follow(controller);
    },
    /** Ends the stream, when the page closes. */
    close() {
      controller?.abort();
      controller = null;
    },
  };
}
