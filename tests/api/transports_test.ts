/**
 * The shared case list through both transports: the gateway function and a
 * real gRPC client against a server on 127.0.0.1:0, with direct reads and
 * with the watch-backed cache. Each transport gets a
 * fresh Corral (and stand-in), runs the list in order, and must answer every
 * case with the same code and message as the other.
 */
import assert from "node:assert/strict";
import type { FieldViolation } from "../../domain/errors.ts";
import { type Outcome, startCorral, TRANSPORTS } from "../harness.ts";
import { type Case, CASES } from "./cases.ts";

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

for (const cache of [false, true]) {
  const reads = cache ? "reads from the cache" : "direct reads";
  Deno.test(`every RPC outcome is the same over HTTP and gRPC, ${reads}`, async (t) => {
    const outcomes: Record<string, Outcome[]> = {};
    for (const [transport, run] of TRANSPORTS) {
      const corral = await startCorral(cache ? { cache: {} } : {});
      try {
        outcomes[transport] = [];
        await t.step(transport, async (t) => {
          for (const c of CASES) {
            await t.step(c.name, async () => {
              const got = await run(corral, c.rpc, c.request);
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
}
