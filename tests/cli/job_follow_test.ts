/**
 * followJobs(): the changes of WatchRayJobs as the CLI's callers see them
 * (each job told once per change, the state's BOOKMARK once, a state sent
 * again after a resume point too old compared with what was known), and
 * reading the jobs instead from a Corral that cannot watch them (code 12).
 * The client is a fake that answers as Corral's HTTP API does.
 */
import assert from "node:assert/strict";
import type { CorralClient, WatchResult } from "../../cli/client.ts";
import { ApiError } from "../../cli/errors.ts";
import { followJobs, jobWatchPath } from "../../cli/job_follow.ts";
import type { Job } from "../../cli/types.ts";
import { Code } from "../../domain/errors.ts";

function job(name: string, jobStatus = ""): Job {
  return { name, namespace: "team-a", jobStatus } as unknown as Job;
}

type Line = { type: string; job?: Job; resourceVersion: string };

/**
 * A client whose watch streams answer `streams` in turn (an ApiError ends
 * one as an error line does), and whose reads answer `jobs`.
 */
function fakeClient(
  streams: (Line | ApiError)[][],
  jobs: Job[] = [],
): CorralClient & { paths: string[] } {
  const paths: string[] = [];
  return {
    paths,
    call<T>(_method: string, path: string): Promise<T> {
      paths.push(path);
      return Promise.resolve({ jobs } as T);
    },
    async *watch(path: string) {
      paths.push(path);
      const stream = streams.shift();
      if (stream === undefined) return await new Promise<never>(() => {});
      for (const line of stream) {
        if (line instanceof ApiError) throw line;
        yield line as unknown as WatchResult;
      }
    },
    forward(): Promise<Response> {
      return Promise.reject(new Error("not used by followJobs"));
    },
    webSocket(): WebSocket {
      throw new Error("not used by followJobs");
    },
    errorOf(status: number, text: string): ApiError {
      return new ApiError(status, { message: text });
    },
    close() {},
  };
}

/** The first `count` changes, as "TYPE name status". */
async function first(
  client: CorralClient,
  count: number,
  scope = {},
): Promise<string[]> {
  const aborter = new AbortController();
  const seen: string[] = [];
  for await (const change of followJobs(client, scope, aborter.signal)) {
    seen.push(
      change.job
        ? `${change.type} ${change.job.name} ${change.job.jobStatus}`.trim()
        : change.type,
    );
    if (seen.length === count) break;
  }
  aborter.abort();
  return seen;
}

Deno.test("followJobs() tells the watch's changes once each, the BOOKMARK once, and a state sent again as what changed", async () => {
  const tooOld = new ApiError(200, {
    code: Code.ABORTED,
    message: "Cannot resume the watch: it is too old",
  });
  const client = fakeClient([
    [
      { type: "ADDED", job: job("a"), resourceVersion: "" },
      { type: "ADDED", job: job("b"), resourceVersion: "" },
      { type: "BOOKMARK", resourceVersion: "5" },
      { type: "MODIFIED", job: job("a", "RUNNING"), resourceVersion: "6" },
      { type: "MODIFIED", job: job("a", "RUNNING"), resourceVersion: "7" },
      { type: "BOOKMARK", resourceVersion: "7" },
      tooOld,
    ],
    [
      // Started afresh: b is gone, a is as it was, c is new.
      { type: "ADDED", job: job("a", "RUNNING"), resourceVersion: "" },
      { type: "ADDED", job: job("c"), resourceVersion: "" },
      { type: "BOOKMARK", resourceVersion: "20" },
      { type: "DELETED", job: job("c"), resourceVersion: "21" },
    ],
  ]);
  assert.deepEqual(await first(client, 6, { namespace: "team-a" }), [
    "ADDED a",
    "ADDED b",
    "BOOKMARK",
    "MODIFIED a RUNNING",
    "ADDED c",
    "DELETED b",
  ]);
  // Code 10: watched again from the state, not from a resume point.
  assert.deepEqual(client.paths, [
    "/apis/v1alpha2/watch/namespaces/team-a/jobs",
    "/apis/v1alpha2/watch/namespaces/team-a/jobs",
  ]);
});

Deno.test("followJobs() reads the jobs instead from a Corral that cannot watch them (code 12), and watches one job by its name", async () => {
  const noCache = new ApiError(501, {
    code: Code.UNIMPLEMENTED,
    message: "watching needs the cache",
  });
  const client = fakeClient([[noCache]], [job("a")]);
  assert.deepEqual(await first(client, 2), ["ADDED a", "BOOKMARK"]);
  assert.deepEqual(client.paths, [
    "/apis/v1alpha2/watch/jobs",
    "/apis/v1alpha2/jobs",
  ]);
  assert.equal(
    jobWatchPath({ namespace: "team a", name: "train" }),
    "/apis/v1alpha2/watch/namespaces/team%20a/jobs?name=train",
  );
});
