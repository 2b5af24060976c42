/**
 * The cache and WatchClusters when the API server comes back without its
 * data (a restart of an API server whose etcd was lost or restored): its
 * resource versions start again, lower. The cache converges to what the
 * API server now holds, starts a new epoch, and the watch's resume points
 * from before it are answered ABORTED (code 10), never with silence; a new
 * watch's bookmarks follow the new versions.
 */
import assert from "node:assert/strict";
import { KubeConfig } from "@kubernetes/client-node";
import { silentLogger } from "../../api/log.ts";
import {
  CLUSTER_WATCH,
  type WatchEvent,
  watchOf,
} from "../../api/service/kind_watch.ts";
import { ConvertedClusters } from "../../api/service/converted_clusters.ts";
import { Code, ServiceError } from "../../domain/errors.ts";
import type { Orchestrator } from "../../domain/ports.ts";
import { createKubernetesOrchestrator } from "../../orchestrator/mod.ts";
import {
  kubeconfigFor,
  type Standin,
  startStandin,
} from "../../standin/mod.ts";
import { until } from "../eventually.ts";
import { kubeFetch } from "../standin/with_standin.ts";
import { createElsewhere } from "./helpers.ts";

const NS = "team-a";
const CLUSTERS = `/apis/ray.io/v1/namespaces/${NS}/rayclusters`;

/** The next answers of `watch` up to and including its next BOOKMARK. */
async function untilBookmark(
  watch: AsyncIterator<WatchEvent>,
): Promise<WatchEvent[]> {
  const seen: WatchEvent[] = [];
  for (;;) {
    const { value, done } = await watch.next();
    assert.equal(done, false, "the watch ended");
    seen.push(value);
    if (value.type === "BOOKMARK") return seen;
  }
}

async function codeOf(promise: Promise<unknown>): Promise<Code | "ok"> {
  try {
    await promise;
    return "ok";
  } catch (error) {
    if (error instanceof ServiceError) return error.code;
    throw error;
  }
}

Deno.test("an API server back without its data: the cache converges, a new epoch begins, old resume points get code 10 and bookmarks follow the new versions", async () => {
  let standin: Standin = startStandin({ hostname: "127.0.0.1", port: 0 });
  const port = new URL(standin.url).port;
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromString(kubeconfigFor(standin.url));
  const cache: Orchestrator = createKubernetesOrchestrator({
    kubeConfig,
    cache: { namespaces: [NS], log: silentLogger(), backoffMs: 50 },
  });
  cache.start?.();
  const watches = watchOf(CLUSTER_WATCH, cache, new ConvertedClusters())!;
  try {
    await until("the cache in step", () => cache.cacheState!().inStep);
    // Versions well above where a fresh API server starts.
    for (let i = 0; i < 20; i++) await createElsewhere(standin, `old-${i}`);
    for (let i = 0; i < 10; i++) {
      const gone = await kubeFetch(
        standin.url,
        "DELETE",
        `${CLUSTERS}/old-${i}`,
      );
      assert.equal(gone.status, 200);
    }
    await until(
      "the cache holds the ten left",
      () => cache.cacheState!().objects.rayclusters === 10,
    );
    const open = watches.watch({});
    const before = (await untilBookmark(open)).at(-1)!.resourceVersion;
    assert.match(before, /^\d+$/, "the first epoch's versions are plain");

    // The API server comes back on the same address with nothing.
    await standin.close();
    standin = startStandin({ hostname: "127.0.0.1", port: Number(port) });
    const fresh = await createElsewhere(standin, "fresh");
    assert.ok(BigInt(fresh) < BigInt(before), `${fresh} < ${before}`);

    await until(
      "the cache holds only what the API server holds",
      () => {
        const state = cache.cacheState!();
        return state.inStep && state.objects.rayclusters === 1;
      },
      20_000,
    );
    const clusters = await cache.clusters.list(NS);
    assert.deepEqual(clusters.map((c) => c.metadata.name), ["fresh"]);

    // The watch open through it ends with code 10, as does resuming from
    // where it was.
    assert.equal(await codeOf(untilBookmark(open)), Code.ABORTED);
    assert.throws(
      () => watches.watch({ resourceVersion: before }),
      (error: ServiceError) =>
        error.code === Code.ABORTED && /started again/.test(error.message),
    );

    // A new watch starts from the new state, its bookmark at the new
    // versions, marked with the epoch; resuming from it brings what follows.
    const again = watches.watch({});
    const state = await untilBookmark(again);
    assert.deepEqual(
      state.map((answer) => [answer.type, answer.cluster?.name]),
      [["ADDED", "fresh"], ["BOOKMARK", undefined]],
    );
    const bookmark = state.at(-1)!.resourceVersion;
    assert.equal(bookmark, `${fresh}.1`);
    await again.return?.();
    const resumed = watches.watch({ resourceVersion: bookmark });
    const next = await createElsewhere(standin, "next");
    const { value } = await resumed.next();
    assert.equal(value.type, "ADDED");
    assert.equal(value.cluster?.name, "next");
    assert.equal(value.resourceVersion, `${next}.1`);
    await resumed.return?.();
  } finally {
    watches.close();
    await cache.close?.();
    await standin.close();
  }
});
