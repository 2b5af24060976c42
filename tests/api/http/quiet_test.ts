/**
 * When a stopping listener counts as quiet (quiet.ts), on a clock the test
 * moves: nothing arrived for the quiet time, measured only while the event
 * loop kept time.
 */
import assert from "node:assert/strict";
import { LATE_MS, Quiet, TICK_MS } from "../../../api/http/quiet.ts";
import { ManualClock } from "../../manual_clock.ts";

const QUIET_MS = 250;

/**
 * The manual clock, and a way to stall it: time passes and no timer
 * fires, as when the event loop is held up.
 */
function stallingClock() {
  const clock = new ManualClock();
  let stalled = 0;
  return {
    clock,
    timers: {
      now: () => clock.now() + stalled,
      setTimeout: clock.setTimeout,
      clearTimeout: clock.clearTimeout,
    },
    stall(ms: number) {
      stalled += ms;
    },
  };
}

/** Whether `promise` has settled, once pending callbacks have run. */
async function settled(promise: Promise<void>): Promise<boolean> {
  let done = false;
  promise.then(() => done = true);
  await new Promise((resolve) => setTimeout(resolve, 0));
  return done;
}

Deno.test("Quiet.wait() resolves once nothing has arrived for the quiet time", async () => {
  const { clock, timers } = stallingClock();
  const quiet = new Quiet(QUIET_MS, timers);
  quiet.note();
  const waited = quiet.wait(10_000);
  clock.advance(200);
  quiet.note();
  clock.advance(QUIET_MS - 1);
  assert.equal(await settled(waited), false, "an arrival 249 ms ago");
  clock.advance(1);
  assert.equal(await settled(waited), true);
  quiet.close();
  assert.equal(clock.pending, 0, "timers left");
});

Deno.test("Quiet.wait() gives up after its longest wait while arrivals go on", async () => {
  const { clock, timers } = stallingClock();
  const quiet = new Quiet(QUIET_MS, timers);
  const waited = quiet.wait(1_000);
  for (let i = 0; i < 10; i++) {
    quiet.note();
    clock.advance(99);
  }
  assert.equal(await settled(waited), false);
  clock.advance(10);
  assert.equal(await settled(waited), true);
  quiet.close();
});

Deno.test("Quiet counts the quiet time only while the event loop keeps time: a late tick starts it again", async () => {
  const { clock, timers, stall } = stallingClock();
  const quiet = new Quiet(QUIET_MS, timers);
  const waited = quiet.wait(10_000);
  clock.advance(200);
  // Held up: connections may be waiting in the backlog, unseen. The next
  // tick comes late, and the quiet time starts again with it.
  stall(TICK_MS + LATE_MS + 1);
  clock.advance(TICK_MS);
  clock.advance(QUIET_MS - 1);
  assert.equal(await settled(waited), false, "quiet through a stall");
  clock.advance(1);
  assert.equal(await settled(waited), true);
  quiet.close();
});

Deno.test("Quiet.left() says how long until a connection idle since then has been quiet, and nothing is before watch()", () => {
  const { clock, timers } = stallingClock();
  const quiet = new Quiet(QUIET_MS, timers);
  assert.equal(quiet.left(-Infinity), Infinity, "not watching");
  clock.advance(1_000);
  quiet.watch();
  // Idle long before: the quiet time counts from the watch.
  assert.equal(quiet.left(0), QUIET_MS);
  clock.advance(100);
  assert.equal(quiet.left(0), QUIET_MS - 100);
  assert.equal(quiet.left(clock.now()), QUIET_MS, "idle from now");
  clock.advance(QUIET_MS);
  assert.ok(quiet.left(0) <= 0);
  quiet.close();
  assert.equal(clock.pending, 0, "timers left");
});
