/**
 * The leader's sweep of the quota records (api/service/quota_sweeper.ts):
 * charges left behind are dropped from every served namespace's record,
 * only while leading, a failing record not stopping the others.
 */
import assert from "node:assert/strict";
import { zeroUsage } from "../../../api/auth/quota.ts";
import { createLogger } from "../../../api/log.ts";
import { chargesOf, QuotaLedger } from "../../../api/service/quota_ledger.ts";
import { QuotaSweeper } from "../../../api/service/quota_sweeper.ts";
import { Code, ServiceError } from "../../../domain/errors.ts";
import { MemoryRecords } from "./memory_records.ts";

function charge(at: number) {
  return {
    key: "RayCluster/x",
    owner: "ada",
    usage: { ...zeroUsage(), cpu: 1 },
    at,
  };
}

function rig(leading: { now: boolean }, served: string[] = []) {
  const records = new MemoryRecords();
  let now = 0;
  const lines: Record<string, unknown>[] = [];
  const ledger = new QuotaLedger(records, { now: () => now, pendingMs: 60 });
  const sweeper = new QuotaSweeper({
    ledger,
    records,
    leader: { isLeader: () => leading.now },
    log: createLogger({ write: (line) => lines.push(JSON.parse(line)) }),
    namespaces: served,
  });
  return {
    records,
    sweeper,
    lines,
    at: (ms: number) => now = ms,
  };
}

Deno.test("the sweep drops the charges left behind in every namespace's record, and keeps the live ones", async () => {
  const { records, sweeper, at } = rig({ now: true });
  records.put(JSON.stringify({ old: charge(0), live: charge(50) }), "a");
  records.put(JSON.stringify({ old: charge(10) }), "b");
  at(100);
  await sweeper.runOnce();
  assert.deepEqual(
    Object.keys(chargesOf(records.byNamespace.get("a")!.charges)),
    ["live"],
  );
  assert.deepEqual(chargesOf(records.byNamespace.get("b")!.charges), {});
});

Deno.test("the sweep does nothing unless leading, and only in the served namespaces", async () => {
  const leading = { now: false };
  const { records, sweeper, at } = rig(leading, ["a"]);
  records.put(JSON.stringify({ old: charge(0) }), "a");
  records.put(JSON.stringify({ old: charge(0) }), "b");
  at(100);
  await sweeper.runOnce();
  assert.equal(records.writes, 2, "nothing written while not leading");
  leading.now = true;
  await sweeper.runOnce();
  assert.deepEqual(chargesOf(records.byNamespace.get("a")!.charges), {});
  assert.deepEqual(
    Object.keys(chargesOf(records.byNamespace.get("b")!.charges)),
    ["old"],
  );
});

Deno.test("a record the sweep cannot write is logged, and the others are swept", async () => {
  const { records, sweeper, lines, at } = rig({ now: true });
  records.put(JSON.stringify({ old: charge(0) }), "a");
  records.put(JSON.stringify({ old: charge(0) }), "b");
  at(100);
  const write = records.write.bind(records);
  records.write = (namespace, charges, version) =>
    namespace === "a"
      ? Promise.reject(new ServiceError(Code.PERMISSION_DENIED, "forbidden"))
      : write(namespace, charges, version);
  await sweeper.runOnce();
  assert.deepEqual(chargesOf(records.byNamespace.get("b")!.charges), {});
  assert.deepEqual(
    lines.map(({ msg, namespace }) => ({ msg, namespace })),
    [{ msg: "Failed to sweep a quota record", namespace: "a" }],
  );
});
