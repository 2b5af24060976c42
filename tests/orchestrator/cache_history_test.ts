/**
 * The cache against the stand-in, on the miss path: a lookup's answer that
 * comes after the watch delivered the delete brings nothing back (the
 * "zombie" race, made deterministic by holding the lookup's answer and the
 * watch's events back), concurrent and repeated misses of one name cost
 * Kubernetes one call, lookups stay within --cache-miss-qps, and a name
 * created elsewhere is found once the remembered 404 has run out.
 */
import assert from "node:assert/strict";
import * as k8s from "@kubernetes/client-node";
import { silentLogger } from "../../api/log.ts";
import { Code } from "../../domain/errors.ts";
import type { Orchestrator } from "../../domain/ports.ts";
import {
  type CachedOrchestrator,
  createCachedOrchestrator,
} from "../../orchestrator/cache.ts";
import type { MissOptions } from "../../orchestrator/cache_misses.ts";
import { createKubernetesOrchestrator } from "../../orchestrator/mod.ts";
import {
  fetchWatch,
  type WatchTransport,
} from "../../orchestrator/watch_stream.ts";
import {
  kubeconfigFor,
  type Standin,
  startStandin,
} from "../../standin/mod.ts";
import { until } from "../eventually.ts";
import { kubeFetch } from "../standin/with_standin.ts";
import { codeOf, createElsewhere, withGet } from "./helpers.ts";

const NS = "team-a";
const CLUSTERS = `/apis/ray.io/v1/namespaces/${NS}/rayclusters`;
const RAY_CLUSTER = { group: "ray.io", version: "v1", plural: "rayclusters" };

/**
 * The watch transport, with the RayClusters watch's events held back while
 * `held` is set and delivered in order by `release()`.
 */
function holdingWatch(inner: WatchTransport) {
  const buffered: (() => void)[] = [];
  const control = {
    held: false,
    release() {
      control.held = false;
      for (const deliver of buffered.splice(0)) deliver();
    },
    /** Events held back so far. */
    get pending() {
      return buffered.length;
    },
  };
  const transport: WatchTransport = {
    list: (path, query, signal) => inner.list(path, query, signal),
    watch: (path, query, onEvent, done) =>
      inner.watch(path, query, (type, object) => {
        if (control.held && path.endsWith("/rayclusters")) {
          buffered.push(() => onEvent(type, object));
        } else onEvent(type, object);
      }, done),
  };
  return { transport, control };
}

interface Rig {
  standin: Standin;
  cache: CachedOrchestrator;
  /** Kubernetes GETs of one RayCluster the cache made. */
  lookups(): number;
}

async function withCache(
  run: (rig: Rig) => Promise<void>,
  options: {
    misses?: MissOptions;
    direct?: (direct: Orchestrator) => Orchestrator;
    watch?: (inner: WatchTransport) => WatchTransport;
  } = {},
): Promise<void> {
  const standin = startStandin({ hostname: "127.0.0.1", port: 0 });
  const kubeConfig = new k8s.KubeConfig();
  kubeConfig.loadFromString(kubeconfigFor(standin.url));
  let lookups = 0;
  const direct = createKubernetesOrchestrator({ kubeConfig });
  const counted = withGet(direct, "clusters", (get) => (...args) => {
    lookups++;
    return get(...args);
  });
  const cache = createCachedOrchestrator({
    direct: options.direct?.(counted) ?? counted,
    kubeConfig,
    rayCluster: RAY_CLUSTER,
    namespaces: [],
    log: silentLogger(),
    backoffMs: 50,
    misses: options.misses,
    watch: options.watch?.(fetchWatch(kubeConfig)),
  });
  cache.start?.();
  await cache.synced;
  try {
    await run({ standin, cache, lookups: () => lookups });
  } finally {
    await cache.close();
    await standin.close();
  }
}

Deno.test("a miss's lookup answering after the watch delivered the delete leaves no zombie: get 404, not listed", async () => {
  const answered = Promise.withResolvers<void>();
  const release = Promise.withResolvers<void>();
  let watch!: ReturnType<typeof holdingWatch>["control"];
  await withCache(async ({ standin, cache }) => {
    watch.held = true;
    await createElsewhere(standin, "zombie");
    // The cache has not seen it: the get misses and asks Kubernetes, whose
    // answer (the cluster exists) is held back.
    const late = cache.clusters.get(NS, "zombie");
    await answered.promise;
    // Another replica deletes it; the watch delivers ADDED and DELETED.
    const deleted = await kubeFetch(
      standin.url,
      "DELETE",
      `${CLUSTERS}/zombie`,
    );
    assert.equal(deleted.status, 200);
    await until("the watch's two events", () => watch.pending >= 2);
    watch.release();
    release.resolve();
    assert.equal(await codeOf(late), Code.NOT_FOUND);
    assert.equal(
      await codeOf(cache.clusters.get(NS, "zombie")),
      Code.NOT_FOUND,
    );
    const listed = await cache.clusters.list(NS);
    assert.deepEqual(listed.map((c) => c.metadata.name), []);
  }, {
    watch: (inner) => {
      const holding = holdingWatch(inner);
      watch = holding.control;
      return holding.transport;
    },
    direct: (direct) =>
      withGet(direct, "clusters", (get) => async (...args) => {
        const found = await get(...args);
        answered.resolve();
        await release.promise;
        return found;
      }),
  });
});

Deno.test("100 concurrent gets of one missing name make one Kubernetes call", async () => {
  await withCache(async ({ cache, lookups }) => {
    const codes = await Promise.all(
      Array.from({ length: 100 }, () => codeOf(cache.clusters.get(NS, "none"))),
    );
    assert.deepEqual(new Set(codes), new Set([Code.NOT_FOUND]));
    assert.equal(lookups(), 1);
  });
});

Deno.test("2,000 sequential gets of a missing name make a handful of Kubernetes calls", async () => {
  await withCache(async ({ cache, lookups }) => {
    const started = performance.now();
    for (let i = 0; i < 2_000; i++) {
      assert.equal(
        await codeOf(cache.clusters.get(NS, "none")),
        Code.NOT_FOUND,
      );
    }
    // One a second at most (the remembered 404's time), and the first.
    const seconds = (performance.now() - started) / 1_000;
    assert.ok(lookups() <= Math.ceil(seconds) + 1, `${lookups()} lookups`);
  });
});

Deno.test("--cache-miss-qps limits lookups: past it a miss answers 404 at once; 0 makes none", async () => {
  await withCache(async ({ standin, cache, lookups }) => {
    await createElsewhere(standin, "exists");
    const codes = await Promise.all(
      Array.from(
        { length: 30 },
        (_, i) => codeOf(cache.clusters.get(NS, `n${i}`)),
      ),
    );
    assert.deepEqual(new Set(codes), new Set([Code.NOT_FOUND]));
    assert.ok(lookups() <= 3, `${lookups()} lookups`);
  }, { misses: { qps: 3 } });
  await withCache(async ({ cache, lookups }) => {
    assert.equal(await codeOf(cache.clusters.get(NS, "none")), Code.NOT_FOUND);
    assert.equal(lookups(), 0);
  }, { misses: { qps: 0 } });
});

Deno.test("--cache-miss-qps is one allowance for cluster and compute template lookups together", async () => {
  let templateLookups = 0;
  await withCache(async ({ cache, lookups }) => {
    const codes = await Promise.all(
      Array.from({ length: 20 }, (_, i) => [
        codeOf(cache.clusters.get(NS, `n${i}`)),
        codeOf(cache.templates.get(NS, `t${i}`)),
      ]).flat(),
    );
    assert.deepEqual(new Set(codes), new Set([Code.NOT_FOUND]));
    const made = lookups() + templateLookups;
    assert.ok(made <= 3, `${lookups()} + ${templateLookups} lookups`);
  }, {
    misses: { qps: 3 },
    direct: (direct) =>
      withGet(direct, "templates", (get) => (...args) => {
        templateLookups++;
        return get(...args);
      }),
  });
});

Deno.test("a name created elsewhere is found by a get once the remembered 404 runs out, the watch held back", async () => {
  let watch!: ReturnType<typeof holdingWatch>["control"];
  await withCache(async ({ standin, cache }) => {
    watch.held = true;
    assert.equal(await codeOf(cache.clusters.get(NS, "later")), Code.NOT_FOUND);
    const missedAt = performance.now();
    await createElsewhere(standin, "later");
    // Within the remembered time the 404 stands (the documented price).
    await until(
      "the get to find the cluster",
      async () => (await codeOf(cache.clusters.get(NS, "later"))) === "ok",
      5_000,
    );
    const waited = performance.now() - missedAt;
    assert.ok(waited < 300 + 1_000, `found after ${waited} ms`);
    watch.release();
  }, {
    misses: { rememberMs: 300 },
    watch: (inner) => {
      const holding = holdingWatch(inner);
      watch = holding.control;
      return holding.transport;
    },
  });
});
