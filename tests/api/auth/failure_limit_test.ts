/**
 * Failed authentications limited per source address (issue 23, finding 9):
 * the address a failure counts by, and the buckets on a clock the test
 * holds. Through the real listeners: failure_limit_transports_test.ts.
 */
import assert from "node:assert/strict";
import { FailureLimit, sourceOf } from "../../../api/auth/failure_limit.ts";

Deno.test("sourceOf() is the IP without the port, an IPv6 address its /64", async (t) => {
  const cases: [string, string][] = [
    ["10.0.0.7:51234", "10.0.0.7"],
    ["[fd00:1:2:3::7]:51234", "fd00:1:2:3::/64"],
    ["fd00:1:2:3:4:5:6:7:51234", "fd00:1:2:3::/64"],
    ["[fd00:0001:2:3:ffff::1]:1", "fd00:1:2:3::/64"],
    ["[::ffff:10.0.0.7]:443", "10.0.0.7"],
  ];
  for (const [address, want] of cases) {
    await t.step(address, () => assert.equal(sourceOf(address), want));
  }
});

Deno.test("FailureLimit lets a burst through, then one per 1/rate, per address", () => {
  let now = 0;
  const limit = new FailureLimit({ perSecond: 10, burst: 3 }, () => now);
  assert.deepEqual([1, 2, 3].map(() => limit.fail("1.2.3.4:1")), [0, 0, 0]);
  assert.ok(limit.fail("1.2.3.4:2") > 0, "the fourth in a row waits");
  assert.equal(limit.fail("5.6.7.8:1"), 0, "another address has its own");
  now += 100;
  assert.equal(limit.fail("1.2.3.4:3"), 0, "a tenth of a second later, one");
  assert.equal(new FailureLimit({ perSecond: 0, burst: 1 }).fail("x:1"), 0);
});

Deno.test("FailureLimit keeps at most maxSources buckets, dropping the one that failed least lately", () => {
  let now = 0;
  const limit = new FailureLimit({ perSecond: 1, burst: 1 }, () => now, 2);
  for (let i = 0; i < 10; i++) limit.fail(`10.0.0.${i}:1`);
  assert.equal(limit.size, 2);
  now += 5_000;
  assert.equal(limit.fail("10.0.1.1:1"), 0);
  assert.equal(limit.fail("10.0.1.2:1"), 0);
  assert.ok(limit.fail("10.0.1.1:2") > 0, "10.0.1.1 throttled, and last used");
  assert.equal(limit.fail("10.0.1.3:1"), 0, "10.0.1.2 dropped for it");
  assert.equal(limit.size, 2);
  assert.ok(limit.fail("10.0.1.1:3") > 0, "10.0.1.1 kept its bucket");
  assert.equal(limit.fail("10.0.1.2:2"), 0, "10.0.1.2 starts afresh");
});
