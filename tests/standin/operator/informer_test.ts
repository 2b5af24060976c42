import assert from "node:assert/strict";
import type {
  ClusterWatchEvent,
  ObservedCluster,
} from "../../../standin/operator/api_client.ts";
import {
  type InformerApi,
  runInformer,
} from "../../../standin/operator/informer.ts";

function cluster(uid: string, resourceVersion: string): ObservedCluster {
  return {
    metadata: { name: uid, namespace: "team-a", uid, resourceVersion },
  };
}

/**
 * An API answering lists and watches from scripts, in order, recording
 * what was asked; once the watches run out it ends the informer.
 */
function scriptedApi(
  lists: (() => { items: ObservedCluster[]; resourceVersion: string })[],
  watches: ClusterWatchEvent[][],
  stop: AbortController,
) {
  const asked: string[] = [];
  const api: InformerApi = {
    server: "http://127.0.0.1:1",
    collection: "/apis/ray.io/v1/rayclusters",
    listObjects() {
      asked.push("list");
      const next = lists.shift();
      return next ? Promise.resolve(next()) : Promise.reject(new Error("no"));
    },
    async *watchObjects(resourceVersion: string) {
      asked.push(`watch from ${resourceVersion}`);
      const events = watches.shift();
      if (!events) {
        stop.abort();
        return;
      }
      yield* events;
    },
  };
  return { api, asked };
}

function recordingHandler() {
  const told: string[] = [];
  return {
    told,
    listed: (clusters: ObservedCluster[]) =>
      told.push(`listed ${clusters.map((c) => c.metadata.uid)}`),
    observe: (c: ObservedCluster) => told.push(`observe ${c.metadata.uid}`),
    release: (uid: string) => told.push(`release ${uid}`),
  };
}

Deno.test("runInformer() resumes a watch the server ended from the last revision seen, and lists again after 410 Gone", async () => {
  const stop = new AbortController();
  const { api, asked } = scriptedApi(
    [
      () => ({ items: [cluster("a", "3")], resourceVersion: "5" }),
      () => ({ items: [cluster("b", "8")], resourceVersion: "9" }),
    ],
    [
      [
        { type: "ADDED", object: cluster("b", "6") },
        { type: "BOOKMARK", object: cluster("", "7") },
      ],
      [
        { type: "DELETED", object: cluster("a", "8") },
        { type: "ERROR", object: { ...cluster("", ""), code: 410 } },
        { type: "MODIFIED", object: cluster("b", "10") },
      ],
    ],
    stop,
  );
  const handler = recordingHandler();
  await runInformer(api, handler, { retryIntervalMs: 0, signal: stop.signal });
  assert.deepEqual(asked, [
    "list",
    "watch from 5",
    "watch from 7",
    "list",
    "watch from 9",
  ]);
  assert.deepEqual(handler.told, [
    "listed a",
    "observe b",
    "release a",
    "listed b",
  ]);
});

Deno.test("runInformer() logs a failed list or watch, waits and lists again", async () => {
  const stop = new AbortController();
  const { api, asked } = scriptedApi(
    [
      () => ({ items: [], resourceVersion: "5" }),
      () => {
        throw new Error("refused");
      },
      () => ({ items: [], resourceVersion: "9" }),
    ],
    [[{ type: "ERROR", object: { ...cluster("", ""), code: 500 } }]],
    stop,
  );
  const errors: unknown[] = [];
  const log = {
    debug() {},
    info() {},
    warn() {},
    error: (message: string, fields?: Record<string, unknown>) =>
      errors.push({ message, error: fields?.error }),
    with() {
      return log;
    },
  };
  await runInformer(api, recordingHandler(), {
    retryIntervalMs: 0,
    signal: stop.signal,
    log,
  });
  assert.deepEqual(asked, [
    "list",
    "watch from 5",
    "list",
    "list",
    "watch from 9",
  ]);
  assert.deepEqual(errors, [
    {
      message: "Failed to watch objects",
      error: "Watching /apis/ray.io/v1/rayclusters answered HTTP 500",
    },
    { message: "Failed to watch objects", error: "refused" },
  ]);
});
