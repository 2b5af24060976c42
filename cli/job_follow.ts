/**
 * Following jobs as they change, as the changes of a watch: ADDED,
 * MODIFIED and DELETED, with a BOOKMARK once the jobs as they are have all
 * come. They come from WatchRayJobs (NDJSON, resumed across streams by
 * follow()); from a Corral that cannot watch jobs (one without the cache,
 * code 12, or one from before WatchRayJobs, 404) they come from reading
 * GetRayJob or ListRayJobs every POLL_MS and comparing. Either way callers
 * see only changes: a job told again as it was is not told twice.
 */
import type { CorralClient } from "./client.ts";
import { pollChanges, type Reading, readObjects } from "./poll_follow.ts";
import { ApiError } from "./errors.ts";
import { follow } from "./follow.ts";
import { Code } from "../domain/errors.ts";
import type { Job } from "./types.ts";

const API = "/apis/v1alpha2";

/** How often the jobs are read again from a Corral that cannot watch them. */
export const POLL_MS = 1_000;

/** One change to a job, as WatchRayJobs answers it. */
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

/** The WatchRayJobs route of `scope`, its name as the `name` filter. */
export function jobWatchPath(scope: JobScope): string {
  const base = scope.namespace === undefined
    ? `${API}/watch/jobs`
    : `${API}/watch/namespaces/${encodeURIComponent(scope.namespace)}/jobs`;
  return scope.name === undefined
    ? base
    : `${base}?name=${encodeURIComponent(scope.name)}`;
}

/** One answer of WatchRayJobs on the wire. */
interface JobWatchResult {
  type: JobChange["type"];
  job?: Job | null;
  resourceVersion: string;
}

/**
 * The changes of the jobs in `scope` until `signal` aborts: first each job
 * there is (ADDED) and a BOOKMARK, then each change as it comes. A job
 * that is not there at first is ADDED when it comes.
 */
export async function* followJobs(
  client: CorralClient,
  scope: JobScope,
  signal: AbortSignal,
): AsyncGenerator<JobChange> {
  const changes = new JobChanges();
  let told = false;
  try {
    for await (const result of follow(client, jobWatchPath(scope), signal)) {
      // client.watch() reads any watch's lines; these are WatchRayJobs'.
      for (const change of changes.of(result as unknown as JobWatchResult)) {
        told = true;
        yield change;
      }
    }
  } catch (error) {
    if (told || !cannotWatch(error)) throw error;
    yield* pollJobs(client, scope, signal);
  }
}

/** Whether `error` says this Corral cannot watch jobs at all. */
function cannotWatch(error: unknown): boolean {
  return error instanceof ApiError &&
    (error.code === Code.UNIMPLEMENTED || error.code === Code.NOT_FOUND);
}

/**
 * The watch's answers as changes to the jobs known: a job told again as it
 * was (a state sent again after a resume point too old to resume from) is
 * not a change, and the state's BOOKMARK is told once.
 */
class JobChanges {
  readonly #known = new Map<string, string>();
  /** The jobs of a state being sent (ADDED without resourceVersion). */
  #state: Set<string> | undefined;
  #bookmarked = false;

  *of(result: JobWatchResult): Generator<JobChange> {
    const { type, job } = result;
    if (type === "BOOKMARK") {
      yield* this.#stateEnded();
      if (!this.#bookmarked) yield { type, job: null };
      this.#bookmarked = true;
      return;
    }
    if (!job) return;
    const key = `${job.namespace}/${job.name}`;
    if (type === "ADDED" && result.resourceVersion === "") {
      (this.#state ??= new Set()).add(key);
    }
    const text = JSON.stringify(job);
    if (type === "DELETED") {
      if (this.#known.delete(key)) yield { type, job };
      return;
    }
    const before = this.#known.get(key);
    if (before === text) return;
    this.#known.set(key, text);
    yield { type: before === undefined ? "ADDED" : "MODIFIED", job };
  }

  /**
   * At the BOOKMARK after a state: the jobs known and not in it are gone.
   * (A state found empty cannot be told from a heartbeat: jobs gone while
   * the watch started again from nothing are told when next seen gone.)
   */
  *#stateEnded(): Generator<JobChange> {
    const state = this.#state;
    if (state === undefined) return;
    this.#state = undefined;
    for (const [key, text] of this.#known) {
      if (state.has(key)) continue;
      this.#known.delete(key);
      yield { type: "DELETED", job: JSON.parse(text) as Job };
    }
  }
}

/**
 * The jobs of `scope` read every POLL_MS and compared (poll_follow.ts), for
 * a Corral that cannot watch them.
 */
async function* pollJobs(
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
