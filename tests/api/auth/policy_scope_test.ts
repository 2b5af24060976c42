/**
 * Whom an entry of a policy section is for (policy_scope.ts), alone: the
 * sections' own tests pick entries through it.
 */
import assert from "node:assert/strict";
import {
  isForCaller,
  namesCaller,
  namesNamespace,
  namesNoCaller,
} from "../../../api/auth/policy_scope.ts";
import type { Identity } from "../../../api/auth/identity.ts";

Deno.test('an entry names a namespace by name or "*", and a caller by user or group; one naming no caller is for everyone', () => {
  const ada = { user: "ada", groups: ["ml"] } as unknown as Identity;
  assert.equal(namesNamespace({ namespaces: ["a"] }, "a"), true);
  assert.equal(namesNamespace({ namespaces: ["*"] }, "b"), true);
  assert.equal(namesNamespace({ namespaces: ["a"] }, "b"), false);
  const cases: [
    { users?: string[]; groups?: string[] },
    { noCaller: boolean; caller: boolean; forCaller: boolean },
  ][] = [
    [{}, { noCaller: true, caller: false, forCaller: true }],
    [{ users: [], groups: [] }, {
      noCaller: true,
      caller: false,
      forCaller: true,
    }],
    [{ users: ["ada"] }, { noCaller: false, caller: true, forCaller: true }],
    [{ groups: ["ml"] }, { noCaller: false, caller: true, forCaller: true }],
    [{ users: ["bob"], groups: ["ops"] }, {
      noCaller: false,
      caller: false,
      forCaller: false,
    }],
  ];
  for (const [entry, want] of cases) {
    assert.deepEqual(
      {
        noCaller: namesNoCaller(entry),
        caller: namesCaller(entry, ada),
        forCaller: isForCaller(entry, ada),
      },
      want,
      JSON.stringify(entry),
    );
  }
});
