/**
 * The policy verb `proxy` (a cluster's dashboard through Corral): granted
 * only by a rule that names it, never by "*"; without a policy file every
 * caller has it, as every other verb.
 */
import assert from "node:assert/strict";
import { allowGroups, policyOf } from "../../../api/auth/policy.ts";
import type { Identity } from "../../../api/auth/identity.ts";
import { allow, allowAll, ruleOf, users } from "./policy_fixtures.ts";

const ALICE: Identity = {
  user: "alice",
  groups: ["system:authenticated"],
  authenticator: "token-file",
};

Deno.test('policy: "*" does not grant proxy; a rule naming it does, in its namespaces', () => {
  const policy = policyOf([
    ruleOf(allowAll(users("alice"), ["*"])),
    ruleOf(allow(users("alice"), ["team-a"], ["clusters"], ["proxy"])),
  ]);
  const may = (namespace: string) =>
    policy.authorize({
      identity: ALICE,
      verb: "proxy",
      resource: "clusters",
      namespace,
    }).allowed;
  assert.equal(may("team-a"), true);
  assert.equal(may("team-b"), false);
  assert.deepEqual(policy.namespacesFor(ALICE, "proxy", "clusters"), [
    "team-a",
  ]);
  assert.equal(
    policy.authorize({
      identity: ALICE,
      verb: "delete",
      resource: "clusters",
      namespace: "team-b",
    }).allowed,
    true,
  );
});

Deno.test("policy: without a policy file every authenticated caller may proxy", () => {
  const policy = allowGroups(["system:authenticated"]);
  assert.equal(
    policy.authorize({
      identity: ALICE,
      verb: "proxy",
      resource: "clusters",
      namespace: "team-a",
    }).allowed,
    true,
  );
});
