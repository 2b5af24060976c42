/** Deadlines (api/http/deadlines.ts): many time-outs on one interval. */
import assert from "node:assert/strict";
import { Deadlines } from "../../../api/http/deadlines.ts";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

Deno.test("a deadline fires once it has passed, not before; a cancelled one never", async () => {
  const deadlines = new Deadlines(5);
  const fired: string[] = [];
  const started = performance.now();
  let firedAt = 0;
  deadlines.add(60, () => {
    fired.push("late");
    firedAt = performance.now();
  });
  const early = deadlines.add(20, () => fired.push("cancelled"));
  early.cancel();
  deadlines.add(10, () => fired.push("soon"));
  await sleep(30);
  assert.deepEqual(fired, ["soon"]);
  while (deadlines.size > 0) await sleep(10);
  assert.deepEqual(fired, ["soon", "late"]);
  assert.ok(firedAt - started >= 60, `fired after ${firedAt - started} ms`);
  // Nothing pending: the interval is gone (the test's sanitizer checks).
});

Deno.test("cancelling the last deadline stops the interval at once", () => {
  const deadlines = new Deadlines(5);
  const one = deadlines.add(1_000, () => assert.fail("cancelled"));
  assert.equal(deadlines.size, 1);
  one.cancel();
  one.cancel();
  assert.equal(deadlines.size, 0);
});

Deno.test("a deadline restarted fires that long after the restart, fired or cancelled before or not", async () => {
  const deadlines = new Deadlines(5);
  let fired = 0;
  const deadline = deadlines.add(20, () => fired++);
  while (fired === 0) await sleep(5);
  deadline.restart(20);
  deadline.restart(40);
  const restarted = performance.now();
  while (fired === 1) await sleep(5);
  assert.ok(performance.now() - restarted >= 40);
  deadline.restart(1_000);
  deadline.cancel();
  assert.equal(deadlines.size, 0);
  assert.equal(fired, 2);
});
