/**
 * A RayService's status as the KubeRay v1.7.0 operator writes it
 * (rayservice_types.go) reads back into ray_service_status: health, the
 * active and pending clusters with their applications and deployments,
 * endpoints, conditions, and the events about this service only.
 */
import assert from "node:assert/strict";
import type { KubeEvent } from "../../domain/resources.ts";
import { serviceFromResource } from "../../domain/service_conversions.ts";
import type { RayServiceResource } from "../../domain/service_resources.ts";

const RESOURCE: RayServiceResource = {
  apiVersion: "ray.io/v1",
  kind: "RayService",
  metadata: {
    name: "fruit",
    namespace: "team-a",
    uid: "u-1",
    creationTimestamp: "2024-05-01T10:00:00Z",
    labels: {
      "ray.io/user": "ada",
      "app.kubernetes.io/managed-by": "kuberay-apiserver",
    },
  },
  spec: {
    serveConfigV2: "applications:\n  - import_path: fruit.graph\n",
    rayClusterConfig: {
      rayVersion: "2.9.0",
      headGroupSpec: {
        rayStartParams: {},
        template: {
          spec: {
            containers: [{ name: "ray-head", image: "rayproject/ray:2.9.0" }],
          },
        },
      },
      workerGroupSpecs: [],
    },
  },
  status: {
    serviceStatus: "Running",
    numServeEndpoints: 2,
    conditions: [{
      type: "Ready",
      status: "True",
      reason: "NonZeroServeEndpoints",
      message: "Number of serve endpoints is greater than 0",
      lastTransitionTime: "2024-05-01T10:05:00Z",
    }, {
      type: "UpgradeInProgress",
      status: "True",
      reason: "BothActivePendingClustersExist",
      message: "",
      lastTransitionTime: "2024-05-01T10:06:00Z",
    }],
    activeServiceStatus: {
      rayClusterName: "fruit-raycluster-abcde",
      rayClusterStatus: {
        state: "ready",
        endpoints: { dashboard: "8265", serve: "8000" },
      },
      applicationStatuses: {
        veg: { status: "DEPLOYING", message: "" },
        fruit: {
          status: "RUNNING",
          message: "",
          serveDeploymentStatuses: {
            Pear: { status: "HEALTHY", message: "" },
            Apple: { status: "UPDATING", message: "scaling" },
          },
        },
      },
    },
    pendingServiceStatus: {
      rayClusterName: "fruit-raycluster-fghij",
      applicationStatuses: { fruit: { status: "DEPLOYING" } },
    },
  },
};

function event(
  name: string,
  kind: string,
  object: string,
  last: string,
  uid = "u-1",
): KubeEvent {
  return {
    metadata: { name, namespace: "team-a", uid: `e-${name}` },
    involvedObject: { kind, name: object, namespace: "team-a", uid },
    reason: "Created",
    message: `${name} happened`,
    type: "Normal",
    count: 1,
    lastTimestamp: last,
  };
}

Deno.test("serviceFromResource() reads v1.7.0's status: health, active and pending clusters, applications, endpoints, conditions", () => {
  const service = serviceFromResource(RESOURCE, []);
  const status = service.rayServiceStatus!;
  assert.equal(status.applicationStatus, "Running");
  assert.equal(
    status.applicationMessage,
    "Number of serve endpoints is greater than 0",
  );
  assert.equal(status.rayClusterName, "fruit-raycluster-abcde");
  assert.equal(status.rayClusterState, "ready");
  assert.deepEqual(status.serviceEndpoint, {
    dashboard: "8265",
    serve: "8000",
  });
  assert.equal(status.pendingRayClusterName, "fruit-raycluster-fghij");
  assert.equal(status.numServeEndpoints, 2);
  assert.deepEqual(
    status.serveApplicationStatus.map((a) => [a.name, a.status]),
    [["fruit", "RUNNING"], ["veg", "DEPLOYING"]],
  );
  assert.deepEqual(status.serveApplicationStatus[0].serveDeploymentStatus, [
    { deploymentName: "Apple", status: "UPDATING", message: "scaling" },
    { deploymentName: "Pear", status: "HEALTHY", message: "" },
  ]);
  assert.equal(status.serveDeploymentStatus.length, 2);
  assert.deepEqual(
    status.pendingServeApplicationStatus.map((a) => [a.name, a.status]),
    [["fruit", "DEPLOYING"]],
  );
  assert.deepEqual(
    status.conditions.map((c) => [c.type, c.status, c.reason]),
    [
      ["Ready", "True", "NonZeroServeEndpoints"],
      ["UpgradeInProgress", "True", "BothActivePendingClustersExist"],
    ],
  );
  assert.equal(service.user, "ada");
  assert.equal(service.version, "2.9.0");
  assert.equal(service.createdAt?.toISOString(), "2024-05-01T10:00:00.000Z");
});

Deno.test("serviceFromResource() shows the events about this RayService only, oldest first", () => {
  const events = [
    event("second", "RayService", "fruit", "2024-05-01T10:02:00Z"),
    event("first", "RayService", "fruit", "2024-05-01T10:01:00Z"),
    event("cluster", "RayCluster", "fruit", "2024-05-01T10:00:30Z"),
    event("other", "RayService", "veg", "2024-05-01T10:00:10Z"),
    event("namesake", "RayService", "fruit", "2024-05-01T09:00:00Z", "old"),
  ];
  const status = serviceFromResource(RESOURCE, events).rayServiceStatus!;
  assert.deepEqual(
    status.rayServiceEvents.map((e) => e.name),
    ["first", "second"],
  );
});

Deno.test("serviceFromResource() of a RayService without status reads empty status fields", () => {
  const { status: _, ...bare } = RESOURCE;
  const status = serviceFromResource(bare, []).rayServiceStatus!;
  assert.equal(status.applicationStatus, "");
  assert.equal(status.rayClusterName, "");
  assert.deepEqual(status.serveApplicationStatus, []);
  assert.deepEqual(status.serviceEndpoint, {});
});
