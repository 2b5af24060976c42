/**
 * The record of dashboard sign-outs on a RayCluster
 * (domain/dashboard_sign_outs.ts): counts by user, and whether a cookie is
 * still signed in.
 */
import assert from "node:assert/strict";
import {
  DASHBOARD_SIGN_OUTS_ANNOTATION as KEY,
  signOutCount,
  signOutsOf,
  stillSignedIn,
  withSignOut,
} from "../../domain/dashboard_sign_outs.ts";

Deno.test("signOutsOf() reads counts by user; none is an empty record, anything else unreadable", async (t) => {
  const cases: [string | undefined, Record<string, number> | undefined][] = [
    [undefined, {}],
    ["{}", {}],
    ['{"alice":2,"bob":0}', { alice: 2, bob: 0 }],
    ["", undefined],
    ["[1]", undefined],
    ["null", undefined],
    ['"alice"', undefined],
    ['{"alice":-1}', undefined],
    ['{"alice":1.5}', undefined],
    ['{"alice":"2"}', undefined],
    ['{"alice":1e300}', undefined],
  ];
  for (const [text, want] of cases) {
    await t.step(String(text), () => {
      const annotations: Record<string, string> = text === undefined
        ? {}
        : { [KEY]: text };
      assert.deepEqual(signOutsOf(annotations), want);
    });
  }
});

Deno.test("withSignOut() moves only the user's own count, keeps every other annotation, and refuses an unreadable record", () => {
  let annotations: Record<string, string> | undefined = { other: "kept" };
  annotations = withSignOut(annotations, "alice");
  annotations = withSignOut(annotations, "bob");
  annotations = withSignOut(annotations, "alice");
  assert.deepEqual(annotations, {
    other: "kept",
    [KEY]: '{"alice":2,"bob":1}',
  });
  assert.equal(signOutCount(annotations, "alice"), 2);
  assert.equal(signOutCount(annotations, "carol"), 0);
  // Names of Object.prototype's members are users like any other.
  for (const user of ["__proto__", "constructor", "toString"]) {
    assert.equal(signOutCount(annotations, user), 0, user);
    const moved = withSignOut(annotations, user);
    assert.equal(signOutCount(moved, user), 1, user);
    assert.equal(signOutCount(moved, "alice"), 2, user);
  }
  assert.equal(withSignOut({ [KEY]: "[]" }, "alice"), undefined);
});

Deno.test("stillSignedIn(): a cookie is signed in to the cluster it was opened for until its user's count moves past its own", async (t) => {
  const cookie = { user: "alice", clusterUid: "uid-1", signOuts: 1 };
  const cases: [string, { uid?: string; record?: string }, boolean][] = [
    [
      "the count it was opened at",
      { uid: "uid-1", record: '{"alice":1}' },
      true,
    ],
    ["a cache behind it", { uid: "uid-1", record: '{"alice":0}' }, true],
    ["another user's sign-outs", {
      uid: "uid-1",
      record: '{"alice":1,"bob":9}',
    }, true],
    ["signed out since", { uid: "uid-1", record: '{"alice":2}' }, false],
    ["no record at all", { uid: "uid-1" }, true],
    [
      "another cluster of that name",
      { uid: "uid-2", record: '{"alice":1}' },
      false,
    ],
    ["an unreadable record", { uid: "uid-1", record: "{" }, false],
  ];
  for (const [what, { uid, record }, want] of cases) {
    await t.step(what, () => {
      const annotations: Record<string, string> = record === undefined
        ? {}
        : { [KEY]: record };
      const metadata = { uid, annotations };
      assert.equal(stillSignedIn(metadata, cookie), want);
    });
  }
});
