/**
 * Identities kept apart (issue 23, findings 4, 5 and 11), tried as an
 * attacker would: an OIDC token naming a token-file user or group, or a
 * `system:` name, from a real issuer through both transports; a token file
 * that claims a reserved name or holds a short token; anonymity decided by
 * the authenticator, not the name; two authorization values on gRPC.
 */
import assert from "node:assert/strict";
import * as grpc from "@grpc/grpc-js";
import { type Access, createAccess } from "../../../api/auth/access.ts";
import { anonymousIdentity } from "../../../api/auth/authenticate.ts";
import { callerOf } from "../../../api/auth/caller.ts";
import {
  AUTHENTICATED_GROUP,
  type Identity,
} from "../../../api/auth/identity.ts";
import { claimMapping, identityOf } from "../../../api/auth/oidc.ts";
import { allowGroups } from "../../../api/auth/policy.ts";
import { parseTokenFile } from "../../../api/auth/token_file.ts";
import { silentLogger } from "../../../api/log.ts";
import { authorizationOf } from "../../../api/grpc/server.ts";
import { Code, type ServiceError } from "../../../domain/errors.ts";
import { startCorral, TRANSPORTS } from "../../harness.ts";
import { bearer, tokenFileText, writeAccessFiles } from "./access_fixtures.ts";
import { ALICE } from "./access_fixtures.ts";
import {
  makeSigningKey,
  sign,
  startTestIssuer,
  type TestIssuer,
} from "./test_issuer.ts";

const LIST = "proto.ClusterService/ListCluster";
const CLIENT_ID = "corral";
const TOKEN = "x".repeat(40);

/** alice (token file) and the platform-admins group may list in team-a. */
const POLICY = `rules:
  - users: ["alice", "alice@example.com"]
    groups: ["platform-admins"]
    namespaces: ["team-a"]
    resources: ["*"]
    verbs: ["*"]
`;

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
  const files = await writeAccessFiles({
    tokens: `${TOKEN},system:anonymous,1\n`,
  });
  try {
    await assert.rejects(
      createAccess(settings(files), { log: silentLogger() }),
      /line 1: the user name "system:anonymous"/,
    );
  } finally {
    await files.remove();
  }
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

/** Access as main.ts builds it: the fixtures' token file, OIDC, POLICY. */
function settings(
  files: { dir: string; tokenFile: string; policyFile: string },
  oidc?: { issuer: TestIssuer; caFile: string; options?: OidcFlags },
) {
  return {
    tokenAuthFile: files.tokenFile,
    ...(oidc
      ? {
        oidc: {
          issuerUrl: oidc.issuer.url,
          clientId: CLIENT_ID,
          caFile: oidc.caFile,
          usernameClaim: "sub",
          groupsClaim: "groups",
          usernamePrefix: "",
          ...oidc.options,
        },
      }
      : {}),
    tokenReview: false,
    anonymous: false,
    policyFile: files.policyFile,
    auditLogPath: `${files.dir}/audit.log`,
    metricsRequireAuth: false,
  };
}

interface OidcFlags {
  usernameClaim?: string;
  usernamePrefix?: string;
  groupsPrefix?: string;
}

/** The token file, a real issuer and its authenticator, and POLICY. */
async function oidcAccess(options: OidcFlags = {}) {
  const issuer = await startTestIssuer();
  const key = await makeSigningKey("RS256", "key-1");
  issuer.keys.push(key);
  const files = await writeAccessFiles({
    tokens: tokenFileText(),
    policy: POLICY,
  });
  const caFile = `${files.dir}/ca.pem`;
  await Deno.writeTextFile(caFile, issuer.ca.certPem);
  let access: Access;
  try {
    access = await createAccess(
      settings(files, { issuer, caFile, options }),
      { log: silentLogger() },
    );
  } catch (error) {
    await issuer.close();
    await files.remove();
    throw error;
  }
  const now = Math.floor(Date.now() / 1000);
  return {
    access,
    token: (claims: Record<string, unknown>) =>
      sign(key, {
        iss: issuer.url,
        aud: CLIENT_ID,
        iat: now,
        exp: now + 3600,
        ...claims,
      }),
    async [Symbol.asyncDispose]() {
      await access.close();
      await issuer.close();
      await files.remove();
    },
  };
}

Deno.test("an OIDC token cannot be a token-file user or group, nor claim system: names, on both transports", async (t) => {
  const cases: {
    name: string;
    flags?: OidcFlags;
    claims: Record<string, unknown>;
    code: number;
    message?: RegExp;
  }[] = [
    {
      name: "sub alice is not the token file's alice",
      claims: { sub: "alice" },
      code: Code.PERMISSION_DENIED,
      message: /user "https:\/\/127\.0\.0\.1:\d+#alice" may not list/,
    },
    {
      name:
        "group platform-admins with --oidc-groups-prefix is not the token file's",
      flags: { groupsPrefix: "oidc:" },
      claims: { sub: "mallory", groups: ["platform-admins"] },
      code: Code.PERMISSION_DENIED,
    },
    {
      name: "email system:anonymous",
      flags: { usernameClaim: "email" },
      claims: { email: "system:anonymous", email_verified: true },
      code: Code.UNAUTHENTICATED,
      message: /^Unauthorized: the ID token's username begins with "system:"/,
    },
    {
      name: "group system:authenticated",
      claims: { sub: "mallory", groups: ["system:authenticated"] },
      code: Code.UNAUTHENTICATED,
      message: /"groups" claim names a group beginning with "system:"/,
    },
    {
      name:
        "with --oidc-username-prefix - a user may be named as in the token file",
      flags: { usernamePrefix: "-" },
      claims: { sub: "alice" },
      code: Code.OK,
    },
  ];
  for (const c of cases) {
    await using oidc = await oidcAccess(c.flags);
    const corral = await startCorral({ access: oidc.access });
    try {
      const authorization = `Bearer ${await oidc.token(c.claims)}`;
      for (const [transport, run] of TRANSPORTS) {
        await t.step(`${c.name} (${transport})`, async () => {
          const got = await run(corral, LIST, { namespace: "team-a" }, {
            authorization,
          });
          assert.equal(got.code, c.code, got.message);
          if (c.message) assert.match(got.message, c.message);
        });
      }
    } finally {
      await corral.close();
    }
  }
});

Deno.test("authorizationOf() joins several authorization values as HTTP joins repeated headers, so the chain refuses them", async () => {
  // End to end this cannot be tried yet: grpc-js' client will not send two
  // values, and node:http2 keeps only the first of a repeated
  // authorization header before grpc-js reads it (see authorizationOf()).
  const metadata = new grpc.Metadata();
  metadata.add("authorization", bearer(ALICE));
  metadata.add("authorization", "Bearer someone-elses-token");
  const joined = authorizationOf(metadata);
  const headers = new Headers();
  headers.append("authorization", bearer(ALICE));
  headers.append("authorization", "Bearer someone-elses-token");
  assert.equal(joined, headers.get("authorization"));
  await using oidc = await oidcAccess();
  await assert.rejects(
    oidc.access.authenticator.authenticate({ authorization: joined }),
    (error: ServiceError) =>
      error.code === Code.UNAUTHENTICATED &&
      error.message ===
        'Unauthorized: the Authorization header is not "Bearer" and a token',
  );
  const one = new grpc.Metadata();
  one.add("authorization", bearer(ALICE));
  assert.equal(
    (await oidc.access.authenticator.authenticate({
      authorization: authorizationOf(one),
    })).user,
    "alice",
  );
});
