import assert from "node:assert/strict";
import type { ObservedCluster } from "../../../standin/operator/api_client.ts";
import {
  endpointsFor,
  NODE_PORT_MAX,
  NODE_PORT_MIN,
  NodePortPool,
} from "../../../standin/operator/endpoints.ts";

function cluster(
  serviceType: string | undefined,
  endpoints?: Record<string, string>,
): ObservedCluster {
  return {
    metadata: { name: "blue", namespace: "team-a", uid: "u1" },
    spec: {
      headGroupSpec: {
        serviceType,
        template: {
          spec: {
            containers: [{
              ports: [
                { name: "head", containerPort: 10001 },
                { name: "dashboard", containerPort: 8265 },
              ],
            }],
          },
        },
      },
    },
    ...(endpoints ? { status: { state: "ready", endpoints } } : {}),
  };
}

Deno.test("NodePortPool.allocate() gives the lowest free NodePort and throws once all 2768 are in use", () => {
  const pool = new NodePortPool();
  for (let want = NODE_PORT_MIN; want <= NODE_PORT_MAX; want++) {
    const got = pool.allocate();
    if (got !== want) assert.fail(`got ${got}, want ${want}`);
  }
  assert.throws(
    () => pool.allocate(),
    /^Error: Cannot allocate a NodePort: all 2768 are in use$/,
  );
  pool.release([30005]);
  assert.equal(pool.allocate(), 30005);
});

Deno.test("NodePortPool.adopt() keeps the NodePorts of a ready NodePort cluster's endpoints, and no others", () => {
  const pool = new NodePortPool();
  assert.deepEqual(
    pool.adopt(cluster("NodePort", { head: "30000", dashboard: "30002" })),
    [30000, 30002],
  );
  assert.deepEqual(
    pool.adopt(cluster("ClusterIP", { head: "30001", dashboard: "8265" })),
    [],
    "a ClusterIP cluster's endpoints are container ports",
  );
  assert.deepEqual(
    pool.adopt(cluster("nodeport", { head: "10001", bad: "x" })),
    [],
    "values outside 30000-32767 are not NodePorts",
  );
  assert.equal(pool.allocate(), 30001);
  assert.equal(pool.allocate(), 30003);
});

Deno.test("endpointsFor() gives NodePorts by port name for a NodePort cluster and the container ports otherwise", () => {
  const pool = new NodePortPool();
  const allocated: number[] = [];
  assert.deepEqual(endpointsFor(cluster("NodePort"), pool, allocated), {
    dashboard: "30000",
    head: "30001",
    metrics: "30002",
  });
  assert.deepEqual(allocated, [30000, 30001, 30002]);
  assert.deepEqual(endpointsFor(cluster(undefined), pool, allocated), {
    dashboard: "8265",
    head: "10001",
    metrics: "8080",
  });
  assert.equal(allocated.length, 3, "no NodePort for a ClusterIP cluster");
});
