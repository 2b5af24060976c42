/**
 * The cache's lists come in pages of LIST_PAGE_SIZE, as client-go's
 * reflector lists: each page asks with the same selector and the previous
 * page's continue token, the store holds every object of every page at the
 * snapshot's resourceVersion, and a snapshot compacted away mid-list (410
 * on a continue) is listed again in one answer.
 */
import assert from "node:assert/strict";
import { KubeConfig } from "@kubernetes/client-node";
import { silentLogger } from "../../api/log.ts";
import type { Orchestrator } from "../../domain/ports.ts";
import {
  createCachedOrchestrator,
  LIST_PAGE_SIZE,
} from "../../orchestrator/cache.ts";
import { MANAGED_CLUSTER_SELECTOR } from "../../domain/resources.ts";
import type { WatchTransport } from "../../orchestrator/watch_stream.ts";

interface ListCall {
  path: string;
  query: Record<string, string>;
}

function cluster(index: number) {
  const name = `c-${String(index).padStart(5, "0")}`;
  return {
    apiVersion: "ray.io/v1",
    kind: "RayCluster",
    metadata: { name, namespace: "a", uid: name, resourceVersion: "7" },
  };
}

/**
 * A transport whose RayCluster collection holds `count` objects, answered
 * in pages when asked with a limit; `expireContinue` answers 410 to the
 * first continued page. Other collections are empty; watches never end.
 */
function paged(
  count: number,
  expireContinue = false,
): WatchTransport & { calls: ListCall[] } {
  const all = Array.from({ length: count }, (_, i) => cluster(i));
  const calls: ListCall[] = [];
  let expired = !expireContinue;
  return {
    calls,
    list(path, query) {
      calls.push({ path, query });
      if (!path.endsWith("/rayclusters")) {
        return Promise.resolve({
          items: [],
          metadata: { resourceVersion: "7" },
        });
      }
      const limit = Number(query.limit ?? 0);
      const start = query.continue === undefined ? 0 : Number(query.continue);
      if (query.continue !== undefined && !expired) {
        expired = true;
        return Promise.reject(
          Object.assign(new Error("expired"), { statusCode: 410 }),
        );
      }
      const end = limit > 0 ? Math.min(start + limit, all.length) : all.length;
      return Promise.resolve({
        items: all.slice(start, end),
        metadata: {
          resourceVersion: "7",
          ...(end < all.length ? { continue: String(end) } : {}),
        },
      });
    },
    watch() {
      return Promise.resolve(new AbortController());
    },
  };
}

async function listedThrough(
  transport: WatchTransport,
): Promise<string[]> {
  const cache = createCachedOrchestrator({
    direct: {} as Orchestrator,
    kubeConfig: new KubeConfig(),
    rayCluster: { group: "ray.io", version: "v1", plural: "rayclusters" },
    namespaces: [],
    log: silentLogger(),
    watch: transport,
  });
  cache.start?.();
  try {
    await cache.synced;
    const clusters = await cache.listClusters();
    return clusters.map((c) => c.metadata.name);
  } finally {
    await cache.close();
  }
}

Deno.test("the cache lists a large collection in pages of 500 with the same selector, and holds every page", async () => {
  const count = 2 * LIST_PAGE_SIZE + 17;
  const transport = paged(count);
  const names = await listedThrough(transport);

  assert.equal(names.length, count);
  assert.deepEqual(names, [...new Set(names)].sort(), "sorted, no repeats");
  const pages = transport.calls.filter((c) => c.path.endsWith("/rayclusters"));
  assert.deepEqual(
    pages.map((c) => [c.query.limit, c.query.continue]),
    [
      ["500", undefined],
      ["500", "500"],
      ["500", "1000"],
    ],
  );
  for (const page of pages) {
    assert.equal(
      page.query.labelSelector,
      MANAGED_CLUSTER_SELECTOR,
    );
  }
  // Every collection is listed in pages, with its own selector.
  const events = transport.calls.find((c) => c.path.endsWith("/events"));
  assert.equal(events?.query.limit, "500");
  assert.equal(events?.query.fieldSelector, "involvedObject.kind=RayCluster");
});

Deno.test("a list whose snapshot expires between pages (410) is listed again in one answer", async () => {
  const count = LIST_PAGE_SIZE + 3;
  const transport = paged(count, true);
  const names = await listedThrough(transport);

  assert.equal(names.length, count, "every object once, none twice");
  const pages = transport.calls.filter((c) => c.path.endsWith("/rayclusters"));
  assert.deepEqual(
    pages.map((c) => [c.query.limit, c.query.continue]),
    [
      ["500", undefined],
      ["500", "500"],
      [undefined, undefined],
    ],
  );
});
