/**
 * Following jobs as they change, as the changes of a watch: ADDED,
 * MODIFIED and DELETED, with a BOOKMARK once the jobs as they are have all
 * come. The API has no watch of jobs yet, so this module polls GetRayJob or
 * ListRayJobs and compares; it is the one place that does, and the one to
 * change (to follow()'s stream) once WatchRayJobs exists. Its callers only
 * see changes.
 */
import type { CorralClient } from "./client.ts";
import { ApiError } from "./errors.ts";
import { Code } from "../domain/errors.ts";
import type { Job } from "./types.ts";

const API = "/apis/v1alpha2";

/** How often the jobs are read again while no watch exists. */
export const POLL_MS = 1_000;

/** One change to a job, as WatchRayJobs will answer it. */
export interface JobChange {
  type: "ADDED" | "MODIFIED" | "DELETED" | "BOOKMARK";
  job: Job | null;
}

/** The route of a namespace's jobs (or every namespace's), or of one job. */
export function jobPath(namespace?: string, name?: string): string {
  if (namespace === undefined) return `${API}/jobs`;
  const base = `${API}/namespaces/${encodeURIComponent(namespace)}/jobs`;
  return name === undefined ? base : `${base}/${encodeURIComponent(name)}`;
}

/** Which jobs to follow: one by name, a namespace's, or every namespace's. */
export interface JobScope {
  /** Every namespace's when undefined. */
  namespace?: string;
  /** One job of `namespace` only. */
  name?: string;
}

/** The jobs in scope now, by "namespace/name". */
async function readJobs(
  client: CorralClient,
  scope: JobScope,
): Promise<Map<string, Job>> {
  const jobs: Job[] = [];
  if (scope.name !== undefined && scope.namespace !== undefined) {
    try {
      jobs.push(
        await client.call<Job>("GET", jobPath(scope.namespace, scope.name)),
      );
    } catch (error) {
      if (!(error instanceof ApiError && error.code === Code.NOT_FOUND)) {
        throw error;
      }
    }
  } else {
    const answer = await client.call<{ jobs?: Job[] }>(
      "GET",
      jobPath(scope.namespace),
    );
    jobs.push(...answer.jobs ?? []);
  }
  return new Map(jobs.map((job) => [`${job.namespace}/${job.name}`, job]));
}

/**
 * The changes of the jobs in `scope` until `signal` aborts: first each job
 * there is (ADDED) and a BOOKMARK, then each change as it is seen. A job
 * that is not there at first is ADDED when it comes.
 */
export async function* followJobs(
  client: CorralClient,
  scope: JobScope,
  signal: AbortSignal,
): AsyncGenerator<JobChange> {
  let known = new Map<string, Job>();
  let first = true;
  while (!signal.aborted) {
    const now = await readJobs(client, scope);
    for (const [key, job] of now) {
      const before = known.get(key);
      if (!before) yield { type: "ADDED", job };
      else if (JSON.stringify(before) !== JSON.stringify(job)) {
        yield { type: "MODIFIED", job };
      }
    }
    for (const [key, job] of known) {
      if (!now.has(key)) yield { type: "DELETED", job };
    }
    known = now;
    if (first) yield { type: "BOOKMARK", job: null };
    first = false;
    await delay(POLL_MS, signal);
  }
}

/** Resolves after `ms`, or at once when `signal` aborts. */
function delay(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
    function done() {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
  });
}
