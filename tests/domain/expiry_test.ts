/**
 * The pure rules of expiry: durations as people write them, the
 * annotation's format, and how ttl, expires_at, the default and the
 * maximum make one expiry (or a refusal naming the field).
 */
import assert from "node:assert/strict";
import { ServiceError } from "../../domain/errors.ts";
import {
  expiryAnnotation,
  expiryOf,
  expiryOnCreate,
  extendedExpiry,
  formatDuration,
  limitOfKind,
  parseDuration,
} from "../../domain/expiry.ts";

const NOW = new Date("2026-11-26T12:00:00Z");
const HOUR = 3_600_000;
const ACTION = 'Cannot create cluster "team-a/blue"';

Deno.test("parseDuration() reads hours, minutes and seconds, and nothing else", async (t) => {
  const cases: [string, number | undefined][] = [
    ["4h", 4 * HOUR],
    ["1h30m", 90 * 60_000],
    ["90s", 90_000],
    ["2.5h", 2.5 * HOUR],
    ["1h2m3s", HOUR + 123_000],
    ["", undefined],
    ["soon", undefined],
    ["4d", undefined],
    ["30m1h", undefined],
    ["-1h", undefined],
  ];
  for (const [text, want] of cases) {
    await t.step(JSON.stringify(text), () => {
      assert.equal(parseDuration(text), want, `got/want for ${text}`);
    });
  }
});

Deno.test("formatDuration() writes what parseDuration() reads", () => {
  for (const ms of [HOUR, 90 * 60_000, 45_000, 24 * HOUR + 1_000]) {
    assert.equal(parseDuration(formatDuration(ms)), ms);
  }
  assert.equal(formatDuration(0), "0s");
});

Deno.test("the annotation is RFC 3339 in UTC, whole seconds, and reads back", () => {
  const at = new Date("2026-11-26T12:34:56.789Z");
  assert.equal(expiryAnnotation(at), "2026-11-26T12:34:56Z");
  assert.deepEqual(
    expiryOf({ "corral.dev/expires-at": "2026-11-26T12:34:56Z" }),
    new Date("2026-11-26T12:34:56Z"),
  );
  assert.equal(expiryOf({ "corral.dev/expires-at": "later" }), undefined);
  assert.equal(expiryOf(undefined), undefined);
});

function refusal(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    assert.ok(error instanceof ServiceError);
    assert.equal(error.code, 3);
    return error.message;
  }
  assert.fail("not refused");
}

Deno.test("expiryOnCreate(): ttl, expires_at, the default, the max", () => {
  const limit = { defaultMs: 8 * HOUR, maxMs: 24 * HOUR };
  const at = (ms: number) => new Date(NOW.getTime() + ms);
  assert.deepEqual(
    expiryOnCreate({ ttl: "2h" }, limit, NOW, ACTION),
    at(2 * HOUR),
  );
  assert.deepEqual(
    expiryOnCreate({ expiresAt: at(3 * HOUR) }, limit, NOW, ACTION),
    at(3 * HOUR),
  );
  assert.deepEqual(expiryOnCreate({}, limit, NOW, ACTION), at(8 * HOUR));
  assert.equal(expiryOnCreate({}, {}, NOW, ACTION), undefined);
  assert.deepEqual(
    expiryOnCreate({ ttl: "24h" }, limit, NOW, ACTION),
    at(24 * HOUR),
  );
  assert.equal(
    refusal(() => expiryOnCreate({ ttl: "25h" }, limit, NOW, ACTION)),
    `${ACTION}: cluster.ttl: the cluster would expire at 2026-11-27T13:00:00Z, past the maximum lifetime of 24h (2026-11-27T12:00:00Z)`,
  );
  assert.match(
    refusal(() =>
      expiryOnCreate({ expiresAt: at(48 * HOUR) }, limit, NOW, ACTION)
    ),
    /cluster\.expires_at: the cluster would expire at .*maximum lifetime of 24h/,
  );
  assert.match(
    refusal(() =>
      expiryOnCreate({ ttl: "1h", expiresAt: at(HOUR) }, limit, NOW, ACTION)
    ),
    /cluster\.ttl: give ttl or expires_at, not both/,
  );
  assert.match(
    refusal(() => expiryOnCreate({ ttl: "0s" }, limit, NOW, ACTION)),
    /cluster\.ttl: "0s" is not a duration/,
  );
});

Deno.test("expiryOnCreate(): a create naming no lifetime gets the max when there is no default, so nothing outlives it", () => {
  const at = (ms: number) => new Date(NOW.getTime() + ms);
  assert.deepEqual(
    expiryOnCreate({}, { maxMs: 2 * HOUR }, NOW, ACTION),
    at(2 * HOUR),
  );
  assert.deepEqual(
    expiryOnCreate({}, { defaultMs: HOUR, maxMs: 2 * HOUR }, NOW, ACTION),
    at(HOUR),
  );
});

Deno.test("expiryOnCreate(): a job's or a service's refusal names its own field and noun", () => {
  const job = { field: "job", noun: "job" };
  const action = 'Cannot create job "team-a/train"';
  assert.equal(
    refusal(() =>
      expiryOnCreate({ ttl: "3h" }, { maxMs: 2 * HOUR }, NOW, action, job)
    ),
    `${action}: job.ttl: the job would expire at 2026-11-26T15:00:00Z, past the maximum lifetime of 2h (2026-11-26T14:00:00Z)`,
  );
  assert.match(
    refusal(() =>
      expiryOnCreate(
        { expiresAt: new Date(NOW.getTime() - HOUR) },
        {},
        NOW,
        'Cannot create service "team-a/web"',
        { field: "service", noun: "service" },
      )
    ),
    /: service\.expires_at: must be in the future$/,
  );
});

Deno.test("limitOfKind(): a kind the policy exempts is created under no limit; the others under the namespace's", () => {
  const limit = { defaultMs: HOUR, maxMs: 2 * HOUR, exempt: ["services"] };
  assert.deepEqual(limitOfKind(limit, "services"), {});
  assert.deepEqual(limitOfKind(limit, "jobs"), limit);
  assert.deepEqual(limitOfKind(limit, "clusters"), limit);
  assert.deepEqual(
    limitOfKind({ maxMs: HOUR }, "services"),
    { maxMs: HOUR },
  );
});

Deno.test("extendedExpiry(): from the current expiry, or from now when it is past or absent, never past now + max", () => {
  const limit = { maxMs: 24 * HOUR };
  const at = (ms: number) => new Date(NOW.getTime() + ms);
  assert.deepEqual(
    extendedExpiry(at(HOUR), "4h", limit, NOW, ACTION),
    at(5 * HOUR),
  );
  assert.deepEqual(
    extendedExpiry(undefined, "4h", limit, NOW, ACTION),
    at(4 * HOUR),
  );
  assert.deepEqual(
    extendedExpiry(at(-HOUR), "1h", limit, NOW, ACTION),
    at(HOUR),
  );
  assert.deepEqual(
    extendedExpiry(at(20 * HOUR), "4h", limit, NOW, ACTION),
    at(24 * HOUR),
  );
  assert.match(
    refusal(() => extendedExpiry(at(21 * HOUR), "4h", limit, NOW, ACTION)),
    /: by: the cluster would expire at 2026-11-27T13:00:00Z, past the maximum lifetime of 24h/,
  );
  assert.match(
    refusal(() => extendedExpiry(at(HOUR), "x", limit, NOW, ACTION)),
    /: by: "x" is not a duration/,
  );
});
