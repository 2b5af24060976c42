/**
 * The token buckets behind fair use and the failed-authentication limit,
 * alone: on a clock the test holds, so every wait is exact.
 */
import assert from "node:assert/strict";
import { TokenBuckets } from "../../../api/auth/token_bucket.ts";

Deno.test("TokenBuckets lets a burst through, then one per 1/rate, per key", () => {
  let now = 0;
  const buckets = new TokenBuckets(() => now);
  const rate = { perSecond: 2, burst: 3 };
  assert.deepEqual([1, 2, 3].map(() => buckets.take("a", rate)), [0, 0, 0]);
  assert.equal(buckets.take("a", rate), 0.5, "the fourth waits half a second");
  assert.equal(buckets.take("b", rate), 0, "another key has its own bucket");
  now += 500;
  assert.equal(buckets.take("a", rate), 0, "half a second later, one more");
});

Deno.test("TokenBuckets answers how long until the next token, taking none meanwhile", () => {
  let now = 0;
  const buckets = new TokenBuckets(() => now);
  const rate = { perSecond: 4, burst: 1 };
  assert.equal(buckets.take("a", rate), 0);
  assert.equal(buckets.take("a", rate), 0.25);
  now += 100;
  assert.equal(buckets.take("a", rate), 0.15, "a refused take costs nothing");
  now += 150;
  assert.equal(buckets.take("a", rate), 0);
});

Deno.test("TokenBuckets fills a bucket no further than its burst", () => {
  let now = 0;
  const buckets = new TokenBuckets(() => now);
  const rate = { perSecond: 10, burst: 2 };
  buckets.take("a", rate);
  now += 60_000;
  assert.deepEqual([1, 2].map(() => buckets.take("a", rate)), [0, 0]);
  assert.ok(buckets.take("a", rate) > 0, "a minute idle is still two");
});

Deno.test("TokenBuckets takes the rate given on each take, as a reload may change it", () => {
  let now = 0;
  const buckets = new TokenBuckets(() => now);
  buckets.take("a", { perSecond: 1, burst: 1 });
  assert.equal(buckets.take("a", { perSecond: 1, burst: 1 }), 1);
  assert.equal(buckets.take("a", { perSecond: 10, burst: 1 }), 0.1);
  now += 100;
  assert.equal(buckets.take("a", { perSecond: 10, burst: 1 }), 0);
});

Deno.test("TokenBuckets with perSecond 0 limits nothing and keeps no bucket", () => {
  const buckets = new TokenBuckets(() => 0);
  const off = { perSecond: 0, burst: 1 };
  assert.deepEqual([1, 2, 3].map(() => buckets.take("a", off)), [0, 0, 0]);
  assert.equal(buckets.size, 0);
});

Deno.test("TokenBuckets keeps at most maxKeys buckets, dropping the least lately used", () => {
  const buckets = new TokenBuckets(() => 0, 2);
  const rate = { perSecond: 1, burst: 1 };
  buckets.take("a", rate);
  buckets.take("b", rate);
  assert.ok(buckets.take("a", rate) > 0, "a is empty, and last used");
  buckets.take("c", rate);
  assert.equal(buckets.size, 2);
  assert.ok(buckets.take("a", rate) > 0, "a kept its bucket; b went");
  assert.equal(buckets.take("b", rate), 0, "b starts afresh");
});
