/**
 * Environment variables from a Secret's or ConfigMap's key through the API:
 * created on both transports, written as the container's `valueFrom` into a
 * RayCluster the operator's CRD accepts, answered back by GetCluster and
 * UpdateCluster; KubeRay's JSON shape of `environment` (its Python client's)
 * accepted on HTTP; bad sources refused alike on both transports, naming the
 * field.
 */
import assert from "node:assert/strict";
import { type Corral, startCorral, TRANSPORTS, viaHttp } from "../harness.ts";
import { RAY_CRD } from "../orchestrator/cluster_shapes.ts";

const NS = "team-a";
const CS = "proto.ClusterService";
type Json = Record<string, unknown>;

const TOKEN = { source: "SECRET", name: "ray-token", key: "token" };
const NODE = { source: "FIELD", name: "", key: "spec.nodeName" };

function clusterWith(head: Json, worker: Json = {}): Json {
  return {
    name: "blue",
    namespace: NS,
    user: "ada",
    version: "2.9.0",
    clusterSpec: {
      headGroupSpec: { serviceType: "ClusterIP", ...head },
      workerGroupSpec: [{ groupName: "workers", replicas: 1, ...worker }],
    },
  };
}

async function withCorral(run: (corral: Corral) => Promise<void>) {
  const corral = await startCorral({ crds: [RAY_CRD] });
  try {
    await run(corral);
  } finally {
    await corral.close();
  }
}

async function rayClusterEnv(
  corral: Corral,
  group: "head" | "worker",
): Promise<Json[]> {
  const response = await fetch(
    `${corral.kubeUrl}/apis/ray.io/v1/namespaces/${NS}/rayclusters/blue`,
  );
  assert.equal(response.status, 200);
  const spec = (await response.json()).spec;
  const template = group === "head"
    ? spec.headGroupSpec.template
    : spec.workerGroupSpecs[0].template;
  return template.spec.containers[0].env;
}

function headOf(result: Json | undefined): Json {
  return (result?.clusterSpec as Json).headGroupSpec as Json;
}

function workerOf(result: Json | undefined): Json {
  return ((result?.clusterSpec as Json).workerGroupSpec as Json[])[0];
}

for (const [transport, call] of TRANSPORTS) {
  Deno.test(`CreateCluster (${transport}) writes environmentValuesFrom as valueFrom, and GetCluster answers it`, async () => {
    await withCorral(async (corral) => {
      const created = await call(corral, `${CS}/CreateCluster`, {
        namespace: NS,
        cluster: clusterWith(
          { environmentValuesFrom: { TOKEN } },
          { environmentValuesFrom: { NODE } },
        ),
      });
      assert.equal(created.code, 0, created.message);
      assert.deepEqual(headOf(created.result).environmentValuesFrom, { TOKEN });
      assert.deepEqual(
        (await rayClusterEnv(corral, "head")).find((e) => e.name === "TOKEN"),
        {
          name: "TOKEN",
          valueFrom: { secretKeyRef: { name: "ray-token", key: "token" } },
        },
      );
      assert.deepEqual(
        (await rayClusterEnv(corral, "worker")).find((e) => e.name === "NODE"),
        {
          name: "NODE",
          valueFrom: { fieldRef: { fieldPath: "spec.nodeName" } },
        },
      );
      const got = await call(corral, `${CS}/GetCluster`, {
        namespace: NS,
        name: "blue",
      });
      assert.equal(got.code, 0, got.message);
      assert.deepEqual(headOf(got.result).environmentValuesFrom, { TOKEN });
      assert.deepEqual(headOf(got.result).environment, {});
      assert.deepEqual(workerOf(got.result).environmentValuesFrom, { NODE });
    });
  });

  Deno.test(`UpdateCluster (${transport}) replaces a worker group's environmentValuesFrom`, async () => {
    await withCorral(async (corral) => {
      const created = await call(corral, `${CS}/CreateCluster`, {
        namespace: NS,
        cluster: clusterWith({}, { environmentValuesFrom: { NODE } }),
      });
      assert.equal(created.code, 0, created.message);
      const updated = await call(corral, `${CS}/UpdateCluster`, {
        namespace: NS,
        name: "blue",
        cluster: clusterWith({}, { environmentValuesFrom: { TOKEN } }),
        updateMask: "clusterSpec.workerGroupSpec",
      });
      assert.equal(updated.code, 0, updated.message);
      assert.deepEqual(workerOf(updated.result).environmentValuesFrom, {
        TOKEN,
      });
      const names = (await rayClusterEnv(corral, "worker")).map((e) => e.name);
      assert.ok(names.includes("TOKEN") && !names.includes("NODE"), `${names}`);
    });
  });
}

Deno.test("CreateCluster refuses a bad source alike on both transports, naming the field", async () => {
  await withCorral(async (corral) => {
    const answers = [];
    for (const [, call] of TRANSPORTS) {
      answers.push(
        await call(corral, `${CS}/CreateCluster`, {
          namespace: NS,
          cluster: clusterWith({
            environmentValuesFrom: {
              TOKEN: { source: "SECRET", name: "Ray_Token", key: "" },
            },
          }),
        }),
      );
    }
    const [http, grpc] = answers;
    assert.equal(http.code, 3);
    assert.deepEqual(
      { code: grpc.code, message: grpc.message },
      { code: http.code, message: http.message },
    );
    const field =
      'cluster.clusterSpec.headGroupSpec.environmentValuesFrom["TOKEN"]';
    assert.match(http.message, new RegExp(`${escape(field)}\\.name: must be`));
    assert.match(
      http.message,
      new RegExp(`${escape(field)}\\.key: is required`),
    );
  });
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

Deno.test("CreateCluster on HTTP takes KubeRay's {values, valuesFrom} environment, as its Python client sends it", async () => {
  await withCorral(async (corral) => {
    // As KubeRay's python_apiserver_client's EnvironmentVariables.to_dict()
    // writes it: the source by number.
    const environment = {
      values: { MODE: "head" },
      valuesFrom: { TOKEN: { source: 1, name: "ray-token", key: "token" } },
    };
    const response = await corral.gateway(
      new Request(
        `http://corral.test/apis/v1alpha2/namespaces/${NS}/clusters`,
        {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify(
            clusterWith({ environment }, {
              environment: { values: { ROLE: "worker" } },
            }),
          ),
        },
      ),
    );
    const body = await response.json();
    assert.equal(response.status, 200, JSON.stringify(body));
    const got = await viaHttp(corral, `${CS}/GetCluster`, {
      namespace: NS,
      name: "blue",
    });
    assert.deepEqual(headOf(got.result).environment, { MODE: "head" });
    assert.deepEqual(headOf(got.result).environmentValuesFrom, { TOKEN });
    assert.deepEqual(workerOf(got.result).environment, { ROLE: "worker" });
  });
});
