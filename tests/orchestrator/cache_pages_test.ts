/**
 * The cache's lists come in pages of LIST_PAGE_SIZE, as client-go's
 * reflector asks for them: the first list at resourceVersion 0, later ones
 * (after a failure) at the latest; each page after the first with the same
 * selector and the previous page's continue token only; the store holds
 * every object of every page, and the watch starts from the list's
 * resourceVersion. A snapshot compacted away mid-list (410 on a continue)
 * is listed again in one answer; a 410 on the first page is a failure,
 * retried after the backoff.
 */
import assert from "node:assert/strict";
import { KubeConfig } from "@kubernetes/client-node";
import { silentLogger } from "../../api/log.ts";
import type { Orchestrator } from "../../domain/ports.ts";
import { MANAGED_CLUSTER_SELECTOR } from "../../domain/resources.ts";
import { createCachedOrchestrator } from "../../orchestrator/cache.ts";
import { LIST_PAGE_SIZE } from "../../orchestrator/list_pages.ts";
import type { WatchTransport } from "../../orchestrator/watch_stream.ts";

interface Call {
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

const expired = () =>
  Promise.reject(Object.assign(new Error("expired"), { statusCode: 410 }));

/**
 * A transport whose RayCluster collection holds `count` objects at
 * resourceVersion "7", answered in pages when asked with a limit, and
 * whole at "9"; other collections are empty. `refuse` answers 410 to the
 * first list call it matches. The first RayCluster watch fails with 410
 * when `watchExpires`; watches otherwise never end.
 */
function paged(
  count: number,
  options: {
    refuse?: "first page" | "continue";
    watchExpires?: boolean;
  } = {},
): WatchTransport & { lists: Call[]; watches: Call[] } {
  const all = Array.from({ length: count }, (_, i) => cluster(i));
  const lists: Call[] = [];
  const watches: Call[] = [];
  let refuse = options.refuse;
  let watchExpires = options.watchExpires ?? false;
  return {
    lists,
    watches,
    list(path, query) {
      if (!path.endsWith("/rayclusters")) {
        return Promise.resolve({
          items: [],
          metadata: { resourceVersion: "7" },
        });
      }
      lists.push({ path, query });
      const continued = query.continue !== undefined;
      if (
        (refuse === "first page" && !continued) ||
        (refuse === "continue" && continued)
      ) {
        refuse = undefined;
        return expired();
      }
      const limit = Number(query.limit ?? 0);
      if (limit === 0) {
        return Promise.resolve({
          items: all,
          metadata: { resourceVersion: "9" },
        });
      }
      const start = continued ? Number(query.continue) : 0;
      const end = Math.min(start + limit, all.length);
      return Promise.resolve({
        items: all.slice(start, end),
        metadata: {
          resourceVersion: "7",
          ...(end < all.length ? { continue: String(end) } : {}),
        },
      });
    },
    watch(path, query) {
      if (path.endsWith("/rayclusters")) {
        watches.push({ path, query });
        if (watchExpires) {
          watchExpires = false;
          return expired();
        }
      }
      return Promise.resolve(new AbortController());
    },
  };
}

/** A started cache of every namespace over `transport`. */
function startedCache(transport: WatchTransport) {
  const cache = createCachedOrchestrator({
    direct: {} as Orchestrator,
    kubeConfig: new KubeConfig(),
    rayCluster: { group: "ray.io", version: "v1", plural: "rayclusters" },
    namespaces: [],
    log: silentLogger(),
    watch: transport,
    backoffMs: 1,
  });
  cache.start?.();
  return cache;
}

async function listedThrough(
  transport: WatchTransport & { watches: Call[] },
  watchesWanted = 1,
): Promise<string[]> {
  const cache = startedCache(transport);
  try {
    await cache.synced;
    const deadline = Date.now() + 5_000;
    while (
      transport.watches.length < watchesWanted && Date.now() < deadline
    ) {
      await new Promise((r) => setTimeout(r, 5));
    }
    const clusters = await cache.clusters.list();
    return clusters.map((c) => c.metadata.name);
  } finally {
    await cache.close();
  }
}

const pagesOf = (calls: Call[]) =>
  calls.map((
    { query },
  ) => [query.resourceVersion, query.limit, query.continue]);

Deno.test("the cache lists a large collection in pages of 500 with the same selector, and holds every page", async () => {
  const count = 2 * LIST_PAGE_SIZE + 17;
  const transport = paged(count);
  const names = await listedThrough(transport);

  assert.equal(names.length, count);
  assert.deepEqual(names, [...new Set(names)].sort(), "sorted, no repeats");
  // resourceVersion 0 first, as client-go's first list; then the token.
  assert.deepEqual(pagesOf(transport.lists), [
    ["0", "500", undefined],
    [undefined, "500", "500"],
    [undefined, "500", "1000"],
  ]);
  for (const { query } of transport.lists) {
    assert.equal(query.labelSelector, MANAGED_CLUSTER_SELECTOR);
  }
  assert.equal(transport.watches[0].query.resourceVersion, "7");
});

Deno.test("a list after a 410 asks for the latest version, not resourceVersion 0", async () => {
  const transport = paged(3, { watchExpires: true });
  const names = await listedThrough(transport, 2);

  assert.equal(names.length, 3);
  assert.deepEqual(pagesOf(transport.lists), [
    ["0", "500", undefined],
    [undefined, "500", undefined],
  ]);
});

Deno.test("a list whose snapshot expires between pages (410) is listed again in one answer, and watched from its version", async () => {
  const count = LIST_PAGE_SIZE + 3;
  const transport = paged(count, { refuse: "continue" });
  const names = await listedThrough(transport);

  assert.equal(names.length, count, "every object once, none twice");
  assert.deepEqual(pagesOf(transport.lists), [
    ["0", "500", undefined],
    [undefined, "500", "500"],
    ["0", undefined, undefined],
  ]);
  assert.equal(transport.watches[0].query.resourceVersion, "9");
});

Deno.test('a 410 on the first page: listed again at once as a consistent read (""), in pages', async () => {
  const count = LIST_PAGE_SIZE + 3;
  const transport = paged(count, { refuse: "first page" });
  const names = await listedThrough(transport);

  assert.equal(names.length, count);
  // client-go's reflector: the version asked for is gone, so the latest.
  assert.deepEqual(pagesOf(transport.lists), [
    ["0", "500", undefined],
    [undefined, "500", undefined],
    [undefined, "500", "500"],
  ]);
  assert.equal(transport.watches[0].query.resourceVersion, "7");
});

Deno.test("closing the cache aborts a list in progress, and no page is asked for after", async () => {
  const lists: Call[] = [];
  const { promise: asked, resolve: askedSecond } = Promise.withResolvers<
    void
  >();
  let aborted = false;
  const transport: WatchTransport = {
    list(path, query, signal) {
      if (!path.endsWith("/rayclusters")) {
        return Promise.resolve({ items: [], metadata: {} });
      }
      lists.push({ path, query });
      if (query.continue === undefined) {
        return Promise.resolve({
          items: [cluster(0)],
          metadata: { resourceVersion: "7", continue: "1" },
        });
      }
      askedSecond();
      // The second page never comes: only the signal ends the wait.
      return new Promise((_, reject) =>
        signal?.addEventListener("abort", () => {
          aborted = true;
          reject(signal.reason);
        })
      );
    },
    watch: () => Promise.resolve(new AbortController()),
  };
  const cache = startedCache(transport);
  await asked;
  const before = lists.length;
  await cache.close();
  assert.ok(aborted, "the page in progress was aborted");
  // One turn of the event loop runs whatever the close left queued; a list
  // put off on a timer would fail the test's sanitizer as a leaked timer.
  await new Promise((r) => setTimeout(r, 0));
  assert.equal(lists.length, before, "nothing asked after the close");
});
