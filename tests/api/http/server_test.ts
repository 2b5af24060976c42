/**
 * The HTTP listener: time-outs against slow and idle clients, URL and header
 * limits, cancellation when the client goes away, graceful shutdown.
 */
import assert from "node:assert/strict";
import { type HttpServer, serveHttp } from "../../../api/http/server.ts";
import { silentLogger } from "../../../api/log.ts";

type Handler = (request: Request) => Promise<Response>;

async function withServer(
  handler: Handler,
  options: { headerTimeoutMs?: number; idleTimeoutMs?: number },
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

Deno.test("serveHttp() aborts request.signal when the client goes away mid-request", async () => {
  const { promise: aborted, resolve } = Promise.withResolvers<unknown>();
  const { promise: started, resolve: start } = Promise.withResolvers<void>();
  await withServer(
    (request) => {
      start();
      request.signal.addEventListener(
        "abort",
        () => resolve(request.signal.reason),
      );
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
  await assert.rejects(
    Deno.connect({ hostname: "127.0.0.1", port: server.port }),
    Deno.errors.ConnectionRefused,
  );
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
