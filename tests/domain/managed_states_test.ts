/**
 * The states the gauges of managed objects count by (domain/managed_states.ts):
 * a closed list each, whatever the operator writes.
 */
import assert from "node:assert/strict";
import {
  clusterGaugeState,
  jobGaugeStatus,
  serviceHealth,
} from "../../domain/managed_states.ts";
import type { RayJobResource } from "../../domain/job_conversions.ts";
import type { RayCluster } from "../../domain/resources.ts";
import type { RayServiceResource } from "../../domain/service_resources.ts";

const QUEUED = { "kueue.x-k8s.io/queue-name": "default" };

function cluster(
  state: string | undefined,
  { queued = false, suspend = false } = {},
): RayCluster {
  return {
    apiVersion: "ray.io/v1",
    kind: "RayCluster",
    metadata: { name: "c", namespace: "team-a", labels: queued ? QUEUED : {} },
    spec: {
      suspend,
      headGroupSpec: {
        rayStartParams: {},
        template: { spec: { containers: [] } },
      },
    },
    ...(state === undefined ? {} : { status: { state } }),
  };
}

Deno.test("a cluster counts as ready, failed, waiting_for_capacity or pending", async (t) => {
  const table: [string, RayCluster, string][] = [
    ["ready", cluster("ready"), "ready"],
    ["failed", cluster("failed"), "failed"],
    ["no state yet", cluster(undefined), "pending"],
    ["suspended by hand", cluster("suspended", { suspend: true }), "pending"],
    [
      "queued and suspended",
      cluster(undefined, { queued: true, suspend: true }),
      "waiting_for_capacity",
    ],
    ["queued and admitted", cluster("ready", { queued: true }), "ready"],
    ["a state no operator writes", cluster("exploded"), "pending"],
  ];
  for (const [name, object, want] of table) {
    await t.step(name, () => assert.equal(clusterGaugeState(object), want));
  }
});

function job(
  status: Record<string, string>,
  { queued = false, suspend = false } = {},
): RayJobResource {
  return {
    apiVersion: "ray.io/v1",
    kind: "RayJob",
    metadata: { name: "j", namespace: "team-a", labels: queued ? QUEUED : {} },
    spec: { entrypoint: "python x.py", suspend },
    status,
  } as RayJobResource;
}

Deno.test("a job counts by its deployment status in snake case and its Ray job status, unknown values as other", () => {
  assert.deepEqual(
    jobGaugeStatus(
      job({ jobDeploymentStatus: "ValidationFailed", jobStatus: "" }),
    ),
    { deployment: "validation_failed", job: "none" },
  );
  assert.deepEqual(
    jobGaugeStatus(
      job({ jobDeploymentStatus: "Complete", jobStatus: "SUCCEEDED" }),
    ),
    { deployment: "complete", job: "succeeded" },
  );
  assert.deepEqual(jobGaugeStatus(job({})), {
    deployment: "pending",
    job: "none",
  });
  assert.deepEqual(
    jobGaugeStatus(job({ jobDeploymentStatus: "Odd", jobStatus: "ODD" })),
    { deployment: "other", job: "other" },
  );
  assert.deepEqual(
    jobGaugeStatus(
      job({ jobDeploymentStatus: "Suspended" }, {
        queued: true,
        suspend: true,
      }),
    ),
    { deployment: "waiting_for_capacity", job: "none" },
  );
});

function service(status: RayServiceResource["status"]): RayServiceResource {
  return {
    apiVersion: "ray.io/v1",
    kind: "RayService",
    metadata: { name: "s", namespace: "team-a" },
    spec: { rayClusterConfig: undefined as unknown as RayCluster["spec"] },
    status,
  };
}

Deno.test("a service is healthy by its Ready condition, else by serviceStatus Running, pending with neither", () => {
  const ready = (status: string) => ({
    conditions: [{ type: "Ready", status }],
  });
  assert.equal(serviceHealth(service(ready("True"))), "healthy");
  assert.equal(serviceHealth(service(ready("False"))), "unhealthy");
  assert.equal(serviceHealth(service({ serviceStatus: "Running" })), "healthy");
  assert.equal(
    serviceHealth(service({ serviceStatus: "FailedToGetOrCreateRayCluster" })),
    "unhealthy",
  );
  assert.equal(serviceHealth(service(undefined)), "pending");
});
