import assert from "node:assert/strict";
import {
  assertValidAgainstCrd,
  clusterSpec,
  eventReasons,
  type Json,
  RAY,
  read,
  send,
  waitFor,
  withKubeRay,
} from "./kuberay.ts";

const SERVICES = `${RAY}/rayservices`;
const CLUSTERS = `${RAY}/rayclusters`;

const SERVE_CONFIG = `applications:
  - name: fruit
    import_path: fruit.deployment_graph
    route_prefix: /fruit
    deployments:
      - name: MangoStand
        num_replicas: 1
      - name: FruitMarket
  - name: math
    import_path: conditional_dag.serve_dag
    route_prefix: /calc
    deployments:
      - name: Adder
`;

function rayService(name: string, serveConfigV2 = SERVE_CONFIG) {
  return {
    apiVersion: "ray.io/v1",
    kind: "RayService",
    metadata: { name, labels: { team: "web" } },
    spec: { serveConfigV2, rayClusterConfig: clusterSpec(2) },
  };
}

function condition(service: Json, type: string): Json {
  return service.status.conditions.find((c: Json) => c.type === type);
}

Deno.test("simulated operator brings a RayService to Running: its cluster, applications and conditions", async () => {
  await withKubeRay({ delayMs: 20 }, async (standin) => {
    const created = await send(standin, "POST", SERVICES, rayService("fruits"));
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const pending = await waitFor(
      standin,
      `${SERVICES}/fruits`,
      "a pending cluster",
      (s) => s?.status?.pendingServiceStatus?.rayClusterName !== undefined,
    );
    const clusterName = pending.status.pendingServiceStatus.rayClusterName;
    assert.match(clusterName, /^fruits-[a-z0-9]{5}$/);
    assert.equal(condition(pending, "Ready").reason, "Initializing");

    const service = await waitFor(
      standin,
      `${SERVICES}/fruits`,
      "the service to run",
      (s) => s?.status?.serviceStatus === "Running",
    );
    const { status } = service;
    assert.equal(status.activeServiceStatus.rayClusterName, clusterName);
    assert.equal(status.pendingServiceStatus.rayClusterName, undefined);
    assert.deepEqual(status.activeServiceStatus.applicationStatuses, {
      fruit: {
        status: "RUNNING",
        serveDeploymentStatuses: {
          MangoStand: { status: "HEALTHY" },
          FruitMarket: { status: "HEALTHY" },
        },
      },
      math: {
        status: "RUNNING",
        serveDeploymentStatuses: { Adder: { status: "HEALTHY" } },
      },
    });
    assert.equal(status.activeServiceStatus.rayClusterStatus.state, "ready");
    assert.equal(status.numServeEndpoints, 3, "the head and two workers");
    assert.equal(status.observedGeneration, 1);
    assert.deepEqual(
      status.conditions.map((c: Json) => [c.type, c.status, c.reason]),
      [
        ["Ready", "True", "NonZeroServeEndpoints"],
        ["UpgradeInProgress", "False", "NoPendingCluster"],
      ],
    );

    const cluster = await read(standin, `${CLUSTERS}/${clusterName}`);
    assert.equal(cluster.metadata.labels.team, "web");
    assert.equal(
      cluster.metadata.labels["ray.io/originated-from-crd"],
      "RayService",
    );
    assert.deepEqual(
      cluster.metadata.ownerReferences.map((o: Json) => [o.kind, o.uid]),
      [["RayService", created.body.metadata.uid]],
    );
    assert.deepEqual(await eventReasons(standin, "RayService", "fruits"), [
      "CreatedRayCluster",
      "UpdatedServeApplications",
      "CreatedService",
      "CreatedService",
    ]);
    await assertValidAgainstCrd(standin, `${SERVICES}/fruits`);

    // A new Serve config is deployed to the active cluster in place.
    const patch = await fetch(`${standin.url}${SERVICES}/fruits`, {
      method: "PATCH",
      headers: { "content-type": "application/merge-patch+json" },
      body: JSON.stringify({
        spec: {
          serveConfigV2:
            "applications:\n  - name: solo\n    import_path: a.b\n",
        },
      }),
    });
    assert.equal(patch.status, 200, await patch.text());
    const updated = await waitFor(
      standin,
      `${SERVICES}/fruits`,
      "the new applications",
      (s) => s?.status?.activeServiceStatus?.applicationStatuses?.solo,
    );
    assert.deepEqual(
      Object.keys(updated.status.activeServiceStatus.applicationStatuses),
      ["solo"],
    );
    assert.equal(updated.status.observedGeneration, 2);

    // Deleting the service: the operator deletes its cluster, then lets
    // the service go.
    const deleting = await send(standin, "DELETE", `${SERVICES}/fruits`);
    assert.equal(deleting.status, 200);
    assert.deepEqual(deleting.body.metadata.finalizers, [
      "ray.io/rayservice-finalizer",
    ]);
    await waitFor(
      standin,
      `${SERVICES}/fruits`,
      "the service to go",
      (s) => s === undefined,
    );
    assert.equal(await read(standin, `${CLUSTERS}/${clusterName}`), undefined);
    const reasons = await eventReasons(standin, "RayService", "fruits");
    assert.equal(reasons.at(-1), "DeletedRayCluster");
  });
});
