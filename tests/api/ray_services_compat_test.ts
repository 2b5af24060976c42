/**
 * KubeRay's RayServeService clients against Corral: requests written by
 * field number as KubeRay's proto/serve.proto numbers them (by hand here),
 * every field reaching the RayService, which the operator's real CRD
 * accepts; the same service in JSON on HTTP; and v0.6.0's
 * serve_deployment_graph_spec (4) refused with code 3 on both transports.
 */
import assert from "node:assert/strict";
import { type Corral, startCorral, viaGrpc, viaHttp } from "../harness.ts";
import { RAY_SERVICE_CRD } from "../orchestrator/cluster_shapes.ts";
import { encode, map } from "./field_numbers.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

const NAMESPACE = "ml";
const RS = "proto.RayServeService";
const SERVE_CONFIG = "applications:\n  - name: fruit\n" +
  "    import_path: fruit.deployment_graph\n";

/** ClusterSpec as KubeRay's cluster.proto numbers it. */
function clusterSpecBytes(): Uint8Array {
  const head = encode([
    [1, "small"], // compute_template
    [3, "ClusterIP"], // service_type
    ...map(4, { "num-cpus": "0" }), // ray_start_params
    ...map(8, { SERVE_MODE: "head" }), // environment
  ]);
  const worker = encode([
    [1, "workers"], // group_name
    [2, "small"], // compute_template
    [3, "rayproject/ray:2.9.0-py310"], // image
    [4, 2], // replicas
    [5, 1], // min_replicas
    [6, 5], // max_replicas
    ...map(7, { "num-cpus": "2" }), // ray_start_params
  ]);
  return encode([[1, head], [2, worker]]);
}

/** CreateRayServiceRequest as KubeRay's serve.proto numbers it. */
function createServiceBytes(name: string, old = false): Uint8Array {
  const service = encode([
    [1, name],
    [2, NAMESPACE],
    [3, "carol"], // user
    [12, "2.9.0"], // version
    old
      // serve_deployment_graph_spec {import_path 1, serve_configs 3
      // {deployment_name 1, replicas 2}}, v0.6.0's
      ? [4, encode([[1, "fruit.graph"], [3, encode([[1, "Pear"], [2, 1]])]])]
      : [9, SERVE_CONFIG], // serve_config_V2
    [5, clusterSpecBytes()], // cluster_spec
  ]);
  return encode([[1, service], [2, NAMESPACE]]);
}

async function withCorral(run: (corral: Corral) => Promise<void>) {
  const corral = await startCorral({ crds: [RAY_SERVICE_CRD] });
  try {
    const template = await viaHttp(
      corral,
      "proto.ComputeTemplateService/CreateComputeTemplate",
      {
        namespace: NAMESPACE,
        computeTemplate: { name: "small", cpu: 2, memory: 4 },
      },
    );
    assert.equal(template.code, 0, template.message);
    await run(corral);
  } finally {
    await corral.close();
  }
}

async function stored(corral: Corral, name: string): Promise<Json> {
  const response = await fetch(
    `${corral.kubeUrl}/apis/ray.io/v1/namespaces/${NAMESPACE}/rayservices/${name}`,
  );
  assert.equal(response.status, 200);
  return await response.json();
}

Deno.test("a KubeRay gRPC client's CreateRayService by field number: every field reaches a RayService the real CRD accepts", async () => {
  await withCorral(async (corral) => {
    const created = await corral.grpc.callRaw(
      `${RS}/CreateRayService`,
      createServiceBytes("fruit"),
    );
    assert.equal(created.code, 0, created.message);
    const rayService = await stored(corral, "fruit");
    assert.equal(rayService.metadata.labels["ray.io/user"], "carol");
    assert.equal(
      rayService.metadata.labels["app.kubernetes.io/managed-by"],
      "kuberay-apiserver",
    );
    assert.equal(rayService.spec.serveConfigV2, SERVE_CONFIG);
    const cluster = rayService.spec.rayClusterConfig;
    assert.equal(cluster.rayVersion, "2.9.0");
    assert.equal(cluster.headGroupSpec.serviceType, "ClusterIP");
    assert.deepEqual(cluster.headGroupSpec.rayStartParams, { "num-cpus": "0" });
    const headEnv = cluster.headGroupSpec.template.spec.containers[0].env;
    assert.ok(
      headEnv.some((e: Json) => e.name === "SERVE_MODE" && e.value === "head"),
    );
    const [worker] = cluster.workerGroupSpecs;
    assert.deepEqual(
      [
        worker.groupName,
        worker.replicas,
        worker.minReplicas,
        worker.maxReplicas,
      ],
      ["workers", 2, 1, 5],
    );
    assert.deepEqual(worker.rayStartParams, { "num-cpus": "2" });
    assert.equal(
      worker.template.spec.containers[0].image,
      "rayproject/ray:2.9.0-py310",
    );
    assert.equal(
      worker.template.spec.containers[0].resources.limits.cpu,
      "2",
    );

    // Read back by field number (GetRayServiceRequest name 1, namespace 2)
    // and in JSON: the same service.
    const viaNumbers = await corral.grpc.callRaw(
      `${RS}/GetRayService`,
      encode([[1, "fruit"], [2, NAMESPACE]]),
    );
    assert.equal(viaNumbers.code, 0, viaNumbers.message);
    const viaJson = await viaHttp(corral, `${RS}/GetRayService`, {
      namespace: NAMESPACE,
      name: "fruit",
    });
    assert.equal(viaJson.code, 0, viaJson.message);
    assert.equal(viaJson.result!.serveConfigV2, SERVE_CONFIG);
    assert.equal(viaNumbers.result!.serveConfig_V2, SERVE_CONFIG);
    assert.equal(viaJson.result!.user, "carol");
    assert.equal(viaJson.result!.version, "2.9.0");

    // ListRayServicesRequest namespace 1, page_token 2, page_size 3.
    const page = await corral.grpc.callRaw(
      `${RS}/ListRayServices`,
      encode([[1, NAMESPACE], [3, 1]]),
    );
    assert.equal(page.code, 0, page.message);
    assert.equal((page.result!.services as unknown[]).length, 1);
    assert.equal(page.result!.totalSize, 1);

    // DeleteRayServiceRequest name 1, namespace 2.
    const deleted = await corral.grpc.callRaw(
      `${RS}/DeleteRayService`,
      encode([[1, "fruit"], [2, NAMESPACE]]),
    );
    assert.equal(deleted.code, 0, deleted.message);
  });
});

Deno.test("v0.6.0's serve_deployment_graph_spec (field 4) decodes and is refused with code 3 saying to use serveConfigV2, on both transports", async () => {
  await withCorral(async (corral) => {
    const refused = await corral.grpc.callRaw(
      `${RS}/CreateRayService`,
      createServiceBytes("old-style", true),
    );
    assert.equal(refused.code, 3);
    assert.match(
      refused.message,
      /service\.serveDeploymentGraphSpec: .*use serveConfigV2/,
    );
    const http = await viaHttp(corral, `${RS}/CreateRayService`, {
      namespace: NAMESPACE,
      service: {
        name: "old-style",
        user: "carol",
        version: "2.9.0",
        serveDeploymentGraphSpec: {
          importPath: "fruit.graph",
          serveConfigs: [{ deploymentName: "Pear", replicas: 1 }],
        },
        clusterSpec: { headGroupSpec: { computeTemplate: "small" } },
      },
    });
    assert.equal(http.code, 3);
    assert.equal(http.message, refused.message);
    const get = await viaGrpc(corral, `${RS}/GetRayService`, {
      namespace: NAMESPACE,
      name: "old-style",
    });
    assert.equal(get.code, 5, "nothing was created");
  });
});
