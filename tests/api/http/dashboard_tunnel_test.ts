/**
 * WebSockets through the dashboard proxy behind the real HTTP listener
 * (api/http/server.ts, upgrade.ts, dashboard_tunnel.ts): a fake Ray
 * dashboard on a loopback port that echoes and records what it was sent,
 * the clusters in the Kubernetes stand-in, tokens and policy from files.
 */
import assert from "node:assert/strict";
import { createAccess } from "../../../api/auth/access.ts";
import { DashboardSessions } from "../../../api/auth/dashboard_sessions.ts";
import { DashboardProxy } from "../../../api/http/dashboard_proxy.ts";
import { type HttpServer, serveHttp } from "../../../api/http/server.ts";
import { silentLogger } from "../../../api/log.ts";
import { directAccess } from "../../../orchestrator/cluster_access.ts";
import { startCorral } from "../../harness.ts";
import { unitRouter } from "../../unit_router.ts";
import { until } from "../../eventually.ts";
import { RAY_CRD } from "../../orchestrator/cluster_shapes.ts";
import { readyCluster } from "../../standin/with_standin.ts";
import {
  ALICE,
  bearer,
  PEOPLE,
  tokenFileText,
  writeAccessFiles,
} from "../auth/access_fixtures.ts";
import {
  allow,
  dashboardAccess,
  policyText,
  users,
} from "../auth/policy_fixtures.ts";

const POLICY = policyText([dashboardAccess(users("alice"), ["team-a"])]);

/** Longer than revocation may take (2 s), so a close before it is not the bound's. */
const MAX_TUNNEL_MS = 3_000;
const IDLE_MS = 300;

interface World {
  listener: HttpServer;
  /** The headers of each upgrade the dashboard got. */
  upgrades: Headers[];
  /** The dashboard's WebSockets open now. */
  open: () => number;
  policyFile: string;
}

/** A dashboard: /echo echoes each message, /missing is 404, / is a page. */
function fakeDashboard() {
  const upgrades: Headers[] = [];
  const sockets = new Set<WebSocket>();
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    (request) => {
      const { pathname } = new URL(request.url);
      if (request.headers.get("upgrade") !== "websocket") {
        return new Response("page");
      }
      if (pathname !== "/echo") return new Response("no", { status: 404 });
      upgrades.push(new Headers(request.headers));
      const { socket, response } = Deno.upgradeWebSocket(request);
      socket.onopen = () => sockets.add(socket);
      socket.onmessage = (event) => socket.send(`echo: ${event.data}`);
      socket.onclose = () => sockets.delete(socket);
      return response;
    },
  );
  return {
    upgrades,
    sockets,
    base: `http://127.0.0.1:${server.addr.port}`,
    async close() {
      for (const socket of sockets) socket.close();
      await server.shutdown();
    },
  };
}

async function withWorld(run: (world: World) => Promise<void>) {
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
  const dashboard = fakeDashboard();
  let listener: HttpServer | undefined;
  try {
    await readyCluster(corral.kubeUrl, "blue");
    await readyCluster(corral.kubeUrl, "far");
    const proxy = new DashboardProxy({
      orchestrator: corral.orchestrator!,
      clusterAccess: directAccess({
        baseUrlOf: (service) =>
          service.name === "far-head-svc"
            ? "http://127.0.0.1:9"
            : dashboard.base,
      }),
      sessions: new DashboardSessions({ ttlMs: 60_000 }),
      // Generous: a loaded machine must not turn a handshake into a 504.
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
        // A WebSocket lives as a watch stream does (--watch-max-duration).
        streamMaxDurationMs: MAX_TUNNEL_MS,
      }),
      idleTimeoutMs: IDLE_MS,
      log: silentLogger(),
    });
    await run({
      listener,
      upgrades: dashboard.upgrades,
      open: () => dashboard.sockets.size,
      policyFile: files.policyFile,
    });
  } finally {
    await listener?.shutdown(0);
    await dashboard.close();
    await access.close();
    await files.remove();
    await corral.close();
  }
}

function url(world: World, rest: string, scheme = "ws"): string {
  return `${scheme}://127.0.0.1:${world.listener.port}/apis/v1alpha2/namespaces/team-a/clusters/blue/dashboard${rest}`;
}

/** A WebSocket through the proxy with alice's token, open. */
async function connect(world: World, headers = {}): Promise<WebSocket> {
  // @ts-ignore: Deno's WebSocket takes headers
  const socket: WebSocket = new WebSocket(url(world, "/echo"), {
    headers: { authorization: bearer(ALICE), ...headers },
  });
  await new Promise((resolve, reject) => {
    socket.onopen = resolve;
    socket.onerror = () => reject(new Error("the WebSocket did not open"));
  });
  return socket;
}

function nextMessage(socket: WebSocket): Promise<string> {
  return new Promise((resolve) => {
    socket.onmessage = (event) => resolve(String(event.data));
  });
}

function closed(socket: WebSocket): Promise<number> {
  return new Promise((resolve) => {
    if (socket.readyState === WebSocket.CLOSED) return resolve(0);
    socket.onclose = (event) => resolve(event.code);
  });
}

/** The status line and body of the answer to a raw request. */
async function raw(world: World, head: string): Promise<string> {
  const conn = await Deno.connect({
    hostname: "127.0.0.1",
    port: world.listener.port,
  });
  try {
    await conn.write(new TextEncoder().encode(head));
    let text = "";
    const buffer = new Uint8Array(4096);
    for (;;) {
      const read = await conn.read(buffer);
      if (read === null) break;
      text += new TextDecoder().decode(buffer.subarray(0, read));
    }
    return text;
  } finally {
    conn.close();
  }
}

Deno.test("dashboard tunnel: messages go both ways, and the caller's Authorization and cookies never reach the dashboard", async () => {
  await withWorld(async (world) => {
    const socket = await connect(world, { cookie: "corral-dashboard=x; a=b" });
    const reply = nextMessage(socket);
    socket.send("hello");
    assert.equal(await reply, "echo: hello");
    assert.equal(world.upgrades.length, 1);
    const sent = world.upgrades[0];
    assert.equal(sent.get("authorization"), null);
    assert.equal(sent.get("cookie"), null);
    assert.equal(
      sent.get("x-forwarded-prefix"),
      "/apis/v1alpha2/namespaces/team-a/clusters/blue/dashboard",
    );
    const end = closed(socket);
    socket.close();
    await end;
    await until("the dashboard's end to close", () => world.open() === 0);
  });
});

Deno.test("dashboard tunnel: a quiet WebSocket outlives the listener's idle time-out, and none outlives the tunnel's bound", async () => {
  await withWorld(async (world) => {
    const started = Date.now();
    const socket = await connect(world);
    const end = closed(socket);
    await new Promise((resolve) => setTimeout(resolve, IDLE_MS * 2));
    const reply = nextMessage(socket);
    socket.send("still there");
    assert.equal(await reply, "echo: still there");
    await end;
    const lasted = Date.now() - started;
    // Jittered as a watch stream's: between half the bound and all of it.
    assert.ok(
      lasted >= MAX_TUNNEL_MS / 2 - 100 && lasted < MAX_TUNNEL_MS + 2_000,
      `lasted ${lasted} ms`,
    );
    await until("the dashboard's end to close", () => world.open() === 0);
  });
});

Deno.test("dashboard tunnel: a dashboard without that WebSocket is 404 code 5, one unreachable 502 code 14; other upgrades are answered as plain requests", async () => {
  await withWorld(async (world) => {
    const upgrade = (path: string) =>
      [
        `GET ${path} HTTP/1.1`,
        "Host: corral.test",
        "Connection: Upgrade",
        "Upgrade: websocket",
        "Sec-WebSocket-Version: 13",
        "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==",
        `Authorization: ${bearer(ALICE)}`,
        "",
        "",
      ].join("\r\n");
    const path = new URL(url(world, "/missing", "http")).pathname;
    const missing = await raw(world, upgrade(path));
    assert.match(missing, /^HTTP\/1.1 404 /);
    assert.match(missing, /"code":5/);
    assert.match(missing, /the dashboard has no WebSocket at this path/);
    const far = await raw(world, upgrade(path.replace("/blue/", "/far/")));
    assert.match(far, /^HTTP\/1.1 502 /);
    assert.match(far, /"code":14/);
    assert.match(far, /the dashboard cannot be reached/);
    // An h2c upgrade (curl --http2 sends one) is a plain GET.
    const h2c = await raw(
      world,
      [
        `GET ${new URL(url(world, "/", "http")).pathname} HTTP/1.1`,
        "Host: corral.test",
        "Connection: Upgrade, HTTP2-Settings",
        "Upgrade: h2c",
        "HTTP2-Settings: AAMAAABkAARAAAAAAAIAAAAA",
        `Authorization: ${bearer(ALICE)}`,
        "",
        "",
      ].join("\r\n"),
    );
    assert.match(h2c, /^HTTP\/1.1 200 /);
    assert.match(h2c, /\r\n\r\npage$/);
    assert.equal(world.upgrades.length, 0);
  });
});

Deno.test("dashboard tunnel: the listener's shutdown closes the WebSockets open through it", async () => {
  await withWorld(async (world) => {
    const socket = await connect(world);
    const end = closed(socket);
    await world.listener.shutdown(0);
    await end;
    await until("the dashboard's end to close", () => world.open() === 0);
  });
});

Deno.test("dashboard tunnel: a WebSocket open when its caller loses proxy is closed within 2 s", async () => {
  await withWorld(async (world) => {
    const socket = await connect(world);
    const started = Date.now();
    const end = closed(socket);
    await Deno.writeTextFile(
      world.policyFile,
      policyText([allow(users("alice"), ["team-a"], ["clusters"], ["get"])]),
    );
    await end;
    assert.ok(Date.now() - started < 2_000, `${Date.now() - started} ms`);
    await until("the dashboard's end to close", () => world.open() === 0);
  });
});
