import assert from "node:assert/strict";
import {
  type SimulatedOperator,
  type Standin,
  startSimulatedOperator,
  startStandin,
} from "../../standin/mod.ts";
import { SIMULATED_PORT_ANNOTATION } from "../../standin/services.ts";
import { eventually } from "../eventually.ts";
import { hasKubectl, kubectlIn, withKubeconfig } from "./kubectl.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

const NS = "/api/v1/namespaces/team-a";
const RC = "/apis/ray.io/v1/namespaces/team-a/rayclusters";

async function send(
  standin: Standin,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: Json; headers: Headers }> {
  const response = await fetch(`${standin.url}${path}`, {
    method,
    headers: body === undefined
      ? headers
      : { "content-type": "application/json", ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  let parsed: Json = text;
  try {
    parsed = JSON.parse(text);
  } catch { /* not JSON */ }
  return { status: response.status, body: parsed, headers: response.headers };
}

function cluster(name: string, serviceType?: string) {
  return {
    apiVersion: "ray.io/v1",
    kind: "RayCluster",
    metadata: { name },
    spec: {
      headGroupSpec: {
        ...(serviceType ? { serviceType } : {}),
        rayStartParams: {},
        template: {
          spec: {
            containers: [{
              name: "ray-head",
              image: "rayproject/ray:2.46.0",
              ports: [
                { name: "redis", containerPort: 6379 },
                { name: "head", containerPort: 10001 },
                { name: "dashboard", containerPort: 8265 },
              ],
            }],
          },
        },
      },
      workerGroupSpecs: [],
    },
  };
}

async function withReadyCluster(
  fn: (standin: Standin, status: Json) => Promise<void>,
  serviceType?: string,
): Promise<void> {
  const standin = startStandin();
  let operator: SimulatedOperator | undefined;
  try {
    operator = startSimulatedOperator({
      server: standin.url,
      delayMs: 0,
      retryIntervalMs: 10,
      jobStepMs: 10,
    });
    const created = await send(
      standin,
      "POST",
      RC,
      cluster("blue", serviceType),
    );
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const status = await eventually("blue to be ready", async () => {
      const { body } = await send(standin, "GET", `${RC}/blue`);
      return body.status?.state === "ready" ? body.status : undefined;
    });
    await fn(standin, status);
  } finally {
    await operator?.stop();
    await standin.close();
  }
}

Deno.test("The simulated operator writes each cluster's head Service as KubeRay v1.7.0 does, and the head status", async () => {
  await withReadyCluster(async (standin, status) => {
    const { status: code, body: service } = await send(
      standin,
      "GET",
      `${NS}/services/blue-head-svc`,
    );
    assert.equal(code, 200);
    const labels = {
      "ray.io/cluster": "blue",
      "ray.io/node-type": "head",
      "ray.io/identifier": "blue-head",
      "app.kubernetes.io/name": "kuberay",
      "app.kubernetes.io/created-by": "kuberay-operator",
    };
    assert.deepEqual(service.metadata.labels, labels);
    assert.deepEqual(service.spec.selector, labels);
    assert.equal(service.spec.type, "ClusterIP");
    assert.equal(service.spec.clusterIP, "None");
    assert.deepEqual(
      service.spec.ports.map((p: Json) => [p.name, p.port]),
      [["dashboard", 8265], ["head", 10001], ["metrics", 8080], [
        "redis",
        6379,
      ]],
    );
    assert.equal(service.metadata.ownerReferences[0].kind, "RayCluster");
    assert.match(
      service.metadata.annotations[SIMULATED_PORT_ANNOTATION],
      /^\d+$/,
    );
    assert.equal(status.head.serviceName, "blue-head-svc");
    assert.equal(status.head.serviceIP, "127.0.0.1");
    assert.equal(status.endpoints.dashboard, "8265");
    const byLabel = await send(
      standin,
      "GET",
      `${NS}/services?labelSelector=${
        encodeURIComponent("ray.io/cluster=blue,ray.io/node-type=head")
      }`,
    );
    assert.equal(byLabel.body.items.length, 1);

    // The cluster gone, its Service goes (owner reference) and the
    // dashboard stops answering.
    const local = service.metadata.annotations[SIMULATED_PORT_ANNOTATION];
    assert.equal((await send(standin, "DELETE", `${RC}/blue`)).status, 200);
    await eventually("the head Service to go", async () => {
      const { status } = await send(
        standin,
        "GET",
        `${NS}/services/blue-head-svc`,
      );
      return status === 404 ? true : undefined;
    });
    await eventually("the dashboard to stop", async () => {
      try {
        const answer = await fetch(`http://127.0.0.1:${local}/api/version`);
        await answer.body?.cancel();
        return undefined;
      } catch {
        return true;
      }
    });
  });
});

Deno.test("A NodePort head Service gets the stand-in's cluster IP and the endpoints' NodePorts", async () => {
  await withReadyCluster(async (standin, status) => {
    const { body: service } = await send(
      standin,
      "GET",
      `${NS}/services/blue-head-svc`,
    );
    assert.equal(service.spec.type, "NodePort");
    assert.equal(service.spec.clusterIP, "127.0.0.1");
    const dashboard = service.spec.ports.find((p: Json) =>
      p.name === "dashboard"
    );
    assert.equal(String(dashboard.nodePort), status.endpoints.dashboard);
  }, "NodePort");
});

Deno.test("The service proxy reaches the simulated dashboard by port number, port name and scheme", async (t) => {
  await withReadyCluster(async (standin) => {
    for (
      const id of [
        "blue-head-svc:8265",
        "blue-head-svc:dashboard",
        "http:blue-head-svc:8265",
      ]
    ) {
      await t.step(id, async () => {
        const answer = await send(
          standin,
          "GET",
          `${NS}/services/${id}/proxy/api/version`,
        );
        assert.equal(answer.status, 200, JSON.stringify(answer.body));
        assert.equal(answer.body.version, "4");
      });
    }
    await t.step("a job submitted and read through the proxy", async () => {
      const base = `${NS}/services/blue-head-svc:8265/proxy`;
      const submitted = await send(standin, "POST", `${base}/api/jobs/`, {
        entrypoint: "echo hi",
      }, { authorization: "Bearer secret" });
      assert.equal(submitted.status, 200, JSON.stringify(submitted.body));
      const id = submitted.body.submission_id;
      await eventually("the job to succeed", async () => {
        const { body } = await send(standin, "GET", `${base}/api/jobs/${id}`);
        return body.status === "SUCCEEDED" ? true : undefined;
      });
      const logs = await send(standin, "GET", `${base}/api/jobs/${id}/logs`);
      assert.match(logs.body.logs, /Running entrypoint: echo hi/);
      const index = await send(standin, "GET", `${base}/`);
      assert.match(index.body, /Ray Dashboard \(simulated\)/);
    });
  });
});

Deno.test("The service proxy answers 503 with a Status where no endpoint is ready, 404 for no such Service", async (t) => {
  await withReadyCluster(async (standin) => {
    const created = await send(standin, "POST", `${NS}/services`, {
      apiVersion: "v1",
      kind: "Service",
      metadata: { name: "plain" },
      spec: { ports: [{ name: "http", port: 80 }] },
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    assert.equal(created.body.spec.clusterIP, "127.0.0.1");
    const cases: [string, number, RegExp][] = [
      [
        "blue-head-svc:10001",
        503,
        /no endpoints available for service "blue-head-svc:10001"/,
      ],
      [
        "blue-head-svc:9999",
        503,
        /no service port "9999" found for service "blue-head-svc"/,
      ],
      ["plain:80", 503, /no endpoints available for service "plain:80"/],
      ["https:blue-head-svc:8265", 503, /http only/],
      ["green-head-svc:8265", 404, /services "green-head-svc" not found/],
    ];
    for (const [id, code, message] of cases) {
      await t.step(id, async () => {
        const answer = await send(
          standin,
          "GET",
          `${NS}/services/${id}/proxy/`,
        );
        assert.equal(answer.status, code, `got ${answer.status}, want ${code}`);
        assert.equal(answer.body.kind, "Status");
        assert.equal(answer.body.code, code);
        assert.match(answer.body.message, message);
      });
    }
  });
});

Deno.test({
  name:
    "kubectl get --raw reaches the simulated dashboard through the service proxy",
  ignore: !hasKubectl(),
  async fn() {
    await withReadyCluster(async (standin) => {
      await withKubeconfig(
        standin.url,
        "corral-kubectl-proxy-",
        async (kubeconfig, dir) => {
          const kubectl = kubectlIn(kubeconfig, dir);
          const version = JSON.parse(
            await kubectl(
              "get",
              "--raw",
              "/api/v1/namespaces/team-a/services/blue-head-svc:8265/proxy/api/version",
            ),
          );
          assert.equal(version.version, "4");
          const services = await kubectl("get", "services", "-n", "team-a");
          assert.match(services, /blue-head-svc/);
        },
      );
    });
  },
});

Deno.test("The service proxy passes a WebSocket upgrade through: a job's log tail arrives, then the close at its end; no endpoint is 503", async () => {
  await withReadyCluster(async (standin) => {
    const proxy = `${NS}/services/blue-head-svc:8265/proxy`;
    const submitted = await send(standin, "POST", `${proxy}/api/jobs/`, {
      entrypoint: "echo tailed",
    });
    assert.equal(submitted.status, 200, JSON.stringify(submitted.body));
    const id = submitted.body.submission_id;
    const socket = new WebSocket(
      `${standin.url.replace(/^http/, "ws")}${proxy}/api/jobs/${id}/logs/tail`,
    );
    const messages: string[] = [];
    const code = await new Promise<number>((resolve, reject) => {
      socket.onmessage = (event) => messages.push(String(event.data));
      socket.onerror = () => reject(new Error("the WebSocket failed"));
      socket.onclose = (event) => resolve(event.code);
    });
    assert.equal(code, 1000);
    assert.match(messages.join(""), /echo tailed/);

    // The metrics port has no simulated endpoint.
    const refused = await fetch(
      `${standin.url}${NS}/services/blue-head-svc:8080/proxy/ws`,
      {
        headers: {
          connection: "Upgrade",
          upgrade: "websocket",
          "sec-websocket-version": "13",
          "sec-websocket-key": "dGhlIHNhbXBsZSBub25jZQ==",
        },
      },
    );
    assert.equal(refused.status, 503);
    await refused.body?.cancel();
  });
});
