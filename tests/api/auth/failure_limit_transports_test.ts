/**
 * Failed authentications limited per source address (issue 23, finding 9),
 * tried as the review did: a burst of wrong tokens through the real HTTP
 * listener and the real gRPC server, and the audit's request ids (finding
 * 10): Corral's own, the caller's kept apart as clientRequestId.
 */
import assert from "node:assert/strict";
import * as grpc from "@grpc/grpc-js";
import { createAccess } from "../../../api/auth/access.ts";
import { silentLogger } from "../../../api/log.ts";
import { Code } from "../../../domain/errors.ts";
import { listening, startCorral } from "../../harness.ts";
import {
  ALICE,
  auditLines,
  bearer,
  writeAccessFiles,
} from "./access_fixtures.ts";

const LIST = "proto.ClusterService/ListCluster";
const PATH = "/apis/v1alpha2/namespaces/team-a/clusters";
const WRONG = `Bearer ${"w".repeat(40)}`;

/** Corral with the fixtures' token file, the default limit, a file audit. */
async function limitedCorral() {
  const files = await writeAccessFiles();
  const access = await createAccess({
    tokenAuthFile: files.tokenFile,
    tokenReview: false,
    anonymous: false,
    policyFile: files.policyFile,
    auditLogPath: files.auditLog,
    metricsRequireAuth: false,
    failureLimit: { perSecond: 10, burst: 20 },
  }, { log: silentLogger() });
  const corral = await startCorral({ access });
  const http = await listening(corral);
  return {
    corral,
    url: `http://127.0.0.1:${http.port}`,
    auditLog: files.auditLog,
    async [Symbol.asyncDispose]() {
      await http.shutdown(0);
      await corral.close();
      await access.close();
      await files.remove();
    },
  };
}

Deno.test("HTTP: 40 wrong tokens from one address get 401 then 429 code 8 with Retry-After; a good token is never throttled", async () => {
  await using c = await limitedCorral();
  const statuses: number[] = [];
  let throttled: Response | undefined;
  for (let i = 0; i < 40; i++) {
    const answer = await fetch(c.url + PATH, {
      headers: { authorization: WRONG },
    });
    statuses.push(answer.status);
    if (answer.status === 429 && !throttled) throttled = answer;
    else await answer.body?.cancel();
  }
  assert.ok(statuses.slice(0, 20).every((s) => s === 401), `${statuses}`);
  assert.ok(throttled, `no 429 in ${statuses}`);
  assert.ok(statuses.every((s) => s === 401 || s === 429), `${statuses}`);
  assert.ok(Number(throttled.headers.get("retry-after")) >= 1);
  const body = await throttled.json();
  assert.equal(body.code, Code.RESOURCE_EXHAUSTED);
  assert.match(body.message, /^Cannot authenticate: too many failed/);
  const good = await fetch(c.url + PATH, {
    headers: { authorization: bearer(ALICE) },
  });
  assert.equal(good.status, 200, "alice from the same address");
  await good.body?.cancel();
  const audit = await auditLines(c.auditLog);
  assert.ok(
    audit.some((line) => line.code === 8 && line.reason === "throttled"),
    "the audit trail records the throttled failures",
  );
});

Deno.test("gRPC: 40 wrong tokens from one address get 16 then RESOURCE_EXHAUSTED with RetryInfo; a good token is never throttled", async () => {
  await using c = await limitedCorral();
  const codes: number[] = [];
  let details: unknown[] = [];
  for (let i = 0; i < 40; i++) {
    const metadata = new grpc.Metadata();
    metadata.set("authorization", WRONG);
    const got = await c.corral.grpc.call(
      LIST,
      { namespace: "team-a" },
      metadata,
    );
    codes.push(got.code);
    if (got.code === Code.RESOURCE_EXHAUSTED) details = got.details;
  }
  assert.ok(codes.slice(0, 20).every((s) => s === 16), `${codes}`);
  assert.ok(codes.includes(Code.RESOURCE_EXHAUSTED), `${codes}`);
  assert.ok(
    JSON.stringify(details).includes("google.rpc.RetryInfo"),
    JSON.stringify(details),
  );
  const metadata = new grpc.Metadata();
  metadata.set("authorization", bearer(ALICE));
  const good = await c.corral.grpc.call(
    LIST,
    { namespace: "team-a" },
    metadata,
  );
  assert.equal(good.code, Code.OK, good.message);
});

Deno.test("the audit record's requestId is Corral's own; the caller's x-request-id is clientRequestId, sanitised, on both transports", async () => {
  await using c = await limitedCorral();
  // Spaces, tabs and bytes past ASCII are what a header can carry of a
  // forged line; none is kept.
  const forged = 'forged-id \t{"msg":"Audit"}\u00e9';
  const answer = await fetch(c.url + PATH, {
    headers: { authorization: WRONG, "x-request-id": forged },
  });
  await answer.body?.cancel();
  const metadata = new grpc.Metadata();
  metadata.set("authorization", WRONG);
  metadata.set("x-request-id", "grpc-client-id");
  await c.corral.grpc.call(LIST, { namespace: "team-a" }, metadata);
  const audit = await auditLines(c.auditLog);
  const http = audit.find((line) => line.transport === "http")!;
  assert.match(String(http.requestId), /^[0-9a-f-]{36}$/);
  assert.equal(answer.headers.get("x-request-id"), http.requestId);
  assert.equal(http.clientRequestId, 'forged-id{"msg":"Audit"}');
  const viaGrpc = audit.find((line) => line.transport === "grpc")!;
  assert.match(String(viaGrpc.requestId), /^[0-9a-f-]{36}$/);
  assert.equal(viaGrpc.clientRequestId, "grpc-client-id");
});
