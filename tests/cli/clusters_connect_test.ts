/**
 * `corral clusters connect`, spawned as its users run it, against Corral's
 * Ray client tunnel with a TCP echo server standing in for the Ray client
 * server (tests/api/http/client_tunnel_world.ts), reached straight or
 * through the stand-in's port forwarding: a TCP client on the local port
 * it prints gets its bytes back, its close reaches the port; Ctrl-C ends
 * it. A caller without `proxy`, and a cluster that is not ready, are
 * refused before anything listens.
 */
import assert from "node:assert/strict";
import { until } from "../eventually.ts";
import { ALICE, BOB } from "../api/auth/access_fixtures.ts";
import { withWorld, type World } from "../api/http/client_tunnel_world.ts";
import { sandbox } from "./cli_process.ts";

function env(world: World, token: string): Record<string, string> {
  return {
    CORRAL_SERVER: `http://127.0.0.1:${world.listener.port}`,
    CORRAL_TOKEN: token,
    CORRAL_NAMESPACE: "team-a",
  };
}

/** Reads exactly `length` bytes from `conn`. */
async function readBytes(conn: Deno.Conn, length: number): Promise<Uint8Array> {
  const bytes = new Uint8Array(length);
  let got = 0;
  while (got < length) {
    const read = await conn.read(bytes.subarray(got));
    if (read === null) throw new Error(`ended after ${got} of ${length} bytes`);
    got += read;
  }
  return bytes;
}

async function writeAll(conn: Deno.Conn, bytes: Uint8Array): Promise<void> {
  let written = 0;
  while (written < bytes.length) {
    written += await conn.write(bytes.subarray(written));
  }
}

for (const mode of ["direct", "apiserver-proxy"] as const) {
  Deno.test(`corral clusters connect (${mode}) forwards a local port's bytes both ways to the cluster's client port, for a caller with proxy alone, until Ctrl-C`, async () => {
    const box = await sandbox();
    try {
      await withWorld(mode, async (world) => {
        const cli = box.spawn(["clusters", "connect", "blue", "--port", "0"], {
          env: env(world, ALICE.token),
        });
        const line = await cli.line((l) => l.includes("ray.init("));
        const port = Number(/ray:\/\/127\.0\.0\.1:(\d+)/.exec(line)![1]);
        assert.match(line, /^ {2}ray\.init\("ray:\/\/127\.0\.0\.1:\d+"\)$/);

        const conn = await Deno.connect({ hostname: "127.0.0.1", port });
        const sent = new Uint8Array(300_000).map((_, i) => (i * 7) & 0xff);
        const [, echoed] = await Promise.all([
          writeAll(conn, sent),
          readBytes(conn, sent.length),
        ]);
        assert.deepEqual(echoed, sent);
        await until(
          "the port's connection",
          () => world.echo.sockets.size === 1,
        );
        const [upstream] = world.echo.sockets;
        await conn.closeWrite();
        await until(
          "the port to see the end",
          () => world.echo.ended.has(upstream),
        );
        // The port's end closes the local connection.
        assert.equal(await conn.read(new Uint8Array(1)), null);
        conn.close();

        const result = await cli.stop("SIGINT");
        assert.equal(result.code, 0, result.stderr);
      });
    } finally {
      await box.remove();
    }
  });
}

Deno.test("corral clusters connect refuses before listening: a caller with get alone (403), a cluster not ready (code 9)", async () => {
  const box = await sandbox();
  try {
    await withWorld("direct", async (world) => {
      const forbidden = await box.run(["clusters", "connect", "blue"], {
        env: env(world, BOB.token),
      });
      assert.notEqual(forbidden.code, 0);
      assert.equal(forbidden.stdout, "");
      assert.match(forbidden.stderr, /proxy/);
      const slow = await box.run(["clusters", "connect", "slow"], {
        env: env(world, ALICE.token),
      });
      assert.notEqual(slow.code, 0);
      assert.equal(slow.stdout, "");
      assert.match(
        slow.stderr,
        /Cannot connect to cluster "team-a\/slow": the cluster is not ready: its state is "pending"/,
      );
    });
  } finally {
    await box.remove();
  }
});
