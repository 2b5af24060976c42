/**
 * `--wait` on a job: follows it (job_follow.ts) and prints each change of
 * its status as it comes, until it ends; the exit code is its outcome, so a
 * script can branch on it: 0 SUCCEEDED, 1 FAILED (or its deployment
 * failed, as when its deadline passed), 4 STOPPED, 2 when --timeout ran out
 * first.
 */
import type { CorralClient } from "./client.ts";
import {
  CliError,
  EXIT_API_ERROR,
  EXIT_JOB_STOPPED,
  EXIT_OK,
  EXIT_USAGE,
} from "./errors.ts";
import { followJobs } from "./job_follow.ts";
import { formatDuration } from "./output.ts";
import type { ClusterEvent, Job } from "./types.ts";

/** The status a person reads: the operator's, else PENDING. */
export function jobStatus(job: Job): string {
  return job.jobStatus || "PENDING";
}

/** Where a job is: its status and its deployment's, with the message. */
function statusLine(key: string, job: Job): string {
  const deployment = job.jobDeploymentStatus
    ? ` (deployment ${job.jobDeploymentStatus})`
    : "";
  const message = job.message ? `: ${job.message}` : "";
  return `job ${key}: ${jobStatus(job)}${deployment}${message}`;
}

/** The exit code of an ended job; undefined while it has not ended. */
export function outcomeOf(job: Job): number | undefined {
  switch (job.jobStatus) {
    case "SUCCEEDED":
      return EXIT_OK;
    case "FAILED":
      return EXIT_API_ERROR;
    case "STOPPED":
      return EXIT_JOB_STOPPED;
  }
  // The operator ends a job whose deadline passed, or whose submitter
  // failed, with its deployment Failed and the Ray status as it last was.
  return job.jobDeploymentStatus === "Failed" ? EXIT_API_ERROR : undefined;
}

function eventLine(event: ClusterEvent): string {
  return `  ${event.type ?? "Normal"}  ${event.reason ?? ""}: ${
    event.message ?? ""
  }`;
}

/**
 * Waits for job `namespace/name` to end, printing its changes; resolves
 * with its outcome's exit code, or throws a CliError when it is deleted
 * meanwhile (exit 1) or `timeoutMs` runs out (exit 2).
 */
export async function waitForJob(
  client: CorralClient,
  options: { namespace: string; name: string; timeoutMs: number },
): Promise<number> {
  const { namespace, name, timeoutMs } = options;
  const key = `${namespace}/${name}`;
  const aborter = new AbortController();
  const timer = setTimeout(() => aborter.abort(), timeoutMs);
  const shownEvents = new Set<string>();
  let last: Job | undefined;
  let shown = "";
  try {
    const scope = { namespace, name };
    for await (const change of followJobs(client, scope, aborter.signal)) {
      if (change.type === "BOOKMARK" && !last) {
        throw new CliError(`job ${key} not found`, EXIT_API_ERROR);
      }
      if (change.type === "DELETED") {
        throw new CliError(
          `job ${key} was deleted while waiting for it to end`,
          EXIT_API_ERROR,
        );
      }
      if (!change.job) continue;
      last = change.job;
      for (const event of last.events ?? []) {
        const id = event.id ?? `${event.reason}/${event.message}`;
        if (shownEvents.has(id)) continue;
        shownEvents.add(id);
        console.log(eventLine(event));
      }
      const line = statusLine(key, last);
      if (line !== shown) console.log(shown = line);
      const outcome = outcomeOf(last);
      if (outcome !== undefined) return outcome;
    }
  } finally {
    clearTimeout(timer);
    aborter.abort();
  }
  throw new CliError(
    `timed out after ${
      formatDuration(timeoutMs)
    } waiting for job ${key} to end${
      last ? ` (status: ${jobStatus(last)})` : ""
    }`,
    EXIT_USAGE,
  );
}
