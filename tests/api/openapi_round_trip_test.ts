/**
 * The OpenAPI document against Corral's real answers (its handlers and the
 * stand-in): every error the shared cases meet is documented, answers
 * satisfy the documented schemas, and the error examples, refused callers'
 * included, are what the gateway answers.
 */
import assert from "node:assert/strict";
import { Ajv2020 } from "ajv/dist/2020.js";
import { compileRoutes } from "../../api/http/rules.ts";
import type { Operation } from "../../api/openapi_operations.ts";
import { createAccess } from "../../api/auth/access.ts";
import { silentLogger } from "../../api/log.ts";
import { httpRequest, schema, startCorral } from "../harness.ts";
import { CASES, sampleCluster } from "./cases.ts";
import { currentDocument } from "./openapi_golden.ts";
import {
  concretePath,
  documentedResponse,
  errorStatuses,
  operations,
} from "./openapi_operations.ts";
import { allowAll, groups, policyText } from "./auth/policy_fixtures.ts";

Deno.test("every error the shared cases meet over HTTP is documented for its operation", async () => {
  const doc = await currentDocument();
  const byRoute = new Map(
    operations(doc).map((
      [verb, path, operation],
    ) => [`${verb.toUpperCase()} ${path}`, operation]),
  );
  const routes = compileRoutes((await schema()).services);
  const corral = await startCorral();
  const seen = new Set<number>();
  try {
    for (const c of CASES) {
      const route = routes.find((r) => r.key === c.rpc)!;
      const response = await corral.gateway(httpRequest(route, c.request));
      await response.body?.cancel();
      if (response.status === 200) continue;
      seen.add(response.status);
      const operation = byRoute.get(`${route.verb} ${route.template}`)!;
      assert.ok(
        errorStatuses(operation).includes(response.status),
        `${c.name}: ${operation.operationId} answered ${response.status}, ` +
          `which it does not document`,
      );
    }
  } finally {
    await corral.close();
  }
  assert.deepEqual([...seen].sort((a, b) => a - b), [400, 404, 409]);
});

Deno.test("the gateway's answers satisfy the documented response schemas", async () => {
  const doc = await currentDocument();
  const ajv = new Ajv2020({ strict: false, validateFormats: false });
  ajv.addSchema({ $id: "openapi", components: doc.components });
  const check = (operation: Operation, status: number, body: unknown) => {
    const response = documentedResponse(doc, operation, status);
    const ref = response.content["application/json"].schema.$ref;
    const validate = ajv.getSchema(`openapi${ref}`)!;
    assert.ok(
      validate(body),
      `${operation.operationId} ${status}: ${JSON.stringify(body)}: ${
        JSON.stringify(validate.errors)
      }`,
    );
  };
  const corral = await startCorral();
  try {
    // The examples, in the order a person would try them: create the
    // template and the cluster that uses it, read, list, delete the
    // cluster and then the template (a template in use is kept).
    const verbs = ["post", "patch", "put", "get", "delete"];
    const services = [
      "ComputeTemplateService",
      "ClusterService",
      "RayJobService",
      "RayServeService",
    ];
    const service = (operation: Operation) =>
      services.indexOf((operation.tags as string[])[0]);
    // Each call once, by its main path (another path of it is the same call,
    // tested in kuberay_compat_test.ts). Not a stream: its answer is no one
    // JSON document (watch_clusters_test.ts reads them).
    const streams = (operation: Operation) =>
      "application/x-ndjson" in
        (documentedResponse(doc, operation, 200).content ?? {});
    // Job submission needs a ready cluster with a dashboard: its calls run
    // against the simulated one in job_submissions_test.ts.
    const submissions = (operation: Operation) =>
      (operation.tags as string[])[0] === "RayJobSubmissionService";
    // A job's log needs its submitter started by an operator: its calls
    // run against the simulated one in job_logs_test.ts.
    const jobLogs = (operation: Operation) =>
      operation.operationId === "RayJobService_GetRayJobLog";
    const all = operations(doc).filter(([, , operation]) =>
      !/\d$/.test(operation.operationId) && !streams(operation) &&
      !submissions(operation) && !jobLogs(operation)
    ).sort(([a, , x], [b, , y]) =>
      verbs.indexOf(a) - verbs.indexOf(b) ||
      (a === "delete" ? -1 : 1) * (service(x) - service(y))
    );
    for (const [verb, path, operation] of all) {
      const content = (operation.requestBody as {
        content: Record<string, { example: unknown }>;
      } | undefined)?.content["application/json"];
      // Query parameters with their examples (UpdateCluster's updateMask).
      const query = new URLSearchParams(
        ((operation.parameters ?? []) as Record<string, string>[])
          .filter((p) => p.in === "query" && p.example !== undefined)
          .map((p) => [p.name, p.example]),
      );
      const search = query.size > 0 ? `?${query}` : "";
      const response = await corral.gateway(
        new Request(
          `http://corral.test${concretePath(path, operation)}${search}`,
          {
            method: verb.toUpperCase(),
            headers: { "content-type": "application/json" },
            body: content ? JSON.stringify(content.example) : undefined,
          },
        ),
      );
      const body = await response.json();
      assert.equal(
        response.status,
        200,
        `${operation.operationId} with the documented examples: ${
          JSON.stringify(body)
        }`,
      );
      check(operation, 200, body);
      if (verb === "get" && path.includes("{name}")) {
        // And an error: the same operation on a name that does not exist.
        const missing = await corral.gateway(
          new Request(
            `http://corral.test${
              concretePath(path, operation).replace(/[^/]+$/, "absent")
            }`,
          ),
        );
        assert.equal(missing.status, 404);
        check(operation, 404, await missing.json());
      }
    }
    const invalid = await corral.gateway(
      new Request(
        "http://corral.test/apis/v1alpha2/namespaces/team-a/clusters",
        {
          method: "POST",
          body: JSON.stringify({ name: "x" }),
          headers: { "content-type": "application/json" },
        },
      ),
    );
    assert.equal(invalid.status, 400);
    check(all[0][2], 400, await invalid.json());
  } finally {
    await corral.close();
  }
});

Deno.test("the error examples are what the gateway answers", async () => {
  const doc = await currentDocument();
  const examples = doc.components.examples as Record<
    string,
    { value: Record<string, unknown> }
  >;
  const corral = await startCorral();
  const send = async (
    method: string,
    path: string,
    body?: unknown,
    gateway = corral.gateway,
  ) =>
    await (await gateway(
      new Request(`http://corral.test${path}`, {
        method,
        headers: { "content-type": "application/json" },
        body: body === undefined
          ? undefined
          : typeof body === "string"
          ? body
          : JSON.stringify(body),
      }),
    )).json();
  const scoped = await startCorral({ namespaces: ["team-a"] });
  try {
    assert.deepEqual(
      await send(
        "GET",
        "/apis/v1alpha2/namespaces/team-b/clusters/blue",
        undefined,
        scoped.gateway,
      ),
      examples.namespaceNotServed.value,
    );
    assert.deepEqual(
      await send(
        "POST",
        "/apis/v1/namespaces/team-a/compute_templates",
        "x".repeat(3 * 1024 * 1024 + 1),
      ),
      examples.bodyTooLarge.value,
    );
    assert.deepEqual(
      await (await corral.gateway(
        new Request(
          "http://corral.test/apis/v1alpha2/namespaces/team-a/clusters",
          {
            method: "POST",
            headers: { "content-type": "text/plain" },
            body: "{}",
          },
        ),
      )).json(),
      examples.unsupportedMediaType.value,
    );
    assert.deepEqual(
      await send(
        "POST",
        "/apis/v1alpha2/namespaces/team-a/clusters",
        sampleCluster(),
      ),
      examples.missingTemplate.value,
    );
    const template = { name: "small", cpu: 2, memory: 4 };
    await send(
      "POST",
      "/apis/v1/namespaces/team-a/compute_templates",
      template,
    );
    assert.deepEqual(
      await send(
        "POST",
        "/apis/v1/namespaces/team-a/compute_templates",
        template,
      ),
      examples.alreadyExists.value,
    );
    assert.deepEqual(
      await send("GET", "/apis/v1alpha2/namespaces/team-a/clusters/blue"),
      examples.notFound.value,
    );
    const cluster = structuredClone(
      (doc.paths["/apis/v1alpha2/namespaces/{namespace}/clusters"].post
        .requestBody as {
          content: Record<string, { example: Record<string, unknown> }>;
        }).content["application/json"].example,
    ) as {
      user: string;
      clusterSpec: { workerGroupSpec: { groupName: string }[] };
    };
    cluster.user = "";
    cluster.clusterSpec.workerGroupSpec[0].groupName = "";
    assert.deepEqual(
      await send("POST", "/apis/v1alpha2/namespaces/team-a/clusters", cluster),
      examples.invalidArgument.value,
    );
    await send("POST", "/apis/v1alpha2/namespaces/team-a/clusters", {
      ...sampleCluster(),
    });
    assert.deepEqual(
      await send(
        "PATCH",
        "/apis/v1alpha2/namespaces/team-a/clusters/blue?updateMask=envs",
        { envs: { A: "1" }, etag: "4711" },
      ),
      examples.aborted.value,
    );
  } finally {
    await scoped.close();
    await corral.close();
  }
});

Deno.test("the examples of refused callers are what the gateway answers", async () => {
  const doc = await currentDocument();
  const examples = doc.components.examples as Record<
    string,
    { value: Record<string, unknown> }
  >;
  const dir = await Deno.makeTempDir({ prefix: "corral-openapi-access-" });
  await Deno.writeTextFile(
    `${dir}/tokens.csv`,
    'alice-token-0123456789abcdef0123456789,alice@example.com,1,"team-a"\n',
  );
  await Deno.writeTextFile(
    `${dir}/policy.yaml`,
    policyText([allowAll(groups("team-a"), ["team-a"])]),
  );
  const access = await createAccess({
    tokenAuthFile: `${dir}/tokens.csv`,
    tokenReview: false,
    anonymous: false,
    policyFile: `${dir}/policy.yaml`,
    auditLogPath: "",
    metricsRequireAuth: false,
  }, { log: silentLogger() });
  const corral = await startCorral({ access });
  const send = async (
    method: string,
    path: string,
    headers: Record<string, string>,
    body?: unknown,
  ) =>
    await (await corral.gateway(
      new Request(`http://corral.test${path}`, {
        method,
        headers: { "content-type": "application/json", ...headers },
        body: body === undefined ? undefined : JSON.stringify(body),
      }),
    )).json();
  const alice = {
    authorization: "Bearer alice-token-0123456789abcdef0123456789",
  };
  try {
    const blue = "/apis/v1alpha2/namespaces/team-b/clusters/blue";
    assert.deepEqual(await send("GET", blue, {}), examples.noCredentials.value);
    assert.deepEqual(
      await send("GET", blue, { authorization: "Bearer not-a-token" }),
      examples.invalidToken.value,
    );
    assert.deepEqual(
      await send("GET", blue, alice),
      examples.policyDenied.value,
    );
    // The workload is decided once the templates are merged: the template
    // the cluster names exists.
    await send(
      "POST",
      "/apis/v1alpha2/namespaces/team-a/compute_templates",
      alice,
      {
        name: "small",
        namespace: "team-a",
        cpu: 2,
        memory: 4,
      },
    );
    const hostPath = sampleCluster({ user: "" }) as Record<string, unknown>;
    (hostPath.clusterSpec as { headGroupSpec: { volumes: unknown[] } })
      .headGroupSpec.volumes = [{
        name: "data",
        mountPath: "/data",
        source: "/var/data",
        volumeType: "HOST_PATH",
      }];
    assert.deepEqual(
      await send(
        "POST",
        "/apis/v1alpha2/namespaces/team-a/clusters",
        alice,
        hostPath,
      ),
      examples.workloadDenied.value,
    );
  } finally {
    await corral.close();
    await access.close();
    await Deno.remove(dir, { recursive: true });
  }
});
