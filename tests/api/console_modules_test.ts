/**
 * The parts of the console's modules (api/console/) that need no page: the
 * watches' answers applied to what the console knows, the stream follower
 * they share (resumed, started afresh), the cluster list's filter and the
 * ages it shows. The browser walk is
 * tests/browser/console_test.ts.
 *
 * The modules are loaded by URL, as the browser loads them: a static import
 * would bring the DOM library they reference into the type-check of every
 * test (`deno check api/console/` checks them on their own).
 */
import assert from "node:assert/strict";

const CONSOLE = new URL("../../api/console/", import.meta.url);

interface Cluster {
  name: string;
  namespace: string;
  user?: string;
  version?: string;
}
interface Answer {
  type: string;
  cluster?: Cluster;
  resourceVersion: string;
}
interface State {
  clusters: Map<string, Cluster>;
  watch: { resourceVersion: string; synced: boolean };
  jobs: Map<string, Job>;
  jobsSynced: boolean;
}
interface Job {
  name: string;
  namespace: string;
  jobStatus?: string;
}
interface JobAnswer {
  type: string;
  job?: Job;
  resourceVersion: string;
}
interface JobScope {
  namespace: string | undefined;
  resourceVersion: string;
  controller: AbortController | null;
  stateDue: boolean;
  synced: boolean;
  stopPoll?: () => void;
}
interface JobsWatch {
  scopes: Map<string, JobScope>;
}
interface WatchPoint {
  resourceVersion: string;
  controller: AbortController | null;
}
interface Follower {
  open(resourceVersion: string, signal: AbortSignal): Promise<Response>;
  apply(answer: Answer, fresh: boolean, seen: Set<string>): void;
  refused(response: Response): Promise<"again" | "stop">;
  showLive(text: string): void;
  onChange(): void;
  ended(): boolean;
}

const { state } = await import(`${CONSOLE}state.js`) as { state: State };
const { applyAnswer } = await import(`${CONSOLE}watch.js`) as {
  applyAnswer: (answer: Answer, fresh: boolean, seen: Set<string>) => void;
};
const { applyJobAnswer } = await import(`${CONSOLE}jobs_watch.js`) as {
  applyJobAnswer: (
    watch: JobsWatch,
    scope: JobScope,
    answer: JobAnswer,
    seen: Set<string>,
  ) => void;
};
const { followWatch } = await import(`${CONSOLE}watch_stream.js`) as {
  followWatch: (point: WatchPoint, follower: Follower) => Promise<void>;
};
const { filtered } = await import(`${CONSOLE}clusters_view.js`) as {
  filtered: (filter: { ns: string; text: string }) => Cluster[];
};
const { age } = await import(`${CONSOLE}format.js`) as {
  age: (timestamp: string | null | undefined, now?: number) => string;
};

function cluster(namespace: string, name: string, user = ""): Cluster {
  return { namespace, name, user, version: "2.9.0" };
}

function reset(clusters: Cluster[] = []): void {
  state.clusters = new Map(
    clusters.map((c) => [`${c.namespace}/${c.name}`, c]),
  );
  state.watch.resourceVersion = "";
  state.watch.synced = false;
}

Deno.test("applyAnswer() ends a fresh watch's first clusters at its BOOKMARK, dropping those it did not send", () => {
  reset([cluster("a", "gone")]);
  const seen = new Set<string>();
  applyAnswer(
    { type: "ADDED", cluster: cluster("a", "x"), resourceVersion: "" },
    true,
    seen,
  );
  applyAnswer(
    { type: "ADDED", cluster: cluster("b", "y"), resourceVersion: "" },
    true,
    seen,
  );
  assert.equal(state.watch.synced, false);
  applyAnswer({ type: "BOOKMARK", resourceVersion: "5" }, true, seen);
  assert.deepEqual([...state.clusters.keys()].sort(), ["a/x", "b/y"]);
  assert.equal(state.watch.synced, true);
  assert.equal(state.watch.resourceVersion, "5");
});

Deno.test("applyAnswer() follows changes and deletions, and where the watch is", () => {
  reset([cluster("a", "x"), cluster("a", "y")]);
  state.watch.synced = true;
  const seen = new Set<string>();
  applyAnswer(
    {
      type: "MODIFIED",
      cluster: cluster("a", "x", "bob"),
      resourceVersion: "6",
    },
    false,
    seen,
  );
  applyAnswer(
    { type: "DELETED", cluster: cluster("a", "y"), resourceVersion: "7" },
    false,
    seen,
  );
  applyAnswer({ type: "BOOKMARK", resourceVersion: "8" }, false, seen);
  assert.deepEqual([...state.clusters.values()], [cluster("a", "x", "bob")]);
  assert.equal(state.watch.resourceVersion, "8");
});

function job(namespace: string, name: string, jobStatus = ""): Job {
  return { namespace, name, jobStatus };
}

/** A scope of the jobs' watch, in a JobsWatch of its own and `others`. */
function jobScope(
  namespace: string | undefined,
  stateDue: boolean,
  others: JobScope[] = [],
): { watch: JobsWatch; scope: JobScope } {
  const scope: JobScope = {
    namespace,
    resourceVersion: "",
    controller: null,
    stateDue,
    synced: false,
  };
  const scopes = new Map([[namespace ?? "", scope]]);
  for (const other of others) scopes.set(other.namespace ?? "", other);
  return { watch: { scopes }, scope };
}

function resetJobs(jobs: Job[] = []): void {
  state.jobs = new Map(jobs.map((j) => [`${j.namespace}/${j.name}`, j]));
  state.jobsSynced = false;
}

Deno.test("applyJobAnswer() ends a fresh stream's jobs at its BOOKMARK, dropping those of its namespace it did not send", () => {
  resetJobs([job("a", "gone"), job("b", "other")]);
  const { watch, scope } = jobScope("a", true);
  const seen = new Set<string>();
  applyJobAnswer(
    watch,
    scope,
    { type: "ADDED", job: job("a", "x"), resourceVersion: "" },
    seen,
  );
  assert.deepEqual([...state.jobs.keys()].sort(), ["a/gone", "a/x", "b/other"]);
  assert.equal(state.jobsSynced, false);
  applyJobAnswer(
    watch,
    scope,
    { type: "BOOKMARK", resourceVersion: "5" },
    seen,
  );
  // b's jobs are another watch's to keep.
  assert.deepEqual([...state.jobs.keys()].sort(), ["a/x", "b/other"]);
  assert.equal(state.jobsSynced, true);
  assert.equal(scope.resourceVersion, "5");
  assert.equal(scope.stateDue, false);
});

Deno.test("applyJobAnswer() on the watch of every namespace drops any job it did not send, and the jobs count as read once every watch has sent its own", () => {
  resetJobs([job("a", "gone"), job("b", "gone")]);
  const { watch, scope } = jobScope(undefined, true);
  const seen = new Set<string>();
  applyJobAnswer(
    watch,
    scope,
    { type: "ADDED", job: job("b", "y"), resourceVersion: "" },
    seen,
  );
  applyJobAnswer(
    watch,
    scope,
    { type: "BOOKMARK", resourceVersion: "7" },
    seen,
  );
  assert.deepEqual([...state.jobs.keys()], ["b/y"]);
  assert.equal(state.jobsSynced, true);

  resetJobs();
  const waiting = jobScope("c", true).scope;
  const two = jobScope("d", true, [waiting]);
  applyJobAnswer(
    two.watch,
    two.scope,
    { type: "BOOKMARK", resourceVersion: "8" },
    new Set(),
  );
  assert.equal(state.jobsSynced, false, "c has not sent its jobs yet");
});

Deno.test("applyJobAnswer() follows changes and deletions, and where the stream is; a resumed stream's BOOKMARK drops nothing", () => {
  resetJobs([job("a", "x", "PENDING"), job("a", "y"), job("a", "kept")]);
  const { watch, scope } = jobScope("a", false);
  const seen = new Set<string>();
  applyJobAnswer(watch, scope, {
    type: "MODIFIED",
    job: job("a", "x", "RUNNING"),
    resourceVersion: "6",
  }, seen);
  applyJobAnswer(
    watch,
    scope,
    { type: "DELETED", job: job("a", "y"), resourceVersion: "7" },
    seen,
  );
  assert.equal(scope.resourceVersion, "7");
  applyJobAnswer(
    watch,
    scope,
    { type: "BOOKMARK", resourceVersion: "9" },
    seen,
  );
  assert.deepEqual([...state.jobs.values()], [
    job("a", "x", "RUNNING"),
    job("a", "kept"),
  ]);
  assert.equal(scope.resourceVersion, "9");
});

/** An NDJSON answer of `lines`, as a watch streams it. */
function ndjson(...lines: unknown[]): Response {
  return new Response(lines.map((l) => `${JSON.stringify(l)}\n`).join(""));
}

Deno.test("followWatch() resumes from the last BOOKMARK after a stream ends, and starts afresh after a 409 or a code 10 in the stream", async () => {
  const point: WatchPoint = { resourceVersion: "", controller: null };
  const asked: string[] = [];
  const applied: string[] = [];
  const answers = [
    () =>
      ndjson(
        { result: { type: "ADDED", resourceVersion: "" } },
        { result: { type: "BOOKMARK", resourceVersion: "5" } },
      ),
    () => new Response("{}", { status: 409 }),
    () =>
      ndjson(
        { result: { type: "BOOKMARK", resourceVersion: "6" } },
        { error: { code: 10, message: "watch again" } },
      ),
    () => ndjson({ result: { type: "BOOKMARK", resourceVersion: "7" } }),
  ];
  await followWatch(point, {
    open: (resourceVersion) => {
      asked.push(resourceVersion);
      return Promise.resolve(answers[asked.length - 1]());
    },
    apply: (answer, fresh) => {
      applied.push(`${answer.type} ${fresh}`);
      if (answer.resourceVersion) {
        point.resourceVersion = answer.resourceVersion;
      }
    },
    refused: () => Promise.reject(new Error("not refused here")),
    showLive: () => {},
    onChange: () => {},
    ended: () => asked.length === answers.length,
  });
  assert.deepEqual(asked, ["", "5", "", ""]);
  assert.deepEqual(applied, [
    "ADDED true",
    "BOOKMARK true",
    "BOOKMARK true",
    "BOOKMARK true",
  ]);
});

Deno.test("filtered() keeps a namespace's clusters whose name, user or version holds the text, by namespace and name", () => {
  reset([
    cluster("b", "blue", "alice"),
    cluster("a", "green", "bob"),
    cluster("a", "blue", "carol"),
  ]);
  const names = (ns: string, text: string) =>
    filtered({ ns, text }).map((c) => `${c.namespace}/${c.name}`);
  assert.deepEqual(names("", ""), ["a/blue", "a/green", "b/blue"]);
  assert.deepEqual(names("a", ""), ["a/blue", "a/green"]);
  assert.deepEqual(names("", "blu"), ["a/blue", "b/blue"]);
  assert.deepEqual(names("", "alice"), ["b/blue"]);
  assert.deepEqual(names("b", "bob"), []);
});

Deno.test("age() is written as kubectl writes it", async (t) => {
  const now = Date.parse("2026-01-01T12:00:00Z");
  const ago = (seconds: number) => new Date(now - seconds * 1000).toISOString();
  for (
    const [timestamp, want] of [
      [ago(45), "45s"],
      [ago(12 * 60), "12m"],
      [ago(3 * 3600), "3h"],
      [ago(5 * 86400), "5d"],
      [null, ""],
    ] as const
  ) {
    await t.step(`${want || "unknown"}`, () => {
      assert.equal(age(timestamp, now), want);
    });
  }
});

Deno.test("applyAnswer() drops what a fresh stream after a 409 did not send, though the console was in step before", () => {
  reset([cluster("a", "x"), cluster("a", "deleted-during-the-gap")]);
  state.watch.synced = true;
  const seen = new Set<string>();
  applyAnswer(
    { type: "ADDED", cluster: cluster("a", "x"), resourceVersion: "" },
    true,
    seen,
  );
  applyAnswer({ type: "BOOKMARK", resourceVersion: "9" }, true, seen);
  assert.deepEqual([...state.clusters.keys()], ["a/x"]);
});

Deno.test("applyJobAnswer() on the watch of every namespace keeps the jobs of a namespace that is read rather than watched", () => {
  resetJobs([job("a", "gone"), job("c", "listed")]);
  const reading: JobScope = {
    namespace: "c",
    resourceVersion: "",
    controller: null,
    stateDue: false,
    synced: true,
    stopPoll: () => {},
  };
  const { watch, scope } = jobScope(undefined, true, [reading]);
  const seen = new Set<string>();
  for (
    const answer of [
      { type: "ADDED", job: job("b", "y"), resourceVersion: "" },
      { type: "BOOKMARK", resourceVersion: "7" },
    ]
  ) applyJobAnswer(watch, scope, answer, seen);
  assert.deepEqual([...state.jobs.keys()].sort(), ["b/y", "c/listed"]);
});
