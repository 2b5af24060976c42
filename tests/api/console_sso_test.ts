/**
 * The console's single sign-on without a page (api/console/sso_pkce.js):
 * the PKCE challenge as RFC 7636 computes it, the authorization request,
 * and a redirect back taken only with the state this tab sent; and the
 * ID token's renewal (sso.js), its timer and issuer stubbed, which keeps
 * its token only for a tab still holding the one it renews. The
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

const sso = await import(`${CONSOLE}sso.js`) as {
  beginSsoSignIn(
    config: { issuerUrl: string; clientId: string; scopes: string[] },
  ): Promise<void>;
  finishSsoSignIn(): Promise<string>;
  stopSsoRefresh(): void;
};
const session = await import(`${CONSOLE}session.js`) as {
  token(): string | null;
  setToken(value: string): void;
  clearToken(): void;
  ssoRefresh(): object | null;
  setSsoRefresh(
    refresh: { refreshToken: string; tokenEndpoint: string; clientId: string },
  ): void;
};

/** Runs `body` with some of the globals the renewal uses replaced. */
async function withGlobals(
  stubs: Record<string, unknown>,
  body: () => unknown,
) {
  const global = globalThis as unknown as Record<string, unknown>;
  const saved = Object.fromEntries(
    Object.keys(stubs).map((name) => [name, global[name]]),
  );
  Object.assign(global, stubs);
  try {
    await body();
  } finally {
    Object.assign(global, saved);
  }
}

/**
 * A tab signed in with SSO (an ID token for an hour, a refresh token),
 * loaded as the console loads: the renewal it schedules, handed back to
 * run as if its time had come.
 */
async function scheduledRenewal(): Promise<() => Promise<void>> {
  const exp = Math.floor(Date.now() / 1000) + 3600;
  session.setToken(
    `e30.${
      pkce.base64url(new TextEncoder().encode(JSON.stringify({ exp })))
    }.sig`,
  );
  session.setSsoRefresh({
    refreshToken: "refresh-1",
    tokenEndpoint: "https://dex.example.com/token",
    clientId: "corral",
  });
  const due: (() => Promise<void>)[] = [];
  Object.defineProperty(globalThis, "location", {
    value: new URL("https://corral.example.com/console"),
    configurable: true,
  });
  try {
    await withGlobals({
      setTimeout: (callback: () => Promise<void>) => due.push(callback),
      clearTimeout: () => {},
    }, () => sso.finishSsoSignIn());
  } finally {
    Reflect.deleteProperty(globalThis, "location");
  }
  assert.equal(due.length, 1);
  return due[0];
}

/**
 * Runs a renewal against an issuer that grants "renewed" (after
 * `meanwhile`, what the tab does while it answers); resolves with how
 * many times the issuer was asked.
 */
async function renew(
  renewal: () => Promise<void>,
  meanwhile: () => void = () => {},
) {
  let asked = 0;
  await withGlobals({
    fetch: () => {
      asked++;
      meanwhile();
      return Promise.resolve(Response.json({ id_token: "renewed" }));
    },
  }, renewal);
  return asked;
}

Deno.test("the SSO renewal keeps the renewed token of a tab still holding the one it was scheduled for", async () => {
  const renewal = await scheduledRenewal();
  assert.equal(await renew(renewal), 1);
  assert.equal(session.token(), "renewed");
  sso.stopSsoRefresh();
  session.clearToken();
});

Deno.test("stopSsoRefresh() clears the renewal's timer and forgets the refresh token", async () => {
  const cleared: unknown[] = [];
  await scheduledRenewal();
  await withGlobals({
    clearTimeout: (id: unknown) => cleared.push(id),
  }, () => sso.stopSsoRefresh());
  // The stubbed setTimeout numbered the one timer it set 1.
  assert.deepEqual(cleared, [1]);
  assert.equal(session.ssoRefresh(), null);
  session.clearToken();
});

Deno.test("a renewal due after sign-out signs nobody in", async () => {
  const renewal = await scheduledRenewal();
  session.clearToken();
  assert.equal(await renew(renewal), 0);
  assert.equal(session.token(), null);
});

Deno.test("a renewal due after a token was pasted leaves the pasted token", async () => {
  const renewal = await scheduledRenewal();
  session.setToken("pasted");
  assert.equal(await renew(renewal), 0);
  assert.equal(session.token(), "pasted");
  session.clearToken();
});

Deno.test("a renewal the issuer answers after a token was pasted leaves the pasted token", async () => {
  const renewal = await scheduledRenewal();
  assert.equal(await renew(renewal, () => session.setToken("pasted")), 1);
  assert.equal(session.token(), "pasted");
  session.clearToken();
});

Deno.test("an issuer whose discovery document is not found, or not JSON, cannot be used to sign in", async (t) => {
  const issuerUrl = "https://dex.example.com";
  const answers: [string, () => Response][] = [
    ["a 404 page", () => new Response("<h1>Not Found</h1>", { status: 404 })],
    ["a page that is not JSON", () => new Response("<h1>Dex</h1>")],
  ];
  for (const [name, answer] of answers) {
    await t.step(name, async () => {
      await withGlobals(
        { fetch: () => Promise.resolve(answer()) },
        () =>
          assert.rejects(
            sso.beginSsoSignIn({ issuerUrl, clientId: "corral", scopes: [] }),
            { message: `The issuer ${issuerUrl} cannot be used to sign in` },
          ),
      );
    });
  }
});
