/**
 * Corral against a failing Kubernetes API: main.ts as a subprocess in
 * kubernetes mode, its kubeconfig pointing at a fault-injecting proxy in
 * front of the stand-in. Kubernetes down, slow, throttling and failing;
 * concurrent creates; client deadlines; SIGTERM under load. With
 * --cache=off: these are about the calls each request makes; the cache under
 * the same faults is tests/cache_test.ts's.
 */
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import * as grpc from "@grpc/grpc-js";
import { loadApiSchema } from "../api/schema.ts";
import { messageFromJson } from "../domain/codec.ts";
import { messageToProto } from "../domain/proto_objects.ts";
import { kubeconfigFor, type Standin, startStandin } from "../standin/mod.ts";
import { type GrpcCaller, grpcCaller } from "./api/grpc/client.ts";
import { NS, sampleCluster } from "./api/cases.ts";
import { eventually } from "./eventually.ts";
import {
  type FaultProxy,
  type ProxiedRequest,
  startFaultProxy,
} from "./fault_proxy.ts";
import {
  ANONYMOUS,
  FREE_PORTS,
  type LogRecord,
  type MainProcess,
  NO_SHUTDOWN_DELAY,
  startMain,
} from "./main_process.ts";

const RETRY_INFO = "type.googleapis.com/google.rpc.RetryInfo";

/** Stand-in, proxy, kubeconfig, main.ts and a gRPC client, closed together. */
interface Rig {
  standin: Standin;
  proxy: FaultProxy;
  main: MainProcess;
  grpc: GrpcCaller;
  /** Stops main.ts (SIGTERM) and everything else; returns its exit status. */
  close(): Promise<Deno.CommandStatus>;
}

async function startRig(extra: string[] = []): Promise<Rig> {
  const standin = startStandin({ hostname: "127.0.0.1", port: 0 });
  const proxy = await startFaultProxy(standin.url);
  const kubeconfig = await Deno.makeTempFile({ suffix: ".kubeconfig" });
  await Deno.writeTextFile(kubeconfig, kubeconfigFor(proxy.url));
  let main: MainProcess;
  try {
    // Kubernetes mode on free ports, through the proxy.
    main = await startMain({
      args: [
        "--orchestrator",
        "kubernetes",
        "--kubeconfig",
        kubeconfig,
        ...FREE_PORTS,
        ...NO_SHUTDOWN_DELAY,
        ...ANONYMOUS,
        "--cache",
        "off",
        // No background calls through the proxy: these tests count the
        // calls of requests (no Lease renewals, no expiry pass).
        "--leader-elect=false",
        "--expiry-interval",
        "1h",
        ...extra,
      ],
    });
  } catch (error) {
    await proxy.close();
    await standin.close();
    await Deno.remove(kubeconfig);
    throw error;
  }
  const client = grpcCaller(await loadApiSchema(), main.grpc);
  const rig: Rig = {
    standin,
    proxy,
    main,
    grpc: client,
    async close() {
      client.close();
      const status = await main.stop();
      await proxy.close();
      await rig.standin.close();
      await Deno.remove(kubeconfig);
      return status;
    },
  };
  return rig;
}

interface Answer {
  status: number;
  headers: Headers;
  // deno-lint-ignore no-explicit-any
  body: any;
  ms: number;
}

async function send(
  url: string,
  init: RequestInit & { json?: unknown } = {},
): Promise<Answer> {
  const started = performance.now();
  const response = await fetch(url, {
    ...init,
    body: init.json === undefined ? init.body : JSON.stringify(init.json),
    headers: init.json === undefined
      ? init.headers
      : { "content-type": "application/json", ...init.headers },
  });
  const text = await response.text();
  return {
    status: response.status,
    headers: response.headers,
    body: text ? JSON.parse(text) : undefined,
    ms: performance.now() - started,
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const TEMPLATES = `/apis/v1/namespaces/${NS}/compute_templates`;
const CLUSTERS = `/apis/v1alpha2/namespaces/${NS}/clusters`;
/** Paths on the Kubernetes API, as the proxy sees them. */
const KUBE_CLUSTERS = `/apis/ray.io/v1/namespaces/${NS}/rayclusters`;
const KUBE_CONFIGMAPS = `/api/v1/namespaces/${NS}/configmaps`;

/** Creates the "small" template and a cluster over HTTP. */
async function createFixtures(http: string, names: string[]): Promise<void> {
  const template = await send(http + TEMPLATES, {
    method: "POST",
    json: { name: "small", cpu: 2, memory: 4 },
  });
  assert.equal(template.status, 200, JSON.stringify(template.body));
  for (const name of names) {
    const cluster = await send(http + CLUSTERS, {
      method: "POST",
      json: sampleCluster({ name }),
    });
    assert.equal(cluster.status, 200, JSON.stringify(cluster.body));
  }
}

function assertUnavailable(answer: Answer, what: string): void {
  assert.equal(answer.status, 503, `${what}: ${JSON.stringify(answer.body)}`);
  assert.equal(answer.body.code, 14, what);
  assert.match(answer.body.message, /Kubernetes API unavailable/, what);
}

async function readiness(http: string): Promise<Answer> {
  return await send(`${http}/readyz`);
}

/** grpc.health.v1.Health/Check of the whole server: 1 SERVING, 2 NOT_SERVING. */
function grpcHealth(address: string): Promise<number> {
  const client = new grpc.Client(address, grpc.credentials.createInsecure());
  return new Promise<number>((resolve, reject) => {
    client.makeUnaryRequest(
      "/grpc.health.v1.Health/Check",
      (b: Uint8Array) => Buffer.from(b),
      (b: Buffer) => b,
      new Uint8Array(), // HealthCheckRequest{service: ""}
      new grpc.Metadata(),
      { deadline: Date.now() + 5_000 },
      (error, value) =>
        error ? reject(error) : resolve(value!.length === 0 ? 0 : value![1]),
    );
  }).finally(() => client.close());
}

Deno.test("Kubernetes going away: requests get 503 quickly, readiness turns false with the reason, and both recover by themselves", async (t) => {
  const rig = await startRig(["--kube-timeout", "10s"]);
  const { main, proxy } = rig;
  try {
    await createFixtures(main.http, ["blue"]);
    assert.equal((await readiness(main.http)).status, 200);
    assert.equal(await grpcHealth(main.grpc), 1, "gRPC health SERVING");

    const outage = async (label: string) => {
      await t.step(
        `${label}: reads and writes answer 503 code 14, well within the 10 s time-out`,
        async () => {
          const get = await send(`${main.http}${CLUSTERS}/blue`);
          assertUnavailable(get, "GetCluster");
          assert.ok(get.ms < 5_000, `answered after ${get.ms} ms`);
          const create = await send(main.http + CLUSTERS, {
            method: "POST",
            json: sampleCluster({ name: "during-outage" }),
          });
          assertUnavailable(create, "CreateCluster");
          assert.ok(create.ms < 5_000, `answered after ${create.ms} ms`);
          const list = await rig.grpc.call(
            "proto.ClusterService/ListAllClusters",
            {},
          );
          assert.equal(list.code, 14, list.message);
        },
      );

      await t.step(
        `${label}: /readyz answers 503 naming Kubernetes, /healthz still 200`,
        async () => {
          const ready = await readiness(main.http);
          assert.equal(ready.status, 503);
          assert.equal(ready.body.status, "not ready");
          assert.ok(
            ready.body.reasons.some((r: string) =>
              /Kubernetes API (unavailable|did not answer)/.test(r)
            ),
            JSON.stringify(ready.body),
          );
          assert.ok(ready.ms < 5_000, `answered after ${ready.ms} ms`);
          assert.equal((await send(`${main.http}/healthz`)).status, 200);
          assert.equal(
            await grpcHealth(main.grpc),
            2,
            "gRPC health NOT_SERVING",
          );
        },
      );
    };

    // The API server's port closed: connections refused.
    await proxy.refuse();
    await outage("connections refused");
    await t.step(
      "connections refused: readiness and requests recover when it is back",
      async () => {
        await proxy.heal();
        await eventually(
          "readiness",
          async () =>
            (await readiness(main.http)).status === 200 ? true : undefined,
        );
        assert.equal(await grpcHealth(main.grpc), 1, "gRPC health SERVING");
        const get = await send(`${main.http}${CLUSTERS}/blue`);
        assert.equal(get.status, 200, JSON.stringify(get.body));
      },
    );

    // The API server itself stopped behind a load balancer (the proxy):
    // connections accepted, then closed without an answer.
    const port = rig.standin.port;
    await rig.standin.close();
    await outage("stand-in stopped");
    await t.step(
      "stand-in stopped: readiness and requests recover when it restarts",
      async () => {
        rig.standin = startStandin({ hostname: "127.0.0.1", port });
        await eventually(
          "readiness",
          async () =>
            (await readiness(main.http)).status === 200 ? true : undefined,
        );
        assert.equal(await grpcHealth(main.grpc), 1, "gRPC health SERVING");
        // The restarted stand-in starts empty.
        await createFixtures(main.http, ["green"]);
        const get = await send(`${main.http}${CLUSTERS}/green`);
        assert.equal(get.status, 200, JSON.stringify(get.body));
      },
    );

    await t.step("no write reached Kubernetes during the outages", async () => {
      const list = await (await fetch(
        `${rig.standin.url}${KUBE_CLUSTERS}`,
      )).json();
      assert.deepEqual(
        list.items.map((i: { metadata: { name: string } }) => i.metadata.name),
        ["green"],
      );
    });
  } finally {
    const status = await rig.close();
    assert.equal(status.code, 0, rig.main.logs.slice(-10).join("\n"));
  }
});

Deno.test("Kubernetes answering 429 or 500: 503 code 14, reads retried, writes sent once", async (t) => {
  const rig = await startRig();
  const { main, proxy } = rig;
  try {
    await createFixtures(main.http, ["blue"]);
    const blue = `${KUBE_CLUSTERS}/blue`;

    await t.step(
      "429 with Retry-After: the read is retried, then 503 with Retry-After and RetryInfo",
      async () => {
        proxy.clearRequests();
        proxy.inject({ kind: "status", status: 429, retryAfter: 1 });
        const get = await send(`${main.http}${CLUSTERS}/blue`);
        assertUnavailable(get, "GetCluster");
        assert.match(get.body.message, /too many requests/);
        assert.equal(get.headers.get("retry-after"), "1");
        assert.deepEqual(get.body.details, [{
          "@type": RETRY_INFO,
          retryDelay: "1s",
        }]);
        assert.ok(
          proxy.count("GET", blue) > 1,
          `GET ${blue} reached Kubernetes ${proxy.count("GET", blue)} time(s)`,
        );
        const viaGrpc = await rig.grpc.call("proto.ClusterService/GetCluster", {
          namespace: NS,
          name: "blue",
        });
        assert.equal(viaGrpc.code, 14, viaGrpc.message);
        assert.deepEqual(viaGrpc.details, [{ "@type": RETRY_INFO }]);
        await proxy.heal();
      },
    );

    await t.step(
      "500: the read is retried, then 503 without Retry-After",
      async () => {
        proxy.clearRequests();
        proxy.inject({ kind: "status", status: 500 });
        const get = await send(`${main.http}${CLUSTERS}/blue`);
        assertUnavailable(get, "GetCluster");
        assert.match(get.body.message, /HTTP 500/);
        assert.equal(get.headers.get("retry-after"), null);
        assert.equal(get.body.details, undefined);
        assert.ok(proxy.count("GET", blue) > 1, "retried");
        await proxy.heal();
      },
    );

    const throttled: [number, number | undefined][] = [[429, 1], [
      500,
      undefined,
    ]];
    for (const [status, retryAfter] of throttled) {
      await t.step(
        `${status}: creates and deletes reach Kubernetes once, over both transports`,
        async () => {
          proxy.clearRequests();
          proxy.inject({ kind: "status", status, retryAfter }, {
            method: "POST",
          });
          proxy.inject({ kind: "status", status, retryAfter }, {
            method: "DELETE",
          });
          const cluster = await send(main.http + CLUSTERS, {
            method: "POST",
            json: sampleCluster({ name: "red" }),
          });
          assertUnavailable(cluster, "CreateCluster");
          assert.equal(proxy.count("POST", KUBE_CLUSTERS), 1);

          const template = await send(main.http + TEMPLATES, {
            method: "POST",
            json: { name: "big", cpu: 8, memory: 16 },
          });
          assertUnavailable(template, "CreateComputeTemplate");
          assert.equal(proxy.count("POST", KUBE_CONFIGMAPS), 1);

          const deleted = await send(`${main.http}${CLUSTERS}/blue`, {
            method: "DELETE",
          });
          assertUnavailable(deleted, "DeleteCluster");
          assert.equal(proxy.count("DELETE", blue), 1);

          const viaGrpc = await rig.grpc.call(
            "proto.ClusterService/CreateCluster",
            { namespace: NS, cluster: sampleCluster({ name: "red" }) },
          );
          assert.equal(viaGrpc.code, 14, viaGrpc.message);
          assert.equal(proxy.count("POST", KUBE_CLUSTERS), 2);
          await proxy.heal();
        },
      );
    }

    await t.step("nothing was written, blue is still there", async () => {
      const list = await (await fetch(
        `${rig.standin.url}${KUBE_CLUSTERS}`,
      )).json();
      assert.deepEqual(
        list.items.map((i: { metadata: { name: string } }) => i.metadata.name),
        ["blue"],
      );
    });
  } finally {
    const status = await rig.close();
    assert.equal(status.code, 0, rig.main.logs.slice(-10).join("\n"));
  }
});

Deno.test("Kubernetes slower than --kube-timeout: 504 code 4 on both transports", async () => {
  const rig = await startRig(["--kube-timeout", "300ms"]);
  const { main, proxy } = rig;
  try {
    // No fixtures: every call below is held at the proxy and abandoned
    // before it reaches the stand-in, so what the stand-in holds does not
    // matter; and creating them through main.ts would itself race the
    // 300 ms time-out on a busy machine.
    proxy.inject({ kind: "delay", ms: 1_500 });
    const get = await send(`${main.http}${CLUSTERS}/blue`);
    assert.equal(get.status, 504, JSON.stringify(get.body));
    assert.equal(get.body.code, 4);
    assert.match(get.body.message, /did not answer in time/);
    const create = await send(main.http + CLUSTERS, {
      method: "POST",
      json: sampleCluster({ name: "slow" }),
    });
    assert.equal(create.status, 504, JSON.stringify(create.body));
    const viaGrpc = await rig.grpc.call("proto.ClusterService/GetCluster", {
      namespace: NS,
      name: "blue",
    });
    assert.equal(viaGrpc.code, 4, viaGrpc.message);
    await proxy.settled();
    // Corral gave up on every delayed call: none reached the stand-in.
    const delayed = proxy.requests.filter((r) => r.fault === "delay");
    assert.ok(delayed.length >= 3);
    assert.ok(delayed.every((r) => r.aborted && !r.forwarded));
  } finally {
    const status = await rig.close();
    assert.equal(status.code, 0, rig.main.logs.slice(-10).join("\n"));
  }
});

Deno.test("concurrent creates of one name: exactly one succeeds, the rest get 409 code 6", async (t) => {
  const rig = await startRig();
  const { main } = rig;
  try {
    await createFixtures(main.http, []);
    await t.step(
      "clusters: 20 over HTTP and 20 over gRPC at once",
      async () => {
        const results = await Promise.all([
          ...Array.from({ length: 20 }, () =>
            send(main.http + CLUSTERS, {
              method: "POST",
              json: sampleCluster({ name: "twin" }),
            }).then((a) => ({ code: a.body.code ?? 0, status: a.status }))),
          ...Array.from(
            { length: 20 },
            () =>
              rig.grpc.call("proto.ClusterService/CreateCluster", {
                namespace: NS,
                cluster: sampleCluster({ name: "twin" }),
              }).then((o) => ({ code: o.code, status: 0 })),
          ),
        ]);
        const ok = results.filter((r) => r.code === 0);
        const taken = results.filter((r) => r.code === 6);
        assert.equal(ok.length, 1, JSON.stringify(results));
        assert.equal(taken.length, 39, JSON.stringify(results));
        for (const r of taken.filter((r) => r.status !== 0)) {
          assert.equal(r.status, 409);
        }
      },
    );
    await t.step(
      "compute templates: 20 over HTTP and 20 over gRPC at once",
      async () => {
        const results = await Promise.all([
          ...Array.from({ length: 20 }, () =>
            send(main.http + TEMPLATES, {
              method: "POST",
              json: { name: "twin", cpu: 1, memory: 1 },
            }).then((a) => a.body.code ?? 0)),
          ...Array.from({ length: 20 }, () =>
            rig.grpc.call(
              "proto.ComputeTemplateService/CreateComputeTemplate",
              {
                namespace: NS,
                computeTemplate: { name: "twin", cpu: 1, memory: 1 },
              },
            ).then((o) => o.code)),
        ]);
        assert.equal(results.filter((c) => c === 0).length, 1, `${results}`);
        assert.equal(results.filter((c) => c === 6).length, 39, `${results}`);
      },
    );
  } finally {
    const status = await rig.close();
    assert.equal(status.code, 0, rig.main.logs.slice(-10).join("\n"));
  }
});

/** A unary call with a deadline, raw bytes in and out. */
function callWithDeadline(
  address: string,
  key: string,
  bytes: Uint8Array,
  deadlineMs: number,
): Promise<number> {
  const client = new grpc.Client(address, grpc.credentials.createInsecure());
  return new Promise<number>((resolve) => {
    client.makeUnaryRequest(
      `/${key}`,
      (b: Uint8Array) => Buffer.from(b),
      (b: Buffer) => b,
      bytes,
      new grpc.Metadata(),
      { deadline: Date.now() + deadlineMs },
      (error) => resolve(error?.code ?? 0),
    );
  }).finally(() => client.close());
}

/** The cluster create's call to Kubernetes, once the proxy has it. */
function createReached(proxy: FaultProxy): Promise<ProxiedRequest> {
  return eventually(
    "the create to reach the proxy",
    () =>
      Promise.resolve(
        proxy.requests.find((r) =>
          r.method === "POST" && r.path === KUBE_CLUSTERS
        ),
      ),
  );
}

/**
 * The cluster create reaches the proxy, which delays it, and is abandoned
 * there (long before the delay is over), never forwarded to Kubernetes.
 */
async function assertCreateAbandoned(proxy: FaultProxy): Promise<void> {
  const post = await createReached(proxy);
  await post.done;
  assert.ok(post.aborted, "the proxy saw the call abandoned");
  assert.equal(post.forwarded, false);
}

Deno.test("a client's deadline or disconnect cancels the Kubernetes call it caused", async (t) => {
  const rig = await startRig();
  const { main, proxy } = rig;
  const schema = await loadApiSchema();
  try {
    await createFixtures(main.http, []);
    proxy.inject({ kind: "delay", ms: 10_000 }, {
      method: "POST",
      path: KUBE_CLUSTERS,
    });

    await t.step(
      "gRPC: a 2 s deadline aborts the create at Kubernetes",
      async () => {
        proxy.clearRequests();
        const type = schema.root.lookupType("proto.CreateClusterRequest");
        const request = messageFromJson(
          type,
          {
            namespace: NS,
            cluster: sampleCluster({ name: "hasty" }),
          },
          "",
          [],
        );
        const bytes = type.encode(
          type.fromObject(messageToProto(type, request)),
        )
          .finish();
        const code = await callWithDeadline(
          main.grpc,
          "proto.ClusterService/CreateCluster",
          bytes,
          // Long enough for the create to reach the proxy on a busy
          // machine; far short of the proxy's 10 s delay.
          2_000,
        );
        assert.equal(code, grpc.status.DEADLINE_EXCEEDED);
        await assertCreateAbandoned(proxy);
        const line = await eventually(
          "the request's log line",
          () =>
            Promise.resolve(
              main.records.find((l) =>
                l.rpc === "proto.ClusterService/CreateCluster" &&
                l.transport === "grpc"
              ),
            ),
        );
        assert.ok(
          line.code === grpc.status.DEADLINE_EXCEEDED ||
            line.code === grpc.status.CANCELLED,
          JSON.stringify(line),
        );
      },
    );

    await t.step(
      "HTTP: a client that hangs up aborts the create at Kubernetes",
      async () => {
        proxy.clearRequests();
        // Hangs up once the create is held at the proxy, however long
        // Corral took to get there.
        const hangUp = new AbortController();
        const answer = fetch(main.http + CLUSTERS, {
          method: "POST",
          body: JSON.stringify(sampleCluster({ name: "impatient" })),
          headers: { "content-type": "application/json" },
          signal: hangUp.signal,
        });
        await createReached(proxy);
        hangUp.abort();
        await assert.rejects(answer);
        await assertCreateAbandoned(proxy);
      },
    );

    await t.step(
      "the abandoned calls count as cancelled, not as Kubernetes failures, and readiness holds",
      async () => {
        const metrics = await (await fetch(`${main.http}/metrics`)).text();
        const creates = metrics.split("\n").filter((line) =>
          line.startsWith("corral_kubernetes_requests_total{") &&
          line.includes('verb="create"')
        );
        assert.ok(
          creates.some((l) => l.includes('outcome="cancelled"')),
          creates.join("\n"),
        );
        assert.ok(
          !creates.some((l) =>
            /outcome="(DEADLINE_EXCEEDED|CANCELLED|UNAVAILABLE)"/.test(l)
          ),
          creates.join("\n"),
        );
        const ready = await fetch(`${main.http}/readyz`);
        assert.equal(ready.status, 200, await ready.text());
      },
    );

    await t.step("neither cluster exists", async () => {
      const list = await (await fetch(
        `${rig.standin.url}${KUBE_CLUSTERS}`,
      )).json();
      assert.deepEqual(list.items, []);
    });
  } finally {
    const status = await rig.close();
    assert.equal(status.code, 0, rig.main.logs.slice(-10).join("\n"));
  }
});

interface ClientResult {
  id: string;
  transport: "http" | "grpc";
  /** A complete 200 (gRPC OK) with the cluster in it. */
  ok: boolean;
  /** What went wrong, when not ok. */
  failure?: string;
  slow: boolean;
}

Deno.test("SIGTERM under load: every request the server accepted is answered in full, then exit 0", async () => {
  const rig = await startRig(["--shutdown-grace", "20s"]);
  const { main, proxy } = rig;
  const schema = await loadApiSchema();
  const results: ClientResult[] = [];
  let stopping = false;
  let stopped = false;
  const grpcClients: grpc.Client[] = [];
  const GetClusterRequest = schema.root.lookupType("proto.GetClusterRequest");
  const Cluster = schema.root.lookupType("proto.Cluster");

  async function viaHttp(name: string, slow: boolean): Promise<void> {
    const id = crypto.randomUUID();
    try {
      const answer = await send(`${main.http}${CLUSTERS}/${name}`, {
        headers: { "x-request-id": id },
      });
      const ok = answer.status === 200 && answer.body?.name === name;
      results.push({
        id,
        transport: "http",
        ok,
        slow,
        failure: ok ? undefined : `HTTP ${answer.status}`,
      });
    } catch (error) {
      results.push({
        id,
        transport: "http",
        ok: false,
        slow,
        failure: String(error),
      });
    }
  }

  function viaGrpc(
    client: grpc.Client,
    name: string,
    slow: boolean,
  ): Promise<void> {
    const id = crypto.randomUUID();
    const metadata = new grpc.Metadata();
    metadata.set("x-request-id", id);
    const bytes = GetClusterRequest.encode({ namespace: NS, name }).finish();
    return new Promise((resolve) => {
      client.makeUnaryRequest(
        "/proto.ClusterService/GetCluster",
        (b: Uint8Array) => Buffer.from(b),
        (b: Buffer) => b,
        bytes,
        metadata,
        { deadline: Date.now() + 30_000 },
        (error, value) => {
          let ok = false;
          let failure = error ? `${error.code} ${error.details}` : undefined;
          if (!error) {
            try {
              ok = (Cluster.decode(value!) as unknown as { name: string })
                .name === name;
            } catch (e) {
              failure = String(e);
            }
          }
          results.push({ id, transport: "grpc", ok, slow, failure });
          resolve();
        },
      );
    });
  }

  async function worker(transport: "http" | "grpc"): Promise<void> {
    const client = new grpc.Client(
      main.grpc,
      grpc.credentials.createInsecure(),
    );
    grpcClients.push(client);
    while (!stopped) {
      const before = results.length;
      if (transport === "http") await viaHttp("blue", false);
      else await viaGrpc(client, "blue", false);
      // Once the server is going away, do not spin on refused connections.
      if (stopping && !results[before]?.ok) await sleep(10);
    }
  }

  try {
    await createFixtures(main.http, ["blue", "slow"]);
    proxy.inject({ kind: "delay", ms: 1_500 }, {
      method: "GET",
      path: `${KUBE_CLUSTERS}/slow`,
    });
    const workers = [
      ...Array.from({ length: 6 }, () => worker("http")),
      ...Array.from({ length: 6 }, () => worker("grpc")),
    ];
    await eventually(
      "some load",
      () => Promise.resolve(results.length >= 200 ? true : undefined),
    );
    const slowClient = new grpc.Client(
      main.grpc,
      grpc.credentials.createInsecure(),
    );
    grpcClients.push(slowClient);
    const slowOnes = [
      viaHttp("slow", true),
      viaHttp("slow", true),
      viaGrpc(slowClient, "slow", true),
      viaGrpc(slowClient, "slow", true),
    ];
    // The slow requests are in flight: they reached Kubernetes.
    await eventually(
      "the slow requests to reach Kubernetes",
      () =>
        Promise.resolve(
          proxy.count("GET", `${KUBE_CLUSTERS}/slow`) >= 4 ? true : undefined,
        ),
    );
    const before = results.length;
    stopping = true;
    const status = await main.stop();
    stopped = true;
    await Promise.all([...workers, ...slowOnes]);

    assert.equal(status.code, 0, "exit code");
    const handled = new Map<string, LogRecord>();
    for (const line of main.records) {
      // The client's id is the log line's clientRequestId (Corral's own
      // is requestId).
      if (line.clientRequestId && /request/.test(line.msg)) {
        handled.set(line.clientRequestId, line);
      }
    }
    const failed = results.filter((r) => !r.ok);
    const ok = results.filter((r) => r.ok);
    console.log(
      `  ${results.length} requests: ${ok.length} answered, ${failed.length} refused; ${before} before SIGTERM`,
    );
    for (const r of results.filter((r) => handled.has(r.id))) {
      assert.ok(
        r.ok,
        `the server handled ${r.transport} request ${r.id} (${
          JSON.stringify(handled.get(r.id))
        }) but the client got ${r.failure}`,
      );
    }
    for (const r of failed) {
      assert.ok(
        !handled.has(r.id),
        `request ${r.id} failed at the client (${r.failure}) but was started on the server`,
      );
    }
    for (const r of ok) {
      assert.ok(handled.has(r.id), `request ${r.id} answered but not logged`);
    }
    const slow = results.filter((r) => r.slow);
    assert.equal(slow.length, 4);
    assert.ok(
      slow.every((r) => r.ok),
      `the slow requests in flight at SIGTERM finish: ${JSON.stringify(slow)}`,
    );
    assert.ok(ok.length > before, "requests were answered after SIGTERM");
    assert.ok(failed.length > 0, "new requests were refused after SIGTERM");
    assert.ok(main.records.some((l) => l.msg === "Stopped"));
  } finally {
    stopped = true;
    for (const client of grpcClients) client.close();
    await rig.close();
  }
});
