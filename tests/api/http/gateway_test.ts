/**
 * The HTTP gateway, called as the function it is (no listener): its
 * routes, 404 and 405, the request bodies and query strings it refuses
 * before any handler runs, and answers it cannot encode. In front of
 * Corral's handlers and the stand-in: gateway_round_trip_test.ts.
 */
import assert from "node:assert/strict";
import { probeGateway, probeHandlers } from "../service/probe_handlers.ts";
import { openAccess } from "../../../api/auth/access.ts";
import { createDispatcher } from "../../../api/service/dispatcher.ts";
import { createGateway } from "../../../api/http/gateway.ts";
import { createLogger } from "../../../api/log.ts";
import { compileRoutes } from "../../../api/http/rules.ts";
import { schema } from "../../schema.ts";
import { NS, sampleCluster } from "../cases.ts";

const BASE = "http://corral.test";

Deno.test("the gateway answers an unknown path with 404 Not Found", async () => {
  const gateway = await probeGateway();
  for (
    const path of ["/", "/apis", "/apis/v1alpha2/namespaces/a/clusters/b/c"]
  ) {
    const response = await gateway(new Request(BASE + path));
    assert.equal(response.status, 404, path);
    assert.deepEqual(await response.json(), { code: 5, message: "Not Found" });
  }
});

Deno.test("the gateway answers a known path with the wrong method with 405 and Allow", async () => {
  const gateway = await probeGateway();
  const response = await gateway(
    new Request(`${BASE}/apis/v1alpha2/namespaces/a/clusters`, {
      method: "PUT",
    }),
  );
  assert.equal(response.status, 405);
  assert.equal(response.headers.get("allow"), "POST, GET, HEAD");
  assert.deepEqual(await response.json(), {
    code: 12,
    message: "Method Not Allowed",
  });
});

Deno.test("the gateway routes every http rule of the API definition", async () => {
  const routes = compileRoutes((await schema()).services);
  assert.deepEqual(routes.map((r) => `${r.verb} ${r.template}`), [
    "POST /apis/v1alpha2/namespaces/{namespace}/clusters",
    "POST /apis/v1/namespaces/{namespace}/clusters",
    "GET /apis/v1alpha2/namespaces/{namespace}/clusters/{name}",
    "GET /apis/v1/namespaces/{namespace}/clusters/{name}",
    "GET /apis/v1alpha2/namespaces/{namespace}/clusters",
    "GET /apis/v1/namespaces/{namespace}/clusters",
    "GET /apis/v1alpha2/clusters",
    "GET /apis/v1/clusters",
    "PATCH /apis/v1alpha2/namespaces/{namespace}/clusters/{name}",
    "POST /apis/v1alpha2/namespaces/{namespace}/clusters/{name}/extend",
    "DELETE /apis/v1alpha2/namespaces/{namespace}/clusters/{name}",
    "DELETE /apis/v1/namespaces/{namespace}/clusters/{name}",
    "GET /apis/v1alpha2/watch/namespaces/{namespace}/clusters",
    "GET /apis/v1alpha2/watch/clusters",
    "POST /apis/v1/namespaces/{namespace}/compute_templates",
    "POST /apis/v1alpha2/namespaces/{namespace}/compute_templates",
    "GET /apis/v1/namespaces/{namespace}/compute_templates/{name}",
    "GET /apis/v1alpha2/namespaces/{namespace}/compute_templates/{name}",
    "GET /apis/v1/namespaces/{namespace}/compute_templates",
    "GET /apis/v1alpha2/namespaces/{namespace}/compute_templates",
    "GET /apis/v1/compute_templates",
    "GET /apis/v1alpha2/compute_templates",
    "DELETE /apis/v1/namespaces/{namespace}/compute_templates/{name}",
    "DELETE /apis/v1alpha2/namespaces/{namespace}/compute_templates/{name}",
    "POST /apis/v1alpha2/namespaces/{namespace}/jobs",
    "POST /apis/v1alpha2/jobs",
    "POST /apis/v1/namespaces/{namespace}/jobs",
    "GET /apis/v1alpha2/namespaces/{namespace}/jobs/{name}",
    "GET /apis/v1/namespaces/{namespace}/jobs/{name}",
    "GET /apis/v1alpha2/namespaces/{namespace}/jobs",
    "GET /apis/v1/namespaces/{namespace}/jobs",
    "GET /apis/v1alpha2/jobs",
    "GET /apis/v1/jobs",
    "PATCH /apis/v1alpha2/namespaces/{namespace}/jobs/{name}",
    "DELETE /apis/v1alpha2/namespaces/{namespace}/jobs/{name}",
    "DELETE /apis/v1/namespaces/{namespace}/jobs/{name}",
    "GET /apis/v1alpha2/watch/namespaces/{namespace}/jobs",
    "GET /apis/v1alpha2/watch/jobs",
    "GET /apis/v1alpha2/namespaces/{namespace}/jobs/{name}/log",
    "GET /apis/v1/namespaces/{namespace}/jobs/{name}/log",
    "GET /apis/v1alpha2/watch/namespaces/{namespace}/jobs/{name}/log",
    "POST /apis/v1alpha2/namespaces/{namespace}/services",
    "POST /apis/v1/namespaces/{namespace}/services",
    "PUT /apis/v1alpha2/namespaces/{namespace}/services/{name}",
    "PUT /apis/v1/namespaces/{namespace}/services/{name}",
    "PATCH /apis/v1alpha2/namespaces/{namespace}/services/{name}/configs",
    "PATCH /apis/v1/namespaces/{namespace}/services/{name}/configs",
    "GET /apis/v1alpha2/namespaces/{namespace}/services/{name}",
    "GET /apis/v1/namespaces/{namespace}/services/{name}",
    "GET /apis/v1alpha2/namespaces/{namespace}/services",
    "GET /apis/v1/namespaces/{namespace}/services",
    "GET /apis/v1alpha2/services",
    "GET /apis/v1/services",
    "DELETE /apis/v1alpha2/namespaces/{namespace}/services/{name}",
    "DELETE /apis/v1/namespaces/{namespace}/services/{name}",
    "POST /apis/v1alpha2/namespaces/{namespace}/jobsubmissions/{clustername}",
    "POST /apis/v1/namespaces/{namespace}/jobsubmissions/{clustername}",
    "GET /apis/v1alpha2/namespaces/{namespace}/jobsubmissions/{clustername}/{submissionid}",
    "GET /apis/v1/namespaces/{namespace}/jobsubmissions/{clustername}/{submissionid}",
    "GET /apis/v1alpha2/namespaces/{namespace}/jobsubmissions/{clustername}/log/{submissionid}",
    "GET /apis/v1/namespaces/{namespace}/jobsubmissions/{clustername}/log/{submissionid}",
    "GET /apis/v1alpha2/namespaces/{namespace}/jobsubmissions/{clustername}",
    "GET /apis/v1/namespaces/{namespace}/jobsubmissions/{clustername}",
    "POST /apis/v1alpha2/namespaces/{namespace}/jobsubmissions/{clustername}/{submissionid}",
    "POST /apis/v1/namespaces/{namespace}/jobsubmissions/{clustername}/{submissionid}",
    "DELETE /apis/v1alpha2/namespaces/{namespace}/jobsubmissions/{clustername}/{submissionid}",
    "DELETE /apis/v1/namespaces/{namespace}/jobsubmissions/{clustername}/{submissionid}",
    "GET /apis/v1alpha2/watch/namespaces/{namespace}/jobsubmissions/{clustername}/log/{submissionid}",
    "PUT /apis/v1alpha2/namespaces/{namespace}/jobsubmissions/{clustername}/packages/{name}",
    "GET /apis/v1alpha2/namespaces/{namespace}/quota",
  ]);
});

Deno.test("the gateway refuses bad request bodies with 400 and the field named", async (t) => {
  const cases: {
    name: string;
    body: BodyInit;
    type?: string;
    status?: number;
    message: RegExp;
    field?: string;
  }[] = [
    {
      name: "invalid JSON",
      body: "{",
      message: /^Invalid request body: not JSON: /,
    },
    {
      name: "a JSON array",
      body: "[]",
      message: /cluster: must be a JSON object, got an array/,
      field: "cluster",
    },
    {
      name: "an unknown field, with the right name suggested",
      body: JSON.stringify(
        sampleCluster({
          clusterSpec: { headGroupSpec: { engineStartParam: {} } },
        }),
      ),
      message: /did you mean "engineStartParams"\?/,
      field: "cluster.clusterSpec.headGroupSpec.engineStartParam",
    },
    {
      name: "a wrong type",
      body: JSON.stringify(sampleCluster({ user: 7 })),
      message: /cluster\.user: must be a string, got the number 7/,
      field: "cluster.user",
    },
    {
      name: "a form body",
      body: "name=x",
      type: "application/x-www-form-urlencoded",
      status: 415,
      message: /^Cannot read request body: its Content-Type/,
    },
    {
      name: "a body over the size limit",
      body: JSON.stringify(
        sampleCluster({ envs: { BIG: "x".repeat(3 * 1024 * 1024) } }),
      ),
      status: 413,
      message: /^Request body too large/,
    },
  ];
  const gateway = await probeGateway();
  for (const c of cases) {
    await t.step(c.name, async () => {
      const response = await gateway(
        new Request(`${BASE}/apis/v1alpha2/namespaces/${NS}/clusters`, {
          method: "POST",
          body: c.body,
          headers: { "content-type": c.type ?? "application/json" },
        }),
      );
      const body = await response.json();
      assert.equal(response.status, c.status ?? 400, JSON.stringify(body));
      assert.equal(body.code, c.status === 413 ? 8 : 3);
      assert.match(body.message, c.message);
      if (c.field) {
        assert.equal(body.details[0].fieldViolations[0].field, c.field);
      }
    });
  }
});

Deno.test("the gateway refuses unknown query parameters", async () => {
  const gateway = await probeGateway();
  const response = await gateway(
    new Request(`${BASE}/apis/v1alpha2/clusters?namespace=x`),
  );
  assert.equal(response.status, 400);
  const body = await response.json();
  assert.equal(body.details[0].fieldViolations[0].field, "namespace");
});

/**
 * A gateway whose GetComputeTemplate answers, and whose WatchClusters
 * streams, a message JSON cannot hold (a BigInt); `returned` counts the
 * stream's return() calls and `logged` the messages of the error log.
 */
async function unencodable() {
  const { handlers } = probeHandlers();
  const state = { returned: 0, logged: [] as string[] };
  Object.assign(handlers, {
    "proto.ComputeTemplateService/GetComputeTemplate": () =>
      Promise.resolve({ name: 1n }),
    "proto.ClusterService/WatchClusters": () =>
      Promise.resolve({
        next: () =>
          Promise.resolve({ done: false, value: { resourceVersion: 1n } }),
        return: () => {
          state.returned++;
          return Promise.resolve({ done: true, value: undefined });
        },
        [Symbol.asyncIterator]() {
          return this;
        },
      }),
  });
  const gateway = createGateway({
    schema: await schema(),
    dispatcher: createDispatcher({
      schema: await schema(),
      handlers,
      access: openAccess(),
      log: createLogger({
        level: "error",
        write: (line) => state.logged.push(JSON.parse(line).msg),
      }),
    }),
  });
  return { gateway, state };
}

Deno.test("the gateway answers a unary answer it cannot encode with 500 code 13", async () => {
  const { gateway, state } = await unencodable();
  const response = await gateway(
    new Request(`${BASE}/apis/v1/namespaces/${NS}/compute_templates/small`),
  );
  assert.equal(response.status, 500);
  assert.match(response.headers.get("x-request-id") ?? "", /^[0-9a-f-]{36}$/);
  assert.deepEqual(await response.json(), {
    code: 13,
    message: "Internal error",
  });
  assert.ok(
    state.logged.includes("Failed to encode response"),
    `${state.logged}`,
  );
});

Deno.test("the gateway ends a stream whose answer it cannot encode, with code 13, and logs it", async () => {
  const { gateway, state } = await unencodable();
  const response = await gateway(
    new Request(`${BASE}/apis/v1alpha2/watch/namespaces/${NS}/clusters`),
  );
  assert.equal(response.status, 200);
  assert.deepEqual(JSON.parse(await response.text()), {
    error: { code: 13, message: "Internal error" },
  });
  assert.equal(state.returned, 1, "the stream is stopped");
  assert.ok(
    state.logged.includes("Failed to encode response"),
    `${state.logged}`,
  );
});
