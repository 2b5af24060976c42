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
import { kubeconfigFor, startStandin } from "../../standin/mod.ts";

Deno.test("the cache asks for one full collection once its first lists are in", async () => {
  const standin = startStandin({ hostname: "127.0.0.1", port: 0 });
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromString(kubeconfigFor(standin.url));
  const cache = createKubernetesOrchestrator({
    kubeConfig,
    cache: { namespaces: ["team-a"], log: silentLogger() },
  });
  const global = globalThis as { gc?: () => void };
  const before = global.gc;
  let collections = 0;
  global.gc = () => collections++;
  try {
    cache.start?.();
    await cache.synced;
    assert.equal(collections, 1);
  } finally {
    global.gc = before;
    await cache.close?.();
    await standin.close();
  }
});
