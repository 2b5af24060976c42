/**
 * main.ts in embedded mode with --authentication-token-review: a
 * service-account token issued by the stand-in (the "server" of the
 * "Corral started" line) lets a caller in over HTTP and gRPC, through
 * Corral's TokenReview of it; no token, or one the stand-in did not issue,
 * is UNAUTHENTICATED.
 */
import assert from "node:assert/strict";
import * as grpc from "@grpc/grpc-js";
import { loadApiSchema } from "../api/schema.ts";
import { grpcCaller } from "./api/grpc/client.ts";
import { EMBEDDED, startMain } from "./main_process.ts";

const NS = "team-a";

async function standinPost(server: string, path: string, body: unknown) {
  const response = await fetch(`${server}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const answer = await response.json();
  assert.equal(response.status, 201, JSON.stringify(answer));
  return answer;
}

function bearer(token?: string): Record<string, string> {
  return token === undefined ? {} : { authorization: `Bearer ${token}` };
}

function metadata(token?: string): grpc.Metadata {
  const result = new grpc.Metadata();
  if (token !== undefined) result.set("authorization", `Bearer ${token}`);
  return result;
}

Deno.test("main.ts with --authentication-token-review lets in a service-account token of its cluster, over HTTP and gRPC", async (t) => {
  const corral = await startMain({
    args: [...EMBEDDED, "--authentication-token-review"],
  });
  const grpcClient = grpcCaller(await loadApiSchema(), corral.grpc);
  try {
    const server = corral.started.server as string;
    assert.match(server, /^http:\/\/127\.0\.0\.1:\d+$/);
    const accounts = `/api/v1/namespaces/${NS}/serviceaccounts`;
    await standinPost(server, accounts, {
      apiVersion: "v1",
      kind: "ServiceAccount",
      metadata: { name: "dashboard" },
    });
    const issued = await standinPost(server, `${accounts}/dashboard/token`, {
      apiVersion: "authentication.k8s.io/v1",
      kind: "TokenRequest",
      spec: {},
    });
    const token: string = issued.status.token;
    const path = `${corral.http}/apis/v1alpha2/namespaces/${NS}/clusters`;

    await t.step("HTTP with the token: 200", async () => {
      const response = await fetch(path, { headers: bearer(token) });
      assert.equal(response.status, 200, await response.clone().text());
      assert.deepEqual((await response.json()).clusters ?? [], []);
    });
    await t.step("gRPC with the token: OK", async () => {
      const outcome = await grpcClient.call(
        "proto.ClusterService/ListCluster",
        { namespace: NS },
        metadata(token),
      );
      assert.equal(outcome.code, grpc.status.OK, outcome.message);
    });
    for (
      const [name, credential] of [
        ["no token", undefined],
        ["a token the stand-in did not issue", "made-up"],
      ] as const
    ) {
      await t.step(`HTTP with ${name}: 401, code 16`, async () => {
        const response = await fetch(path, { headers: bearer(credential) });
        assert.equal(response.status, 401);
        assert.equal((await response.json()).code, 16);
      });
      await t.step(`gRPC with ${name}: UNAUTHENTICATED`, async () => {
        const outcome = await grpcClient.call(
          "proto.ClusterService/ListCluster",
          { namespace: NS },
          metadata(credential),
        );
        assert.equal(outcome.code, grpc.status.UNAUTHENTICATED);
      });
    }
    await t.step("Corral's log names the caller", () => {
      assert.ok(
        corral.records.some((r) =>
          JSON.stringify(r).includes("system:serviceaccount:team-a:dashboard")
        ),
        corral.logs.join("\n"),
      );
    });
  } finally {
    grpcClient.close();
    await corral.stop();
  }
});
