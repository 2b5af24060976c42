/**
 * RayServeService on both transports, reads from the cache: create, get,
 * list (paged), update (what may change, and what may not), delete; the
 * Serve config's checks; v0.6.0's config format refused.
 */
import assert from "node:assert/strict";
import { startCorral, TRANSPORTS } from "../harness.ts";
import { until } from "../eventually.ts";
import { kubeFetch } from "../standin/with_standin.ts";
import { NS } from "./cases.ts";
import { sampleService, SERVE_CONFIG } from "./service_cases.ts";

const RS = "proto.RayServeService";

// deno-lint-ignore no-explicit-any
type Json = any;

Deno.test("RayServeService creates, reads, lists, updates and deletes services on both transports", async (t) => {
  let kubeCalls = 0;
  const corral = await startCorral({
    cache: {},
    onKubernetesCall: () => kubeCalls++,
  });
  try {
    const [, http] = TRANSPORTS[0];
    const template = await http(
      corral,
      "proto.ComputeTemplateService/CreateComputeTemplate",
      {
        namespace: NS,
        computeTemplate: { name: "small", namespace: NS, cpu: 2, memory: 4 },
      },
    );
    assert.equal(template.code, 0, template.message);
    for (const [transport, call] of TRANSPORTS) {
      const name = `web-${transport}`;
      await t.step(`${transport}: create`, async () => {
        const created = await call(corral, `${RS}/CreateRayService`, {
          namespace: NS,
          service: sampleService(name),
        });
        assert.equal(created.code, 0, created.message);
        const result = created.result!;
        assert.equal(result.name, name);
        assert.equal(result.namespace, NS);
        assert.equal(result.user, "ada");
        assert.equal(result.version, "2.9.0");
        assert.equal(result.serveConfigV2, SERVE_CONFIG);
        const spec = result.clusterSpec as Record<string, Json>;
        assert.equal(spec.headGroupSpec.computeTemplate, "small");
        assert.equal(spec.workerGroupSpec[0].maxReplicas, 3);
      });
      await t.step(`${transport}: get and list from the cache`, async () => {
        kubeCalls = 0;
        const got = await call(corral, `${RS}/GetRayService`, {
          namespace: NS,
          name,
        });
        assert.equal(got.code, 0, got.message);
        assert.equal(got.result!.serveConfigV2, SERVE_CONFIG);
        const listed = await call(corral, `${RS}/ListRayServices`, {
          namespace: NS,
          pageSize: 1,
        });
        assert.equal(listed.code, 0, listed.message);
        assert.equal((listed.result!.services as unknown[]).length, 1);
        const all = await call(corral, `${RS}/ListAllRayServices`, {});
        assert.equal(all.code, 0, all.message);
        const names = (all.result!.services as { name: string }[]).map((s) =>
          s.name
        );
        assert.ok(names.includes(name), `${names} has ${name}`);
        assert.equal(all.result!.totalSize, names.length);
        assert.equal(kubeCalls, 0, "Kubernetes calls of cached reads");
      });
      await t.step(`${transport}: update what may change`, async () => {
        const config = SERVE_CONFIG.replace("/fruit", "/fruits");
        const service = sampleService(name, { serveConfigV2: config });
        service.clusterSpec.workerGroupSpec[0].replicas = 2;
        const updated = await call(corral, `${RS}/UpdateRayService`, {
          namespace: NS,
          name,
          service,
        });
        assert.equal(updated.code, 0, updated.message);
        assert.equal(updated.result!.serveConfigV2, config);
        const spec = updated.result!.clusterSpec as Record<string, Json>;
        assert.equal(spec.workerGroupSpec[0].replicas, 2);
      });
      await t.step(`${transport}: update refuses the rest`, async () => {
        const service = sampleService(name);
        (service.clusterSpec.headGroupSpec as Record<string, unknown>).image =
          "example.com/ray:other";
        const refused = await call(corral, `${RS}/UpdateRayService`, {
          namespace: NS,
          name,
          service,
        });
        assert.equal(refused.code, 3);
        assert.match(
          refused.message,
          /service\.clusterSpec\.headGroupSpec\.image: may not change/,
        );
      });
      await t.step(`${transport}: delete`, async () => {
        const deleted = await call(corral, `${RS}/DeleteRayService`, {
          namespace: NS,
          name,
        });
        assert.equal(deleted.code, 0, deleted.message);
        const gone = await call(corral, `${RS}/GetRayService`, {
          namespace: NS,
          name,
        });
        assert.equal(gone.code, 5, gone.message);
      });
    }
  } finally {
    await corral.close();
  }
});

const REFUSALS: {
  name: string;
  service: Record<string, unknown>;
  message: RegExp;
}[] = [
  {
    name: "a Serve config that is no YAML, naming its line",
    service: sampleService("bad-yaml", {
      serveConfigV2: "applications:\n  - name: [unclosed\n",
    }),
    message: /service\.serveConfigV2: is not valid YAML at line \d/,
  },
  {
    name: "a Serve config without applications",
    service: sampleService("no-apps", { serveConfigV2: "http_options: {}" }),
    message: /service\.serveConfigV2: must list its applications/,
  },
  {
    name: "no Serve config",
    service: sampleService("no-config", { serveConfigV2: "" }),
    message: /service\.serveConfigV2: is required/,
  },
  {
    name: "v0.6.0's serveDeploymentGraphSpec",
    service: sampleService("old", {
      serveDeploymentGraphSpec: { importPath: "fruit.deployment_graph" },
    }),
    message: /service\.serveDeploymentGraphSpec: .*use serveConfigV2/,
  },
  {
    name: "a name longer than the operator's 47",
    service: sampleService("s".repeat(48)),
    message: /service\.name: must be at most 47 characters/,
  },
  {
    name: "a worker group's bounds, as a cluster's",
    service: sampleService("bounds", {
      clusterSpec: {
        headGroupSpec: {},
        workerGroupSpec: [{ groupName: "w", replicas: 3, maxReplicas: 1 }],
      },
    }),
    message:
      /service\.clusterSpec\.workerGroupSpec\[0\]\.maxReplicas: must not be less than replicas/,
  },
];

Deno.test("CreateRayService refuses bad input with code 3 naming the field, the same on both transports", async (t) => {
  const corral = await startCorral();
  try {
    for (const { name, service, message } of REFUSALS) {
      await t.step(name, async () => {
        const outcomes = [];
        for (const [, call] of TRANSPORTS) {
          const outcome = await call(corral, `${RS}/CreateRayService`, {
            namespace: NS,
            service,
          });
          assert.equal(outcome.code, 3, outcome.message);
          assert.match(outcome.message, message);
          outcomes.push(outcome.message);
        }
        assert.equal(outcomes[0], outcomes[1]);
      });
    }
  } finally {
    await corral.close();
  }
});

Deno.test("a service's status and events, as the operator writes them, read back from the cache on both transports", async () => {
  const corral = await startCorral({ cache: {} });
  try {
    const [, http] = TRANSPORTS[0];
    await http(corral, "proto.ComputeTemplateService/CreateComputeTemplate", {
      namespace: NS,
      computeTemplate: { name: "small", namespace: NS, cpu: 2, memory: 4 },
    });
    const created = await http(corral, `${RS}/CreateRayService`, {
      namespace: NS,
      service: sampleService("watched"),
    });
    assert.equal(created.code, 0, created.message);
    const path = `/apis/ray.io/v1/namespaces/${NS}/rayservices/watched`;
    const stored = await (await kubeFetch(corral.kubeUrl, "GET", path)).json();
    // The operator's status and an event about the service, written by
    // others: the cache's watches bring them.
    const status = await kubeFetch(corral.kubeUrl, "PATCH", `${path}/status`, {
      status: {
        serviceStatus: "Running",
        numServeEndpoints: 1,
        activeServiceStatus: {
          rayClusterName: "watched-raycluster-x1",
          rayClusterStatus: { state: "ready", endpoints: { serve: "8000" } },
          applicationStatuses: { fruit: { status: "RUNNING" } },
        },
      },
    });
    assert.equal(status.status, 200, await status.text());
    const event = await kubeFetch(
      corral.kubeUrl,
      "POST",
      `/api/v1/namespaces/${NS}/events`,
      {
        metadata: { name: "watched.1", namespace: NS },
        involvedObject: {
          kind: "RayService",
          name: "watched",
          namespace: NS,
          uid: stored.metadata.uid,
        },
        reason: "ServiceReady",
        message: "serving",
        type: "Normal",
        count: 1,
        lastTimestamp: new Date().toISOString(),
      },
    );
    assert.equal(event.status, 201, await event.text());
    for (const [transport, call] of TRANSPORTS) {
      let got: Json;
      await until(`${transport}: the status and the event`, async () => {
        got = (await call(corral, `${RS}/GetRayService`, {
          namespace: NS,
          name: "watched",
        })).result?.rayServiceStatus;
        return got?.rayClusterName !== "" &&
          got?.rayServiceEvents?.length === 1;
      });
      assert.equal(got.applicationStatus, "Running");
      assert.equal(got.rayClusterState, "ready");
      assert.deepEqual(got.serviceEndpoint, { serve: "8000" });
      assert.equal(got.serveApplicationStatus[0].status, "RUNNING");
      assert.equal(got.rayServiceEvents[0].reason, "ServiceReady");
    }
  } finally {
    await corral.close();
  }
});
