/**
 * WebSockets through the dashboard proxy, end to end: main.ts in dev mode
 * with a token file and a policy, a cluster made ready by the simulated
 * operator, a job submitted to its simulated Ray dashboard, and the job's
 * log tail (GET .../api/jobs/{id}/logs/tail, a WebSocket) read with Deno's
 * WebSocket client through Corral, on the way Corral takes in dev mode
 * (the stand-in's service proxy). Refusals are read off the raw answer to
 * an upgrade request: 401 without credentials, 403 without `proxy`, 403
 * for another site's Origin.
 */
import assert from "node:assert/strict";
import {
  DEV_PERMISSIONS,
  EMBEDDED,
  type MainProcess,
  NO_SHUTDOWN_DELAY,
  startMain,
} from "../../main_process.ts";
import { until } from "../../eventually.ts";
import {
  allowAllWithProxy,
  policyText,
  readOnly,
  users,
} from "../auth/policy_fixtures.ts";

const ALICE = "alice-token-0123456789abcdef0123456789";
const BOB = "bob-token-0123456789abcdef0123456789abc";

const POLICY = policyText([
  allowAllWithProxy(users("alice"), ["team-a"]),
  readOnly(users("bob"), ["team-a"]),
]);

const DASHBOARD = "/apis/v1alpha2/namespaces/team-a/clusters/blue/dashboard";

interface World {
  corral: MainProcess;
  /** "127.0.0.1:PORT" */
  host: string;
}

async function withCorral(run: (world: World) => Promise<void>) {
  const dir = await Deno.makeTempDir({ prefix: "corral-websocket-" });
  await Deno.writeTextFile(
    `${dir}/tokens.csv`,
    `${ALICE},alice,1,""\n${BOB},bob,2,""\n`,
  );
  await Deno.writeTextFile(`${dir}/policy.yaml`, POLICY);
  const corral = await startMain({
    permissions: DEV_PERMISSIONS,
    args: [
      ...EMBEDDED,
      ...NO_SHUTDOWN_DELAY,
      "--token-auth-file",
      `${dir}/tokens.csv`,
      "--authorization-policy-file",
      `${dir}/policy.yaml`,
    ],
    startTimeoutMs: 60_000,
  });
  try {
    await run({ corral, host: new URL(corral.http).host });
  } finally {
    await corral.stop();
    await Deno.remove(dir, { recursive: true });
  }
}

async function call(
  world: World,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${world.corral.http}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${ALICE}`,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : {} };
}

/** Cluster team-a/blue, ready, with a job submitted to its dashboard. */
async function readyClusterWithJob(world: World): Promise<string> {
  const template = await call(
    world,
    "POST",
    "/apis/v1/namespaces/team-a/compute_templates",
    { name: "small", namespace: "team-a", cpu: 1, memory: 1 },
  );
  assert.equal(template.status, 200, JSON.stringify(template.body));
  const created = await call(
    world,
    "POST",
    "/apis/v1alpha2/namespaces/team-a/clusters",
    {
      name: "blue",
      namespace: "team-a",
      user: "alice",
      version: "2.9.0",
      clusterSpec: { headGroupSpec: { computeTemplate: "small" } },
    },
  );
  assert.equal(created.status, 200, JSON.stringify(created.body));
  await until("cluster blue to be ready", async () => {
    const got = await call(
      world,
      "GET",
      "/apis/v1alpha2/namespaces/team-a/clusters/blue",
    );
    return got.body.clusterState === "ready";
  }, 30_000);
  const submitted = await call(world, "POST", `${DASHBOARD}/api/jobs/`, {
    entrypoint: "echo hello",
  });
  assert.equal(submitted.status, 200, JSON.stringify(submitted.body));
  return submitted.body.submission_id as string;
}

/** The messages of a WebSocket until it closes, and how it closed. */
function messagesOf(
  socket: WebSocket,
): Promise<{ messages: string[]; code: number }> {
  const messages: string[] = [];
  return new Promise((resolve, reject) => {
    socket.onmessage = (event) => messages.push(String(event.data));
    socket.onerror = (event) =>
      reject(new Error(`WebSocket error: ${(event as ErrorEvent).message}`));
    socket.onclose = (event) => resolve({ messages, code: event.code });
  });
}

/** The status line of the answer to a raw upgrade request to `path`. */
async function upgradeStatus(
  world: World,
  path: string,
  headers: Record<string, string>,
): Promise<string> {
  const [hostname, port] = world.host.split(":");
  const conn = await Deno.connect({ hostname, port: Number(port) });
  try {
    const lines = [
      `GET ${path} HTTP/1.1`,
      `Host: ${world.host}`,
      "Connection: Upgrade",
      "Upgrade: websocket",
      "Sec-WebSocket-Version: 13",
      "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==",
      ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
    ];
    await conn.write(new TextEncoder().encode(lines.join("\r\n") + "\r\n\r\n"));
    const buffer = new Uint8Array(4096);
    const read = await conn.read(buffer);
    return new TextDecoder().decode(buffer.subarray(0, read ?? 0))
      .split("\r\n")[0];
  } finally {
    conn.close();
  }
}

Deno.test("dashboard WebSocket: a job's log tail arrives through Corral, by token and by cookie, and the socket closes at the job's end", async () => {
  await withCorral(async (world) => {
    const id = await readyClusterWithJob(world);
    const tail = `ws://${world.host}${DASHBOARD}/api/jobs/${id}/logs/tail`;
    // @ts-ignore: Deno's WebSocket takes headers
    const byToken = new WebSocket(tail, {
      headers: { authorization: `Bearer ${ALICE}` },
    });
    const got = await messagesOf(byToken);
    assert.equal(got.code, 1000);
    assert.match(got.messages.join(""), /echo hello/);

    // A browser: a cookie from the session route, and its own Origin.
    const session = await fetch(`${world.corral.http}${DASHBOARD}:session`, {
      method: "POST",
      headers: { authorization: `Bearer ${ALICE}` },
    });
    assert.equal(session.status, 200);
    await session.body?.cancel();
    const cookie = session.headers.get("set-cookie")!.split(";")[0];
    // @ts-ignore: Deno's WebSocket takes headers
    const byCookie = new WebSocket(tail, {
      headers: { cookie, origin: world.corral.http },
    });
    const again = await messagesOf(byCookie);
    assert.equal(again.code, 1000);
    assert.equal(again.messages.join(""), got.messages.join(""));

    const audit = world.corral.records.filter((r) =>
      r.verb === "proxy" && String(r.path).endsWith("/logs/tail")
    );
    assert.deepEqual(audit.map((r) => [r.user, r.status, r.via]), [
      ["alice", 101, "credentials"],
      ["alice", 101, "cookie"],
    ]);
  });
});

Deno.test("dashboard WebSocket: no credentials, no proxy right, or another site's Origin: refused before the dashboard", async () => {
  await withCorral(async (world) => {
    const id = await readyClusterWithJob(world);
    const path = `${DASHBOARD}/api/jobs/${id}/logs/tail`;
    assert.match(await upgradeStatus(world, path, {}), /^HTTP\/1.1 401 /);
    assert.match(
      await upgradeStatus(world, path, { authorization: `Bearer ${BOB}` }),
      /^HTTP\/1.1 403 /,
    );
    assert.match(
      await upgradeStatus(world, path, {
        authorization: `Bearer ${ALICE}`,
        origin: "https://attacker.example",
      }),
      /^HTTP\/1.1 403 /,
    );
    // Alice, from Corral's own origin, is let through.
    assert.match(
      await upgradeStatus(world, path, {
        authorization: `Bearer ${ALICE}`,
        origin: world.corral.http,
      }),
      /^HTTP\/1.1 101 /,
    );
    // The WebSocket client's own refusal, for bob.
    // @ts-ignore: Deno's WebSocket takes headers
    const refused = new WebSocket(`ws://${world.host}${path}`, {
      headers: { authorization: `Bearer ${BOB}` },
    });
    await assert.rejects(messagesOf(refused), /WebSocket error/);
  });
});
