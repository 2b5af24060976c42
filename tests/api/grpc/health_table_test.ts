/**
 * The health service's table of statuses, without a server: what Check and
 * List answer from, and what a Watch stream is sent.
 */
import assert from "node:assert/strict";
import { HealthTable } from "../../../api/grpc/health.ts";

/** A Watch call that records what it was sent and whether it was ended. */
function watchCall(service: string) {
  const call = {
    request: { service },
    written: [] as string[],
    ended: false,
    write(message: { status: string }) {
      call.written.push(message.status);
      return true;
    },
    end() {
      call.ended = true;
    },
    listeners: new Map<string, () => void>(),
    on(event: string, listener: () => void) {
      call.listeners.set(event, listener);
      return call;
    },
  };
  return call;
}

type Call = Parameters<HealthTable["watch"]>[0];

Deno.test("HealthTable starts with the server and every service SERVING", () => {
  const table = new HealthTable(["proto.ClusterService"]);
  assert.deepEqual(table.list(), {
    "": { status: "SERVING" },
    "proto.ClusterService": { status: "SERVING" },
  });
  assert.equal(table.status("proto.Other"), undefined);
});

Deno.test("HealthTable writes a watched service's status now and on each change only", () => {
  const table = new HealthTable(["a"]);
  const call = watchCall("a");
  table.watch(call as unknown as Call);
  table.setStatus("a", "SERVING");
  table.setAll("NOT_SERVING");
  assert.deepEqual(call.written, ["SERVING", "NOT_SERVING"]);
});

Deno.test("HealthTable answers a watch of an unknown service SERVICE_UNKNOWN", () => {
  const table = new HealthTable([]);
  const call = watchCall("nope");
  table.watch(call as unknown as Call);
  assert.deepEqual(call.written, ["SERVICE_UNKNOWN"]);
  assert.equal(call.ended, false);
});

Deno.test("HealthTable.shutdown() marks everything NOT_SERVING and ends every watch, later ones at once", () => {
  const table = new HealthTable(["a"]);
  const early = watchCall("");
  table.watch(early as unknown as Call);
  table.shutdown();
  assert.deepEqual(early.written, ["SERVING", "NOT_SERVING"]);
  assert.equal(early.ended, true);
  assert.equal(table.status("a"), "NOT_SERVING");
  const late = watchCall("a");
  table.watch(late as unknown as Call);
  assert.deepEqual(late.written, ["NOT_SERVING"]);
  assert.equal(late.ended, true);
});

Deno.test("HealthTable forgets a service once its last watcher goes", () => {
  const table = new HealthTable(["a"]);
  const calls = [watchCall("nope"), watchCall("nope"), watchCall("a")];
  for (const call of calls) table.watch(call as unknown as Call);
  assert.equal(table.watchedServices, 2);
  calls[0].listeners.get("cancelled")!();
  assert.equal(table.watchedServices, 2, "one watcher of nope is left");
  calls[1].listeners.get("close")!();
  calls[2].listeners.get("cancelled")!();
  calls[2].listeners.get("close")!();
  assert.equal(table.watchedServices, 0);
});
