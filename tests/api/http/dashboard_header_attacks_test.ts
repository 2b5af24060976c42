/**
 * What a caller's headers may carry through the dashboard proxy, to the
 * dashboard and to the Kubernetes API server whose service proxy leads to
 * it (dashboard_attack_fixtures.ts has the world, whose recording server
 * plays either): nothing either would act on as coming from someone else.
 */
import assert from "node:assert/strict";
import { ALICE, bearer } from "../auth/access_fixtures.ts";
import {
  call,
  CORRAL_TOKEN,
  dashboard,
  direct,
  opened,
  throughApiServer,
  withWorld,
  type World,
} from "./dashboard_attack_fixtures.ts";

/**
 * What a caller sends that the API server or a dashboard would act on:
 * impersonation, request-header authentication, credentials of either
 * end, forwarding headers it made up, an audit id of its choosing and a
 * header it names hop-by-hop.
 */
const PLANTED: Record<string, string> = {
  "impersonate-user": "system:admin",
  "impersonate-group": "system:masters",
  "impersonate-uid": "0",
  "impersonate-extra-scopes": "all",
  "x-remote-user": "system:admin",
  "x-remote-group": "system:masters",
  "x-remote-extra-scopes": "all",
  "proxy-authorization": "Basic c2VjcmV0",
  "proxy-status": "planted",
  "x-forwarded-for": "6.6.6.6",
  "x-forwarded-host": "evil.test",
  "x-forwarded-proto": "https",
  "x-forwarded-port": "443",
  "x-forwarded-prefix": "/elsewhere",
  "x-forwarded-user": "system:admin",
  "x-real-ip": "6.6.6.6",
  forwarded: "for=6.6.6.6",
  "audit-id": "planted-audit-id",
  connection: "x-named-hop",
  "x-named-hop": "1",
  "x-kept": "kept",
};

/** What Corral sets itself, in place of what the caller said. */
const CORRALS_OWN = {
  "x-forwarded-for": "127.0.0.1",
  "x-forwarded-proto": "http",
  "x-forwarded-prefix":
    "/apis/v1alpha2/namespaces/team-a/clusters/blue/dashboard",
} as Record<string, string>;

/**
 * Fails naming each planted header `headers` carries (all but x-kept), and
 * any header of impersonation or request-header authentication.
 */
function assertClean(headers: Headers, what: string): void {
  const reached = Object.keys(PLANTED).filter((name) =>
    !["x-kept", "connection", "x-forwarded-host"].includes(name) &&
    !(name in CORRALS_OWN) && headers.has(name)
  );
  for (const name of headers.keys()) {
    if (/^(impersonate|x-remote)-/.test(name)) reached.push(name);
  }
  assert.deepEqual(reached, [], `${what}: these reached it`);
  for (const [name, value] of Object.entries(CORRALS_OWN)) {
    assert.equal(headers.get(name), value, `${what}: ${name}`);
  }
  // The Host the caller asked Corral for.
  assert.match(headers.get("x-forwarded-host")!, /^127\.0\.0\.1:\d+$/, what);
  assert.equal(headers.get("x-kept"), "kept", what);
}

/** A WebSocket through the proxy with alice's token and `headers`. */
function connect(world: World, headers: Record<string, string>) {
  const url = `${world.base.replace("http", "ws")}${
    dashboard("team-a", "blue", "/ws")
  }`;
  // @ts-ignore: Deno's WebSocket takes headers
  const socket: WebSocket = new WebSocket(url, {
    headers: { authorization: bearer(ALICE), ...headers },
  });
  return new Promise<WebSocket>((resolve, reject) => {
    socket.onopen = () => resolve(socket);
    socket.onerror = () => reject(new Error("the WebSocket did not open"));
  });
}

async function closeSocket(socket: WebSocket): Promise<void> {
  const closed = new Promise<void>((resolve) =>
    socket.onclose = () => resolve()
  );
  socket.close();
  await closed;
}

for (
  const [mode, accessOf, authorization] of [
    ["direct", direct, null],
    ["apiserver-proxy", throughApiServer, `Bearer ${CORRAL_TOKEN}`],
  ] as const
) {
  Deno.test(`--cluster-access ${mode}: headers the API server or a dashboard would act on never leave Corral, for a request and a WebSocket alike`, async () => {
    await withWorld(accessOf, async (world) => {
      const cookie = await opened(world, ALICE);
      const sets: Record<string, string>[] = [
        { authorization: bearer(ALICE), cookie: "console=1; other=2" },
        { cookie: `${cookie}; console=1` },
      ];
      for (const credentials of sets) {
        const page = await call(
          world,
          "GET",
          dashboard("team-a", "blue", "/api/version"),
          { ...PLANTED, ...credentials },
        );
        assert.equal(page.status, 200, JSON.stringify(page));
        const got = world.recorder.seen.at(-1)!;
        assert.match(got.path, /\/api\/version$/);
        assertClean(got.headers, `${mode}, ${Object.keys(credentials)}`);
        assert.equal(got.headers.get("cookie"), null);
        assert.equal(got.headers.get("authorization"), authorization);
      }
      // The WebSocket client writes Connection itself.
      const { connection: _, "x-named-hop": __, ...planted } = PLANTED;
      const socket = await connect(world, planted);
      const upgrade = world.recorder.seen.at(-1)!;
      assert.ok(upgrade.websocket);
      assertClean(upgrade.headers, `${mode}, WebSocket`);
      assert.equal(upgrade.headers.get("authorization"), authorization);
      await closeSocket(socket);
    });
  });
}
