/**
 * The quota ledger's protocol (api/service/quota_ledger.ts) over a record
 * kept in memory with Kubernetes' conditional-write rules, the other
 * writers placed exactly where a race between replicas would put them.
 */
import assert from "node:assert/strict";
import { type Holding, zeroUsage } from "../../../api/auth/quota.ts";
import {
  chargedHoldings,
  chargesOf,
  liveCharges,
  QuotaLedger,
} from "../../../api/service/quota_ledger.ts";
import { Code, ServiceError } from "../../../domain/errors.ts";
import { MemoryRecords, NS } from "./memory_records.ts";

function holding(key: string, cpu: number, owner = "ada"): Holding {
  return { key, owner, usage: { ...zeroUsage(), maxClusters: 1, cpu } };
}

/** A decision under a quota of `limit` CPUs for a create of `asks`. */
function cpuQuota(limit: number, asks: Holding) {
  return (held: Holding[]) => {
    const used = held.filter((h) => h.key !== asks.key)
      .reduce((sum, h) => sum + h.usage.cpu, 0);
    return used + asks.usage.cpu > limit
      ? `CPUs ${used} of ${limit}`
      : undefined;
  };
}

function request(asks: Holding, standing: Holding[] = [], limit = 8) {
  return {
    namespace: NS,
    holding: asks,
    standing: () => Promise.resolve(standing),
    decide: cpuQuota(limit, asks),
    kube: {},
  };
}

Deno.test("a charge is refused with nothing written when the quota would be exceeded", async () => {
  const records = new MemoryRecords();
  const ledger = new QuotaLedger(records);
  const outcome = await ledger.charge(
    request(holding("RayCluster/b", 4), [holding("RayCluster/a", 6)]),
  );
  assert.deepEqual(outcome, { refused: "CPUs 6 of 8" });
  assert.equal(records.writes, 0);
});

Deno.test("a charge counts the charges in flight on top of what stands, and a release takes only its own off", async () => {
  const records = new MemoryRecords();
  let now = 1_000;
  const ledger = new QuotaLedger(records, { now: () => now });
  const first = await ledger.charge(request(holding("RayCluster/a", 6)));
  assert.ok("id" in first);
  // Nothing stands yet: the first write is in flight, its charge counts.
  const second = await ledger.charge(request(holding("RayCluster/b", 4)));
  assert.deepEqual(second, { refused: "CPUs 6 of 8" });
  const third = await ledger.charge(request(holding("RayCluster/c", 2)));
  assert.ok("id" in third);
  now += 10;
  await ledger.release(NS, first.id, {});
  const left = chargesOf(records.record!.charges);
  assert.deepEqual(Object.keys(left), [third.id]);
  assert.equal(left[third.id].key, "RayCluster/c");
});

Deno.test("a charge that loses the record to another replica reads it again and counts that replica's charge", async () => {
  const records = new MemoryRecords();
  const ledger = new QuotaLedger(records, { now: () => 5 });
  // Between this replica's read and its write, another replica charges
  // 6 CPUs: this write is refused by the API server (conflict), and the
  // next read sees the other charge.
  records.beforeWrite = () => {
    records.beforeWrite = undefined;
    records.put(JSON.stringify({
      other: { ...holding("RayCluster/other", 6), at: 5 },
    }));
  };
  const outcome = await ledger.charge(request(holding("RayCluster/b", 4)));
  assert.deepEqual(outcome, { refused: "CPUs 6 of 8" });
  assert.deepEqual(Object.keys(chargesOf(records.record!.charges)), ["other"]);
});

Deno.test("a record created by another replica first is read, not overwritten", async () => {
  const records = new MemoryRecords();
  const ledger = new QuotaLedger(records, { now: () => 5 });
  records.beforeWrite = () => {
    records.beforeWrite = undefined;
    records.put(JSON.stringify({
      other: { ...holding("RayCluster/other", 2), at: 5 },
    }));
  };
  const outcome = await ledger.charge(request(holding("RayCluster/b", 4)));
  assert.ok("id" in outcome);
  assert.deepEqual(
    Object.keys(chargesOf(records.record!.charges)).sort(),
    [outcome.id, "other"].sort(),
  );
});

Deno.test("a charge left behind by a replica that stopped counts until pendingMs, then is dropped by the next write", async () => {
  const records = new MemoryRecords();
  let now = 0;
  const ledger = new QuotaLedger(records, { now: () => now, pendingMs: 60 });
  const leaked = await ledger.charge(request(holding("RayCluster/a", 6)));
  assert.ok("id" in leaked);
  now = 59;
  assert.deepEqual(
    await ledger.charge(request(holding("RayCluster/b", 4))),
    { refused: "CPUs 6 of 8" },
  );
  now = 60;
  const next = await ledger.charge(request(holding("RayCluster/b", 4)));
  assert.ok("id" in next);
  assert.deepEqual(Object.keys(chargesOf(records.record!.charges)), [next.id]);
});

Deno.test("the sweep drops the charges past pendingMs and writes nothing when none are", async () => {
  const records = new MemoryRecords();
  let now = 0;
  const ledger = new QuotaLedger(records, { now: () => now, pendingMs: 60 });
  await ledger.charge(request(holding("RayCluster/a", 1)));
  const writes = records.writes;
  await ledger.sweep(NS);
  assert.equal(records.writes, writes, "a live charge stays, unwritten");
  now = 61;
  await ledger.sweep(NS);
  assert.deepEqual(chargesOf(records.record!.charges), {});
  await ledger.sweep(NS);
  assert.equal(records.writes, writes + 1, "an empty record is not rewritten");
});

Deno.test("a charge that loses every attempt is UNAVAILABLE, naming the namespace", async () => {
  const records = new MemoryRecords();
  const ledger = new QuotaLedger(records, { attempts: 3 });
  records.beforeWrite = () => records.put(records.record?.charges ?? "");
  await assert.rejects(
    ledger.charge(request(holding("RayCluster/b", 1))),
    (error: unknown) => {
      assert.ok(error instanceof ServiceError);
      assert.equal(error.code, Code.UNAVAILABLE);
      assert.match(error.message, /namespace "team-a".*3 attempts; try again$/);
      return true;
    },
  );
});

Deno.test("what is counted: one holding per key, at the larger of what stands and each charge", () => {
  const standing = [holding("RayCluster/a", 4), holding("RayCluster/b", 2)];
  const charges = {
    up: { ...holding("RayCluster/a", 6), at: 0 },
    down: { ...holding("RayCluster/b", 1), at: 0 },
    new: { ...holding("RayJob/c", 3, "bo"), at: 0 },
  };
  const counted = chargedHoldings(standing, charges);
  assert.deepEqual(
    counted.map((h) => [h.key, h.owner, h.usage.cpu]),
    [["RayCluster/a", "ada", 6], ["RayCluster/b", "ada", 2], [
      "RayJob/c",
      "bo",
      3,
    ]],
  );
});

Deno.test("a record's text: unreadable text or entries hold no charge; old charges are not live", () => {
  assert.deepEqual(chargesOf(""), {});
  assert.deepEqual(chargesOf("{not json"), {});
  assert.deepEqual(chargesOf('{"x": {"key": 1}}'), {});
  const charges = chargesOf(JSON.stringify({
    a: { ...holding("RayCluster/a", 1), at: 0 },
    b: { ...holding("RayCluster/b", 1), at: 50 },
  }));
  assert.deepEqual(Object.keys(liveCharges(charges, 100, 60)), ["b"]);
});
