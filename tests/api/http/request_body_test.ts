/**
 * A request's body as the handler reads it (request_body.ts), over a real
 * listener: read in full chunk by chunk, cancelled with some of it already
 * received (which must raise nothing: an uncaught error fails the test),
 * failed by the listener, broken off by its client; and the connection
 * after a body the handler did not read to its end.
 */
import assert from "node:assert/strict";
import net from "node:net";
import { type HttpServer, serveHttp } from "../../../api/http/server.ts";
import { silentLogger } from "../../../api/log.ts";
import type { Handler } from "../../../api/http/http_request.ts";

async function withServer(
  handler: Handler,
  fn: (server: HttpServer) => Promise<void>,
): Promise<void> {
  const server = await serveHttp({
    hostname: "127.0.0.1",
    port: 0,
    handler,
    log: silentLogger(),
  });
  try {
    await fn(server);
  } finally {
    await server.shutdown(1_000);
  }
}

/** A POST of `size` bytes' head, its body announced by Content-Length. */
function head(size: number, chunked = false): string {
  return "POST /x HTTP/1.1\r\nHost: a\r\nContent-Type: application/json\r\n" +
    (chunked ? "Transfer-Encoding: chunked" : `Content-Length: ${size}`) +
    "\r\n\r\n";
}

/** A connection and the answers it receives, parsed as they complete. */
class Client {
  readonly socket: net.Socket;
  #text = "";
  #closed = false;
  #changed: () => void = () => {};

  constructor(port: number) {
    this.socket = net.connect(port, "127.0.0.1");
    this.socket.setEncoding("latin1");
    this.socket.on("data", (text: string) => {
      this.#text += text;
      this.#changed();
    });
    this.socket.on("error", () => {});
    this.socket.on("close", () => {
      this.#closed = true;
      this.#changed();
    });
  }

  /** Resolves once `done` holds of what came so far, or the socket closed. */
  async until(done: (text: string) => boolean): Promise<string> {
    while (!done(this.#text) && !this.#closed) {
      await new Promise<void>((resolve) => this.#changed = resolve);
    }
    return this.#text;
  }

  /** The answers so far whose body (Content-Length) is complete. */
  answers(): { status: number; connection?: string; body: string }[] {
    const answers = [];
    let rest = this.#text;
    for (;;) {
      const end = rest.indexOf("\r\n\r\n");
      if (end < 0) break;
      const lines = rest.slice(0, end).split("\r\n");
      const header = (name: string) =>
        lines.find((l) => l.toLowerCase().startsWith(`${name}:`))
          ?.slice(name.length + 1).trim();
      const length = Number(header("content-length") ?? 0);
      if (rest.length < end + 4 + length) break;
      answers.push({
        status: Number(lines[0].split(" ")[1]),
        connection: header("connection"),
        body: rest.slice(end + 4, end + 4 + length),
      });
      rest = rest.slice(end + 4 + length);
    }
    return answers;
  }

  get closed(): boolean {
    return this.#closed;
  }

  close(): void {
    this.socket.destroy();
  }
}

Deno.test("the body stream gives the body in full, each chunk counted as it is read", async () => {
  const handler: Handler = async (request) => {
    const text = await new Response(request.body).text();
    return new Response(`${text.length} ${text.slice(0, 3)}`);
  };
  await withServer(handler, async (server) => {
    const client = new Client(server.port);
    const body = "abc" + "x".repeat(200_000);
    client.socket.write(head(body.length));
    for (let i = 0; i < body.length; i += 50_000) {
      client.socket.write(body.slice(i, i + 50_000));
    }
    await client.until(() => client.answers().length === 1);
    assert.deepEqual(client.answers().map((a) => a.body), ["200003 abc"]);
    client.close();
  });
});

/**
 * What a handler may do with a body it does not want, each after the
 * chain's first await, when the body has arrived (node:stream's web view
 * of the request put a chunk in the cancelled stream here, and threw).
 */
const CANCELS: { name: string; handle: (body: ReadableStream) => unknown }[] = [
  { name: "cancelled unread", handle: (body) => body.cancel() },
  {
    name: "cancelled with a read pending",
    handle: (body) => {
      const reader = body.getReader();
      const read = reader.read();
      return Promise.all([reader.cancel(), read]);
    },
  },
  {
    name: "cancelled after a read",
    handle: async (body) => {
      const reader = body.getReader();
      await reader.read();
      await reader.cancel();
    },
  },
  { name: "never read", handle: () => {} },
];

Deno.test("a body the handler cancels or leaves raises no error, however much of it arrived, and leaves the connection to the next request or closed", async (t) => {
  for (const { name, handle } of CANCELS) {
    for (const size of [100, 40_000, 300_000]) {
      await t.step(`${name}, ${size} bytes`, async () => {
        const handler: Handler = async (request) => {
          await Promise.resolve();
          if (request.body) await handle(request.body);
          return new Response("refused", { status: 403 });
        };
        let whole = 0;
        await withServer(handler, async (server) => {
          for (let round = 0; round < 10; round++) {
            const client = new Client(server.port);
            client.socket.write(head(size) + "x".repeat(size));
            client.socket.write("GET /next HTTP/1.1\r\nHost: a\r\n\r\n");
            // Kept for the request that follows, which is answered; or, the
            // body still arriving at the answer, closed by it.
            await client.until(() => client.answers().length === 2);
            const answers = client.answers();
            assert.equal(answers[0]?.status, 403);
            if (answers.length === 1) {
              assert.equal(answers[0].connection, "close");
              assert.ok(client.closed);
            } else assert.equal(answers[1].status, 403);
            whole += answers.length - 1;
            client.close();
          }
        });
        if (size === 100) assert.ok(whole > 0, "no connection kept");
      });
    }
  }
});

Deno.test("an answer given before the body has arrived closes the connection, which the rest of the body cannot hold open", async () => {
  const handler: Handler = async (request) => {
    await Promise.resolve();
    await request.body?.cancel();
    return new Response("refused", { status: 403 });
  };
  await withServer(handler, async (server) => {
    const client = new Client(server.port);
    client.socket.write(head(0, true) + "5\r\nhello\r\n");
    await client.until(() => client.answers().length === 1);
    assert.equal(client.answers()[0].connection, "close");
    // The body goes on: the server has stopped reading it.
    client.socket.write("5\r\nworld\r\n");
    await client.until(() => false);
    assert.ok(client.closed);
  });
});

Deno.test("a body its client breaks off errors the stream the handler reads", async () => {
  const started = Promise.withResolvers<void>();
  const outcome = Promise.withResolvers<string>();
  const handler: Handler = async (request) => {
    started.resolve();
    try {
      await new Response(request.body).arrayBuffer();
      outcome.resolve("read in full");
    } catch {
      outcome.resolve("failed");
    }
    return new Response("done");
  };
  await withServer(handler, async (server) => {
    const client = new Client(server.port);
    client.socket.write(head(1_000) + "x".repeat(500));
    await started.promise;
    client.close();
    assert.equal(await outcome.promise, "failed");
  });
});
