/**
 * The shared case list through both transports: the gateway function and a
 * real gRPC client against a server on 127.0.0.1:0. Each transport gets a
 * fresh Corral (and stand-in), runs the list in order, and must answer every
 * case with the same code and message as the other.
 */
import assert from "node:assert/strict";
import {
  type Message,
  messageFromJson,
  messageToJson,
} from "../../domain/codec.ts";
import type { FieldViolation } from "../../domain/errors.ts";
import { compileRoutes, type Route } from "../../api/http_rules.ts";
import { httpStatus } from "../../api/errors.ts";
import { type Corral, startCorral } from "../harness.ts";
import { type Case, CASES } from "./cases.ts";

interface Outcome {
  code: number;
  message: string;
  details: unknown[];
  result?: Record<string, unknown>;
}

async function viaHttp(corral: Corral, c: Case): Promise<Outcome> {
  const route = compileRoutes(corral.schema.services).find((r) =>
    r.key === c.rpc
  )!;
  const response = await corral.gateway(httpRequest(route, c.request));
  const body = await response.json();
  if (response.status === 200) {
    return { code: 0, message: "", details: [], result: body };
  }
  assert.equal(
    response.status,
    httpStatus(body.code),
    "HTTP status of the code",
  );
  return {
    code: body.code,
    message: body.message,
    details: body.details ?? [],
  };
}

/** The HTTP request a user would send for the JSON request. */
export function httpRequest(
  route: Route,
  request: Record<string, unknown>,
): Request {
  const path = route.segments.map((s) =>
    "literal" in s
      ? s.literal
      : encodeURIComponent(String(request[s.variable] ?? ""))
  ).join("/");
  const init: RequestInit = { method: route.verb };
  const body = route.body === "*" ? request : request[route.body];
  if (body !== undefined) {
    init.body = JSON.stringify(body);
    init.headers = { "content-type": "application/json" };
  }
  return new Request(`http://corral.test/${path}`, init);
}

async function viaGrpc(corral: Corral, c: Case): Promise<Outcome> {
  const route = compileRoutes(corral.schema.services).find((r) =>
    r.key === c.rpc
  )!;
  const violations: FieldViolation[] = [];
  const request = messageFromJson(route.requestType, c.request, "", violations);
  assert.deepEqual(
    violations,
    [],
    "the case's request is valid JSON for the message",
  );
  const outcome = await corral.grpc.call(c.rpc, request);
  return {
    code: outcome.code,
    message: outcome.message,
    details: outcome.details,
    result: outcome.result
      ? messageToJson(route.responseType, outcome.result as Message) as Record<
        string,
        unknown
      >
      : undefined,
  };
}

function check(c: Case, got: Outcome) {
  assert.equal(
    got.code,
    c.want.code,
    `code: got ${got.code} (${got.message}), want ${c.want.code}`,
  );
  if (typeof c.want.message === "string") {
    assert.equal(got.message, c.want.message);
  }
  if (c.want.message instanceof RegExp) {
    assert.match(got.message, c.want.message);
  }
  if (c.want.fields) {
    const fields = got.details.flatMap((d) =>
      (d as { fieldViolations?: FieldViolation[] }).fieldViolations ?? []
    ).map((v) => v.field);
    assert.deepEqual(fields, c.want.fields, `violations: ${got.message}`);
  }
  if (c.want.check) c.want.check(got.result!);
}

Deno.test("every RPC outcome is the same over HTTP and gRPC", async (t) => {
  const outcomes: Record<string, Outcome[]> = {};
  for (
    const [transport, run] of [["http", viaHttp], ["grpc", viaGrpc]] as const
  ) {
    const corral = await startCorral();
    try {
      outcomes[transport] = [];
      await t.step(transport, async (t) => {
        for (const c of CASES) {
          await t.step(c.name, async () => {
            const got = await run(corral, c);
            outcomes[transport].push(got);
            check(c, got);
          });
        }
      });
    } finally {
      await corral.close();
    }
  }
  await t.step(
    "both transports answer the same code, message and details",
    () => {
      CASES.forEach((c, i) => {
        const [http, grpc] = [outcomes.http[i], outcomes.grpc[i]];
        assert.equal(grpc?.code, http?.code, `${c.name}: code`);
        assert.equal(grpc?.message, http?.message, `${c.name}: message`);
        assert.deepEqual(grpc?.details, http?.details, `${c.name}: details`);
      });
    },
  );
});
