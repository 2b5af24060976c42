/**
 * GET /apis/v1alpha2/auth-config tells a client that has no credentials
 * yet where to sign in: the issuer, client id and scopes of --oidc-*, or
 * that single sign-on is not configured; never a secret.
 */
import assert from "node:assert/strict";
import { authConfigPage } from "../../api/auth_config.ts";

Deno.test("authConfigPage() answers the issuer, client id and scopes clients sign in with", async () => {
  const page = authConfigPage({
    issuerUrl: "https://dex.example.com/dex",
    clientId: "corral",
    scopes: ["openid", "email", "groups"],
  });
  const response = page();
  assert.equal(response.status, 200);
  assert.equal(response.headers.get("content-type"), "application/json");
  assert.deepEqual(await response.json(), {
    oidc: {
      issuerUrl: "https://dex.example.com/dex",
      clientId: "corral",
      scopes: ["openid", "email", "groups"],
    },
  });
  // A second request is answered the same, from a fresh Response.
  assert.equal((await page().json()).oidc.clientId, "corral");
});

Deno.test("authConfigPage() says oidc is null without an issuer", async () => {
  assert.deepEqual(await authConfigPage(undefined)().json(), { oidc: null });
});
