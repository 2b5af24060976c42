/**
 * The dashboard proxy, its sessions and /whoami go through the chain every
 * RPC goes through, as createApi wires them behind the real HTTP listener:
 * a caller over its rate gets 429 code 8 with Retry-After on each of them
 * (sign-outs included), a WebSocket through the proxy counts against the
 * caller's cap of open streams, and another caller's rate and streams are
 * its own; every call is counted in the request metrics under its route
 * and logged in one line, and a namespace this Corral does not serve is
 * refused with the chain's own message.
 */
import assert from "node:assert/strict";
import { DashboardSessions } from "../../../api/auth/dashboard_sessions.ts";
import type { FairUseSettings } from "../../../api/auth/rate_limit.ts";
import { createLogger } from "../../../api/log.ts";
import { type Api, createApi } from "../../../api/mod.ts";
import { type HttpServer, serveHttp } from "../../../api/http/server.ts";
import { silentLogger } from "../../../api/log.ts";
import { directAccess } from "../../../orchestrator/cluster_access.ts";
import { DashboardJobs } from "../../../orchestrator/dashboard_jobs.ts";
import { startCorral } from "../../harness.ts";
import { until } from "../../eventually.ts";
import { RAY_CRD } from "../../orchestrator/cluster_shapes.ts";
import { readyCluster } from "../../standin/with_standin.ts";
import {
  ALICE,
  bearer,
  BOB,
  fileAccess,
  type Person,
} from "../auth/access_fixtures.ts";

const POLICY = `rules:
  - users: ["alice", "bob"]
    namespaces: ["team-a", "team-b"]
    resources: ["clusters"]
    verbs: ["get", "proxy"]
`;

const DASHBOARD = "/apis/v1alpha2/namespaces/team-a/clusters/blue/dashboard";

interface World {
  base: string;
  /** The service's log lines, parsed. */
  lines: Record<string, unknown>[];
  /** The dashboard's WebSockets open now. */
  open: () => number;
}

/** A dashboard: a page at /, an echoing WebSocket at /echo. */
function fakeDashboard() {
  const sockets = new Set<WebSocket>();
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    (request) => {
      if (request.headers.get("upgrade") !== "websocket") {
        return new Response("page");
      }
      const { socket, response } = Deno.upgradeWebSocket(request);
      socket.onopen = () => sockets.add(socket);
      socket.onmessage = (event) => socket.send(`echo: ${event.data}`);
      socket.onclose = () => sockets.delete(socket);
      return response;
    },
  );
  return {
    sockets,
    base: `http://127.0.0.1:${server.addr.port}`,
    async close() {
      for (const socket of sockets) socket.close();
      await server.shutdown();
    },
  };
}

/** createApi as main.ts calls it, serving team-a only, behind a listener. */
async function withWorld(
  fairUse: FairUseSettings,
  run: (world: World) => Promise<void>,
): Promise<void> {
  const corral = await startCorral({ crds: [RAY_CRD] });
  const files = await fileAccess({ policy: POLICY });
  const dashboard = fakeDashboard();
  const lines: Record<string, unknown>[] = [];
  let api: Api | undefined;
  let listener: HttpServer | undefined;
  try {
    await readyCluster(corral.kubeUrl, "blue");
    const access = directAccess({ baseUrlOf: () => dashboard.base });
    api = await createApi({
      orchestrator: corral.orchestrator!,
      access: files.access,
      clusterApiVersion: "ray.io/v1",
      namespaces: ["team-a"],
      maxBodyBytes: 64 * 1024,
      version: "test",
      fairUse,
      log: createLogger({
        format: "json",
        write: (line) => lines.push(JSON.parse(line)),
      }),
      dashboardProxy: {
        clusterAccess: access,
        jobs: new DashboardJobs({
          access,
          timeoutMs: 10_000,
          maxResponseBytes: 1_000,
        }),
        sessions: new DashboardSessions({ ttlMs: 60_000 }),
        timeoutMs: 10_000,
        maxRequestBytes: 1_000,
        maxResponseBytes: 1_000,
      },
    });
    listener = await serveHttp({
      hostname: "127.0.0.1",
      port: 0,
      handler: api.http,
      log: silentLogger(),
    });
    await run({
      base: `http://127.0.0.1:${listener.port}`,
      lines,
      open: () => dashboard.sockets.size,
    });
  } finally {
    await listener?.shutdown(0);
    api?.grpc.forceShutdown();
    await dashboard.close();
    await files.close();
    await corral.close();
  }
}

function get(
  world: World,
  path: string,
  init: RequestInit = {},
  who: Person = ALICE,
) {
  return fetch(`${world.base}${path}`, {
    ...init,
    headers: { authorization: bearer(who), ...init.headers },
  });
}

/** A WebSocket through the proxy with `who`'s token: open, or refused. */
function connect(world: World, who: Person = ALICE): Promise<WebSocket> {
  const url = `${world.base.replace("http", "ws")}${DASHBOARD}/echo`;
  // @ts-ignore: Deno's WebSocket takes headers
  const socket: WebSocket = new WebSocket(url, {
    headers: { authorization: bearer(who) },
  });
  return new Promise((resolve, reject) => {
    socket.onopen = () => resolve(socket);
    socket.onerror = () => reject(new Error("the WebSocket did not open"));
  });
}

function closed(socket: WebSocket): Promise<void> {
  return new Promise((resolve) => {
    if (socket.readyState === WebSocket.CLOSED) return resolve();
    socket.onclose = () => resolve();
  });
}

/** No token comes back within a test: a burst, then nothing. */
const SLOW = { perSecond: 0.0001 };

Deno.test("the dashboard proxy, its sessions and whoami share the caller's rate with the API: past it, 429 code 8 with Retry-After, and another caller's rate is untouched", async () => {
  await withWorld(
    { rate: { ...SLOW, burst: 3 }, maxStreams: 0 },
    async (world) => {
      for (let i = 0; i < 3; i++) {
        const answer = await get(world, `${DASHBOARD}/`);
        assert.equal(answer.status, 200, await answer.text());
      }
      const calls = [
        ["GET", `${DASHBOARD}/`],
        ["POST", `${DASHBOARD}:session`],
        ["DELETE", `${DASHBOARD}:session`],
        ["GET", "/apis/v1alpha2/whoami"],
      ];
      for (
        const [method, path] of [
          ...calls,
          ["GET", "/apis/v1alpha2/namespaces/team-a/clusters/blue"],
        ]
      ) {
        const answer = await get(world, path, { method });
        const body = await answer.json();
        assert.equal(answer.status, 429, `${method} ${path}`);
        assert.equal(body.code, 8, JSON.stringify(body));
        assert.ok(answer.headers.get("retry-after"), `${method} ${path}`);
      }
      // bob's burst is his own: alice's flood took none of it.
      for (const [method, path] of calls.slice(0, 3)) {
        const answer = await get(world, path, { method }, BOB);
        assert.equal(answer.status, 200, `bob: ${method} ${path}`);
        await answer.body?.cancel();
      }
    },
  );
});

Deno.test("a WebSocket through the dashboard proxy counts against the caller's cap of open streams, not against another caller's", async () => {
  await withWorld(
    { rate: { perSecond: 1000, burst: 1000 }, maxStreams: 2 },
    async (world) => {
      const first = await connect(world);
      const second = await connect(world);
      await assert.rejects(connect(world), /did not open/);
      const refused = await get(world, `${DASHBOARD}/echo`, {
        headers: {
          connection: "Upgrade",
          upgrade: "websocket",
          "sec-websocket-version": "13",
          "sec-websocket-key": "dGhlIHNhbXBsZSBub25jZQ==",
        },
      });
      assert.equal(refused.status, 429);
      assert.equal((await refused.json()).code, 8);
      // bob's cap is his own.
      const bobs = await connect(world, BOB);
      const bobGone = closed(bobs);
      bobs.close();
      await bobGone;
      await until("bob's WebSocket to close", () => world.open() === 2);
      // One closed: its place is free again.
      const gone = closed(first);
      first.close();
      await gone;
      await until("the dashboard's end to close", () => world.open() === 1);
      let third: WebSocket | undefined;
      await until("a WebSocket to open in the freed place", async () => {
        third = await connect(world).catch(() => undefined);
        return third !== undefined;
      });
      for (const socket of [second, third!]) {
        const end = closed(socket);
        socket.close();
        await end;
      }
    },
  );
});

Deno.test("every call through the dashboard proxy is counted under its route and logged in one line; an unserved namespace is refused as the API refuses it", async () => {
  await withWorld(
    { rate: { perSecond: 1000, burst: 1000 }, maxStreams: 0 },
    async (world) => {
      assert.equal(await (await get(world, `${DASHBOARD}/`)).text(), "page");
      const unserved = await get(
        world,
        "/apis/v1alpha2/namespaces/team-b/clusters/blue/dashboard/",
      );
      assert.equal(unserved.status, 403);
      const api = await get(
        world,
        "/apis/v1alpha2/namespaces/team-b/clusters/blue",
      );
      assert.equal(api.status, 403);
      const [proxied, direct] = [await unserved.json(), await api.json()];
      assert.match(
        proxied.message,
        /^Cannot proxy to cluster "team-b\/blue": namespace "team-b" is not served by this Corral \(it serves "team-a"\)$/,
      );
      assert.equal(
        proxied.message.slice(proxied.message.indexOf(":")),
        direct.message.slice(direct.message.indexOf(":")),
      );

      const metrics = await (await fetch(`${world.base}/metrics`)).text();
      const route =
        "GET /apis/v1alpha2/namespaces/{namespace}/clusters/{name}/dashboard/{path=**}";
      assert.match(
        metrics,
        new RegExp(
          `corral_requests_total\\{transport="http",rpc="${
            route.replace(/[{}=*]/g, (c) => `\\${c}`)
          }",code="0"\\} 1`,
        ),
      );
      assert.match(
        metrics,
        /rpc="GET \/apis\/v1alpha2\/namespaces\/\{namespace\}\/clusters\/\{name\}\/dashboard\/\{path=\*\*\}",code="7"\} 1/,
      );
      const handled = world.lines.filter((line) =>
        line.msg === "Handled request" && line.rpc === "corral.Dashboard/Proxy"
      );
      assert.deepEqual(
        handled.map((line) => [line.namespace, line.user, line.code]),
        [["team-a", "alice", 0], ["team-b", "alice", 7]],
      );
    },
  );
});
