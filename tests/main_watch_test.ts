/**
 * WatchClusters through main.ts's own listeners: a watch outlives
 * --request-timeout (it bounds the wait for an answer, not a stream), a
 * shutdown ends watches cleanly, and 1,000 concurrent watchers each get
 * every change. bench/watchers.ts measures what they cost in memory.
 */
import assert from "node:assert/strict";
import http from "node:http";
import {
  ANONYMOUS,
  DEV_PERMISSIONS,
  EMBEDDED,
  type MainProcess,
  NO_FAIR_USE_LIMITS,
  NO_SHUTDOWN_DELAY,
  startMain,
} from "./main_process.ts";

const NS = "team-a";
const WATCH = `/apis/v1alpha2/watch/namespaces/${NS}/clusters`;

async function post(base: string, path: string, body: unknown) {
  const response = await fetch(`${base}${path}`, {
    method: "POST",
    body: JSON.stringify(body),
    headers: { "content-type": "application/json" },
  });
  const text = await response.text();
  assert.equal(response.status, 200, text);
}

async function createCluster(main: MainProcess, name: string) {
  await post(main.http, `/apis/v1alpha2/namespaces/${NS}/clusters`, {
    name,
    user: "ada",
    version: "2.9.0",
    clusterSpec: { headGroupSpec: { computeTemplate: "small" } },
  });
}

async function withMain(
  args: string[],
  run: (main: MainProcess) => Promise<void>,
): Promise<MainProcess> {
  const main = await startMain({
    permissions: DEV_PERMISSIONS,
    args: [
      ...EMBEDDED,
      ...ANONYMOUS,
      ...NO_SHUTDOWN_DELAY,
      // Every watcher here is one anonymous caller from 127.0.0.1: fair
      // use would hold them all to one caller's share.
      ...NO_FAIR_USE_LIMITS,
      ...args,
    ],
    startTimeoutMs: 30_000,
  });
  try {
    await post(main.http, `/apis/v1/namespaces/${NS}/compute_templates`, {
      name: "small",
      cpu: 1,
      memory: 1,
    });
    await run(main);
  } finally {
    await main.stop();
  }
  return main;
}

/** Lines of an NDJSON stream on its own connection, as they come. */
function watchLines(url: string): {
  lines: unknown[];
  next(predicate: (line: Record<string, unknown>) => boolean): Promise<void>;
  ended: Promise<string>;
  close(): void;
} {
  const lines: unknown[] = [];
  const waiters: (() => void)[] = [];
  let buffered = "";
  let request!: http.ClientRequest;
  const ended = new Promise<string>((resolve) => {
    request = http.get(url, { agent: false }, (response) => {
      response.setEncoding("utf8");
      response.on("data", (chunk: string) => {
        buffered += chunk;
        let at: number;
        while ((at = buffered.indexOf("\n")) >= 0) {
          lines.push(JSON.parse(buffered.slice(0, at)));
          buffered = buffered.slice(at + 1);
        }
        waiters.splice(0).forEach((wake) => wake());
      });
      response.on("end", () => resolve("end"));
      response.on("error", (error) => resolve(String(error)));
    });
    request.on("error", (error) => resolve(String(error)));
  });
  return {
    lines,
    async next(predicate) {
      while (
        !lines.some((line) =>
          predicate(
            ((line as Record<string, unknown>).result ?? {}) as Record<
              string,
              unknown
            >,
          )
        )
      ) {
        const more = new Promise<void>((resolve) => waiters.push(resolve));
        const end = await Promise.race([more.then(() => undefined), ended]);
        if (end !== undefined) throw new Error(`the watch ended: ${end}`);
      }
    },
    ended,
    close: () => request.destroy(),
  };
}

const isAdded = (name: string) => (result: Record<string, unknown>) =>
  result.type === "ADDED" &&
  (result.cluster as { name?: string } | null)?.name === name;

Deno.test("a watch through the listener outlives --request-timeout, and a shutdown ends it cleanly", async () => {
  let watch: ReturnType<typeof watchLines> | undefined;
  const main = await withMain(["--request-timeout", "1s"], async (main) => {
    watch = watchLines(`${main.http}${WATCH}`);
    await watch.next((r) => r.type === "BOOKMARK");
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    await createCluster(main, "late");
    await watch.next(isAdded("late"));
  });
  // main.stop() sent SIGTERM: the stream ended with the response, no reset.
  assert.equal(await watch!.ended, "end");
  assert.ok(
    !main.records.some((r) => r.code === 4),
    "no request timed out",
  );
});

Deno.test("1,000 concurrent watchers each get the change", async () => {
  await withMain([], async (main) => {
    const watchers = Array.from(
      { length: 1_000 },
      () => watchLines(`${main.http}${WATCH}`),
    );
    try {
      await Promise.all(
        watchers.map((w) => w.next((r) => r.type === "BOOKMARK")),
      );
      await createCluster(main, "for-all");
      await Promise.all(watchers.map((w) => w.next(isAdded("for-all"))));
      const metrics = await (await fetch(`${main.http}/metrics`)).text();
      assert.match(metrics, /^corral_watch_streams 1000$/m);
    } finally {
      for (const watcher of watchers) watcher.close();
    }
  });
});
