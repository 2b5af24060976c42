/**
 * Identities kept apart (issue 23, findings 4, 5 and 11): a token file that
 * claims a reserved name or holds a short token; anonymity decided by the
 * authenticator, not the name; OIDC claims mapped and `system:` names
 * refused. With a real issuer, through both transports:
 * identities_oidc_test.ts.
 */
import assert from "node:assert/strict";
import { anonymousIdentity } from "../../../api/auth/authenticate.ts";
import { callerOf } from "../../../api/auth/caller.ts";
import {
  AUTHENTICATED_GROUP,
  type Identity,
} from "../../../api/auth/identity.ts";
import { claimMapping, identityOf } from "../../../api/auth/oidc.ts";
import { allowGroups } from "../../../api/auth/policy.ts";
import { parseTokenFile } from "../../../api/auth/token_file.ts";
import { fileAccess } from "./access_fixtures.ts";

const TOKEN = "x".repeat(40);

Deno.test("parseTokenFile() refuses a token shorter than 32 characters, naming the line and not the token", () => {
  const short = "s".repeat(31);
  assert.throws(
    () => parseTokenFile(`${TOKEN},bob,1\n${short},alice,2\n`),
    (error: Error) =>
      /^line 2: the token is shorter than 32 characters/.test(error.message) &&
      !error.message.includes(short),
  );
  assert.equal(
    parseTokenFile(`${"s".repeat(32)},alice,2\n`).records.length,
    1,
    "32 characters are enough",
  );
});

Deno.test("parseTokenFile() refuses a user or group name beginning system:, naming the line", async (t) => {
  const cases: [string, string, RegExp][] = [
    [
      "user system:anonymous",
      `${TOKEN},system:anonymous,1\n`,
      /^line 1: the user name "system:anonymous" begins with "system:"/,
    ],
    [
      "group system:masters",
      `${"y".repeat(40)},bob,1\n${TOKEN},alice,2,"team-a,system:masters"\n`,
      /^line 2: the group "system:masters" begins with "system:"/,
    ],
    [
      "group system:unauthenticated",
      `${TOKEN},alice,2,system:unauthenticated\n`,
      /^line 1: the group "system:unauthenticated"/,
    ],
  ];
  for (const [name, text, want] of cases) {
    await t.step(name, () => {
      assert.throws(() => parseTokenFile(text), (error: Error) => {
        assert.match(error.message, want);
        return true;
      });
    });
  }
});

Deno.test("createAccess() does not start with a token file that claims system:anonymous", async () => {
  await assert.rejects(
    fileAccess({ tokens: `${TOKEN},system:anonymous,1\n` }),
    /line 1: the user name "system:anonymous"/,
  );
});

Deno.test("callerOf() takes anonymity from the authenticator that decided, never from the name", () => {
  const named = (authenticator: Identity["authenticator"]): Identity => ({
    user: "system:anonymous",
    groups: [],
    authenticator,
  });
  for (const authenticator of ["client-certificate", "token-review"] as const) {
    assert.equal(
      callerOf(named(authenticator), allowGroups([AUTHENTICATED_GROUP]))
        .authenticated,
      true,
      `a ${authenticator} identity named system:anonymous`,
    );
  }
  assert.equal(
    callerOf(anonymousIdentity(), allowGroups([AUTHENTICATED_GROUP]))
      .authenticated,
    false,
  );
});

Deno.test("claimMapping() prefixes usernames with the issuer and # unless the claim is email, as kube-apiserver", async (t) => {
  const issuer = "https://dex.example.com";
  const cases: [string, Record<string, string>, string][] = [
    ["sub, no prefix given", {}, "https://dex.example.com#"],
    ["preferred_username", {
      usernameClaim: "preferred_username",
    }, "https://dex.example.com#"],
    ["email", { usernameClaim: "email" }, ""],
    ["- asks for none", { usernamePrefix: "-" }, ""],
    ["a prefix given", { usernamePrefix: "oidc:" }, "oidc:"],
    ["email with a prefix given", {
      usernameClaim: "email",
      usernamePrefix: "oidc:",
    }, "oidc:"],
  ];
  for (const [name, options, want] of cases) {
    await t.step(name, () => {
      assert.equal(claimMapping(issuer, options).usernamePrefix, want);
      assert.equal(claimMapping(issuer, options).groupsPrefix, "");
    });
  }
});

Deno.test("identityOf() refuses a username or group beginning system:, prefix included", async (t) => {
  const issuer = "https://dex.example.com";
  const cases: [string, Record<string, unknown>, Record<string, string>][] = [
    ["email system:anonymous", {
      email: "system:anonymous",
      email_verified: true,
    }, { usernameClaim: "email" }],
    ["sub with no prefix", { sub: "system:admin" }, { usernamePrefix: "-" }],
    ["group system:masters", {
      sub: "alice",
      groups: ["dev", "system:masters"],
    }, {}],
  ];
  for (const [name, payload, options] of cases) {
    await t.step(name, () => {
      assert.throws(
        () => identityOf(payload, claimMapping(issuer, options)),
        /Unauthorized: the ID token's .* "system:", which is reserved/,
      );
    });
  }
  assert.equal(
    identityOf({ sub: "system:admin" }, claimMapping(issuer, {})).user,
    "https://dex.example.com#system:admin",
    "with the issuer's prefix the name is no longer reserved",
  );
  assert.deepEqual(
    identityOf(
      { sub: "a", groups: ["system:masters"] },
      claimMapping(issuer, { groupsPrefix: "oidc:" }),
    ).groups,
    ["oidc:system:masters"],
  );
});
