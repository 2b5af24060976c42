/**
 * Which ID token a command sends for a context's sign-in: the kept one
 * while it has more than a minute left, and otherwise a refresh or, with
 * nothing to refresh it with, the advice to sign in again.
 */
import assert from "node:assert/strict";
import { CliError } from "../../cli/errors.ts";
import { expiryOf } from "../../cli/oidc.ts";
import {
  currentIdToken,
  type KeptSignIn,
  keptSignIn,
} from "../../cli/sso_tokens.ts";

function jwt(payload: Record<string, unknown>): string {
  const part = (value: unknown) =>
    btoa(JSON.stringify(value)).replaceAll("+", "-").replaceAll("/", "_")
      .replace(/=+$/, "");
  return `${part({ alg: "ES256" })}.${part(payload)}.signature`;
}

const NOW = 1_700_000_000_000;

function kept(exp: number, refreshToken?: string): KeptSignIn {
  return {
    // Nothing listens there: a test that reached it would fail.
    issuerUrl: "https://127.0.0.1:1",
    clientId: "corral",
    idToken: jwt({ sub: "ann", exp }),
    ...(refreshToken ? { refreshToken } : {}),
  };
}

Deno.test("expiryOf() reads exp of a JWT's payload, in milliseconds, and nothing of what is no JWT", () => {
  assert.equal(expiryOf(jwt({ exp: 1_700_000_123 })), 1_700_000_123_000);
  assert.equal(expiryOf(jwt({ sub: "ann" })), undefined);
  assert.equal(expiryOf("opaque-token"), undefined);
  assert.equal(expiryOf("a.%%%.c"), undefined);
});

Deno.test("currentIdToken() sends the kept ID token while it has more than a minute left, with no call to the issuer", async () => {
  const signIn = kept(NOW / 1000 + 120, "refresh-1");
  const saved: KeptSignIn[] = [];
  const token = await currentIdToken(
    signIn,
    "prod",
    (s) => {
      saved.push(s);
      return Promise.resolve();
    },
    () => NOW,
  );
  assert.equal(token, signIn.idToken);
  assert.deepEqual(saved, []);
});

Deno.test("currentIdToken() without a refresh token says to sign in again once the ID token is about to expire", async () => {
  await assert.rejects(
    currentIdToken(
      kept(NOW / 1000 + 30),
      "prod",
      () => Promise.resolve(),
      () => NOW,
    ),
    (error: CliError) => {
      assert.deepEqual(error.lines(), [
        'error: the sign-in of context "prod" has expired',
        "  sign in again with: corral login",
      ]);
      assert.equal(error.exitCode, 1);
      return true;
    },
  );
});

Deno.test("keptSignIn() keeps the previous refresh token when a refresh answers none, and refuses a grant without an ID token", () => {
  const previous = kept(NOW / 1000, "refresh-1");
  const idToken = jwt({ exp: NOW / 1000 + 600 });
  assert.deepEqual(
    keptSignIn(
      { url: previous.issuerUrl },
      "corral",
      { id_token: idToken },
      previous,
    ),
    { ...previous, idToken },
  );
  assert.throws(
    () =>
      keptSignIn({ url: previous.issuerUrl }, "corral", { access_token: "a" }),
    /granted no ID token: the scopes must include openid/,
  );
});
