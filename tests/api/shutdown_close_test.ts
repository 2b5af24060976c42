/**
 * closeWithin (api/shutdown.ts): what runs in the background is closed in
 * order when Corral stops, and one that never finishes closing does not
 * keep the process alive.
 */
import assert from "node:assert/strict";
import { closeWithin } from "../../api/shutdown.ts";

Deno.test("every part closes, in the order given: nothing is left", async () => {
  const closed: string[] = [];
  const part = (name: string) => ({
    name,
    close: async () => {
      await Promise.resolve();
      closed.push(name);
    },
  });
  const left = await closeWithin([part("a"), part("b"), part("c")], 10_000);
  assert.equal(left, undefined);
  assert.deepEqual(closed, ["a", "b", "c"]);
});

Deno.test("a part that never closes is named once the time is up; those before it closed", async () => {
  const closed: string[] = [];
  const left = await closeWithin([
    { name: "cache", close: () => Promise.resolve(void closed.push("cache")) },
    // A Kubernetes call the client library lost: it never settles.
    { name: "expiry and its lease", close: () => new Promise(() => {}) },
    { name: "certificates", close: () => Promise.resolve() },
  ], 50);
  assert.equal(left, "expiry and its lease");
  assert.deepEqual(closed, ["cache"]);
});

Deno.test("a part that fails to close is reported, and the next still closed", async () => {
  const failures: [string, unknown][] = [];
  let nextClosed = false;
  const left = await closeWithin(
    [
      { name: "files", close: () => Promise.reject(new Error("EBADF")) },
      { name: "cache", close: () => Promise.resolve(void (nextClosed = true)) },
    ],
    10_000,
    (name, error) => failures.push([name, error]),
  );
  assert.equal(left, undefined);
  assert.equal(nextClosed, true);
  assert.equal(failures.length, 1);
  assert.equal(failures[0][0], "files");
});
