/**
 * The console's single sign-on without a page (api/console/sso_pkce.js):
 * the PKCE challenge as RFC 7636 computes it, the authorization request,
 * and a redirect back taken only with the state this tab sent. The
 * sign-in in a browser is tests/browser/console_sso_test.ts.
 *
 * Loaded by URL, as console_modules_test.ts loads the console's modules.
 */
import assert from "node:assert/strict";

const CONSOLE = new URL("../../api/console/", import.meta.url);

const pkce = await import(`${CONSOLE}sso_pkce.js`) as {
  base64url(bytes: Uint8Array): string;
  randomValue(size: number): string;
  challengeOf(verifier: string): Promise<string>;
  authorizationUrl(endpoint: string, request: {
    clientId: string;
    redirectUri: string;
    scopes: string[];
    state: string;
    challenge: string;
  }): string;
  callbackOf(
    params: URLSearchParams,
    expected: string | undefined,
  ): { code: string } | { error: string };
  expiryOf(jwt: string): number | undefined;
};

Deno.test("challengeOf() is RFC 7636's S256 of the verifier (its appendix B example)", async () => {
  assert.equal(
    await pkce.challengeOf("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"),
    "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
  );
});

Deno.test("randomValue() of 32 bytes is a 43-character base64url verifier, new each time", () => {
  const a = pkce.randomValue(32);
  assert.match(a, /^[A-Za-z0-9_-]{43}$/);
  assert.notEqual(pkce.randomValue(32), a);
});

Deno.test("authorizationUrl() asks for a code with the S256 challenge, the state and the scopes", () => {
  const url = new URL(
    pkce.authorizationUrl("https://dex.example.com/auth?connector=ldap", {
      clientId: "corral",
      redirectUri: "https://corral.example.com/console",
      scopes: ["openid", "groups"],
      state: "s-1",
      challenge: "c-1",
    }),
  );
  assert.equal(url.origin + url.pathname, "https://dex.example.com/auth");
  assert.deepEqual(Object.fromEntries(url.searchParams), {
    connector: "ldap",
    response_type: "code",
    client_id: "corral",
    redirect_uri: "https://corral.example.com/console",
    scope: "openid groups",
    state: "s-1",
    code_challenge: "c-1",
    code_challenge_method: "S256",
  });
});

Deno.test("callbackOf() takes the code only with the state the tab sent", async (t) => {
  const cases: [string, string, string | undefined, object][] = [
    ["its state: the code", "code=abc&state=s-1", "s-1", { code: "abc" }],
    ["another state: refused", "code=abc&state=forged", "s-1", {
      error:
        "Sign-in refused: the issuer's answer is not for this tab's sign-in. Sign in again.",
    }],
    ["no sign-in on its way: refused", "code=abc&state=s-1", undefined, {
      error:
        "Sign-in refused: the issuer's answer is not for this tab's sign-in. Sign in again.",
    }],
    [
      "the issuer's error: said",
      "error=access_denied&error_description=no+thanks&state=s-1",
      "s-1",
      { error: "Sign-in failed at the issuer: access_denied (no thanks)" },
    ],
  ];
  for (const [name, query, expected, want] of cases) {
    await t.step(name, () => {
      assert.deepEqual(
        pkce.callbackOf(new URLSearchParams(query), expected),
        want,
      );
    });
  }
});

Deno.test("expiryOf() reads a JWT's exp in milliseconds", () => {
  const payload = pkce.base64url(
    new TextEncoder().encode(JSON.stringify({ exp: 1_700_000_000 })),
  );
  assert.equal(pkce.expiryOf(`e30.${payload}.sig`), 1_700_000_000_000);
  assert.equal(pkce.expiryOf("opaque"), undefined);
});
