/**
 * MissLookups alone, on an injected clock: one lookup per name at a time,
 * a 404 remembered for its time, and lookups limited per second.
 */
import assert from "node:assert/strict";
import { MissLookups } from "../../orchestrator/cache_misses.ts";
import { Code, ServiceError } from "../../domain/errors.ts";
import { codeOf } from "./helpers.ts";

const ACTION = 'Cannot get cluster "a/x"';

function missing(): Promise<never> {
  return Promise.reject(
    new ServiceError(Code.NOT_FOUND, `${ACTION}: not found`),
  );
}

Deno.test("MissLookups: concurrent misses of one name share one lookup", async () => {
  const misses = new MissLookups<string>();
  let calls = 0;
  let answer!: (value: string) => void;
  const lookup = () => {
    calls++;
    return new Promise<string>((resolve) => answer = resolve);
  };
  const all = Array.from(
    { length: 100 },
    () => misses.find("a/x", ACTION, lookup),
  );
  answer("found");
  assert.deepEqual(new Set(await Promise.all(all)), new Set(["found"]));
  assert.equal(calls, 1);
});

Deno.test("MissLookups: a 404 is remembered for its time, then asked again", async () => {
  let now = 0;
  const misses = new MissLookups<string>({ rememberMs: 1_000, now: () => now });
  let calls = 0;
  const lookup = () => (calls++, missing());
  assert.equal(
    await codeOf(misses.find("a/x", ACTION, lookup)),
    Code.NOT_FOUND,
  );
  now = 999;
  await assert.rejects(misses.find("a/x", ACTION, lookup), {
    code: Code.NOT_FOUND,
    message: 'Cannot get cluster "a/x": not found',
  });
  assert.equal(calls, 1);
  now = 1_000;
  await codeOf(misses.find("a/x", ACTION, lookup));
  assert.equal(calls, 2);
  // Another name is asked for.
  await codeOf(misses.find("a/y", ACTION, lookup));
  assert.equal(calls, 3);
});

Deno.test("MissLookups: live lookups are limited per second; past it NOT_FOUND at once; 0 makes none", async () => {
  let now = 0;
  const misses = new MissLookups<string>({ qps: 5, now: () => now });
  let calls = 0;
  const lookup = () => (calls++, Promise.resolve("found"));
  const round = () =>
    Promise.all(
      Array.from(
        { length: 20 },
        (_, i) => codeOf(misses.find(`a/${i}`, ACTION, lookup)),
      ),
    );
  let codes = await round();
  assert.equal(calls, 5);
  assert.equal(codes.filter((c) => c === Code.NOT_FOUND).length, 15);
  now = 400; // two more allowed
  codes = await round();
  assert.equal(calls, 7);
  now = 10_000; // never more than a second's worth at once
  await round();
  assert.equal(calls, 12);

  const none = new MissLookups<string>({ qps: 0 });
  assert.equal(await codeOf(none.find("a/x", ACTION, lookup)), Code.NOT_FOUND);
  assert.equal(calls, 12);
});

Deno.test("MissLookups: a caller that goes away is cancelled; the others still get the answer", async () => {
  const misses = new MissLookups<string>();
  let answer!: (value: string) => void;
  const lookup = () => new Promise<string>((resolve) => answer = resolve);
  const leaving = new AbortController();
  const first = misses.find("a/x", ACTION, lookup, { signal: leaving.signal });
  const second = misses.find("a/x", ACTION, lookup);
  leaving.abort();
  await assert.rejects(first, {
    code: Code.CANCELLED,
    message: 'Cannot get cluster "a/x": the request was cancelled',
  });
  answer("found");
  assert.equal(await second, "found");
});
