/**
 * Once the cache's first lists are in, it asks V8 for one full collection
 * when Corral runs with --expose-gc (as `deno task start` and the image
 * do): the garbage of the first lists goes at once rather than whenever
 * the old generation next grows enough.
 */
import assert from "node:assert/strict";
import { KubeConfig } from "@kubernetes/client-node";
import { silentLogger } from "../../api/log.ts";
import { createKubernetesOrchestrator } from "../../orchestrator/mod.ts";
import type { GcOptions } from "../../orchestrator/cache_reflectors.ts";
import { kubeconfigFor, startStandin } from "../../standin/mod.ts";

Deno.test("the cache asks for one full collection once its first lists are in", async () => {
  const standin = startStandin({ hostname: "127.0.0.1", port: 0 });
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromString(kubeconfigFor(standin.url));
  const cache = createKubernetesOrchestrator({
    kubeConfig,
    cache: { namespaces: ["team-a"], log: silentLogger() },
  });
  const global = globalThis as { gc?: (options?: GcOptions) => void };
  const before = global.gc;
  const collections: (GcOptions | undefined)[] = [];
  global.gc = (options) => collections.push(options);
  try {
    cache.start?.();
    await cache.synced;
    // One, of the kind that gives the freed pages back to the system.
    assert.deepEqual(collections, [
      { type: "major", execution: "sync", flavor: "last-resort" },
    ]);
  } finally {
    global.gc = before;
    await cache.close?.();
    await standin.close();
  }
});
