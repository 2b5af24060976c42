/**
 * Following jobs as they change, as the changes of a watch: ADDED,
 * MODIFIED and DELETED, with a BOOKMARK once the jobs as they are have all
 * come. The API has no watch of jobs yet, so this module polls GetRayJob or
 * ListRayJobs and compares; it is the one place that does, and the one to
 * change (to follow()'s stream) once WatchRayJobs exists. Its callers only
 * see changes.
 */
import type { CorralClient } from "./client.ts";
import { pollChanges, type Reading, readObjects } from "./poll_follow.ts";
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
  const reading: Reading = scope.name !== undefined &&
      scope.namespace !== undefined
    ? { one: jobPath(scope.namespace, scope.name) }
    : { list: jobPath(scope.namespace), field: "jobs" };
  const read = () => readObjects<Job>(client, reading);
  for await (const change of pollChanges(read, POLL_MS, signal)) {
    yield { type: change.type, job: change.object };
  }
}
