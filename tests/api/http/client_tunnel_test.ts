/**
 * The Ray client port's tunnel (api/http/client_tunnel.ts) behind the real
 * HTTP listener: a TCP echo server of the test's own standing in for the
 * Ray client server (direct mode), and, through the Kubernetes stand-in's
 * service proxy (apiserver-proxy mode), a WebSocket echo server on the
 * head service's port 10001. Clusters in the stand-in, tokens and policy
 * from files: alice has `proxy` alone, bob `get`, carol "*".
 */
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { createServer, type Server, type Socket } from "node:net";
import * as k8s from "@kubernetes/client-node";
import { createAccess } from "../../../api/auth/access.ts";
import { DashboardSessions } from "../../../api/auth/dashboard_sessions.ts";
import { DashboardProxy } from "../../../api/http/dashboard_proxy.ts";
import { type HttpServer, serveHttp } from "../../../api/http/server.ts";
import { silentLogger } from "../../../api/log.ts";
import type { ClusterAccess } from "../../../domain/dashboard_ports.ts";
import {
  apiserverProxyAccess,
  directAccess,
} from "../../../orchestrator/cluster_access.ts";
import { kubeconfigFor } from "../../../standin/mod.ts";
import { SIMULATED_CLIENT_PORT_ANNOTATION } from "../../../standin/services.ts";
import { startCorral } from "../../harness.ts";
import { unitRouter } from "../../unit_router.ts";
import { until } from "../../eventually.ts";
import { RAY_CRD } from "../../orchestrator/cluster_shapes.ts";
import {
  kubeFetch,
  managedCluster,
  readyCluster,
} from "../../standin/with_standin.ts";
import {
  ALICE,
  bearer,
  BOB,
  CAROL,
  PEOPLE,
  tokenFileText,
  writeAccessFiles,
} from "../auth/access_fixtures.ts";
import { allow, allowAll, policyText, users } from "../auth/policy_fixtures.ts";

const POLICY = policyText([
  allow(users("alice"), ["team-a", "team-b"], ["clusters"], ["proxy"]),
  allow(users("bob"), ["team-a"], ["clusters"], ["get"]),
  allowAll(users("carol"), ["team-a"]),
]);

/** The tunnel's path for cluster blue of team-a. */
const CLIENT = "/apis/v1alpha2/namespaces/team-a/clusters/blue/client";

/**
 * A TCP echo server: the sockets it holds, each echoing what it reads,
 * and its caller's end.
 */
function echoServer() {
  const sockets = new Set<Socket>();
  /** Sockets whose caller has half-closed (ended its writing side). */
  const ended = new Set<Socket>();
  const server: Server = createServer({ allowHalfOpen: true }, (socket) => {
    sockets.add(socket);
    socket.on("data", (chunk) => socket.write(chunk));
    // A half-close echoed too: the server ends once its caller has.
    socket.on("end", () => {
      ended.add(socket);
      socket.end();
    });
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => socket.destroy());
  });
  const listening = new Promise<void>((resolve) =>
    server.listen(0, "127.0.0.1", resolve)
  );
  return {
    sockets,
    ended,
    listening,
    port: () => (server.address() as { port: number }).port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** A WebSocket echo server: binary messages back as they came. */
function webSocketEcho() {
  const sockets = new Set<WebSocket>();
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    (request) => {
      const { socket, response } = Deno.upgradeWebSocket(request);
      socket.onopen = () => sockets.add(socket);
      socket.onmessage = (event) => socket.send(event.data);
      socket.onclose = () => sockets.delete(socket);
      return response;
    },
  );
  return {
    sockets,
    port: server.addr.port,
    async close() {
      for (const socket of sockets) socket.close();
      await server.shutdown();
    },
  };
}

interface World {
  listener: HttpServer;
  echo: ReturnType<typeof echoServer>;
}

type Mode = "direct" | "apiserver-proxy";

/** The head service of `blue` in the stand-in, its port 10001 served at `port`. */
async function headService(kubeUrl: string, port: number): Promise<void> {
  const created = await kubeFetch(
    kubeUrl,
    "POST",
    "/api/v1/namespaces/team-a/services",
    {
      apiVersion: "v1",
      kind: "Service",
      metadata: {
        name: "blue-head-svc",
        namespace: "team-a",
        annotations: { [SIMULATED_CLIENT_PORT_ANNOTATION]: String(port) },
      },
      spec: { ports: [{ name: "head", port: 10001 }] },
    },
  );
  assert.equal(created.status, 201, await created.text());
}

async function withWorld(
  mode: Mode,
  run: (world: World) => Promise<void>,
  streamMaxDurationMs = 60_000,
) {
  const corral = await startCorral({ crds: [RAY_CRD] });
  const files = await writeAccessFiles({
    policy: POLICY,
    tokens: tokenFileText(PEOPLE),
  });
  const access = await createAccess({
    tokenAuthFile: files.tokenFile,
    tokenReview: false,
    anonymous: false,
    policyFile: files.policyFile,
    auditLogPath: files.auditLog,
    metricsRequireAuth: false,
  }, { log: silentLogger(), reloadIntervalMs: 100 });
  const echo = echoServer();
  const wsEcho = webSocketEcho();
  let clusterAccess: ClusterAccess | undefined;
  let listener: HttpServer | undefined;
  try {
    await echo.listening;
    await readyCluster(corral.kubeUrl, "blue");
    await managedCluster(corral.kubeUrl, "slow", { state: "pending" });
    await headService(corral.kubeUrl, wsEcho.port);
    if (mode === "direct") {
      clusterAccess = directAccess({
        baseUrlOf: () => `http://127.0.0.1:${echo.port()}`,
      });
    } else {
      const kubeConfig = new k8s.KubeConfig();
      kubeConfig.loadFromString(kubeconfigFor(corral.kubeUrl));
      clusterAccess = apiserverProxyAccess(kubeConfig);
    }
    const proxy = new DashboardProxy({
      orchestrator: corral.orchestrator!,
      clusterAccess,
      sessions: new DashboardSessions({ ttlMs: 60_000 }),
      timeoutMs: 10_000,
      maxRequestBytes: 1_000,
      maxResponseBytes: 1_000,
      secure: false,
      log: silentLogger(),
    });
    listener = await serveHttp({
      hostname: "127.0.0.1",
      port: 0,
      handler: await unitRouter(proxy.units(), {
        access,
        orchestrator: corral.orchestrator!,
        streamMaxDurationMs,
      }),
      log: silentLogger(),
    });
    await run({ listener, echo });
  } finally {
    await listener?.shutdown(0);
    clusterAccess?.close();
    await wsEcho.close();
    await echo.close();
    await access.close();
    await files.remove();
    await corral.close();
  }
}

/** A WebSocket to `path` with `token`, open, reading bytes. */
async function open(
  world: World,
  path = CLIENT,
  token = bearer(ALICE),
): Promise<WebSocket> {
  const socket = new WebSocket(
    `ws://127.0.0.1:${world.listener.port}${path}`,
    { headers: { authorization: token } },
  );
  socket.binaryType = "arraybuffer";
  await new Promise((resolve, reject) => {
    socket.onopen = resolve;
    socket.onerror = () => reject(new Error("the WebSocket did not open"));
  });
  return socket;
}

/** Resolves with the first `length` bytes the socket receives. */
function receive(socket: WebSocket, length: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let got = 0;
  return new Promise((resolve) => {
    socket.onmessage = (event) => {
      const chunk = Buffer.from(event.data as ArrayBuffer);
      chunks.push(chunk);
      got += chunk.length;
      if (got >= length) resolve(Buffer.concat(chunks));
    };
  });
}

function closed(socket: WebSocket): Promise<number> {
  return new Promise((resolve) => {
    if (socket.readyState === WebSocket.CLOSED) return resolve(0);
    socket.onclose = (event) => resolve(event.code);
  });
}

/** Bytes of every value, `length` of them. */
function pattern(length: number): Uint8Array {
  const bytes = new Uint8Array(length);
  for (let i = 0; i < length; i++) bytes[i] = (i * 31 + (i >> 8)) & 0xff;
  return bytes;
}

/** Sends `bytes` in messages of uneven sizes, as a TCP reader splits them. */
function sendSplit(socket: WebSocket, bytes: Uint8Array): void {
  const sizes = [1, 2, 125, 126, 127, 65_535, 65_536, 300_000];
  let at = 0;
  for (let i = 0; at < bytes.length; i++) {
    const size = sizes[i % sizes.length];
    socket.send(bytes.subarray(at, at + size));
    at += size;
  }
}

/** The status line of the answer to a raw upgrade request. */
async function rawUpgrade(
  world: World,
  path: string,
  authorization?: string,
): Promise<string> {
  const conn = await Deno.connect({
    hostname: "127.0.0.1",
    port: world.listener.port,
  });
  try {
    const head = [
      `GET ${path} HTTP/1.1`,
      `host: 127.0.0.1:${world.listener.port}`,
      "connection: Upgrade",
      "upgrade: websocket",
      "sec-websocket-version: 13",
      "sec-websocket-key: dGhlIHNhbXBsZSBub25jZQ==",
      ...(authorization ? [`authorization: ${authorization}`] : []),
    ].join("\r\n") + "\r\n\r\n";
    await conn.write(new TextEncoder().encode(head));
    let text = "";
    const buffer = new Uint8Array(4096);
    for (;;) {
      const read = await conn.read(buffer);
      if (read === null) break;
      text += new TextDecoder().decode(buffer.subarray(0, read));
    }
    return text.split("\r\n")[0];
  } finally {
    conn.close();
  }
}

for (const mode of ["direct", "apiserver-proxy"] as const) {
  Deno.test(`client tunnel (${mode}): 1 MiB goes both ways in messages of uneven sizes, for a caller with proxy alone`, async () => {
    await withWorld(mode, async (world) => {
      const socket = await open(world);
      const sent = pattern(1024 * 1024);
      const echoed = receive(socket, sent.length);
      sendSplit(socket, sent);
      assert.ok(Buffer.from(sent).equals(await echoed));
      const end = closed(socket);
      socket.close();
      await end;
    });
  });
}

Deno.test("client tunnel (direct): the caller's close half-closes the port's connection; the port's end closes the WebSocket", async () => {
  await withWorld("direct", async (world) => {
    const first = await open(world);
    const echoed = receive(first, 5);
    first.send(new TextEncoder().encode("hello"));
    assert.equal((await echoed).toString(), "hello");
    const [upstream] = world.echo.sockets;
    const firstClosed = closed(first);
    first.close();
    await firstClosed;
    await until(
      "the port to see the end",
      () => world.echo.ended.has(upstream),
    );
    await until(
      "the port's connection to close",
      () => world.echo.sockets.size === 0,
    );

    const second = await open(world);
    await until("the port's connection", () => world.echo.sockets.size === 1);
    const secondClosed = closed(second);
    for (const socket of world.echo.sockets) socket.end();
    assert.equal(await secondClosed, 1000);
  });
});

Deno.test("client tunnel (direct): a tunnel ends at the streams' bound, its port's connection with it", async () => {
  await withWorld("direct", async (world) => {
    const socket = await open(world);
    await until("the port's connection", () => world.echo.sockets.size === 1);
    await closed(socket);
    await until(
      "the port's connection to close",
      () => world.echo.sockets.size === 0,
    );
  }, 300);
});

Deno.test('client tunnel: refusals before the upgrade: 401 without credentials, 403 for get alone, for "*" and in another namespace; a probe without the upgrade is 204', async () => {
  await withWorld("direct", async (world) => {
    const base = `http://127.0.0.1:${world.listener.port}`;
    const probe = async (path: string, token?: string) => {
      const answer = await fetch(`${base}${path}`, {
        headers: token ? { authorization: token } : {},
      });
      const text = await answer.text();
      return { status: answer.status, text };
    };
    assert.equal((await probe(CLIENT, bearer(ALICE))).status, 204);
    assert.equal((await probe(CLIENT)).status, 401);
    assert.equal((await probe(CLIENT, bearer(BOB))).status, 403);
    assert.equal((await probe(CLIENT, bearer(CAROL))).status, 403);
    const other = "/apis/v1alpha2/namespaces/team-c/clusters/blue/client";
    assert.equal((await probe(other, bearer(ALICE))).status, 403);
    const slow = await probe(
      "/apis/v1alpha2/namespaces/team-a/clusters/slow/client",
      bearer(ALICE),
    );
    assert.deepEqual(JSON.parse(slow.text), {
      code: 9,
      message:
        'Cannot connect to cluster "team-a/slow": the cluster is not ready: its state is "pending"',
    });

    const missing = await probe(
      "/apis/v1alpha2/namespaces/team-b/clusters/blue/client",
      bearer(ALICE),
    );
    assert.equal(missing.status, 404);

    assert.equal(await rawUpgrade(world, CLIENT), "HTTP/1.1 401 Unauthorized");
    assert.equal(
      await rawUpgrade(world, CLIENT, bearer(BOB)),
      "HTTP/1.1 403 Forbidden",
    );
  });
});
