/**
 * The gauges of what Corral manages (api/managed_metrics.ts), read from
 * the objects a cache holds at each scrape: by namespace and a closed list
 * of states, quotas of namespaces' totals, clusters expiring within the
 * hour, and nothing named after a user or an object.
 */
import assert from "node:assert/strict";
import { Metrics } from "../../api/metrics.ts";
import { registerManagedMetrics } from "../../api/managed_metrics.ts";
import type { Quota } from "../../api/auth/quota.ts";
import type { ManagedObjects } from "../../domain/ports.ts";
import type { RayCluster } from "../../domain/resources.ts";
import { assertTextFormat } from "./metrics_format.ts";

const NOW = Date.parse("2026-12-07T12:00:00Z");

function cluster(
  namespace: string,
  name: string,
  { state = "", expiresAt = "", cpu = "2" } = {},
): RayCluster {
  const template = {
    spec: {
      containers: [{
        name: "ray-head",
        image: "rayproject/ray:2.9.0",
        resources: { limits: { cpu, memory: "4Gi" } },
      }],
    },
  };
  return {
    apiVersion: "ray.io/v1",
    kind: "RayCluster",
    metadata: {
      name,
      namespace,
      annotations: {
        "corral.dev/user": "ada",
        ...(expiresAt ? { "corral.dev/expires-at": expiresAt } : {}),
      },
    },
    spec: { headGroupSpec: { rayStartParams: {}, template } },
    ...(state ? { status: { state } } : {}),
  };
}

function metricsOf(objects: ManagedObjects, quotas: Quota[] = []): Metrics {
  const metrics = new Metrics();
  registerManagedMetrics(metrics.registry, {
    objects: () => objects,
    quotas: () => quotas,
    now: () => NOW,
  });
  return metrics;
}

/** The lines of the text format about `name`, HELP and TYPE left out. */
function series(text: string, name: string): string[] {
  return text.split("\n").filter((line) => line.startsWith(`${name}{`));
}

Deno.test("corral_managed_clusters counts by namespace and state, every state of a namespace held, no names", async () => {
  const metrics = metricsOf({
    clusters: [
      cluster("team-a", "blue", { state: "ready" }),
      cluster("team-a", "green", { state: "ready" }),
      cluster("team-b", "red", { state: "failed" }),
    ],
    jobs: [],
    services: [],
  });
  const text = await metrics.render();
  assertTextFormat(text);
  assert.deepEqual(series(text, "corral_managed_clusters"), [
    'corral_managed_clusters{namespace="team-a",state="ready"} 2',
    'corral_managed_clusters{namespace="team-a",state="failed"} 0',
    'corral_managed_clusters{namespace="team-a",state="waiting_for_capacity"} 0',
    'corral_managed_clusters{namespace="team-a",state="pending"} 0',
    'corral_managed_clusters{namespace="team-b",state="ready"} 0',
    'corral_managed_clusters{namespace="team-b",state="failed"} 1',
    'corral_managed_clusters{namespace="team-b",state="waiting_for_capacity"} 0',
    'corral_managed_clusters{namespace="team-b",state="pending"} 0',
  ]);
  for (const name of ["ada", "blue", "green", "red"]) {
    assert.ok(!text.includes(`"${name}"`), `no label value ${name}`);
  }
});

Deno.test("a namespace no longer held has no series at the next scrape", async () => {
  const objects: ManagedObjects = {
    clusters: [cluster("team-a", "blue")],
    jobs: [],
    services: [],
  };
  const metrics = metricsOf(objects);
  assert.equal(
    series(await metrics.render(), "corral_managed_clusters").length,
    4,
  );
  objects.clusters = [];
  assert.deepEqual(
    series(await metrics.render(), "corral_managed_clusters"),
    [],
  );
});

Deno.test("corral_clusters_expiring_within_hour counts clusters due within the hour or overdue", async () => {
  const at = (minutes: number) =>
    new Date(NOW + minutes * 60_000).toISOString();
  const metrics = metricsOf({
    clusters: [
      cluster("team-a", "soon", { expiresAt: at(30) }),
      cluster("team-a", "overdue", { expiresAt: at(-5) }),
      cluster("team-a", "later", { expiresAt: at(90) }),
      cluster("team-a", "never"),
      cluster("team-b", "later", { expiresAt: at(61) }),
    ],
    jobs: [],
    services: [],
  });
  assert.deepEqual(
    series(await metrics.render(), "corral_clusters_expiring_within_hour"),
    [
      'corral_clusters_expiring_within_hour{namespace="team-a"} 2',
      'corral_clusters_expiring_within_hour{namespace="team-b"} 0',
    ],
  );
});

Deno.test("corral_quota_limit has namespaces' totals (the smallest where several apply, none per user) and corral_quota_used what quotas count", async () => {
  const quotas: Quota[] = [
    { namespaces: ["team-a"], users: [], groups: [], limits: { cpu: 8 } },
    {
      namespaces: ["*"],
      users: [],
      groups: [],
      limits: { cpu: 6, maxClusters: 3 },
    },
    {
      namespaces: ["team-a"],
      users: [],
      groups: ["interns"],
      limits: { cpu: 1 },
    },
    { namespaces: ["team-c"], users: [], groups: [], limits: { memory: 64 } },
  ];
  const metrics = metricsOf({
    clusters: [
      cluster("team-a", "blue", { cpu: "2" }),
      cluster("team-a", "green", { cpu: "3" }),
    ],
    jobs: [],
    services: [],
  }, quotas);
  const text = await metrics.render();
  assert.deepEqual(series(text, "corral_quota_limit"), [
    'corral_quota_limit{namespace="team-a",dimension="clusters"} 3',
    'corral_quota_limit{namespace="team-a",dimension="cpu"} 6',
    'corral_quota_limit{namespace="team-c",dimension="clusters"} 3',
    'corral_quota_limit{namespace="team-c",dimension="cpu"} 6',
    'corral_quota_limit{namespace="team-c",dimension="memory"} 64',
  ]);
  const used = series(text, "corral_quota_used");
  assert.ok(
    used.includes('corral_quota_used{namespace="team-a",dimension="cpu"} 5'),
  );
  assert.ok(
    used.includes(
      'corral_quota_used{namespace="team-a",dimension="clusters"} 2',
    ),
  );
  assert.ok(
    used.includes('corral_quota_used{namespace="team-c",dimension="memory"} 0'),
  );
});

Deno.test("the quota gauges follow the cache and the quotas from one scrape to the next", async () => {
  const objects: ManagedObjects = {
    clusters: [cluster("team-a", "blue", { cpu: "2" })],
    jobs: [],
    services: [],
  };
  let quotas: Quota[] = [
    { namespaces: ["team-a"], users: [], groups: [], limits: { cpu: 8 } },
  ];
  const metrics = new Metrics();
  registerManagedMetrics(metrics.registry, {
    objects: () => objects,
    quotas: () => quotas,
    now: () => NOW,
  });
  const cpu = (text: string, name: string) =>
    series(text, name).find((line) => line.includes('dimension="cpu"'));
  let text = await metrics.render();
  assert.equal(
    cpu(text, "corral_quota_used"),
    'corral_quota_used{namespace="team-a",dimension="cpu"} 2',
  );
  objects.clusters = [
    ...objects.clusters,
    cluster("team-a", "green", { cpu: "3" }),
  ];
  quotas = [{ ...quotas[0], limits: { cpu: 4 } }];
  text = await metrics.render();
  assert.equal(
    cpu(text, "corral_quota_used"),
    'corral_quota_used{namespace="team-a",dimension="cpu"} 5',
  );
  assert.equal(
    cpu(text, "corral_quota_limit"),
    'corral_quota_limit{namespace="team-a",dimension="cpu"} 4',
  );
});
