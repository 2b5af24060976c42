import assert from "node:assert/strict";
import { EventEmitter } from "node:events";
import type http from "node:http";
import { BodyBudget } from "../../../api/http/body_budget.ts";

/** A request still arriving, with these headers, and its response. */
function exchange(headers: Record<string, string>) {
  const req = { complete: false, headers } as unknown as http.IncomingMessage;
  const res = new EventEmitter() as unknown as http.ServerResponse;
  return { req, res, close: () => res.emit("close") };
}

Deno.test("BodyBudget counts a body by its Content-Length until its response closes", () => {
  const budget = new BodyBudget(1_000);
  const first = exchange({ "content-length": "800" });
  assert.ok(budget.admit(first.req, first.res));
  assert.equal(budget.bytes, 800);
  const second = exchange({ "content-length": "800" });
  assert.equal(budget.admit(second.req, second.res), undefined, "refused");
  first.close();
  assert.equal(budget.bytes, 0);
  assert.ok(budget.admit(second.req, second.res), "taken once freed");
});

Deno.test("BodyBudget always takes one body alone, however large", () => {
  const budget = new BodyBudget(1_000);
  const large = exchange({ "content-length": "5000" });
  assert.ok(budget.admit(large.req, large.res));
});

Deno.test("BodyBudget counts a chunked body as it arrives, and refuses new bodies once full", () => {
  const budget = new BodyBudget(1_000);
  const chunked = exchange({ "transfer-encoding": "chunked" });
  const count = budget.admit(chunked.req, chunked.res)!;
  count(600);
  count(400);
  assert.equal(budget.bytes, 1_000);
  const next = exchange({ "transfer-encoding": "chunked" });
  assert.equal(budget.admit(next.req, next.res), undefined);
  chunked.close();
  assert.equal(budget.bytes, 0);
});
