/**
 * Identities kept apart (issue 23, findings 4 and 11), tried as an
 * attacker would: an OIDC token naming a token-file user or group, or a
 * `system:` name, from a real issuer through both transports; two
 * authorization values on gRPC.
 */
import assert from "node:assert/strict";
import * as grpc from "@grpc/grpc-js";
import { type Access, createAccess } from "../../../api/auth/access.ts";
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
import { allowAll, policyText } from "./policy_fixtures.ts";

const LIST = "proto.ClusterService/ListCluster";
const CLIENT_ID = "corral";

/** alice (token file) and the platform-admins group may list in team-a. */
const POLICY = policyText([
  allowAll({
    users: ["alice", "alice@example.com"],
    groups: ["platform-admins"],
  }, ["team-a"]),
]);

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
