/**
 * KubeRay's current HTTP bindings of clusters, jobs and services, at
 * /apis/v1/ since its release 1.0 (October 2023; its proto/cluster.proto,
 * job.proto and serve.proto read at that commit and at v1.7.0), as more
 * bindings of Corral's RPCs beside /apis/v1alpha2/: the same answers and
 * the same errors on both paths, both in the OpenAPI document, and the
 * flows of KubeRay's API server clients on each path: its Python client's
 * cluster flow (create, get, list, list-all, status, wait until ready,
 * endpoints, delete) and the job flow of its API server's own examples,
 * read back under --kuberay-json with each group's rayStartParams.
 */
import assert from "node:assert/strict";
import { openApiDocument } from "../../api/openapi.ts";
import { compileRoutes, type Route } from "../../api/http/rules.ts";
import { startSimulatedOperator } from "../../standin/mod.ts";
import { startStandin } from "../../standin/server.ts";
import { eventually } from "../eventually.ts";
import { type Corral, schema, startCorral } from "../harness.ts";
import {
  type Answer,
  HEAD_START_PARAMS,
  type Json,
  KubeRayApiServerClient,
  startParams,
  WORKER_START_PARAMS,
} from "./kuberay_apiserver_client.ts";
import { sampleService } from "./service_cases.ts";

const NS = "default";
const CS = "proto.ClusterService";
const JS = "proto.RayJobService";
const SS = "proto.RayServeService";

/** Every route KubeRay's API server serves for these kinds since 1.0. */
const KUBERAY_V1_ROUTES: [string, string][] = [
  ["POST /apis/v1/namespaces/{namespace}/clusters", `${CS}/CreateCluster`],
  ["GET /apis/v1/namespaces/{namespace}/clusters/{name}", `${CS}/GetCluster`],
  ["GET /apis/v1/namespaces/{namespace}/clusters", `${CS}/ListCluster`],
  ["GET /apis/v1/clusters", `${CS}/ListAllClusters`],
  [
    "DELETE /apis/v1/namespaces/{namespace}/clusters/{name}",
    `${CS}/DeleteCluster`,
  ],
  ["POST /apis/v1/namespaces/{namespace}/jobs", `${JS}/CreateRayJob`],
  ["GET /apis/v1/namespaces/{namespace}/jobs/{name}", `${JS}/GetRayJob`],
  ["GET /apis/v1/namespaces/{namespace}/jobs", `${JS}/ListRayJobs`],
  ["GET /apis/v1/jobs", `${JS}/ListAllRayJobs`],
  ["DELETE /apis/v1/namespaces/{namespace}/jobs/{name}", `${JS}/DeleteRayJob`],
  // Not KubeRay's: a job's log, at the same two paths as the job.
  [
    "GET /apis/v1/namespaces/{namespace}/jobs/{name}/log",
    `${JS}/GetRayJobLog`,
  ],
  ["POST /apis/v1/namespaces/{namespace}/services", `${SS}/CreateRayService`],
  [
    "PUT /apis/v1/namespaces/{namespace}/services/{name}",
    `${SS}/UpdateRayService`,
  ],
  [
    "GET /apis/v1/namespaces/{namespace}/services/{name}",
    `${SS}/GetRayService`,
  ],
  ["GET /apis/v1/namespaces/{namespace}/services", `${SS}/ListRayServices`],
  ["GET /apis/v1/services", `${SS}/ListAllRayServices`],
  [
    "DELETE /apis/v1/namespaces/{namespace}/services/{name}",
    `${SS}/DeleteRayService`,
  ],
  // 1.0.0's only: KubeRay removed UpdateRayServiceConfigs in 1.1.0.
  [
    "PATCH /apis/v1/namespaces/{namespace}/services/{name}/configs",
    `${SS}/UpdateRayServiceConfigs`,
  ],
];

const routes = compileRoutes((await schema()).services);

function routeName(route: Route): string {
  return `${route.verb} ${route.template}`;
}

/**
 * Each route under /apis/v1/ of a cluster, job or service RPC with the
 * route of the same RPC, verb and path under /apis/v1alpha2/.
 */
function twins(): [Route, Route][] {
  const kinds =
    /^\/apis\/v1\/(namespaces\/\{namespace\}\/)?(clusters|jobs|services)\b/;
  return routes.filter((route) => kinds.test(route.template)).map((v1) => {
    const alpha = routes.find((r) =>
      r.key === v1.key && r.verb === v1.verb &&
      r.template === v1.template.replace("/apis/v1/", "/apis/v1alpha2/")
    );
    assert.ok(alpha, `${routeName(v1)} has a twin under /apis/v1alpha2/`);
    return [v1, alpha];
  });
}

Deno.test("KubeRay's /apis/v1 routes of clusters, jobs and services are bindings of the same RPCs as their /apis/v1alpha2 routes, which stay", () => {
  const v1 = twins().map(([route]) => [routeName(route), route.key]);
  assert.deepEqual(
    v1.sort(),
    [...KUBERAY_V1_ROUTES].sort(),
  );
  for (const [v1Route, alpha] of twins()) {
    assert.equal(v1Route.body, alpha.body, routeName(v1Route));
    // Corral's own path stays the first, the one its document leads with.
    assert.equal(
      routes.find((r) => r.key === v1Route.key),
      alpha,
      `${alpha.key} keeps /apis/v1alpha2/ first`,
    );
  }
});

Deno.test("the OpenAPI document shows both paths of each, the /apis/v1 one as another path of the same call", () => {
  const document = openApiDocument(routes);
  assert.equal(twins().length, KUBERAY_V1_ROUTES.length);
  for (const [v1, alpha] of twins()) {
    const verb = v1.verb.toLowerCase();
    const main = document.paths[alpha.template][verb];
    const other = document.paths[v1.template][verb] as Json;
    assert.ok(main, routeName(alpha));
    assert.ok(other, routeName(v1));
    assert.match(
      other.description,
      new RegExp(
        `Another path of \`${alpha.verb} ${
          alpha.template.replace(/[{}]/g, "\\$&")
        }\`, the same call\\.`,
      ),
    );
    assert.deepEqual(other.responses, main.responses, routeName(v1));
    assert.deepEqual(other.requestBody, main.requestBody, routeName(v1));
    assert.match(other.operationId, new RegExp(`^${main.operationId}\\d$`));
  }
});

/** The route's path with every variable given the same value. */
function pathOf(route: Route): string {
  return route.segments.map((s) =>
    "literal" in s ? s.literal : s.variable === "namespace" ? NS : "missing"
  ).join("/");
}

/** The answer to `route` of a request the gateway takes or refuses. */
async function answerOf(
  corral: Corral,
  route: Route,
  body?: unknown,
): Promise<{ status: number; body: Json }> {
  const response = await corral.gateway(
    new Request(`http://corral.test/${pathOf(route)}`, {
      method: route.verb,
      ...(body === undefined ? {} : {
        body: JSON.stringify(body),
        headers: { "content-type": "application/json" },
      }),
    }),
  );
  return { status: response.status, body: await response.json() };
}

Deno.test("both paths of each call give the same answers and the same errors", async () => {
  const corral = await startCorral();
  try {
    assert.equal(twins().length, KUBERAY_V1_ROUTES.length);
    for (const [v1, alpha] of twins()) {
      const cases: [string, unknown][] = v1.body
        ? [
          ["an unknown field", { name: "missing", bogus: 1 }],
          ["a body that is not an object", [1]],
        ]
        : [["a request without a body", undefined]];
      for (const [what, body] of cases) {
        const [a, b] = [
          await answerOf(corral, v1, body),
          await answerOf(corral, alpha, body),
        ];
        assert.equal(a.status, b.status, `${routeName(v1)}: ${what}`);
        assert.deepEqual(a.body, b.body, `${routeName(v1)}: ${what}`);
        if (!v1.verb.startsWith("GET") || v1.template.endsWith("{name}")) {
          assert.notEqual(a.status, 200, `${routeName(v1)}: ${what}`);
        }
      }
    }
  } finally {
    await corral.close();
  }
});

/**
 * A stand-in with the simulated operator, which makes clusters ready, and
 * Corral over it speaking KubeRay's JSON (--kuberay-json).
 */
async function withKubeRayDialect(
  run: (corral: Corral) => Promise<void>,
): Promise<void> {
  const standin = startStandin();
  const operator = startSimulatedOperator({
    server: standin.url,
    delayMs: 5,
    retryIntervalMs: 10,
    jobStepMs: 5,
  });
  const corral = await startCorral({ kubeUrl: standin.url, kuberayJson: true });
  try {
    await run(corral);
  } finally {
    await corral.close();
    await operator.stop();
    await standin.close();
  }
}

/** A call the client takes for a success (a 2xx), saying why not. */
function assertOk(answer: Answer<unknown>): void {
  assert.equal(answer.status, 200, answer.error ?? "");
  assert.equal(answer.error, undefined);
}

/** A compute template as the client's Template.to_dict() writes it. */
const TEMPLATE = {
  name: "default-template",
  namespace: NS,
  cpu: 2,
  memory: 4,
};

/**
 * A cluster as the client's test_cluster builds it and Cluster.to_dict()
 * writes it: the head's start parameters updated with the client's
 * defaults, the worker's its defaults, the environment in KubeRay's
 * EnvironmentVariables shape, and its ConfigMap volume as
 * ConfigMapVolume.to_dict() writes it (volumeType 3, with items).
 */
function clientCluster(name: string): Json {
  const environment = { values: { key: "value" } };
  const volumes = [CODE_SAMPLE_VOLUME];
  return {
    name,
    namespace: NS,
    user: "kuberay",
    version: "2.46.0",
    clusterSpec: {
      headGroupSpec: {
        computeTemplate: "default-template",
        rayStartParams: { ...HEAD_START_PARAMS },
        image: "rayproject/ray:2.46.0-py310",
        serviceType: "ClusterIP",
        imagePullPolicy: "Always",
        environment,
        volumes,
      },
      workerGroupSpec: [{
        groupName: "small",
        computeTemplate: "default-template",
        replicas: 1,
        minReplicas: 1,
        maxReplicas: 1,
        rayStartParams: { ...WORKER_START_PARAMS },
        image: "rayproject/ray:2.46.0-py310",
        imagePullPolicy: "Always",
        environment,
        volumes,
      }],
    },
  };
}

/** The ConfigMap volume of the client's tests and KubeRay's job example. */
const CODE_SAMPLE_VOLUME = {
  name: "code-sample",
  mountPath: "/home/ray/samples",
  source: "ray-job-code-sample",
  volumeType: 3,
  items: { "sample_code.py": "sample_code.py" },
};

for (const apiBase of ["/apis/v1/", "/apis/v1alpha2/"]) {
  Deno.test(`KubeRay's Python API server client's cluster flow works at ${apiBase}, the groups read back with rayStartParams`, async () => {
    await withKubeRayDialect(async (corral) => {
      const apis = new KubeRayApiServerClient(corral.gateway, apiBase);
      await apis.deleteComputeTemplate(NS, "default-template");
      await apis.deleteCluster(NS, "test");
      assert.deepEqual(await apis.createComputeTemplate(TEMPLATE), {
        status: 200,
        result: TEMPLATE,
      });

      const created = await apis.createCluster(clientCluster("test"));
      assertOk(created);
      assert.equal(created.error, undefined);

      const got = await apis.getCluster(NS, "test");
      assertOk(got);
      const cluster = got.result!;
      assert.equal(cluster.name, "test");
      assert.equal(cluster.user, "kuberay");
      assert.equal(cluster.version, "2.46.0");
      assert.equal(cluster.environment, undefined, "DEV, left out");
      assert.deepEqual(cluster.head.rayStartParams, HEAD_START_PARAMS);
      assert.deepEqual(cluster.head.volumes, [CODE_SAMPLE_VOLUME]);
      assert.deepEqual(cluster.workers, [{
        groupName: "small",
        replicas: 1,
        rayStartParams: WORKER_START_PARAMS,
        volumes: [CODE_SAMPLE_VOLUME],
      }]);

      const all = await apis.listClusters();
      assertOk(all);
      assert.deepEqual(all.result, [cluster]);
      const inNamespace = await apis.listClustersNamespace(NS);
      assertOk(inNamespace);
      assert.deepEqual(inNamespace.result, [cluster]);

      const status = await apis.getClusterStatus(NS, "test");
      assertOk(status);
      assert.match(status.result!, /^(creating|ready)$/);
      // The client's wait interval, between reads until the cluster is ready.
      const wait = () => new Promise<void>((done) => setTimeout(done, 10));
      assert.deepEqual(await apis.waitClusterReady(NS, "test", wait), {
        status: 200,
      });
      assert.deepEqual(await apis.getClusterEndpoints(NS, "test"), {
        status: 200,
        result: "test-head-svc.default.svc.cluster.local:8265",
      });

      assert.deepEqual(await apis.deleteCluster(NS, "test"), {
        status: 200,
        result: {},
      });
      assert.deepEqual(
        await apis.deleteComputeTemplate(NS, "default-template"),
        { status: 200, result: {} },
      );
      const again = await apis.deleteCluster(NS, "test");
      assert.equal(again.status, 404);
      assert.match(again.error!, /not found/i);
    });
  });

  Deno.test(`a job as KubeRay's API server examples send it is created, read, listed and deleted at ${apiBase}, its groups with rayStartParams`, async () => {
    await withKubeRayDialect(async (corral) => {
      const apis = new KubeRayApiServerClient(corral.gateway, apiBase);
      assert.equal((await apis.createComputeTemplate(TEMPLATE)).status, 200);
      // KubeRay's apiserver/test/job/job, its volumes' type by name.
      const volume = { ...CODE_SAMPLE_VOLUME, volumeType: "CONFIGMAP" };
      const job = {
        name: "job-test",
        namespace: NS,
        user: "kuberay",
        entrypoint: "python /home/ray/samples/sample_code.py",
        activeDeadlineSeconds: 120,
        runtimeEnv: "pip:\n  - requests==2.26.0\n  - pendulum==2.1.2\n",
        clusterSpec: {
          headGroupSpec: {
            computeTemplate: "default-template",
            image: "rayproject/ray:2.46.0-py310",
            serviceType: "NodePort",
            rayStartParams: {
              "dashboard-host": "0.0.0.0",
              "metrics-export-port": "8080",
            },
            volumes: [volume],
          },
          workerGroupSpec: [{
            groupName: "small-wg",
            computeTemplate: "default-template",
            image: "rayproject/ray:2.46.0-py310",
            replicas: 1,
            minReplicas: 0,
            maxReplicas: 5,
            rayStartParams: { "node-ip-address": "$MY_POD_IP" },
            volumes: [volume],
          }],
        },
      };
      const created = await apis.call("POST", `namespaces/${NS}/jobs`, job);
      assertOk(created);
      const read = (answer: Json) => {
        assert.equal(answer.name, "job-test");
        assert.equal(answer.entrypoint, job.entrypoint);
        assert.equal(answer.activeDeadlineSeconds, 120);
        const spec = answer.clusterSpec;
        assert.deepEqual(
          startParams(spec.headGroupSpec),
          job.clusterSpec.headGroupSpec.rayStartParams,
        );
        assert.deepEqual(startParams(spec.workerGroupSpec[0]), {
          "node-ip-address": "$MY_POD_IP",
        });
        assert.equal(spec.headGroupSpec.engineStartParams, undefined);
        // The ConfigMap volume reads back, its type as a number.
        assert.deepEqual(spec.headGroupSpec.volumes, [CODE_SAMPLE_VOLUME]);
        assert.deepEqual(spec.workerGroupSpec[0].volumes, [CODE_SAMPLE_VOLUME]);
      };
      read(created.result);
      const got = await apis.call("GET", `namespaces/${NS}/jobs/job-test`);
      assertOk(got);
      read(got.result);
      for (const path of [`namespaces/${NS}/jobs`, "jobs"]) {
        const listed = await apis.call("GET", path);
        assertOk(listed);
        assert.equal(listed.result.jobs.length, 1, path);
        read(listed.result.jobs[0]);
      }
      const deleted = await apis.call(
        "DELETE",
        `namespaces/${NS}/jobs/job-test`,
      );
      assert.deepEqual(deleted, { status: 200, result: {} });
      // Gone once the operator has let it go (its finalizer).
      await eventually("the job gone", async () => {
        const got = await apis.call("GET", `namespaces/${NS}/jobs/job-test`);
        return got.status === 404 ? true : undefined;
      });
    });
  });

  Deno.test(`a service is created, updated, read, listed and deleted at ${apiBase}, its groups with rayStartParams`, async () => {
    await withKubeRayDialect(async (corral) => {
      const apis = new KubeRayApiServerClient(corral.gateway, apiBase);
      assert.equal(
        (await apis.createComputeTemplate({ ...TEMPLATE, name: "small" }))
          .status,
        200,
      );
      const service = sampleService("fruit", { namespace: NS });
      service.clusterSpec.workerGroupSpec[0] = {
        ...service.clusterSpec.workerGroupSpec[0],
        rayStartParams: { "num-cpus": "2" },
      } as typeof service.clusterSpec.workerGroupSpec[0];
      const path = `namespaces/${NS}/services`;
      const created = await apis.call("POST", path, service);
      assertOk(created);
      const worker = () => ({ ...service.clusterSpec.workerGroupSpec[0] });
      const updated = await apis.call("PUT", `${path}/fruit`, {
        ...service,
        clusterSpec: {
          ...service.clusterSpec,
          workerGroupSpec: [{ ...worker(), replicas: 2 }],
        },
      });
      assertOk(updated);
      const got = await apis.call("GET", `${path}/fruit`);
      assertOk(got);
      for (const answer of [updated.result, got.result]) {
        const group = answer.clusterSpec.workerGroupSpec[0];
        assert.equal(group.replicas, 2);
        assert.deepEqual(startParams(group), { "num-cpus": "2" });
      }
      for (const list of [path, "services"]) {
        const listed = await apis.call("GET", list);
        assertOk(listed);
        assert.deepEqual(
          listed.result.services.map((s: Json) => s.name),
          ["fruit"],
        );
      }
      const deleted = await apis.call("DELETE", `${path}/fruit`);
      assert.deepEqual(deleted, { status: 200, result: {} });
    });
  });
}
