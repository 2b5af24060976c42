/**
 * The HTTP listener: time-outs against slow and idle clients, URL and header
 * limits, cancellation when the client goes away, graceful shutdown.
 */
import { probeHandlers } from "../service/probe_handlers.ts";
import assert from "node:assert/strict";
import net from "node:net";
import { type HttpServer, serveHttp } from "../../../api/http/server.ts";
import { silentLogger } from "../../../api/log.ts";
import { wholeResponse } from "../../../api/http/answers.ts";
import { createGateway } from "../../../api/http/gateway.ts";
import { openAccess } from "../../../api/auth/access.ts";
import { createDispatcher } from "../../../api/service/dispatcher.ts";
import { schema } from "../../harness.ts";
import { until } from "../../eventually.ts";
import type { Handler } from "../../../api/http/http_request.ts";

async function withServer(
  handler: Handler,
  options: {
    headerTimeoutMs?: number;
    idleTimeoutMs?: number;
    bodyTimeoutMs?: number;
    requestTimeoutMs?: number;
    maxInflightBodyBytes?: number;
  },
  fn: (server: HttpServer) => Promise<void>,
): Promise<void> {
  const server = await serveHttp({
    hostname: "127.0.0.1",
    port: 0,
    handler,
    log: silentLogger(),
    ...options,
  });
  try {
    await fn(server);
  } finally {
    await server.shutdown(1_000);
  }
}

const hello: Handler = () => Promise.resolve(new Response("hello"));

/** Reads until the server closes the connection; what it sent, and how. */
async function readUntilClosed(
  conn: Deno.Conn,
  limitMs = 10_000,
): Promise<{ text: string; closed: boolean }> {
  const buffer = new Uint8Array(64 * 1024);
  let text = "";
  const timer = setTimeout(() => conn.close(), limitMs);
  try {
    for (;;) {
      const n = await conn.read(buffer);
      if (n === null) return { text, closed: true };
      text += new TextDecoder().decode(buffer.subarray(0, n));
    }
  } catch (error) {
    // Reset by the server: closed too. Closed by our own limit: not.
    return { text, closed: !(error instanceof Deno.errors.BadResource) };
  } finally {
    clearTimeout(timer);
    try {
      conn.close();
    } catch {
      // closed already
    }
  }
}

async function send(conn: Deno.Conn, text: string): Promise<void> {
  await conn.write(new TextEncoder().encode(text));
}

Deno.test("serveHttp() writes a whole answer as it was made: its text or bytes, with their length in bytes", async () => {
  const text = JSON.stringify({ name: "café ☕", note: "x".repeat(3000) });
  const bytes = new Uint8Array([0x1f, 0x8b, 0, 255, 7]);
  const handler: Handler = (request) =>
    Promise.resolve(
      new URL(request.url).pathname === "/text"
        ? wholeResponse(text, { "content-type": "application/json" })
        : wholeResponse(bytes, { "content-type": "application/octet-stream" }),
    );
  await withServer(handler, {}, async (server) => {
    const answer = await fetch(`http://127.0.0.1:${server.port}/text`);
    assert.equal(answer.status, 200);
    assert.equal(answer.headers.get("content-type"), "application/json");
    assert.equal(
      answer.headers.get("content-length"),
      String(new TextEncoder().encode(text).byteLength),
    );
    assert.equal(await answer.text(), text);

    const binary = await fetch(`http://127.0.0.1:${server.port}/bytes`);
    assert.equal(binary.headers.get("content-length"), "5");
    assert.deepEqual(new Uint8Array(await binary.arrayBuffer()), bytes);
  });
});

Deno.test("serveHttp() answers HEAD of a whole answer with its headers and no body, and hands a POST its body and content type", async () => {
  const handler: Handler = async (request) => {
    if (request.method === "POST") {
      return new Response(
        `${request.headers.get("content-type")} ${await new Response(
          request.body,
        ).text()}`,
      );
    }
    return wholeResponse('{"a":1}', { "content-type": "application/json" });
  };
  await withServer(handler, {}, async (server) => {
    const base = `http://127.0.0.1:${server.port}`;
    const head = await fetch(`${base}/x`, { method: "HEAD" });
    assert.equal(head.status, 200);
    assert.equal(head.headers.get("content-type"), "application/json");
    assert.equal(await head.text(), "");
    // The connection is still good for the next request.
    const got = await fetch(`${base}/x`);
    assert.equal(await got.text(), '{"a":1}');
    const posted = await fetch(`${base}/x`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: '{"b":2}',
    });
    assert.equal(await posted.text(), 'application/json {"b":2}');
  });
});

Deno.test("serveHttp() gives the handler the request's path as sent, headers and all; an absolute-form target is resolved", async () => {
  const seen: { url: string; header: string | null; method: string }[] = [];
  const handler: Handler = async (request) => {
    await request.body?.cancel();
    seen.push({
      url: request.url,
      header: request.headers.get("x-thing"),
      method: request.method,
    });
    return new Response("ok");
  };
  await withServer(handler, {}, async (server) => {
    const conn = await Deno.connect({
      hostname: "127.0.0.1",
      port: server.port,
    });
    // "//x/y" is a path (RFC 9112 origin-form), not a host and a path.
    await send(
      conn,
      "GET //x/y?a=1 HTTP/1.1\r\nHost: h\r\nX-Thing: one\r\n\r\n" +
        "GET http://elsewhere.example/p/q HTTP/1.1\r\nHost: h\r\n\r\n" +
        "DELETE /d HTTP/1.1\r\nHost: h\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
    );
    const reply = new Uint8Array(4096);
    let read = 0;
    for (;;) {
      const n = await conn.read(reply.subarray(read));
      if (n === null) break;
      read += n;
    }
    conn.close();
    assert.deepEqual(seen, [
      { url: "http://corral.invalid//x/y?a=1", header: "one", method: "GET" },
      { url: "http://elsewhere.example/p/q", header: null, method: "GET" },
      { url: "http://corral.invalid/d", header: null, method: "DELETE" },
    ]);
  });
});

Deno.test("serveHttp() closes a connection whose request headers do not arrive within the header time-out", async () => {
  let handled = 0;
  await withServer(
    () => {
      handled++;
      return hello(new Request("http://x"));
    },
    { headerTimeoutMs: 200, idleTimeoutMs: 60_000 },
    async (server) => {
      const conn = await Deno.connect({
        hostname: "127.0.0.1",
        port: server.port,
      });
      await send(conn, "GET / HTTP/1.1\r\nHost: x\r\nX-Slow: ");
      const { text, closed } = await readUntilClosed(conn);
      assert.ok(closed, "the server closed the connection");
      assert.equal(text, "", "without an answer");
      assert.equal(handled, 0);
    },
  );
});

Deno.test("serveHttp() closes a keep-alive connection idle for the idle time-out, after answering", async () => {
  await withServer(
    hello,
    { headerTimeoutMs: 60_000, idleTimeoutMs: 300 },
    async (server) => {
      const conn = await Deno.connect({
        hostname: "127.0.0.1",
        port: server.port,
      });
      await send(conn, "GET / HTTP/1.1\r\nHost: x\r\n\r\n");
      const { text, closed } = await readUntilClosed(conn);
      assert.match(text, /^HTTP\/1\.1 200 OK\r\n/);
      assert.match(text, /hello/);
      assert.ok(closed, "the server closed the idle connection");
    },
  );
});

Deno.test("serveHttp() keeps a keep-alive connection that sends its next request in time", async () => {
  await withServer(
    hello,
    { headerTimeoutMs: 60_000, idleTimeoutMs: 5_000 },
    async (server) => {
      const conn = await Deno.connect({
        hostname: "127.0.0.1",
        port: server.port,
      });
      await send(
        conn,
        "GET /1 HTTP/1.1\r\nHost: x\r\n\r\nGET /2 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
      );
      const { text } = await readUntilClosed(conn);
      assert.equal(text.match(/HTTP\/1\.1 200 OK/g)?.length, 2, text);
    },
  );
});

Deno.test("serveHttp() answers 414 to a URL over 8 KiB and 431 to headers over 16 KiB", async () => {
  let handled = 0;
  await withServer(
    () => {
      handled++;
      return hello(new Request("http://x"));
    },
    {},
    async (server) => {
      const base = `http://127.0.0.1:${server.port}`;
      const long = await fetch(`${base}/${"a".repeat(9 * 1024)}`);
      assert.equal(long.status, 414);
      const body = await long.json();
      assert.equal(body.code, 3);
      assert.match(body.message, /URL too long/);

      const conn = await Deno.connect({
        hostname: "127.0.0.1",
        port: server.port,
      });
      await send(
        conn,
        `GET / HTTP/1.1\r\nHost: x\r\nX-Big: ${"b".repeat(17 * 1024)}\r\n\r\n`,
      );
      const { text } = await readUntilClosed(conn);
      assert.match(text, /^HTTP\/1\.1 431 /);

      // Just under the limits is fine.
      const ok = await fetch(`${base}/${"a".repeat(7 * 1024)}`, {
        headers: { "x-big": "b".repeat(8 * 1024) },
      });
      assert.equal(ok.status, 200);
      await ok.body?.cancel();
      assert.equal(handled, 1);
    },
  );
});

Deno.test("serveHttp() aborts the request's signal when the client goes away mid-request", async () => {
  const { promise: aborted, resolve } = Promise.withResolvers<unknown>();
  const { promise: started, resolve: start } = Promise.withResolvers<void>();
  await withServer(
    (request) => {
      start();
      const signal = request.signal;
      signal.addEventListener("abort", () => resolve(signal.reason));
      // Answers only once the client is gone.
      return aborted.then(() => new Response("too late"));
    },
    {},
    async (server) => {
      const conn = await Deno.connect({
        hostname: "127.0.0.1",
        port: server.port,
      });
      await send(conn, "GET /slow HTTP/1.1\r\nHost: x\r\n\r\n");
      await started;
      conn.close();
      await aborted;
      assert.ok(true, "the handler's signal aborted");
    },
  );
});

Deno.test("serveHttp() shutdown() refuses new connections and lets requests in flight finish", async () => {
  const { promise: released, resolve: release } = Promise.withResolvers<void>();
  const { promise: started, resolve: start } = Promise.withResolvers<void>();
  const server = await serveHttp({
    hostname: "127.0.0.1",
    port: 0,
    log: silentLogger(),
    handler: async () => {
      start();
      await released;
      return new Response("finished");
    },
    // The listening socket closes once nothing has arrived for this long
    // (quiet.ts): a connection the test makes before then is one more.
    quietMs: 1,
  });
  const base = `http://127.0.0.1:${server.port}`;
  const inFlight = fetch(`${base}/slow`).then(async (r) => ({
    status: r.status,
    text: await r.text(),
  }));
  await started;
  assert.equal(server.inFlight, 1);
  let shutDown = false;
  const shutdown = server.shutdown(30_000).then(() => shutDown = true);
  await until("a new connection is refused", async () => {
    try {
      (await Deno.connect({ hostname: "127.0.0.1", port: server.port }))
        .close();
      return false;
    } catch (error) {
      if (error instanceof Deno.errors.ConnectionRefused) return true;
      // A probe that reached the socket as it closed (the event loop late
      // on a busy machine): not served either; the next one is refused.
      if (error instanceof Deno.errors.ConnectionReset) return false;
      throw error;
    }
  });
  assert.equal(shutDown, false, "shutdown waits for the request in flight");
  release();
  assert.deepEqual(await inFlight, { status: 200, text: "finished" });
  await shutdown;
  assert.equal(server.inFlight, 0);
});

Deno.test("serveHttp() shutdown() cuts a request that outlives the grace period", async () => {
  const { promise: started, resolve: start } = Promise.withResolvers<void>();
  const { promise: never, resolve: end } = Promise.withResolvers<Response>();
  const server = await serveHttp({
    hostname: "127.0.0.1",
    port: 0,
    log: silentLogger(),
    handler: () => {
      start();
      return never;
    },
  });
  const conn = await Deno.connect({ hostname: "127.0.0.1", port: server.port });
  await send(conn, "GET /forever HTTP/1.1\r\nHost: x\r\n\r\n");
  await started;
  await server.shutdown(100);
  const { text, closed } = await readUntilClosed(conn);
  assert.ok(closed);
  assert.equal(text, "");
  end(new Response("never sent"));
});

interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** The HTTP/1.1 responses in `text`, framed by Content-Length or chunks. */
function parseResponses(text: string): RawResponse[] {
  const responses: RawResponse[] = [];
  let rest = text;
  while (rest.length > 0) {
    const end = rest.indexOf("\r\n\r\n");
    assert.ok(end > 0, `a response head in ${JSON.stringify(rest)}`);
    const [statusLine, ...lines] = rest.slice(0, end).split("\r\n");
    const status = /^HTTP\/1\.1 (\d{3}) /.exec(statusLine);
    assert.ok(status, `a status line: ${JSON.stringify(statusLine)}`);
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const colon = line.indexOf(":");
      headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1)
        .trim();
    }
    rest = rest.slice(end + 4);
    let body = "";
    if (headers["transfer-encoding"] === "chunked") {
      for (;;) {
        const size = /^([0-9a-f]+)\r\n/i.exec(rest);
        assert.ok(size, `a chunk in ${JSON.stringify(rest)}`);
        const bytes = new TextEncoder().encode(rest.slice(size[0].length));
        const length = parseInt(size[1], 16);
        body += new TextDecoder().decode(bytes.subarray(0, length));
        rest = new TextDecoder().decode(bytes.subarray(length + 2));
        if (length === 0) break;
      }
    } else {
      const length = Number(headers["content-length"]);
      assert.ok(Number.isInteger(length), `Content-Length in ${statusLine}`);
      const bytes = new TextEncoder().encode(rest);
      body = new TextDecoder().decode(bytes.subarray(0, length));
      rest = new TextDecoder().decode(bytes.subarray(length));
    }
    responses.push({ status: Number(status[1]), headers, body });
  }
  return responses;
}

/** Sends `text` over node:net and reads until the server closes. */
function exchange(port: number, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, "127.0.0.1", () => socket.write(text));
    let received = "";
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no close within 5 s; got ${JSON.stringify(received)}`));
    }, 5_000);
    socket.setEncoding("utf8");
    socket.on("data", (chunk: string) => received += chunk);
    socket.on("close", () => {
      clearTimeout(timer);
      resolve(received);
    });
    socket.on("error", () => {});
  });
}

Deno.test("serveHttp() answers every request it cannot hand on with the JSON error body and its status", async (t) => {
  const gateway = createGateway({
    schema: await schema(),
    dispatcher: createDispatcher({
      schema: await schema(),
      handlers: probeHandlers().handlers,
      access: openAccess(),
      log: silentLogger(),
    }),
  });
  const clusters = "/apis/v1alpha2/clusters";
  const create = "/apis/v1alpha2/namespaces/team-a/clusters";
  const close = "Connection: close\r\n";
  /** Request, then [status, code, Allow] of each answer. */
  const cases: [string, string, [number, number, string?][]][] = [
    ["an unknown method", `FOO ${clusters} HTTP/1.1\r\nHost: x\r\n\r\n`, [
      [405, 12, "GET, HEAD"],
    ]],
    ["an unknown method on an unknown path", `FOO /nothing HTTP/1.1\r\n\r\n`, [
      [404, 5],
    ]],
    ["a lower-case method", `get ${clusters} HTTP/1.1\r\n\r\n`, [
      [405, 12, "GET, HEAD"],
    ]],
    ["TRACE", `TRACE ${clusters} HTTP/1.1\r\nHost: x\r\n${close}\r\n`, [
      [405, 12, "GET, HEAD"],
    ]],
    ["TRACK", `TRACK ${create} HTTP/1.1\r\nHost: x\r\n\r\n`, [
      [405, 12, "POST, GET, HEAD"],
    ]],
    ["CONNECT", "CONNECT example.com:443 HTTP/1.1\r\nHost: x\r\n\r\n", [
      [405, 12, ""],
    ]],
    [
      "a method the parser knows",
      `PROPFIND ${clusters} HTTP/1.1\r\nHost: x\r\n${close}\r\n`,
      [
        [405, 12, "GET, HEAD"],
      ],
    ],
    ["no request line", "garbage\r\n\r\n", [[400, 3]]],
    ["HTTP/1.1 without Host", `GET ${clusters} HTTP/1.1\r\n${close}\r\n`, [
      [400, 3],
    ]],
    ["a header line without a colon", `GET / HTTP/1.1\r\nBad Header\r\n\r\n`, [
      [400, 3],
    ]],
    ["an unknown HTTP version", `GET ${clusters} HTTP/9.9\r\n\r\n`, [[400, 3]]],
    [
      "both Content-Length and Transfer-Encoding",
      `POST ${create} HTTP/1.1\r\nContent-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n`,
      [[400, 3]],
    ],
    [
      "headers over the limit",
      `GET ${clusters} HTTP/1.1\r\nX-Big: ${"b".repeat(17 * 1024)}\r\n\r\n`,
      [[431, 8]],
    ],
    [
      "a malformed chunked body",
      `POST ${create} HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n`,
      [[400, 3]],
    ],
    [
      "a malformed request pipelined after a good one",
      `DELETE ${clusters} HTTP/1.1\r\nHost: x\r\n\r\nFOO\r\n\r\n`,
      [[405, 12, "GET, HEAD"], [400, 3]],
    ],
  ];
  await withServer(gateway, {}, async (server) => {
    for (const [name, request, want] of cases) {
      await t.step(name, async () => {
        const text = await exchange(server.port, request);
        const got = parseResponses(text);
        assert.deepEqual(
          got.map((r) => [r.status, JSON.parse(r.body).code, r.headers.allow]),
          want.map(([status, code, allow]) => [status, code, allow]),
          text,
        );
        for (const response of got) {
          assert.equal(response.headers["content-type"], "application/json");
          const body = JSON.parse(response.body);
          assert.deepEqual(Object.keys(body), ["code", "message"], text);
          assert.equal(typeof body.message, "string");
        }
        assert.equal(got.at(-1)!.headers.connection, "close", text);
      });
    }
  });
});

/** Answers once it has read the whole body, with its size. */
const reader: Handler = async (request) => {
  try {
    const body = await new Response(request.body).arrayBuffer();
    return new Response(`read ${body.byteLength}`);
  } catch {
    return new Response("failed", { status: 500 });
  }
};

Deno.test("serveHttp() answers a body trickling in past the body time-out with 408 code 4 and closes the connection", async () => {
  await withServer(reader, { bodyTimeoutMs: 300 }, async (server) => {
    const conn = await Deno.connect({
      hostname: "127.0.0.1",
      port: server.port,
    });
    await send(
      conn,
      "POST /x HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\nab",
    );
    // One byte every 50 ms: the body would take 5 s.
    let trickling = true;
    const trickle = (async () => {
      while (trickling) {
        await new Promise((r) => setTimeout(r, 50));
        await send(conn, "c").catch(() => trickling = false);
      }
    })();
    const started = performance.now();
    const { text, closed } = await readUntilClosed(conn, 5_000);
    trickling = false;
    await trickle;
    const elapsed = performance.now() - started;
    assert.match(text, /^HTTP\/1\.1 408 /, text);
    assert.match(text, /connection: close/i, text);
    assert.equal(JSON.parse(text.slice(text.indexOf("{"))).code, 4, text);
    assert.ok(closed, "want the connection closed");
    assert.ok(elapsed < 2_500, `closed after ${elapsed} ms`);
  });
});

Deno.test("serveHttp() answers a request not answered within the request time-out with 504 code 4", async () => {
  let aborted = false;
  const slow: Handler = (request) =>
    new Promise((resolve) =>
      request.signal.addEventListener("abort", () => {
        aborted = true;
        resolve(new Response("too late"));
      })
    );
  await withServer(slow, { requestTimeoutMs: 300 }, async (server) => {
    const response = await fetch(`http://127.0.0.1:${server.port}/x`);
    assert.equal(response.status, 504);
    assert.equal((await response.json()).code, 4);
    assert.ok(aborted, "want the handler's signal aborted");
  });
});

Deno.test("serveHttp() answers a slow request with its 504 even when the idle time-out is as short: in flight is not idle", async () => {
  const slow: Handler = (request) =>
    new Promise((resolve) =>
      request.signal.addEventListener(
        "abort",
        () => resolve(new Response("too late")),
      )
    );
  await withServer(
    slow,
    { requestTimeoutMs: 400, idleTimeoutMs: 200 },
    async (server) => {
      const response = await fetch(`http://127.0.0.1:${server.port}/x`);
      assert.equal(response.status, 504);
      assert.equal((await response.json()).code, 4);
    },
  );
});

Deno.test("serveHttp() lets a body that arrives within the body time-out through", async () => {
  await withServer(reader, { bodyTimeoutMs: 2_000 }, async (server) => {
    const response = await fetch(`http://127.0.0.1:${server.port}/x`, {
      method: "POST",
      body: "x".repeat(1000),
    });
    assert.equal(await response.text(), "read 1000");
  });
});

/** As `reader`, adding up in `progress` the body bytes it has read. */
function countingReader(progress: { bytes: number }): Handler {
  return async (request) => {
    let length = 0;
    try {
      for await (const chunk of request.body ?? []) {
        length += chunk.byteLength;
        progress.bytes += chunk.byteLength;
      }
      return new Response(`read ${length}`);
    } catch {
      return new Response("failed", { status: 500 });
    }
  };
}

Deno.test("serveHttp() refuses a body past the in-flight body budget with 429 code 8 and Retry-After, before reading it", async () => {
  let inFlight = 0;
  // The listener counts a body's bytes before the handler reads them.
  const read = { bytes: 0 };
  const server = await serveHttp({
    hostname: "127.0.0.1",
    port: 0,
    handler: countingReader(read),
    log: silentLogger(),
    maxInflightBodyBytes: 1_000,
    onInFlight: (delta) => inFlight += delta,
  });
  const connect = () =>
    Deno.connect({ hostname: "127.0.0.1", port: server.port });
  const post = (length: number) =>
    `POST /x HTTP/1.1\r\nHost: x\r\nContent-Length: ${length}\r\n\r\n`;
  const open: Deno.Conn[] = [];
  try {
    // Most of an 800-byte body, then nothing: it holds 800 of the budget.
    const holding = await connect();
    open.push(holding);
    await send(holding, post(800) + "x".repeat(700));
    await until("the holder's 700 bytes read", () => read.bytes === 700);
    assert.equal(inFlight, 1, "a request whose body is arriving is in flight");

    const refused = await connect();
    await send(refused, post(800) + "y".repeat(10));
    const { text } = await readUntilClosed(refused, 5_000);
    assert.match(text, /^HTTP\/1\.1 429 /, text);
    assert.match(text, /retry-after: 1/i, text);
    assert.equal(JSON.parse(text.slice(text.indexOf("{"))).code, 8, text);

    // A chunked body counts as it streams: 300 more bytes fill the budget.
    const chunked = await connect();
    open.push(chunked);
    await send(
      chunked,
      "POST /x HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n" +
        `12c\r\n${"z".repeat(300)}\r\n`,
    );
    await until("the chunked 300 bytes read", () => read.bytes === 1_000);
    const small = await connect();
    await send(small, post(10));
    assert.match(
      (await readUntilClosed(small, 5_000)).text,
      /^HTTP\/1\.1 429 /,
    );

    // Once the holder's body is in and answered, its share is free again.
    await send(holding, "x".repeat(100));
    await send(chunked, "0\r\n\r\n");
    await until("both answered", () => inFlight === 0);
    const response = await fetch(`http://127.0.0.1:${server.port}/x`, {
      method: "POST",
      body: "x".repeat(900),
    });
    assert.equal(await response.text(), "read 900");
  } finally {
    for (const conn of open) conn.close();
    await server.shutdown(1_000);
  }
  assert.equal(inFlight, 0);
});
