/**
 * The Python SDK's Client.connect() (clients/python/corral/_connect.py)
 * against Corral's Ray client tunnel in direct mode, a TCP echo server
 * standing in for the Ray client server
 * (tests/api/http/client_tunnel_world.ts): a script of Debian's python3
 * forwards a local port, sends bytes through it and reads them back, and
 * half-closes; a caller with get alone and a cluster not ready are
 * refused with Corral's code. Ignored, saying why, without python3 and
 * requests and yaml.
 */
import { missingModules, PYTHON } from "../python.ts";
import assert from "node:assert/strict";
import { ALICE, BOB } from "../api/auth/access_fixtures.ts";
import { withWorld } from "../api/http/client_tunnel_world.ts";

const SDK = new URL("../../clients/python/", import.meta.url).pathname;

const MISSING = missingModules("requests, yaml");
if (MISSING) {
  console.warn(
    `python_connect_test: ignored (${MISSING}): install python3-requests and python3-yaml`,
  );
}

const SCRIPT = `
import socket, sys, threading
import corral

server, alice, bob = sys.argv[1:4]
with corral.Client(server=server, token=alice, namespace="team-a") as client:
    with client.connect("blue", port=0) as forwarding:
        assert forwarding.address == f"ray://127.0.0.1:{forwarding.port}", forwarding
        local = socket.create_connection(("127.0.0.1", forwarding.port))
        sent = bytes(range(256)) * 1200
        writer = threading.Thread(target=local.sendall, args=(sent,))
        writer.start()
        got = b""
        while len(got) < len(sent):
            chunk = local.recv(65536)
            assert chunk, f"ended after {len(got)} bytes"
            got += chunk
        writer.join()
        assert got == sent
        local.shutdown(socket.SHUT_WR)
        assert local.recv(1) == b"", "the port's end closes the local connection"
        local.close()
    try:
        client.connect("slow", port=0)
    except corral.CorralError as error:
        print("slow:", error.code, error.message)
with corral.Client(server=server, token=bob, namespace="team-a") as client:
    try:
        client.connect("blue", port=0)
    except corral.PermissionDeniedError as error:
        print("bob:", error.code)
print("done")
`;

Deno.test({
  name:
    "Client.connect() forwards a local port's bytes both ways to the cluster's client port, and raises Corral's refusals before listening",
  ignore: MISSING !== "",
  async fn() {
    await withWorld("direct", async (world) => {
      const { code, stdout, stderr } = await new Deno.Command(PYTHON, {
        args: [
          "-c",
          SCRIPT,
          `http://127.0.0.1:${world.listener.port}`,
          ALICE.token,
          BOB.token,
        ],
        env: { PYTHONPATH: SDK, PYTHONDONTWRITEBYTECODE: "1" },
        stdin: "null",
        stdout: "piped",
        stderr: "piped",
      }).output();
      const out = new TextDecoder().decode(stdout);
      assert.equal(code, 0, `${out}\n${new TextDecoder().decode(stderr)}`);
      assert.equal(
        out,
        'slow: 9 Cannot connect to cluster "team-a/slow": the cluster is not ready: its state is "pending"\nbob: 7\ndone\n',
      );
    });
  },
});
