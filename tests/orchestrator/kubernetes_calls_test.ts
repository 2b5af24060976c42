/**
 * How the orchestrator calls Kubernetes: one connection pool, reads retried
 * while the API is unavailable and writes never, the caller's cancellation,
 * and every call observed. Against a scripted Kubernetes API on 127.0.0.1.
 */
import assert from "node:assert/strict";
import http from "node:http";
import { KubeConfig } from "@kubernetes/client-node";
import { Code, ServiceError } from "../../domain/errors.ts";
import type { KubernetesCallRecord } from "../../domain/ports.ts";
import { createKubernetesOrchestrator } from "../../orchestrator/mod.ts";
import { kubeconfigFor } from "../../standin/mod.ts";

type Script = (
  req: http.IncomingMessage,
) =>
  | { status: number; body: unknown; headers?: Record<string, string> }
  | "hang";

interface FakeApi {
  connections: number;
  requests: string[];
  script: Script;
  url: string;
  close(): Promise<void>;
}

async function fakeApi(script: Script): Promise<FakeApi> {
  const sockets = new Set<import("node:net").Socket>();
  const api: FakeApi = {
    connections: 0,
    requests: [],
    script,
    url: "",
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
  const server = http.createServer((req, res) => {
    api.requests.push(`${req.method} ${req.url}`);
    const answer = api.script(req);
    if (answer === "hang") return;
    res.writeHead(answer.status, {
      "content-type": "application/json",
      ...answer.headers,
    });
    res.end(JSON.stringify(answer.body));
  });
  server.on("connection", (socket) => {
    api.connections++;
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) =>
    server.listen(0, "127.0.0.1", () => resolve())
  );
  api.url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  return api;
}

function orchestratorFor(api: FakeApi, timeoutMs = 5_000) {
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromString(kubeconfigFor(api.url));
  return createKubernetesOrchestrator({ kubeConfig, timeoutMs });
}

const VERSION = {
  status: 200,
  body: { major: "1", minor: "32", gitVersion: "v1.32.0" },
};
const EMPTY_LIST = {
  status: 200,
  body: { apiVersion: "v1", kind: "ConfigMapList", metadata: {}, items: [] },
};
const UNAVAILABLE = {
  status: 503,
  body: {
    kind: "Status",
    apiVersion: "v1",
    status: "Failure",
    message: "etcd down",
    code: 503,
  },
};

Deno.test("the orchestrator reuses connections for successive calls", async () => {
  const api = await fakeApi(() => VERSION);
  try {
    const orchestrator = orchestratorFor(api);
    for (let i = 0; i < 20; i++) await orchestrator.ping();
    assert.equal(api.requests.length, 20);
    // One pool: a connection serves many calls (client-node alone opens one
    // per call). The test server may close one now and then.
    assert.ok(
      api.connections <= 3,
      `got ${api.connections} connections for 20 calls, want at most 3`,
    );
  } finally {
    await api.close();
  }
});

Deno.test("a read is retried while the Kubernetes API is unavailable, then succeeds", async () => {
  let failures = 2;
  const api = await fakeApi(() => failures-- > 0 ? UNAVAILABLE : EMPTY_LIST);
  try {
    const records: KubernetesCallRecord[] = [];
    const list = await orchestratorFor(api).templates.list("team-a", {
      observe: (r) => records.push(r),
    });
    assert.deepEqual(list, []);
    assert.equal(api.requests.length, 3);
    assert.deepEqual(records.map((r) => r.outcome), [
      "UNAVAILABLE",
      "UNAVAILABLE",
      "ok",
    ]);
    assert.deepEqual(
      new Set(records.map((r) => `${r.verb} ${r.resource}`)),
      new Set(["list configmaps"]),
    );
  } finally {
    await api.close();
  }
});

Deno.test("a read gives up UNAVAILABLE after a bounded number of attempts", async () => {
  const api = await fakeApi(() => UNAVAILABLE);
  try {
    await assert.rejects(
      orchestratorFor(api).templates.get("team-a", "small"),
      (error: ServiceError) => {
        assert.equal(error.code, Code.UNAVAILABLE);
        assert.match(
          error.message,
          /^Cannot get compute template "team-a\/small": Kubernetes API unavailable/,
        );
        return true;
      },
    );
    assert.equal(api.requests.length, 3);
  } finally {
    await api.close();
  }
});

Deno.test("a create is never retried", async () => {
  const api = await fakeApi(() => UNAVAILABLE);
  try {
    await assert.rejects(
      orchestratorFor(api).templates.create({
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: { name: "small", namespace: "team-a" },
        data: {},
      }),
      (error: ServiceError) => error.code === Code.UNAVAILABLE,
    );
    assert.equal(api.requests.length, 1);
  } finally {
    await api.close();
  }
});

Deno.test("a 429 with a long Retry-After is not waited for: the caller is told", async () => {
  const api = await fakeApi(() => ({
    status: 429,
    body: { kind: "Status", code: 429, message: "slow down" },
    headers: { "retry-after": "30" },
  }));
  try {
    await assert.rejects(
      orchestratorFor(api).clusters.list("team-a"),
      (error: ServiceError) => {
        assert.equal(error.code, Code.UNAVAILABLE);
        assert.deepEqual(error.details, [{
          "@type": "type.googleapis.com/google.rpc.RetryInfo",
          retryDelay: "30s",
        }]);
        return true;
      },
    );
    assert.equal(api.requests.length, 1);
  } finally {
    await api.close();
  }
});

Deno.test("the caller's signal cancels a call Kubernetes has not answered", async () => {
  const api = await fakeApi(() => "hang");
  try {
    const controller = new AbortController();
    const call = orchestratorFor(api).clusters.get("team-a", "blue", {
      signal: controller.signal,
    });
    setTimeout(() => controller.abort(), 50);
    await assert.rejects(call, (error: ServiceError) => {
      assert.equal(error.code, Code.CANCELLED);
      assert.equal(
        error.message,
        'Cannot get cluster "team-a/blue": the request was cancelled',
      );
      return true;
    });
    const deadline = new AbortController();
    const late = orchestratorFor(api).clusters.get("team-a", "blue", {
      signal: deadline.signal,
    });
    setTimeout(
      () =>
        deadline.abort(
          new ServiceError(Code.DEADLINE_EXCEEDED, "Deadline exceeded"),
        ),
      50,
    );
    await assert.rejects(
      late,
      (error: ServiceError) => error.code === Code.DEADLINE_EXCEEDED,
    );
  } finally {
    await api.close();
  }
});
