/**
 * A call that carries two credentials is refused on both transports, the
 * same way: never judged on one of them. On HTTP, two Authorization
 * headers (sent as raw bytes: fetch would join them); over gRPC, two
 * `authorization` metadata values, sent by Python's grpcio (Debian's
 * python3-grpcio), since the Node and Deno HTTP/2 clients refuse to send a
 * repeated authorization header at all. node:http2 keeps only the first of
 * them for grpc-js; api/grpc/listener.ts puts the others back.
 *
 * Needs /usr/bin/python3 with grpc; without it the test is reported as
 * ignored, saying why.
 */
import { missingModules, PYTHON } from "./python.ts";
import assert from "node:assert/strict";
import {
  ALICE,
  bearer,
  BOB,
  tokenFileText,
  writeAccessFiles,
} from "./api/auth/access_fixtures.ts";
import { EMBEDDED, startMain } from "./main_process.ts";

/**
 * ListCluster of team-a with the given authorization values, by Python's
 * grpcio as a generic call (the request written by field number:
 * namespace = 1); prints {"code", "message"}.
 */
const CALL = `
import grpc, json, sys
target, values = sys.argv[1], json.loads(sys.argv[2])
channel = grpc.insecure_channel(target)
call = channel.unary_unary("/proto.ClusterService/ListCluster",
    request_serializer=lambda b: b, response_deserializer=lambda b: b)
try:
    call(b"\\x0a\\x06team-a", metadata=[("authorization", v) for v in values], timeout=10)
    print(json.dumps({"code": 0, "message": ""}))
except grpc.RpcError as error:
    print(json.dumps({"code": error.code().value[0], "message": error.details()}))
`;
import { allowAll, policyText, users } from "./api/auth/policy_fixtures.ts";

async function viaPython(
  target: string,
  values: string[],
): Promise<{ code: number; message: string }> {
  const { success, stdout, stderr } = await new Deno.Command(PYTHON, {
    args: ["-c", CALL, target, JSON.stringify(values)],
    stdin: "null",
  }).output();
  const text = new TextDecoder().decode(stdout);
  assert.ok(success, `python failed: ${new TextDecoder().decode(stderr)}`);
  return JSON.parse(text);
}

/** A GET with each of `values` as its own Authorization header line. */
async function viaRawHttp(
  port: number,
  values: string[],
): Promise<{ status: number; code: number; message: string }> {
  const connection = await Deno.connect({ hostname: "127.0.0.1", port });
  const lines = [
    "GET /apis/v1alpha2/namespaces/team-a/clusters HTTP/1.1",
    `Host: 127.0.0.1:${port}`,
    ...values.map((value) => `Authorization: ${value}`),
    "Connection: close",
    "",
    "",
  ];
  await connection.write(new TextEncoder().encode(lines.join("\r\n")));
  const answer = new TextDecoder().decode(
    await new Response(connection.readable).arrayBuffer(),
  );
  const status = Number(answer.split(" ")[1]);
  const body = JSON.parse(answer.slice(answer.indexOf("\r\n\r\n") + 4));
  return { status, code: body.code ?? 0, message: body.message ?? "" };
}

const hasGrpc = missingModules("grpc") === "";

Deno.test({
  name:
    "two credentials in one call are refused with code 16 on both transports, in either order (gRPC via Python's grpcio)",
  ignore: !hasGrpc,
  async fn() {
    const files = await writeAccessFiles({
      tokens: tokenFileText([ALICE, BOB]),
      policy: policyText([allowAll(users("alice", "bob"), ["team-a"])]),
    });
    const main = await startMain({
      args: [
        ...EMBEDDED,
        "--auth-failure-rate=0",
        "--token-auth-file",
        files.tokenFile,
        "--authorization-policy-file",
        files.policyFile,
      ],
      startTimeoutMs: 30_000,
    });
    try {
      const port = Number(new URL(main.http).port);
      // Each credential alone is good.
      for (const person of [ALICE, BOB]) {
        assert.equal((await viaPython(main.grpc, [bearer(person)])).code, 0);
        assert.equal((await viaRawHttp(port, [bearer(person)])).status, 200);
      }
      for (
        const values of [[bearer(ALICE), bearer(BOB)], [
          bearer(BOB),
          bearer(ALICE),
        ]]
      ) {
        const http = await viaRawHttp(port, values);
        assert.equal(http.status, 401, JSON.stringify(http));
        assert.equal(http.code, 16);
        const grpc = await viaPython(main.grpc, values);
        assert.deepEqual(grpc, { code: 16, message: http.message });
      }
    } finally {
      await main.stop();
      await Deno.remove(files.dir, { recursive: true });
    }
  },
});
