/**
 * Dashboard sessions as another team's user and a teammate under
 * `owners: only` meet them (dashboard_attack_fixtures.ts has the world):
 * a sign-out no one else can undo, and sessions opened only for a cluster
 * the caller may proxy.
 */
import assert from "node:assert/strict";
import { ALICE, bearer, BOB } from "../auth/access_fixtures.ts";
import {
  BOBS,
  call,
  dashboard,
  direct,
  ERIN,
  MAX_SESSIONS,
  opened,
  signOut,
  withCookie,
  withWorld,
} from "./dashboard_attack_fixtures.ts";

Deno.test("a sign-out holds until the cookie expires: another team's user cannot undo it with sign-outs of clusters that do not exist or are not theirs", async () => {
  await withWorld(direct, async (world) => {
    const cookie = await opened(world, ALICE);
    assert.equal(await withCookie(world, cookie), 200);
    const out = await signOut(world, ALICE, "team-a", "blue");
    assert.equal(out.status, 200, JSON.stringify(out));
    assert.equal(await withCookie(world, cookie), 401);

    // bob, of team-b, signs out of more made-up clusters than a replica
    // remembers sign-outs, in alice's namespace and in his own.
    const refused: string[] = [];
    for (let i = 0; i < MAX_SESSIONS + 5; i++) {
      for (const namespace of ["team-a", "team-b"]) {
        const answer = await signOut(world, BOB, namespace, `made-up-${i}`);
        refused.push(`${namespace} ${answer.status} ${answer.code}`);
      }
    }
    assert.equal(
      await withCookie(world, cookie),
      401,
      "alice's signed-out cookie opened again",
    );
    const kinds = [...new Set(refused)].sort();
    assert.deepEqual(kinds, ["team-a 403 7", "team-b 404 5"]);
  });
});

Deno.test("a sign-out holds whatever other users sign out of, clusters they may proxy included", async () => {
  await withWorld(direct, async (world) => {
    const cookie = await opened(world, ALICE);
    assert.equal((await signOut(world, ALICE, "team-a", "blue")).status, 200);
    // bob signs out of each of his own clusters: each is allowed.
    for (const name of BOBS) {
      const answer = await signOut(world, BOB, "team-b", name);
      assert.equal(answer.status, 200, JSON.stringify(answer));
    }
    assert.equal(await withCookie(world, cookie), 401);
    // A session opened after the sign-out works; bob's sign-outs did not
    // end it either.
    const again = await opened(world, ALICE);
    assert.equal(await withCookie(world, again), 200);
    assert.equal(await withCookie(world, cookie), 401);
  });
});

Deno.test("a dashboard session opens only for a cluster the caller may proxy: not a teammate's under owners: only, not one that does not exist", async () => {
  await withWorld(direct, async (world) => {
    const teammates = await call(
      world,
      "POST",
      dashboard("team-a", "blue", ":session"),
      { authorization: bearer(ERIN) },
    );
    assert.deepEqual(
      [teammates.status, teammates.code, teammates.cookie],
      [403, 7, undefined],
    );
    assert.match(
      teammates.message!,
      /^Cannot proxy to cluster "team-a\/blue": user "erin" may not proxy to a cluster of "alice"/,
    );
    const missing = await call(
      world,
      "POST",
      dashboard("team-a", "nowhere", ":session"),
      { authorization: bearer(ALICE) },
    );
    assert.deepEqual(
      [missing.status, missing.code, missing.cookie],
      [404, 5, undefined],
    );
    assert.match(missing.message!, /"team-a\/nowhere"/);
    // Her own cluster's session opens, and works there only.
    const own = await opened(world, ERIN, "team-a", "erins");
    assert.equal(await withCookie(world, own, "team-a", "erins"), 200);
    assert.equal(await withCookie(world, own, "team-a", "blue"), 401);
    // Signing out takes the same right.
    const signOutOfBlue = await signOut(world, ERIN, "team-a", "blue");
    assert.deepEqual([signOutOfBlue.status, signOutOfBlue.code], [403, 7]);
  });
});
