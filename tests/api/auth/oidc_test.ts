/**
 * The OIDC authenticator's parts that need no issuer: the identity made of
 * verified claims, the unverified issuer of a token, and the flags it
 * refuses before any fetch. Against a real issuer (discovery, keys, TLS):
 * oidc_issuer_test.ts.
 */
import assert from "node:assert/strict";
import { UnsecuredJWT } from "jose";
import type { ServiceError } from "../../../domain/errors.ts";
import { AuthenticationError } from "../../../api/auth/identity.ts";
import {
  claimMapping,
  identityOf,
  issuerOf,
  oidcAuthenticator,
} from "../../../api/auth/oidc.ts";
import { recordingLogger } from "./helpers.ts";

const CLIENT_ID = "corral";
const ISSUER = "https://issuer.test";

Deno.test("oidcAuthenticator() wants an https issuer and a readable CA file", async () => {
  await assert.rejects(
    oidcAuthenticator({
      issuerUrl: "http://127.0.0.1:1",
      clientId: CLIENT_ID,
      usernamePrefix: "-",
      log: recordingLogger(),
    }),
    /Cannot use OIDC issuer "http:\/\/127.0.0.1:1": it is not an https URL/,
  );
  await assert.rejects(
    oidcAuthenticator({
      issuerUrl: "https://127.0.0.1:1",
      clientId: CLIENT_ID,
      usernamePrefix: "-",
      caFile: "/nonexistent/ca.pem",
      log: recordingLogger(),
    }),
    (error: ServiceError) => error instanceof Deno.errors.NotFound,
  );
});

Deno.test("identityOf() makes the identity from the mapped claims, prefixes added", () => {
  assert.deepEqual(
    identityOf(
      { email: "ada@example.com", email_verified: true, roles: ["ops"] },
      claimMapping(ISSUER, {
        usernameClaim: "email",
        usernamePrefix: "oidc:",
        groupsClaim: "roles",
        groupsPrefix: "oidc:",
      }),
    ),
    {
      user: "oidc:ada@example.com",
      groups: ["oidc:ops"],
      authenticator: "oidc",
    },
  );
  assert.deepEqual(
    identityOf({ sub: "ada", groups: "dev" }, claimMapping(ISSUER, {})),
    {
      // The issuer's prefix, kube-apiserver's default for claims other
      // than email (issue 23: identities kept apart).
      user: "https://issuer.test#ada",
      groups: ["dev"],
      authenticator: "oidc",
    },
  );
});

Deno.test("identityOf() refuses a missing username, an unverified email and groups that are not strings", () => {
  const cases: [Record<string, unknown>, string, RegExp][] = [
    [{}, "sub", /no "sub" claim/],
    [
      { email: "ada@example.com", email_verified: false },
      "email",
      /email is not verified/,
    ],
    [
      { sub: "ada", groups: [1] },
      "sub",
      /"groups" claim is not a list of strings/,
    ],
  ];
  for (const [payload, usernameClaim, message] of cases) {
    assert.throws(
      () => identityOf(payload, claimMapping(ISSUER, { usernameClaim })),
      (error: unknown) =>
        error instanceof AuthenticationError && message.test(error.message),
    );
  }
});

Deno.test("issuerOf() reads a JWT's iss unverified, and is undefined for what is not a JWT", () => {
  const token = new UnsecuredJWT({}).setIssuer("https://issuer.test").encode();
  assert.equal(issuerOf(token), "https://issuer.test");
  assert.equal(issuerOf("not-a-jwt"), undefined);
});
