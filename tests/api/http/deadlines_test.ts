/** Deadlines (api/http/deadlines.ts): many time-outs on one interval. */
import assert from "node:assert/strict";
import { type Clock, Deadlines } from "../../../api/http/deadlines.ts";

/**
 * A clock that moves only when told: `advance(ms)` runs every interval due
 * on the way, in order, each seeing the time it was due at.
 */
class HandClock implements Clock {
  #now = 0;
  #lastId = 0;
  readonly #intervals = new Map<
    number,
    { fire: () => void; everyMs: number; next: number }
  >();

  now(): number {
    return this.#now;
  }

  setInterval(fire: () => void, ms: number): number {
    const id = ++this.#lastId;
    this.#intervals.set(id, { fire, everyMs: ms, next: this.#now + ms });
    return id;
  }

  clearInterval(handle: unknown): void {
    this.#intervals.delete(handle as number);
  }

  /** Intervals running now. */
  get running(): number {
    return this.#intervals.size;
  }

  advance(ms: number): void {
    const end = this.#now + ms;
    for (;;) {
      const due = [...this.#intervals.values()]
        .filter((i) => i.next <= end)
        .sort((a, b) => a.next - b.next)[0];
      if (due === undefined) break;
      this.#now = due.next;
      due.next += due.everyMs;
      due.fire();
    }
    this.#now = end;
  }
}

Deno.test("a deadline fires once it has passed, not before; a cancelled one never", () => {
  const clock = new HandClock();
  const deadlines = new Deadlines(5, clock);
  const fired: string[] = [];
  let firedAt = 0;
  deadlines.add(60, () => {
    fired.push("late");
    firedAt = clock.now();
  });
  const early = deadlines.add(20, () => fired.push("cancelled"));
  early.cancel();
  deadlines.add(10, () => fired.push("soon"));
  clock.advance(30);
  assert.deepEqual(fired, ["soon"]);
  clock.advance(29);
  assert.deepEqual(fired, ["soon"], "not yet at 59 ms");
  clock.advance(6);
  assert.deepEqual(fired, ["soon", "late"]);
  assert.ok(
    firedAt >= 60 && firedAt <= 65,
    `fired at ${firedAt} ms, want 60 to 65 (the resolution)`,
  );
  assert.equal(deadlines.size, 0);
  assert.equal(clock.running, 0, "nothing pending: the interval is gone");
});

Deno.test("cancelling the last deadline stops the interval at once", () => {
  const clock = new HandClock();
  const deadlines = new Deadlines(5, clock);
  const one = deadlines.add(1_000, () => assert.fail("cancelled"));
  assert.equal(deadlines.size, 1);
  assert.equal(clock.running, 1);
  one.cancel();
  one.cancel();
  assert.equal(deadlines.size, 0);
  assert.equal(clock.running, 0);
  clock.advance(2_000);
});

Deno.test("a deadline restarted fires that long after the restart, fired or cancelled before or not", () => {
  const clock = new HandClock();
  const deadlines = new Deadlines(5, clock);
  let fired = 0;
  const deadline = deadlines.add(20, () => fired++);
  clock.advance(20);
  assert.equal(fired, 1);
  deadline.restart(20);
  deadline.restart(40);
  clock.advance(39);
  assert.equal(fired, 1, "not 39 ms after the restart");
  clock.advance(5);
  assert.equal(fired, 2, "fired 40 ms after the restart");
  deadline.restart(1_000);
  deadline.cancel();
  assert.equal(deadlines.size, 0);
  assert.equal(clock.running, 0);
  clock.advance(2_000);
  assert.equal(fired, 2);
});

Deno.test("Deadlines on the real clock fire, and leave no interval behind", async () => {
  const deadlines = new Deadlines(5);
  const fired = await new Promise<string>((resolve) => {
    deadlines.add(1_000, () => resolve("cancelled")).cancel();
    deadlines.add(10, () => resolve("fired"));
  });
  assert.equal(fired, "fired");
  assert.equal(deadlines.size, 0);
  // The test's sanitizer checks that the interval was cleared.
});

Deno.test("a fire that cancels or restarts another due deadline: that one does not fire now", () => {
  const clock = new HandClock();
  const deadlines = new Deadlines(5, clock);
  const fired: string[] = [];
  const later: { cancelled?: ReturnType<Deadlines["add"]> } = {};
  const restarted = {
    deadline: undefined as ReturnType<Deadlines["add"]> | undefined,
  };
  deadlines.add(10, () => {
    fired.push("first");
    later.cancelled?.cancel();
    restarted.deadline?.restart(50);
  });
  later.cancelled = deadlines.add(10, () => fired.push("cancelled"));
  restarted.deadline = deadlines.add(10, () => fired.push("restarted"));
  const kept = deadlines.add(10, () => fired.push("kept"));
  clock.advance(10);
  assert.deepEqual(fired, ["first", "kept"]);
  assert.equal(deadlines.size, 1);
  kept.cancel();
  clock.advance(50);
  assert.deepEqual(fired, ["first", "kept", "restarted"]);
  assert.equal(deadlines.size, 0);
  assert.equal(clock.running, 0);
});

Deno.test("deadlines cancelled in any order leave the others pending, each once", () => {
  const clock = new HandClock();
  const deadlines = new Deadlines(5, clock);
  const fired: number[] = [];
  const all = Array.from(
    { length: 10 },
    (_, i) => deadlines.add(10 + i, () => fired.push(i)),
  );
  for (const i of [0, 9, 4, 5]) all[i].cancel();
  all[4].cancel();
  assert.equal(deadlines.size, 6);
  clock.advance(100);
  assert.deepEqual(fired, [1, 2, 3, 6, 7, 8]);
  assert.equal(deadlines.size, 0);
});
