/**
 * The gRPC listener against careless and hostile clients: connections that
 * never complete the HTTP/2 handshake, idle connections, metadata over the
 * limit.
 */
import { probeHandlers } from "../service/probe_handlers.ts";
import assert from "node:assert/strict";
import * as grpc from "@grpc/grpc-js";
import { openAccess } from "../../../api/auth/access.ts";
import { bindGrpc } from "../../../api/grpc/listener.ts";
import { createGrpcServer } from "../../../api/grpc/server.ts";
import { silentLogger } from "../../../api/log.ts";
import { createDispatcher } from "../../../api/service/dispatcher.ts";
import { schema } from "../../harness.ts";
import { grpcCaller } from "./client.ts";

async function withGrpc(
  options: { idleTimeoutMs?: number; headerTimeoutMs?: number },
  fn: (port: number) => Promise<void>,
): Promise<void> {
  const server = createGrpcServer({
    schema: await schema(),
    dispatcher: createDispatcher({
      schema: await schema(),
      handlers: probeHandlers().handlers,
      access: openAccess(),
      log: silentLogger(),
    }),
    idleTimeoutMs: options.idleTimeoutMs,
  });
  const port = await bindGrpc(
    server,
    "127.0.0.1",
    0,
    grpc.ServerCredentials.createInsecure(),
    options.headerTimeoutMs,
  );
  try {
    await fn(port);
  } finally {
    server.forceShutdown();
  }
}

/** Whether the server closes the connection within `limitMs`. */
async function closedWithin(conn: Deno.Conn, limitMs: number) {
  const buffer = new Uint8Array(16 * 1024);
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    conn.close();
  }, limitMs);
  try {
    while (await conn.read(buffer) !== null) {
      // GOAWAY, SETTINGS: read on
    }
    return !timedOut;
  } catch {
    // Reset by the server: closed too. Closed by the time limit: not.
    return !timedOut;
  } finally {
    clearTimeout(timer);
    try {
      conn.close();
    } catch {
      // closed already
    }
  }
}

/** The client connection preface and an empty SETTINGS frame. */
const PREFACE = new Uint8Array([
  ...new TextEncoder().encode("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"),
  ...[0, 0, 0, 4, 0, 0, 0, 0, 0],
]);

Deno.test("the gRPC listener closes a connection that sends nothing within the header time-out", async () => {
  await withGrpc({ headerTimeoutMs: 300 }, async (port) => {
    const conn = await Deno.connect({ hostname: "127.0.0.1", port });
    assert.ok(await closedWithin(conn, 3_000), "want the connection closed");
  });
});

Deno.test("the gRPC listener closes a connection idle for the idle time-out after its handshake", async () => {
  await withGrpc({ idleTimeoutMs: 300 }, async (port) => {
    const conn = await Deno.connect({ hostname: "127.0.0.1", port });
    await conn.write(PREFACE);
    assert.ok(await closedWithin(conn, 3_000), "want the connection closed");
  });
});

Deno.test("the gRPC listener refuses metadata over 16 KiB with RESOURCE_EXHAUSTED, as HTTP refuses such headers", async () => {
  await withGrpc({}, async (port) => {
    const client = grpcCaller(await schema(), `127.0.0.1:${port}`);
    try {
      const call = (bytes: number) => {
        const metadata = new grpc.Metadata();
        metadata.set("x-big", "b".repeat(bytes));
        return client.call(
          "proto.ClusterService/ListAllClusters",
          {},
          metadata,
        );
      };
      const big = await call(64 * 1024);
      assert.equal(big.code, grpc.status.RESOURCE_EXHAUSTED, big.message);
      const small = await call(1024);
      assert.notEqual(small.code, grpc.status.RESOURCE_EXHAUSTED);
    } finally {
      client.close();
    }
  });
});
