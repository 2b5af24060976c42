/**
 * A group's start parameters by either name: KubeRay's `rayStartParams`
 * (and `ray_start_params`) and Corral's `engineStartParams` are one field.
 * Both dialects take either name; KubeRay's (--kuberay-json) answers
 * `rayStartParams` everywhere a group is written (its clients read nothing
 * else), the default answers `engineStartParams`. Both names given with
 * different values are refused with code 3 naming the field, and a start
 * parameter refused is the same code and message on gRPC and on HTTP in
 * either dialect, under either name.
 */
import assert from "node:assert/strict";
import { startStandin } from "../../standin/server.ts";
import { eventually } from "../eventually.ts";
import { type Corral, startCorral, viaGrpc } from "../harness.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

const NS = "ml";
const CLUSTERS = `/apis/v1/namespaces/${NS}/clusters`;
const HEAD = { "dashboard-host": "0.0.0.0" };
const WORKER = { "num-cpus": "1" };

/** Two Corrals over one stand-in: the default dialect, and KubeRay's. */
async function withBothDialects(
  run: (dialects: { plain: Corral; kuberay: Corral }) => Promise<void>,
): Promise<void> {
  const standin = startStandin();
  const plain = await startCorral({ kubeUrl: standin.url, cache: {} });
  const kuberay = await startCorral({
    kubeUrl: standin.url,
    kuberayJson: true,
    cache: {},
  });
  try {
    const template = await call(
      plain,
      "POST",
      `/apis/v1/namespaces/${NS}/compute_templates`,
      { name: "small", cpu: 1, memory: 1 },
    );
    assert.equal(template.status, 200, JSON.stringify(template.body));
    await eventually("the template in both caches", async () => {
      const path = `/apis/v1/namespaces/${NS}/compute_templates/small`;
      const seen = await Promise.all(
        [plain, kuberay].map((corral) => call(corral, "GET", path)),
      );
      return seen.every(({ status }) => status === 200) ? true : undefined;
    });
    await run({ plain, kuberay });
  } finally {
    await kuberay.close();
    await plain.close();
    await standin.close();
  }
}

async function call(
  corral: Corral,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: Json }> {
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

/** A cluster whose groups' start parameters are under `key`. */
function cluster(name: string, key: string, head = HEAD): Json {
  return {
    name,
    user: "carol",
    version: "2.9.0",
    clusterSpec: {
      headGroupSpec: { computeTemplate: "small", [key]: head },
      workerGroupSpec: [{
        groupName: "w",
        computeTemplate: "small",
        replicas: 1,
        [key]: WORKER,
      }],
    },
  };
}

/** The start parameters of the head and of the worker group, by `key`. */
function startParamsOf(answer: Json, key: string): unknown[] {
  const spec = answer.clusterSpec;
  return [spec.headGroupSpec[key], spec.workerGroupSpec[0][key]];
}

/** The first line of a watch stream that holds a cluster. */
async function firstWatched(corral: Corral, path: string): Promise<Json> {
  const response = await corral.gateway(
    new Request(`http://corral.test${path}`),
  );
  assert.equal(response.status, 200);
  const reader = response.body!.pipeThrough(new TextDecoderStream())
    .getReader();
  let text = "";
  try {
    for (;;) {
      const { value, done } = await reader.read();
      assert.ok(!done, "the stream ended before a cluster came");
      text += value;
      for (const line of text.split("\n").slice(0, -1)) {
        const cluster = JSON.parse(line).result?.cluster;
        if (cluster) return cluster;
      }
    }
  } finally {
    await reader.cancel();
  }
}

Deno.test("--kuberay-json answers each group's start parameters as rayStartParams, whichever name they came under, in every answer", async () => {
  await withBothDialects(async ({ plain, kuberay }) => {
    const sent = [
      ["camel", "rayStartParams", kuberay],
      ["snake", "ray_start_params", kuberay],
      ["ours", "engineStartParams", kuberay],
      ["plain", "rayStartParams", plain],
    ] as const;
    for (const [name, key, corral] of sent) {
      const created = await call(corral, "POST", CLUSTERS, cluster(name, key));
      assert.equal(created.status, 200, JSON.stringify(created.body));
    }
    const answers: [string, Json][] = [];
    for (const [name] of sent) {
      answers.push([
        `get ${name}`,
        (await call(kuberay, "GET", `${CLUSTERS}/${name}`)).body,
      ]);
    }
    for (const path of [CLUSTERS, "/apis/v1/clusters"]) {
      const listed = (await call(kuberay, "GET", path)).body.clusters;
      assert.equal(listed.length, sent.length, path);
      answers.push(...listed.map((c: Json) => [`${path} ${c.name}`, c]));
    }
    const updated = await call(
      kuberay,
      "PATCH",
      `/apis/v1alpha2/namespaces/${NS}/clusters/camel`,
      {
        clusterSpec: {
          workerGroupSpec: cluster("camel", "rayStartParams").clusterSpec
            .workerGroupSpec,
        },
      },
    );
    assert.equal(updated.status, 200, JSON.stringify(updated.body));
    answers.push(["update", updated.body]);
    answers.push([
      "watch",
      await firstWatched(
        kuberay,
        `/apis/v1alpha2/watch/namespaces/${NS}/clusters`,
      ),
    ]);
    for (const [what, answer] of answers) {
      assert.deepEqual(startParamsOf(answer, "rayStartParams"), [
        HEAD,
        WORKER,
      ], what);
      assert.deepEqual(
        startParamsOf(answer, "engineStartParams"),
        [undefined, undefined],
        what,
      );
    }
  });
});

Deno.test("the default dialect takes either name and answers engineStartParams, at /apis/v1 as at /apis/v1alpha2", async () => {
  await withBothDialects(async ({ plain }) => {
    for (const key of ["rayStartParams", "engineStartParams"]) {
      const name = key.toLowerCase();
      const created = await call(plain, "POST", CLUSTERS, cluster(name, key));
      assert.equal(created.status, 200, JSON.stringify(created.body));
      for (
        const path of [
          `${CLUSTERS}/${name}`,
          `/apis/v1alpha2/namespaces/${NS}/clusters/${name}`,
        ]
      ) {
        const got = await call(plain, "GET", path);
        assert.equal(got.status, 200, path);
        assert.deepEqual(startParamsOf(got.body, "engineStartParams"), [
          HEAD,
          WORKER,
        ]);
        assert.deepEqual(startParamsOf(got.body, "rayStartParams"), [
          undefined,
          undefined,
        ]);
      }
    }
  });
});

Deno.test("both names with different values are refused with code 3 naming the field, in either dialect", async () => {
  await withBothDialects(async (dialects) => {
    for (const [dialect, corral] of Object.entries(dialects)) {
      const body = cluster("both", "rayStartParams");
      body.clusterSpec.workerGroupSpec[0].engineStartParams = {
        "num-cpus": "2",
      };
      const refused = await call(corral, "POST", CLUSTERS, body);
      assert.equal(refused.status, 400, dialect);
      assert.equal(refused.body.code, 3, dialect);
      const field = "cluster.clusterSpec.workerGroupSpec[0].engineStartParams";
      assert.equal(
        refused.body.message,
        `Invalid request: ${field}: given twice, as "rayStartParams" and "engineStartParams"`,
        dialect,
      );
      assert.deepEqual(
        refused.body.details[0].fieldViolations.map((v: Json) => v.field),
        [field],
        dialect,
      );
      const got = await call(corral, "GET", `${CLUSTERS}/both`);
      assert.equal(got.status, 404, `${dialect}: nothing was created`);
    }
  });
});

Deno.test("a start parameter refused is the same code and message on gRPC and on HTTP in either dialect, under either name", async () => {
  await withBothDialects(async ({ plain, kuberay }) => {
    const bad = { ...HEAD, "Num_CPUs": "1" };
    const grpc = await viaGrpc(plain, "proto.ClusterService/CreateCluster", {
      namespace: NS,
      cluster: cluster("bad", "engineStartParams", bad),
    });
    assert.equal(grpc.code, 3);
    assert.match(
      grpc.message,
      /cluster\.clusterSpec\.headGroupSpec\.engineStartParams\["Num_CPUs"\]: must have a ray start flag name/,
    );
    for (const corral of [plain, kuberay]) {
      for (const key of ["rayStartParams", "engineStartParams"]) {
        const refused = await call(
          corral,
          "POST",
          CLUSTERS,
          cluster("bad", key, bad),
        );
        assert.equal(refused.status, 400, key);
        assert.equal(refused.body.code, grpc.code, key);
        assert.equal(refused.body.message, grpc.message, key);
        assert.deepEqual(refused.body.details, grpc.details, key);
      }
    }
  });
});
