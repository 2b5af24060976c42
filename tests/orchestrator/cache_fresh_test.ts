/**
 * A read with `fresh: true` asks Kubernetes, whatever the cache holds, the
 * same for every read of every kind: with the cache in step and its
 * watches held back, what another replica wrote (straight into the
 * stand-in) is in a fresh list, and in a fresh list of events, at once, and
 * in no read from memory. A quota counts what a namespace holds with fresh
 * lists of clusters, jobs and services (api/service/quota_guard.ts).
 */
import assert from "node:assert/strict";
import * as k8s from "@kubernetes/client-node";
import { silentLogger } from "../../api/log.ts";
import type { KindName } from "../../domain/kinds.ts";
import type { KindPorts } from "../../domain/ports.ts";
import { LABEL, MANAGED_BY } from "../../domain/resources.ts";
import {
  type CachedOrchestrator,
  createCachedOrchestrator,
} from "../../orchestrator/cache.ts";
import { createKubernetesOrchestrator } from "../../orchestrator/mod.ts";
import {
  fetchWatch,
  type WatchTransport,
} from "../../orchestrator/watch_stream.ts";
import { kubeconfigFor, startStandin } from "../../standin/mod.ts";
import { rayCluster } from "../standin/requests.ts";
import { rayJob } from "../standin/kuberay.ts";
import { kubeFetch } from "../standin/with_standin.ts";

const NS = "team-a";
const RAY = `/apis/ray.io/v1/namespaces/${NS}`;
const MANAGED = { labels: { [LABEL.managedBy]: MANAGED_BY } };

/** The watch transport, every watch's events held back while `held`. */
function holdingWatch(inner: WatchTransport) {
  const control = { held: false };
  const transport: WatchTransport = {
    list: (path, query, signal) => inner.list(path, query, signal),
    watch: (path, query, onEvent, done) =>
      inner.watch(path, query, (type, object) => {
        if (!control.held) onEvent(type, object);
      }, done),
  };
  return { transport, control };
}

/** What another replica writes of each kind a quota counts. */
const WRITTEN: {
  kind: KindName & ("clusters" | "jobs" | "services");
  /** The involvedObject.kind of the Events about one. */
  involved: string;
  path: string;
  body: (name: string) => unknown;
}[] = [
  {
    kind: "clusters",
    involved: "RayCluster",
    path: `${RAY}/rayclusters`,
    body: (name) => rayCluster(name, { metadata: { name, ...MANAGED } }),
  },
  {
    kind: "jobs",
    involved: "RayJob",
    path: `${RAY}/rayjobs`,
    body: (name) => rayJob(name, {}, MANAGED.labels),
  },
  {
    kind: "services",
    involved: "RayService",
    path: `${RAY}/rayservices`,
    body: (name) => ({
      apiVersion: "ray.io/v1",
      kind: "RayService",
      metadata: { name, ...MANAGED },
      spec: { rayClusterConfig: rayCluster(name).spec },
    }),
  },
];

Deno.test("with the cache in step, a list or an events list with fresh: true sees another replica's write at once, of clusters, jobs and services", async (t) => {
  const standin = startStandin({ hostname: "127.0.0.1", port: 0 });
  const kubeConfig = new k8s.KubeConfig();
  kubeConfig.loadFromString(kubeconfigFor(standin.url));
  const watch = holdingWatch(fetchWatch(kubeConfig));
  const cache: CachedOrchestrator = createCachedOrchestrator({
    direct: createKubernetesOrchestrator({ kubeConfig }),
    kubeConfig,
    rayCluster: { group: "ray.io", version: "v1", plural: "rayclusters" },
    namespaces: [],
    log: silentLogger(),
    backoffMs: 50,
    watch: watch.transport,
  });
  cache.start?.();
  try {
    await cache.synced;
    assert.equal(cache.cacheState().inStep, true);
    // Nothing reaches the cache now but by a read that asks Kubernetes.
    watch.control.held = true;
    for (const { kind, involved, path, body } of WRITTEN) {
      await t.step(kind, async () => {
        const port = (cache as KindPorts)[kind];
        const created = await kubeFetch(
          standin.url,
          "POST",
          path,
          body("elsewhere"),
        );
        const text = await created.text();
        assert.equal(created.status, 201, text);
        const { uid } = JSON.parse(text).metadata;
        const event = await kubeFetch(
          standin.url,
          "POST",
          `/api/v1/namespaces/${NS}/events`,
          {
            metadata: { name: `elsewhere.${kind}` },
            involvedObject: {
              kind: involved,
              namespace: NS,
              name: "elsewhere",
              uid,
            },
            reason: "Elsewhere",
            message: "written by another replica",
            type: "Normal",
          },
        );
        assert.equal(event.status, 201, await event.text());

        const names = (objects: { metadata: { name: string } }[]) =>
          objects.map((object) => object.metadata.name);
        const reasons = (events: { reason?: string }[]) =>
          events.map((event) => event.reason);
        assert.deepEqual(names(await port.list(NS)), [], "from memory");
        assert.deepEqual(
          names(await port.list(NS, { fresh: true })),
          ["elsewhere"],
          "a fresh list",
        );
        assert.deepEqual(
          names(await port.list(undefined, { fresh: true })),
          ["elsewhere"],
          "a fresh list of every namespace",
        );
        assert.deepEqual(reasons(await port.events(NS)), [], "from memory");
        assert.deepEqual(
          reasons(await port.events(NS, undefined, { fresh: true })),
          ["Elsewhere"],
          "a fresh list of events",
        );
        assert.deepEqual(
          reasons(await port.events(NS, "elsewhere", { fresh: true })),
          ["Elsewhere"],
          "a fresh list of one object's events",
        );
      });
    }
  } finally {
    await cache.close();
    await standin.close();
  }
});
