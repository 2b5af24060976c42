/**
 * The Ray client port's tunnel (api/http/client_tunnel.ts) behind the real
 * HTTP listener (client_tunnel_world.ts): bytes both ways to a TCP echo
 * server standing in for the Ray client server, in direct mode and in
 * apiserver-proxy mode through the Kubernetes stand-in's port forwarding
 * to the head pod; closes passed on both ways; who may open one.
 */
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { until } from "../../eventually.ts";
import {
  ALICE,
  auditLines,
  bearer,
  BOB,
  CAROL,
} from "../auth/access_fixtures.ts";
import { CLIENT, withWorld, type World } from "./client_tunnel_world.ts";

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
  return (await rawAnswer(world, path, authorization)).split("\r\n")[0];
}

/** The whole answer to a raw upgrade request that is refused. */
async function rawAnswer(
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
    return text;
  } finally {
    conn.close();
  }
}

for (const mode of ["direct", "apiserver-proxy"] as const) {
  Deno.test(`client tunnel (${mode}): 1 MiB goes both ways in messages of uneven sizes, for a caller with proxy alone, audited`, async () => {
    await withWorld(mode, async (world) => {
      const socket = await open(world);
      const sent = pattern(1024 * 1024);
      const echoed = receive(socket, sent.length);
      sendSplit(socket, sent);
      assert.ok(Buffer.from(sent).equals(await echoed));
      const end = closed(socket);
      socket.close();
      await end;
      // Written once the tunnel has closed on Corral's side too.
      await until(
        "the tunnel audited",
        async () => (await auditLines(world.auditLog)).length > 0,
      );
      const audited = (await auditLines(world.auditLog)).map((line) => [
        line.user,
        line.verb,
        line.namespace,
        line.name,
        line.path,
        line.status,
      ]);
      assert.deepEqual(audited, [
        ["alice", "proxy", "team-a", "blue", CLIENT, 101],
      ]);
    });
  });
}

for (const mode of ["direct", "apiserver-proxy"] as const) {
  Deno.test(`client tunnel (${mode}): the caller's close ends the port's connection; the port's end closes the WebSocket`, async () => {
    await withWorld(mode, async (world) => {
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
}

Deno.test("client tunnel (apiserver-proxy): a cluster without a running head pod is refused, 503 code 14", async () => {
  await withWorld("apiserver-proxy", async (world) => {
    const answer = await rawAnswer(
      world,
      "/apis/v1alpha2/namespaces/team-a/clusters/lone/client",
      bearer(ALICE),
    );
    assert.equal(answer.split("\r\n")[0], "HTTP/1.1 503 Service Unavailable");
    assert.match(
      answer,
      /"code":14,"message":"Cannot connect to cluster \\"team-a\/lone\\": the cluster has no running head pod to forward a port to"/,
    );
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
