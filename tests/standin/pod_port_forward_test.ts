/**
 * The stand-in's pods/portforward (standin/pod_port_forward.ts), read as a
 * port forwarding client reads it: a WebSocket of v4.channel.k8s.io whose
 * channels 0 and 1 each start with the port's number, data on channel 0
 * to and from the pod port's local stand-in (a TCP echo server here),
 * including what the client sends before the stand-in has connected, an
 * error on channel 1 when there is none; and the API server's refusals.
 */
import assert from "node:assert/strict";
import { createServer } from "node:net";
import { SIMULATED_POD_PORT_ANNOTATION_PREFIX } from "../../standin/pod_port_forward.ts";
import { kubeFetch, withStandin } from "./with_standin.ts";

const PODS = "/api/v1/namespaces/team-a/pods";

async function pod(
  base: string,
  name: string,
  phase: string,
  annotations: Record<string, string> = {},
): Promise<void> {
  const created = await kubeFetch(base, "POST", PODS, {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name, namespace: "team-a", annotations },
    spec: { containers: [{ name: "ray-head", image: "rayproject/ray" }] },
  });
  assert.equal(created.status, 201, await created.text());
  const patched = await kubeFetch(base, "PATCH", `${PODS}/${name}/status`, {
    status: { phase },
  });
  assert.equal(patched.status, 200, await patched.text());
}

/** The messages of a port forwarding WebSocket, as they come. */
function opened(url: string) {
  const socket = new WebSocket(url, ["v4.channel.k8s.io"]);
  socket.binaryType = "arraybuffer";
  const messages: number[][] = [];
  const waiters: (() => void)[] = [];
  socket.onmessage = (event) => {
    messages.push([...new Uint8Array(event.data as ArrayBuffer)]);
    waiters.splice(0).forEach((wake) => wake());
  };
  const closed = new Promise<void>((resolve) => {
    socket.onclose = () => {
      waiters.splice(0).forEach((wake) => wake());
      resolve();
    };
  });
  return {
    socket,
    closed,
    /** The first `count` messages, once they have come. */
    async first(count: number): Promise<number[][]> {
      while (messages.length < count) {
        if (socket.readyState === WebSocket.CLOSED) break;
        await new Promise<void>((wake) => waiters.push(wake));
      }
      return messages.slice(0, count);
    },
  };
}

Deno.test("pods/portforward: the port's number on both channels, then bytes both ways on channel 0 to the pod port's stand-in", async () => {
  const server = createServer((socket) => socket.pipe(socket));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const local = (server.address() as { port: number }).port;
  try {
    await withStandin(async (standin) => {
      await pod(standin.url, "head", "Running", {
        [`${SIMULATED_POD_PORT_ANNOTATION_PREFIX}10001`]: String(local),
      });
      const ws = opened(
        `${
          standin.url.replace(/^http/, "ws")
        }${PODS}/head/portforward?ports=10001`,
      );
      await new Promise((resolve) => ws.socket.onopen = resolve);
      assert.equal(ws.socket.protocol, "v4.channel.k8s.io");
      assert.deepEqual(await ws.first(2), [[0, 0x11, 0x27], [1, 0x11, 0x27]]);
      ws.socket.send(Uint8Array.of(0, 104, 105));
      assert.deepEqual((await ws.first(3))[2], [0, 104, 105]);
      ws.socket.close();
      await ws.closed;
    });
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
});

Deno.test("pods/portforward: bytes the client sends at once on open reach the pod port's stand-in, ahead of what it sends later", async () => {
  const server = createServer((socket) => socket.pipe(socket));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const local = (server.address() as { port: number }).port;
  try {
    await withStandin(async (standin) => {
      await pod(standin.url, "head", "Running", {
        [`${SIMULATED_POD_PORT_ANNOTATION_PREFIX}10001`]: String(local),
      });
      const ws = opened(
        `${
          standin.url.replace(/^http/, "ws")
        }${PODS}/head/portforward?ports=10001`,
      );
      // "hi" before anything has come back, "!" once the prefixes have.
      ws.socket.onopen = () => ws.socket.send(Uint8Array.of(0, 104, 105));
      assert.equal((await ws.first(2)).length, 2);
      ws.socket.send(Uint8Array.of(0, 33));
      // The echo comes back in as many messages as TCP makes of it.
      let echoed: number[] = [];
      for (let count = 3; echoed.at(-1) !== 33; count++) {
        const messages = await ws.first(count);
        if (messages.length < count) break;
        echoed = messages.slice(2).flatMap((message) => message.slice(1));
      }
      assert.deepEqual(echoed, [104, 105, 33]);
      ws.socket.close();
      await ws.closed;
    });
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
});

Deno.test("pods/portforward: a port with no stand-in is an error on channel 1, then the close", async () => {
  await withStandin(async (standin) => {
    await pod(standin.url, "head", "Running");
    const ws = opened(
      `${
        standin.url.replace(/^http/, "ws")
      }${PODS}/head/portforward?ports=10001`,
    );
    await ws.closed;
    const messages = await ws.first(3);
    assert.equal(messages[2][0], 1);
    assert.match(
      new TextDecoder().decode(Uint8Array.from(messages[2].slice(1))),
      /^error forwarding port 10001 to pod head: /,
    );
  });
});

Deno.test("pods/portforward refuses a pod that is not running, two ports, and a request that is not a WebSocket of v4.channel.k8s.io: 400", async () => {
  await withStandin(async (standin) => {
    await pod(standin.url, "pending", "Pending");
    await pod(standin.url, "head", "Running");
    const cases: [string, HeadersInit][] = [
      ["pending/portforward?ports=10001", { upgrade: "websocket" }],
      ["head/portforward?ports=10001,8265", { upgrade: "websocket" }],
      ["head/portforward?ports=10001", {}],
    ];
    for (const [path, headers] of cases) {
      const answer = await fetch(`${standin.url}${PODS}/${path}`, { headers });
      const body = await answer.json();
      assert.equal(answer.status, 400, `${path}: ${JSON.stringify(body)}`);
      assert.match(body.message, /^unable to upgrade connection: /);
    }
  });
});
