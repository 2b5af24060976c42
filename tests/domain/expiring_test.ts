/**
 * What expiry deletes (domain/expiring.ts): the object that owns a
 * cluster, a cluster of its own, a RayJob or a RayService; a cluster made
 * for a job or service only when it is an orphan; a job that ended
 * holding no cluster never; and nothing decided on a listing that failed.
 */
import assert from "node:assert/strict";
import {
  clusterOwner,
  expiringOf,
  type ExpiryListing,
  ORIGINATED_FROM_CRD,
  ORIGINATED_FROM_NAME,
} from "../../domain/expiring.ts";
import { EXPIRES_AT_ANNOTATION } from "../../domain/expiry.ts";
import type { RayJobResource } from "../../domain/job_conversions.ts";
import type { RayCluster } from "../../domain/resources.ts";
import type { RayServiceResource } from "../../domain/service_resources.ts";

const NS = "team-a";
const HEAD = { rayStartParams: {}, template: { spec: { containers: [] } } };
const EXPIRES = { [EXPIRES_AT_ANNOTATION]: "2026-11-26T12:00:00Z" };

function cluster(
  name: string,
  owner?: { crd: string; name: string },
  extra: Record<string, unknown> = {},
): RayCluster {
  return {
    apiVersion: "ray.io/v1",
    kind: "RayCluster",
    metadata: {
      name,
      namespace: NS,
      annotations: EXPIRES,
      labels: owner
        ? {
          [ORIGINATED_FROM_CRD]: owner.crd,
          [ORIGINATED_FROM_NAME]: owner.name,
        }
        : {},
      ...extra,
    },
    spec: { headGroupSpec: HEAD },
  } as RayCluster;
}

function job(name: string, state = "Running"): RayJobResource {
  return {
    apiVersion: "ray.io/v1",
    kind: "RayJob",
    metadata: { name, namespace: NS, annotations: EXPIRES },
    spec: { entrypoint: "python x.py" },
    status: { jobDeploymentStatus: state },
  } as RayJobResource;
}

function service(name: string): RayServiceResource {
  return {
    apiVersion: "ray.io/v1",
    kind: "RayService",
    metadata: { name, namespace: NS, annotations: EXPIRES },
    spec: { rayClusterConfig: { headGroupSpec: HEAD } },
  } as RayServiceResource;
}

/** "kind/name" of what expiry acts on. */
function expiring(listing: ExpiryListing): string[] {
  return expiringOf(listing).map((e) => `${e.kind}/${e.object.metadata.name}`);
}

Deno.test("clusterOwner() is the controller ownerReference's, else KubeRay's labels' (what the cache keeps); none for a cluster of its own", () => {
  assert.deepEqual(
    clusterOwner(
      {
        name: "train-x1y2z",
        ownerReferences: [{ kind: "RayJob", name: "train", controller: true }],
      } as RayCluster["metadata"],
    ),
    { kind: "jobs", name: "train" },
  );
  assert.deepEqual(
    clusterOwner(
      cluster("web-raycluster-abcde", {
        crd: "RayService",
        name: "web",
      }).metadata,
    ),
    { kind: "services", name: "web" },
  );
  assert.equal(clusterOwner(cluster("blue").metadata), undefined);
  assert.equal(
    clusterOwner(cluster("odd", { crd: "RayCluster", name: "odd" }).metadata),
    undefined,
  );
});

Deno.test("expiringOf(): owners and clusters of their own expire; a job's or service's cluster only as an orphan", () => {
  assert.deepEqual(
    expiring({
      clusters: [
        cluster("blue"),
        cluster("train-x1y2z", { crd: "RayJob", name: "train" }),
        cluster("web-raycluster-abcde", { crd: "RayService", name: "web" }),
        cluster("gone-x1y2z", { crd: "RayJob", name: "gone" }),
      ],
      jobs: [job("train")],
      services: [service("web")],
    }),
    [
      "clusters/blue",
      "clusters/gone-x1y2z",
      "jobs/train",
      "services/web",
    ],
  );
});

Deno.test("expiringOf(): a job that ended expires while it holds its cluster, and is left once it holds none", () => {
  const jobs = [
    job("kept", "Complete"),
    job("done", "Complete"),
    job("failed", "Failed"),
    job("waiting", "Suspended"),
  ];
  assert.deepEqual(
    expiring({
      clusters: [cluster("kept-x1y2z", { crd: "RayJob", name: "kept" })],
      jobs,
      services: [],
    }),
    ["jobs/kept", "jobs/waiting"],
  );
});

Deno.test("expiringOf(): a listing that failed decides nothing it would tell", () => {
  const clusters = [
    cluster("blue"),
    cluster("train-x1y2z", { crd: "RayJob", name: "train" }),
    cluster("web-raycluster-abcde", { crd: "RayService", name: "web" }),
  ];
  // Without the jobs, a job's cluster may not be an orphan.
  assert.deepEqual(expiring({ clusters, services: [] }), [
    "clusters/blue",
    "clusters/web-raycluster-abcde",
  ]);
  // Without the clusters, an ended job may still hold one: left.
  assert.deepEqual(
    expiring({ jobs: [job("done", "Complete"), job("train")] }),
    ["jobs/train"],
  );
});

Deno.test("expiringOf(): what carries no expiry, or is being deleted, is left", () => {
  assert.deepEqual(
    expiring({
      clusters: [
        cluster("forever", undefined, { annotations: {} }),
        cluster("going", undefined, {
          deletionTimestamp: "2026-11-26T11:00:00Z",
        }),
      ],
      jobs: [],
      services: [],
    }),
    [],
  );
});
