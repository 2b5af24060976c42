/**
 * KubeRay v0.6.0 clients against Corral: requests encoded by field number as
 * KubeRay's generated stubs encode them (the numbers of its proto/cluster.proto
 * and proto/config.proto, written here by hand), its JSON spelling of the
 * start parameters, its compute-template paths under /apis/v1alpha2/, and
 * --kuberay-json answers. Every field lands in a RayCluster that the
 * operator's real CRD accepts.
 */
import assert from "node:assert/strict";
import protobuf from "protobufjs";
import { createLogger } from "../../api/log.ts";
import { type Corral, startCorral, viaGrpc, viaHttp } from "../harness.ts";
import { RAY_CRD } from "../orchestrator/cluster_shapes.ts";

// ---------------------------------------------------------------------------
// Protobuf by field number

type Value = string | number | Uint8Array;
/** [field number, value]: strings and bytes length-delimited, numbers varint. */
type Field = [number, Value];

function encode(fields: Field[]): Uint8Array {
  const writer = protobuf.Writer.create();
  for (const [number, value] of fields) {
    if (typeof value === "number") {
      writer.uint32(number << 3).int32(value);
    } else if (typeof value === "string") {
      writer.uint32((number << 3) | 2).string(value);
    } else {
      writer.uint32((number << 3) | 2).bytes(value);
    }
  }
  return writer.finish();
}

/** The entries of a map<string, string> field, each an entry message. */
function map(number: number, entries: Record<string, string>): Field[] {
  return Object.entries(entries).map((
    [key, value],
  ) => [number, encode([[1, key], [2, value]])]);
}

const NAMESPACE = "ml";

/** CreateComputeTemplateRequest as KubeRay v0.6.0's config.proto numbers it. */
function createTemplateBytes(name: string, gpu: number): Uint8Array {
  const template = encode([
    [1, name],
    [2, NAMESPACE],
    [3, 4], // cpu
    [4, 16], // memory
    [5, gpu],
    [6, gpu > 0 ? "nvidia.com/gpu" : ""],
    // tolerations 7: PodToleration {key 1, operator 2, value 3, effect 4}
    [7, encode([[1, "nvidia.com/gpu"], [2, "Exists"], [4, "NoSchedule"]])],
    [7, encode([[1, "dedicated"], [2, "Equal"], [3, "ray"]])],
  ]);
  return encode([[1, template], [2, NAMESPACE]]);
}

/** CreateClusterRequest as KubeRay v0.6.0's cluster.proto numbers it. */
function createClusterBytes(name: string, extra: Field[] = []): Uint8Array {
  const head = encode([
    [1, "head-template"], // compute_template
    [3, "ClusterIP"], // service_type
    ...map(4, { "dashboard-host": "0.0.0.0" }), // ray_start_params
    [6, "ray-head"], // service_account
    [7, "registry-creds"], // image_pull_secret
    ...map(8, { HEAD_MODE: "driver" }), // environment
    ...map(9, { "prometheus.io/scrape": "true" }), // annotations
    ...map(10, { team: "vision" }), // labels
  ]);
  const worker = encode([
    [1, "gpu"], // group_name
    [2, "gpu-template"], // compute_template
    [3, "rayproject/ray:2.9.0-gpu"], // image
    [4, 2], // replicas
    [5, 1], // min_replicas
    [6, 4], // max_replicas
    ...map(7, { "num-gpus": "1" }), // ray_start_params
    [9, "ray-worker"], // service_account
    [10, "registry-creds"], // image_pull_secret
    ...map(11, { NCCL_DEBUG: "INFO" }), // environment
    ...map(12, { "example.com/cost-center": "ml-42" }), // annotations
    ...map(13, { accelerator: "a100" }), // labels
  ]);
  const cluster = encode([
    [1, name],
    [2, NAMESPACE],
    [3, "carol"],
    [4, "2.9.0"],
    [5, 1], // environment TESTING
    [6, encode([[1, head], [2, worker]])], // cluster_spec
    ...map(12, { AWS_REGION: "eu-west-1" }), // envs
    ...extra,
  ]);
  return encode([[1, cluster], [2, NAMESPACE]]);
}

const EXPECTED_SPEC = {
  headGroupSpec: {
    computeTemplate: "head-template",
    image: "",
    serviceType: "ClusterIP",
    engineStartParams: { "dashboard-host": "0.0.0.0" },
    volumes: [],
    serviceAccount: "ray-head",
    imagePullSecret: "registry-creds",
    environment: { HEAD_MODE: "driver" },
    annotations: { "prometheus.io/scrape": "true" },
    labels: { team: "vision" },
    environmentValuesFrom: {},
    // KubeRay's later fields, none of which v0.6.0 sends.
    enableIngress: false,
    imagePullPolicy: "",
    securityContext: undefined,
  },
  workerGroupSpec: [{
    groupName: "gpu",
    computeTemplate: "gpu-template",
    image: "rayproject/ray:2.9.0-gpu",
    replicas: 2,
    minReplicas: 1,
    maxReplicas: 4,
    engineStartParams: { "num-gpus": "1" },
    volumes: [],
    serviceAccount: "ray-worker",
    imagePullSecret: "registry-creds",
    environment: { NCCL_DEBUG: "INFO" },
    annotations: { "example.com/cost-center": "ml-42" },
    labels: { accelerator: "a100" },
    environmentValuesFrom: {},
    imagePullPolicy: "",
    securityContext: undefined,
  }],
  enableInTreeAutoscaling: false,
  autoscalerOptions: undefined,
  headServiceAnnotations: {},
};

/** `value` with every null (an unset message in JSON) undefined. */
function nullsUnset(value: unknown): unknown {
  if (value === null) return undefined;
  if (Array.isArray(value)) return value.map(nullsUnset);
  if (typeof value !== "object") return value;
  return Object.fromEntries(
    Object.entries(value as object).map(([k, v]) => [k, nullsUnset(v)]),
  );
}

async function withCorral(
  run: (corral: Corral) => Promise<void>,
  options: Parameters<typeof startCorral>[0] = {},
): Promise<void> {
  const corral = await startCorral({ crds: [RAY_CRD], ...options });
  try {
    await run(corral);
  } finally {
    await corral.close();
  }
}

async function rayCluster(
  corral: Corral,
  name: string,
): Promise<Record<string, unknown>> {
  const response = await fetch(
    `${corral.kubeUrl}/apis/ray.io/v1/namespaces/${NAMESPACE}/rayclusters/${name}`,
  );
  assert.equal(response.status, 200);
  return await response.json();
}

// ---------------------------------------------------------------------------

Deno.test("a KubeRay v0.6.0 gRPC client's every field arrives and lands in a RayCluster the real CRD accepts", async () => {
  await withCorral(async (corral) => {
    for (const [name, gpu] of [["head-template", 0], ["gpu-template", 1]]) {
      const created = await corral.grpc.callRaw(
        "proto.ComputeTemplateService/CreateComputeTemplate",
        createTemplateBytes(name as string, gpu as number),
      );
      assert.equal(created.code, 0, created.message);
      assert.deepEqual(created.result!.tolerations, [
        {
          key: "nvidia.com/gpu",
          operator: "Exists",
          value: "",
          effect: "NoSchedule",
        },
        { key: "dedicated", operator: "Equal", value: "ray", effect: "" },
      ]);
    }
    const created = await corral.grpc.callRaw(
      "proto.ClusterService/CreateCluster",
      createClusterBytes("vision"),
    );
    assert.equal(created.code, 0, created.message);
    assert.deepEqual(created.result!.clusterSpec, EXPECTED_SPEC);
    assert.deepEqual(created.result!.envs, { AWS_REGION: "eu-west-1" });

    // Read back through both transports, field for field.
    for (const via of [viaHttp, viaGrpc]) {
      const got = await via(corral, "proto.ClusterService/GetCluster", {
        namespace: NAMESPACE,
        name: "vision",
      });
      assert.equal(got.code, 0, got.message);
      // Unset messages: null in JSON, undefined from gRPC.
      assert.deepEqual(nullsUnset(got.result!.clusterSpec), EXPECTED_SPEC);
      assert.equal(got.result!.environment, "TESTING");
    }

    // What Kubernetes holds, as KubeRay v0.6.0 writes it.
    // deno-lint-ignore no-explicit-any
    const stored = await rayCluster(corral, "vision") as any;
    const head = stored.spec.headGroupSpec.template;
    assert.equal(head.spec.serviceAccountName, "ray-head");
    assert.deepEqual(head.spec.imagePullSecrets, [{ name: "registry-creds" }]);
    assert.deepEqual(head.metadata.labels, { team: "vision" });
    assert.equal(head.metadata.annotations["prometheus.io/scrape"], "true");
    assert.deepEqual(head.spec.tolerations, [
      { key: "nvidia.com/gpu", operator: "Exists", effect: "NoSchedule" },
      { key: "dedicated", operator: "Equal", value: "ray" },
    ]);
    assert.ok(
      head.spec.containers[0].env.some((e: { name: string; value: string }) =>
        e.name === "HEAD_MODE" && e.value === "driver"
      ),
    );
    const worker = stored.spec.workerGroupSpecs[0].template;
    assert.equal(worker.spec.serviceAccountName, "ray-worker");
    assert.deepEqual(worker.metadata.labels, { accelerator: "a100" });
    assert.equal(worker.spec.tolerations.length, 2);

    // The same cluster sent as JSON over HTTP is the same RayCluster.
    const viaJson = await viaHttp(
      corral,
      "proto.ClusterService/CreateCluster",
      {
        namespace: NAMESPACE,
        cluster: {
          name: "vision-json",
          user: "carol",
          version: "2.9.0",
          environment: "TESTING",
          clusterSpec: EXPECTED_SPEC,
          envs: { AWS_REGION: "eu-west-1" },
        },
      },
    );
    assert.equal(viaJson.code, 0, viaJson.message);
    // deno-lint-ignore no-explicit-any
    const twin = await rayCluster(corral, "vision-json") as any;
    assert.deepEqual(twin.spec, stored.spec);
  });
});

Deno.test("a field number Corral does not know is refused on gRPC, as an unknown JSON field is on HTTP", async () => {
  await withCorral(async (corral) => {
    // A Cluster field number Corral lacks, as a client built from other
    // protos would send it: refused, nothing created.
    const refused = await corral.grpc.callRaw(
      "proto.ClusterService/CreateCluster",
      createClusterBytes("unknown", [[13, "something"]]),
    );
    assert.equal(refused.code, 3);
    assert.match(
      refused.message,
      /cluster\.#13: unknown field number 13 of message proto\.Cluster/,
    );
    const http = await viaHttp(corral, "proto.ClusterService/CreateCluster", {
      namespace: NAMESPACE,
      cluster: { name: "unknown", user: "carol", bogus: 1 },
    });
    assert.equal(http.code, refused.code);
    assert.match(http.message, /cluster\.bogus: unknown field/);
    const get = await viaGrpc(corral, "proto.ClusterService/GetCluster", {
      namespace: NAMESPACE,
      name: "unknown",
    });
    assert.equal(get.code, 5, "nothing was created");
  });
});

async function call(
  corral: Corral,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await corral.gateway(
    new Request(`http://corral.test${path}`, {
      method,
      ...(body === undefined ? {} : {
        body: JSON.stringify(body),
        headers: { "content-type": "application/json" },
      }),
    }),
  );
  return { status: response.status, body: await response.json() };
}

Deno.test("KubeRay's HTTP spelling rayStartParams is taken; answers keep engineStartParams", async () => {
  await withCorral(async (corral) => {
    const templates = `/apis/v1/namespaces/${NAMESPACE}/compute_templates`;
    assert.equal(
      (await call(corral, "POST", templates, {
        name: "small",
        cpu: 1,
        memory: 1,
      }))
        .status,
      200,
    );
    for (const key of ["rayStartParams", "ray_start_params"]) {
      const name = key === "rayStartParams" ? "camel" : "snake";
      const created = await call(
        corral,
        "POST",
        `/apis/v1alpha2/namespaces/${NAMESPACE}/clusters`,
        {
          name,
          user: "carol",
          version: "2.9.0",
          clusterSpec: {
            headGroupSpec: {
              computeTemplate: "small",
              [key]: { "dashboard-host": "0.0.0.0" },
            },
            workerGroupSpec: [{
              groupName: "w",
              computeTemplate: "small",
              replicas: 1,
              [key]: { "num-cpus": "1" },
            }],
          },
        },
      );
      assert.equal(created.status, 200, JSON.stringify(created.body));
      // deno-lint-ignore no-explicit-any
      const spec = created.body.clusterSpec as any;
      assert.deepEqual(spec.headGroupSpec.engineStartParams, {
        "dashboard-host": "0.0.0.0",
      });
      assert.deepEqual(spec.workerGroupSpec[0].engineStartParams, {
        "num-cpus": "1",
      });
      assert.equal(spec.headGroupSpec.rayStartParams, undefined);
    }
  });
});

Deno.test("the compute-template routes answer under /apis/v1alpha2/ as KubeRay v0.6.0 served them", async () => {
  await withCorral(async (corral) => {
    const v1 = `/apis/v1/namespaces/${NAMESPACE}/compute_templates`;
    const alpha = `/apis/v1alpha2/namespaces/${NAMESPACE}/compute_templates`;
    const created = await call(corral, "POST", alpha, {
      name: "gpu",
      cpu: 4,
      memory: 16,
      gpu: 1,
      tolerations: [{ key: "nvidia.com/gpu", operator: "Exists" }],
    });
    assert.equal(created.status, 200, JSON.stringify(created.body));
    assert.deepEqual(
      (await call(corral, "GET", `${alpha}/gpu`)).body,
      (await call(corral, "GET", `${v1}/gpu`)).body,
    );
    assert.deepEqual(
      (await call(corral, "GET", alpha)).body,
      (await call(corral, "GET", v1)).body,
    );
    assert.deepEqual(
      (await call(corral, "GET", "/apis/v1alpha2/compute_templates")).body,
      (await call(corral, "GET", "/apis/v1/compute_templates")).body,
    );
    assert.equal((await call(corral, "DELETE", `${alpha}/gpu`)).status, 200);
    assert.equal((await call(corral, "GET", `${v1}/gpu`)).status, 404);
  });
});

Deno.test("--kuberay-json: enum numbers, no unpopulated fields, unknown input fields dropped with a warning", async () => {
  const lines: string[] = [];
  const log = createLogger({ write: (line) => lines.push(line) });
  await withCorral(async (corral) => {
    const templates = `/apis/v1/namespaces/${NAMESPACE}/compute_templates`;
    const template = await call(corral, "POST", templates, {
      name: "small",
      cpu: 1,
      memory: 1,
      // A field of KubeRay's current messages: kept.
      extendedResources: { "vpc.amazonaws.com/efa": 1 },
      // A field no KubeRay release has: dropped, not refused.
      notAField: true,
    });
    assert.equal(template.status, 200, JSON.stringify(template.body));
    assert.deepEqual(template.body, {
      name: "small",
      namespace: NAMESPACE,
      cpu: 1,
      memory: 1,
      extendedResources: { "vpc.amazonaws.com/efa": 1 },
    });
    const warning = lines.map((line) => JSON.parse(line)).find((record) =>
      record.level === "warn"
    );
    assert.deepEqual(warning?.fields, ["computeTemplate.notAField"]);

    const created = await call(
      corral,
      "POST",
      `/apis/v1alpha2/namespaces/${NAMESPACE}/clusters`,
      {
        name: "blue",
        user: "carol",
        version: "2.9.0",
        environment: "PRODUCTION",
        clusterSpec: { headGroupSpec: { computeTemplate: "small" } },
      },
    );
    assert.equal(created.status, 200, JSON.stringify(created.body));
    assert.equal(created.body.environment, 3);
    assert.equal(created.body.events, undefined);
    assert.equal(created.body.envs, undefined);
    assert.equal(created.body.clusterState, undefined);
    assert.deepEqual(created.body.clusterSpec, {
      headGroupSpec: { computeTemplate: "small" },
    });
    // Errors keep their shape.
    const missing = await call(
      corral,
      "GET",
      `/apis/v1alpha2/namespaces/${NAMESPACE}/clusters/none`,
    );
    assert.equal(missing.status, 404);
    assert.equal(missing.body.code, 5);
  }, { kuberayJson: true, log });
});

Deno.test("without --kuberay-json, answers are canonical proto3 JSON and unknown fields are refused", async () => {
  await withCorral(async (corral) => {
    const templates = `/apis/v1/namespaces/${NAMESPACE}/compute_templates`;
    const refused = await call(corral, "POST", templates, {
      name: "small",
      cpu: 1,
      memory: 1,
      notAField: true,
    });
    assert.equal(refused.status, 400);
    const template = await call(corral, "POST", templates, {
      name: "small",
      cpu: 1,
      memory: 1,
    });
    assert.deepEqual(template.body, {
      name: "small",
      namespace: NAMESPACE,
      cpu: 1,
      memory: 1,
      gpu: 0,
      gpuAccelerator: "",
      tolerations: [],
      extendedResources: {},
      memoryUnit: "",
    });
  });
});
