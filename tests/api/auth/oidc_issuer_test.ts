/**
 * The OIDC authenticator against a real issuer on 127.0.0.1 over TLS
 * (test_issuer.ts): discovery, its keys and their rotation, the tokens it
 * takes and refuses, and what it never logs.
 */
import assert from "node:assert/strict";
import { UnsecuredJWT } from "jose";
import { Code } from "../../../domain/errors.ts";
import { AuthenticationError } from "../../../api/auth/identity.ts";
import type { Identity } from "../../../api/auth/identity.ts";
import { oidcAuthenticator } from "../../../api/auth/oidc.ts";
import type { OidcOptions } from "../../../api/auth/oidc.ts";
import { recordingLogger } from "./helpers.ts";
import {
  makeSigningKey,
  makeTestCa,
  sign,
  startTestIssuer,
} from "./test_issuer.ts";
import type { TestIssuer } from "./test_issuer.ts";

const CLIENT_ID = "corral";

/** An issuer serving one RS256 key, its CA in a file, and an authenticator. */
async function setUp(options: Partial<OidcOptions> = {}) {
  const issuer = await startTestIssuer();
  const key = await makeSigningKey("RS256", "key-1");
  issuer.keys.push(key);
  const dir = await Deno.makeTempDir();
  const caFile = `${dir}/ca.pem`;
  await Deno.writeTextFile(caFile, issuer.ca.certPem);
  const log = recordingLogger();
  const auth = await oidcAuthenticator({
    issuerUrl: issuer.url,
    clientId: CLIENT_ID,
    caFile,
    log,
    // Usernames as the claim has them: these tests are about verification
    // (naming has its own, identities_test.ts).
    usernamePrefix: "-",
    ...options,
  });
  return {
    issuer,
    key,
    caFile,
    log,
    auth,
    async [Symbol.asyncDispose]() {
      auth.close();
      await issuer.close();
      await Deno.remove(dir, { recursive: true });
    },
  };
}

function now(): number {
  return Math.floor(Date.now() / 1000);
}

function claims(issuer: TestIssuer, extra: Record<string, unknown> = {}) {
  return {
    iss: issuer.url,
    aud: CLIENT_ID,
    sub: "alice",
    iat: now(),
    exp: now() + 3600,
    groups: ["team-a", "team-b"],
    ...extra,
  };
}

function base64url(value: unknown): string {
  return btoa(JSON.stringify(value)).replaceAll("+", "-").replaceAll("/", "_")
    .replace(/=+$/, "");
}

async function rejected(
  promise: Promise<Identity | undefined>,
  token: string,
  want: { code?: Code; message: RegExp },
): Promise<AuthenticationError> {
  let caught: unknown;
  try {
    await promise;
  } catch (error) {
    caught = error;
  }
  assert.ok(caught instanceof AuthenticationError, `got ${caught}`);
  assert.equal(caught.code, want.code ?? Code.UNAUTHENTICATED);
  assert.equal(caught.authenticator, "oidc");
  assert.match(caught.message, want.message);
  assert.ok(!caught.message.includes(token), "the message holds the token");
  return caught;
}

Deno.test("oidcAuthenticator() accepts a valid ID token of each asymmetric algorithm", async (t) => {
  await using s = await setUp();
  for (const alg of ["RS256", "PS384", "ES256", "ES384", "EdDSA"]) {
    await t.step(alg, async () => {
      const key = await makeSigningKey(alg, `key-${alg}`);
      s.issuer.keys.push(key);
      // A published key the authenticator has not seen is fetched once
      // (its cool-down has passed, or the first fetch is still to come).
      const fresh = await oidcAuthenticator({
        issuerUrl: s.issuer.url,
        clientId: CLIENT_ID,
        usernamePrefix: "-",
        caFile: s.caFile,
        log: s.log,
      });
      try {
        const payload = claims(s.issuer);
        const got = await fresh.authenticate(await sign(key, payload));
        assert.deepEqual(got, {
          user: "alice",
          groups: ["team-a", "team-b"],
          authenticator: "oidc",
          // When streams opened with it end: exp and the clock leeway.
          expiresAt: (payload.exp + 30) * 1000,
        });
      } finally {
        fresh.close();
      }
    });
  }
});

Deno.test("oidcAuthenticator() maps the username and groups claims", async (t) => {
  await using s = await setUp({
    usernameClaim: "email",
    usernamePrefix: "oidc:",
    groupsClaim: "roles",
    groupsPrefix: "oidc:",
  });
  const cases: {
    name: string;
    extra: Record<string, unknown>;
    want?: Partial<Identity>;
    error?: RegExp;
  }[] = [
    {
      name: "prefixed user and groups",
      extra: { email: "alice@example.com", roles: ["admin", "dev"] },
      want: {
        user: "oidc:alice@example.com",
        groups: ["oidc:admin", "oidc:dev"],
      },
    },
    {
      name: "groups as one string",
      extra: { email: "alice@example.com", roles: "admin" },
      want: { groups: ["oidc:admin"] },
    },
    {
      name: "no groups claim",
      extra: { email: "alice@example.com" },
      want: { groups: [] },
    },
    {
      name: "verified email",
      extra: { email: "alice@example.com", email_verified: true },
      want: { user: "oidc:alice@example.com" },
    },
    {
      name: "unverified email",
      extra: { email: "alice@example.com", email_verified: false },
      error: /^Unauthorized: the ID token's email is not verified$/,
    },
    {
      name: "missing username claim",
      extra: {},
      error: /^Unauthorized: the ID token has no "email" claim$/,
    },
    {
      name: "empty username claim",
      extra: { email: "" },
      error: /^Unauthorized: the ID token has no "email" claim$/,
    },
    {
      name: "username claim not a string",
      extra: { email: ["alice@example.com"] },
      error: /^Unauthorized: the ID token has no "email" claim$/,
    },
    {
      name: "groups claim of numbers",
      extra: { email: "alice@example.com", roles: [1, 2] },
      error: /"roles" claim is not a list of strings/,
    },
  ];
  for (const c of cases) {
    await t.step(c.name, async () => {
      const token = await sign(s.key, {
        ...claims(s.issuer),
        groups: undefined,
        ...c.extra,
      });
      if (c.error) {
        await rejected(s.auth.authenticate(token), token, { message: c.error });
      } else {
        const got = await s.auth.authenticate(token);
        for (const [field, value] of Object.entries(c.want!)) {
          assert.deepEqual(got?.[field as keyof Identity], value, field);
        }
      }
    });
  }
});

Deno.test("oidcAuthenticator() rejects forged, stale and misdirected tokens", async (t) => {
  await using s = await setUp();
  const stranger = await makeSigningKey("RS256", "key-1"); // same kid, other key
  const cases: {
    name: string;
    token: () => Promise<string>;
    message: RegExp;
  }[] = [
    {
      name: "expired",
      token: () => sign(s.key, claims(s.issuer, { exp: now() - 60 })),
      message: /^Unauthorized: the ID token has expired$/,
    },
    {
      name: "not yet valid",
      token: () => sign(s.key, claims(s.issuer, { nbf: now() + 60 })),
      message: /"nbf" claim is not valid/,
    },
    {
      name: "issued in the future",
      token: () => sign(s.key, claims(s.issuer, { iat: now() + 120 })),
      message: /^Unauthorized: the ID token was issued in the future$/,
    },
    {
      name: "without exp",
      token: () => sign(s.key, claims(s.issuer, { exp: undefined })),
      message: /"exp" claim is not valid/,
    },
    {
      name: "wrong audience",
      token: () => sign(s.key, claims(s.issuer, { aud: "someone-else" })),
      message: /"aud" claim is not valid/,
    },
    {
      name: "no audience",
      token: () => sign(s.key, claims(s.issuer, { aud: undefined })),
      message: /"aud" claim is not valid/,
    },
    {
      name: "alg none",
      token: () => Promise.resolve(new UnsecuredJWT(claims(s.issuer)).encode()),
      message: /signing algorithm is not allowed/,
    },
    {
      name: "HS256 signed with the issuer's public key as the secret",
      token: async () => {
        const secret = new TextEncoder().encode(
          JSON.stringify(s.key.publicJwk),
        );
        const header = base64url({ alg: "HS256", kid: "key-1", typ: "JWT" });
        const body = base64url(claims(s.issuer, { sub: "admin" }));
        const mac = await crypto.subtle.sign(
          "HMAC",
          await crypto.subtle.importKey(
            "raw",
            secret,
            { name: "HMAC", hash: "SHA-256" },
            false,
            ["sign"],
          ),
          new TextEncoder().encode(`${header}.${body}`),
        );
        const signature = btoa(String.fromCharCode(...new Uint8Array(mac)))
          .replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
        return `${header}.${body}.${signature}`;
      },
      message: /signing algorithm is not allowed/,
    },
    {
      name: "unknown kid",
      token: async () =>
        sign(await makeSigningKey("RS256", "ghost"), claims(s.issuer)),
      message: /key is not one of the issuer's/,
    },
    {
      name: "signed by a stranger's key with the issuer's kid",
      token: () => sign(stranger, claims(s.issuer)),
      message: /signature is not valid/,
    },
    {
      name: "tampered payload",
      token: async () => {
        const [header, , signature] = (await sign(s.key, claims(s.issuer)))
          .split(".");
        return `${header}.${
          base64url(claims(s.issuer, { sub: "admin" }))
        }.${signature}`;
      },
      message: /signature is not valid/,
    },
    {
      name: "signature cut off",
      token: async () =>
        (await sign(s.key, claims(s.issuer))).replace(/\.[^.]+$/, "."),
      message: /^Unauthorized: /,
    },
  ];
  for (const c of cases) {
    await t.step(c.name, async () => {
      const token = await c.token();
      await rejected(s.auth.authenticate(token), token, { message: c.message });
    });
  }
  await t.step("a clock 20 s off is within the leeway", async () => {
    const token = await sign(
      s.key,
      claims(s.issuer, { exp: now() - 20, nbf: now() + 20, iat: now() + 20 }),
    );
    assert.equal((await s.auth.authenticate(token))?.user, "alice");
  });
  await t.step("an audience list that holds the client id", async () => {
    const token = await sign(
      s.key,
      claims(s.issuer, { aud: ["x", CLIENT_ID] }),
    );
    assert.equal((await s.auth.authenticate(token))?.user, "alice");
  });
});

Deno.test("oidcAuthenticator() leaves tokens that are not its issuer's to the next", async (t) => {
  await using s = await setUp();
  const cases: [string, () => Promise<string>][] = [
    [
      "another issuer",
      () => sign(s.key, claims(s.issuer, { iss: "https://elsewhere.example" })),
    ],
    [
      "our issuer with a trailing slash",
      () => sign(s.key, claims(s.issuer, { iss: `${s.issuer.url}/` })),
    ],
    ["no issuer", () => sign(s.key, claims(s.issuer, { iss: undefined }))],
    ["not a JWT", () => Promise.resolve("opaque-token-0123456789")],
    [
      "two segments",
      () =>
        Promise.resolve(
          `${base64url({ alg: "RS256" })}.${base64url(claims(s.issuer))}`,
        ),
    ],
  ];
  for (const [name, token] of cases) {
    await t.step(name, async () => {
      assert.equal(await s.auth.authenticate(await token()), undefined);
    });
  }
  await t.step("without asking the issuer", () => {
    assert.deepEqual(s.issuer.fetches, {});
  });
});

Deno.test("oidcAuthenticator() takes a rotated key, fetching keys at most once per cool-down", async () => {
  // Long enough that nothing below but the waits can outlast it on a busy
  // machine: the keys and tokens are all made before the clock matters.
  const cooldown = 1_500;
  await using s = await setUp({ keyRefetchCooldownMs: cooldown });
  const jwksFetches = () => s.issuer.fetches["/keys"] ?? 0;
  const next = await makeSigningKey("ES256", "key-2");
  const rotated = await sign(next, claims(s.issuer));
  const old = await sign(s.key, claims(s.issuer));
  const ghost = await sign(
    await makeSigningKey("RS256", "ghost"),
    claims(s.issuer),
  );

  assert.equal(
    (await s.auth.authenticate(await sign(s.key, claims(s.issuer))))?.user,
    "alice",
  );
  assert.equal(s.issuer.fetches["/.well-known/openid-configuration"], 1);
  assert.equal(jwksFetches(), 1);

  // The issuer publishes a new key. Within the cool-down of the last fetch a
  // token of an unknown kid is refused without fetching, however many come.
  s.issuer.keys.push(next);
  for (let i = 0; i < 5; i++) {
    await rejected(s.auth.authenticate(rotated), rotated, {
      message: /key is not one of the issuer's/,
    });
  }
  assert.equal(jwksFetches(), 1);

  // After the cool-down the next unknown kid fetches the keys once.
  await new Promise((resolve) => setTimeout(resolve, cooldown + 50));
  assert.equal((await s.auth.authenticate(rotated))?.user, "alice");
  assert.equal(jwksFetches(), 2);
  // Concurrent requests share what is known.
  await Promise.all(
    Array.from(
      { length: 10 },
      async () =>
        assert.equal((await s.auth.authenticate(rotated))?.user, "alice"),
    ),
  );
  assert.equal(jwksFetches(), 2);

  // The issuer withdraws the old key. Its tokens pass while the keys in hand
  // hold it; a token of a kid never published is refused, fetching at most
  // once per cool-down, and that fetch replaces the keys in hand.
  s.issuer.keys = [next];
  assert.equal((await s.auth.authenticate(old))?.user, "alice");
  await rejected(s.auth.authenticate(ghost), ghost, {
    message: /key is not one/,
  });
  assert.equal(jwksFetches(), 2);
  await new Promise((resolve) => setTimeout(resolve, cooldown + 50));
  await rejected(s.auth.authenticate(ghost), ghost, {
    message: /key is not one/,
  });
  await rejected(s.auth.authenticate(ghost), ghost, {
    message: /key is not one/,
  });
  assert.equal(jwksFetches(), 3);
  await rejected(s.auth.authenticate(old), old, {
    message: /key is not one/,
  });
  assert.equal((await s.auth.authenticate(rotated))?.user, "alice");
  assert.equal(jwksFetches(), 3);
  assert.equal(s.issuer.fetches["/.well-known/openid-configuration"], 1);
});

Deno.test("oidcAuthenticator() trusts the issuer's TLS only through the CA file", async (t) => {
  await using s = await setUp();
  const token = await sign(s.key, claims(s.issuer));
  const dir = await Deno.makeTempDir();
  const otherCa = `${dir}/other.pem`;
  await Deno.writeTextFile(otherCa, (await makeTestCa("Another CA")).certPem);
  try {
    for (
      const [name, caFile] of [
        ["without a CA file", undefined],
        ["with another CA", otherCa],
      ] as const
    ) {
      await t.step(`${name}: UNAVAILABLE`, async () => {
        const log = recordingLogger();
        const auth = await oidcAuthenticator({
          issuerUrl: s.issuer.url,
          clientId: CLIENT_ID,
          usernamePrefix: "-",
          caFile,
          log,
        });
        try {
          const error = await rejected(auth.authenticate(token), token, {
            code: Code.UNAVAILABLE,
            message:
              /^Cannot authenticate: the OIDC issuer cannot be reached \(discovery failed\)$/,
          });
          assert.equal(error.reason, "unavailable");
          assert.deepEqual(log.lines.map((l) => l.message), [
            "Failed OIDC discovery",
          ]);
          assert.match(
            String(log.lines[0].fields.error),
            /^fetch failed: .*(certificate|UnknownIssuer)/i,
          );
          // A failed discovery is not tried again at once.
          await rejected(auth.authenticate(token), token, {
            code: Code.UNAVAILABLE,
            message: /discovery failed/,
          });
          assert.equal(log.lines.length, 1);
        } finally {
          auth.close();
        }
      });
    }
    await t.step("with the issuer's CA: accepted", async () => {
      assert.equal((await s.auth.authenticate(token))?.user, "alice");
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("oidcAuthenticator() refuses a discovery document that names another issuer", async () => {
  await using s = await setUp();
  s.issuer.discoveryIssuer = "https://attacker.example";
  const token = await sign(s.key, claims(s.issuer));
  await rejected(s.auth.authenticate(token), token, {
    code: Code.UNAVAILABLE,
    message: /discovery failed/,
  });
  assert.match(
    String(
      s.log.lines.find((l) => l.message === "Failed OIDC discovery")?.fields
        .error,
    ),
    /names the issuer "https:\/\/attacker.example"/,
  );
  assert.equal(s.issuer.fetches["/keys"], undefined);
});

Deno.test("oidcAuthenticator() never logs a token", async () => {
  await using s = await setUp();
  const tokens = [
    await sign(s.key, claims(s.issuer)),
    await sign(s.key, claims(s.issuer, { exp: now() - 100 })),
  ];
  for (const token of tokens) {
    await s.auth.authenticate(token).catch(() => undefined);
  }
  const logged = JSON.stringify(s.log.lines);
  for (const token of tokens) {
    for (const part of token.split(".")) assert.ok(!logged.includes(part));
  }
});

Deno.test("oidcAuthenticator() keeps verifying with the keys in hand while the issuer is down", async () => {
  await using s = await setUp();
  const token = await sign(s.key, claims(s.issuer));
  assert.equal((await s.auth.authenticate(token))?.user, "alice");
  await s.issuer.close();
  assert.equal((await s.auth.authenticate(token))?.user, "alice");
  const other = await sign(s.key, claims(s.issuer, { sub: "bob" }));
  assert.equal((await s.auth.authenticate(other))?.user, "bob");
});
