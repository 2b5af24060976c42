// @ts-check
/// <reference lib="dom" />
/**
 * The calls on the jobs submitted to a ready cluster, through its
 * dashboard's job API: list, submit, stop, delete, and follow a log; and
 * following a RayJob's log, its submitter's.
 */
import {
  ApiError,
  call,
  headers,
  parsed,
  paths,
  send,
  whenUnauthorized,
} from "./api.js";

/** @typedef {import("./api.js").Submission} Submission */

/**
 * The jobs submitted to a ready cluster (ListJobDetails), as its
 * dashboard lists them.
 * @param {string} namespace
 * @param {string} cluster
 * @returns {Promise<Submission[]>}
 */
export async function listSubmissions(namespace, cluster) {
  const answer = await call("GET", paths.submissions(namespace, cluster));
  return answer.submissions ?? [];
}

/**
 * Submits a job to a ready cluster (SubmitRayJob); its submission id.
 * @param {string} namespace
 * @param {string} cluster
 * @param {{ entrypoint: string, runtimeEnv?: string }} submission
 * @returns {Promise<string>}
 */
export async function submitJob(namespace, cluster, submission) {
  const answer = await call(
    "POST",
    paths.submissions(namespace, cluster),
    submission,
  );
  return answer.submissionId ?? "";
}

/**
 * Stops a submitted job (StopRayJob); one that has ended is left as it is.
 * @param {string} namespace
 * @param {string} cluster
 * @param {string} id
 */
export async function stopSubmission(namespace, cluster, id) {
  await call("POST", paths.submission(namespace, cluster, id));
}

/**
 * Deletes a submitted job that has ended, with its logs (DeleteRayJob).
 * @param {string} namespace
 * @param {string} cluster
 * @param {string} id
 */
export async function deleteSubmission(namespace, cluster, id) {
  await call("DELETE", paths.submission(namespace, cluster, id));
}

/**
 * WatchJobLog's answer as it starts: newline-delimited JSON, one
 * `{result: LogAnswer}` or `{error}` a line, ending when the job does.
 * Read with fetch rather than EventSource, which cannot send the token.
 * An answer that is not a success throws its ApiError (a 401 asks for a
 * token, as every call's does).
 * @param {string} namespace
 * @param {string} cluster
 * @param {string} id
 * @param {AbortSignal} signal
 * @returns {Promise<Response>} a 200 answer, its body unread
 */
export async function openJobLog(namespace, cluster, id, signal) {
  const response = await send(paths.submissionLog(namespace, cluster, id), {
    headers: headers(false),
    signal,
  });
  if (response.ok) return response;
  const json = parsed(await response.text());
  if (response.status === 401) whenUnauthorized();
  throw new ApiError(response.status, json);
}

/**
 * WatchRayJobLog's answer as it starts, as openJobLog's: a RayJob's log
 * (its submitter's), one `{result: {log}}` a line, ending when the
 * submitter does. Code 9 (a 400) while the submitter has not started.
 * @param {string} namespace
 * @param {string} name the job's
 * @param {AbortSignal} signal
 * @returns {Promise<Response>} a 200 answer, its body unread
 */
export async function openRayJobLog(namespace, name, signal) {
  const response = await send(paths.jobLog(namespace, name), {
    headers: headers(false),
    signal,
  });
  if (response.ok) return response;
  const json = parsed(await response.text());
  if (response.status === 401) whenUnauthorized();
  throw new ApiError(response.status, json);
}
