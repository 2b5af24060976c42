/**
 * The console's "Sign in with SSO" in a real browser (Debian's chromium,
 * headless) against main.ts configured with the tests' OIDC issuer
 * (tests/cli/sso_issuer.ts), whose authorize endpoint signs the user in at
 * once, as for someone already signed in there: the tab goes to the
 * issuer, comes back to /console with a code, exchanges it (PKCE) and is
 * signed in, its tokens in this tab's sessionStorage and never in
 * localStorage; a redirect back with another state is refused.
 *
 * chromium ignores certificate errors here: the issuer's certificate is
 * the test's own CA's.
 *
 * Runs in `deno task test:browser` (needs /usr/bin/chromium).
 */
import assert from "node:assert/strict";
import type { BrowserContext } from "playwright-core";
import { launchChromium } from "./browser.ts";
import {
  DEV_PERMISSIONS,
  EMBEDDED,
  type MainProcess,
  startMain,
} from "../main_process.ts";
import {
  SSO_CLIENT_ID,
  type SsoIssuer,
  startSsoIssuer,
} from "../cli/sso_issuer.ts";

Deno.test("the console signs in with SSO: PKCE in the browser, back to /console, tokens kept in the tab only", async (t) => {
  const dir = await Deno.makeTempDir({ prefix: "corral-console-sso-" });
  let sso: SsoIssuer | undefined;
  let corral: MainProcess | undefined;
  let context: BrowserContext | undefined;
  try {
    sso = await startSsoIssuer();
    await Deno.writeTextFile(`${dir}/issuer-ca.pem`, sso.ca.certPem);
    corral = await startMain({
      args: [
        ...EMBEDDED,
        "--oidc-issuer-url",
        sso.url,
        "--oidc-client-id",
        SSO_CLIENT_ID,
        "--oidc-ca-file",
        `${dir}/issuer-ca.pem`,
      ],
      permissions: DEV_PERMISSIONS,
      startTimeoutMs: 20_000,
    });
    const origin = corral.http;
    sso.corsOrigins = [origin];
    const launched = await launchChromium(dir, { width: 1200, height: 800 }, [
      "--ignore-certificate-errors",
    ]);
    context = launched.context;
    const page = launched.page;

    await t.step(
      "the sign-in dialog offers SSO when Corral names an issuer",
      async () => {
        await page.goto(`${origin}/console#/clusters`);
        await page.locator("#sign-in[open]").waitFor();
        await page.getByRole("button", { name: "Sign in with SSO" }).waitFor();
      },
    );

    await t.step(
      "signing in goes to the issuer and back, signed in",
      async () => {
        const before = sso!.counts.authorization_code ?? 0;
        await page.getByRole("button", { name: "Sign in with SSO" }).click();
        await page.locator("#who", { hasText: "Signed in as" }).waitFor();
        assert.equal(
          await page.locator("#who").textContent(),
          `Signed in as ${sso!.url}#u-1`,
        );
        assert.equal(sso!.counts.authorization_code, before + 1);
        const url = new URL(page.url());
        assert.equal(url.pathname, "/console");
        assert.equal(url.search, "", "the code is gone from the address");
        assert.equal(url.hash, "#/clusters", "back where the tab was");
        const storage = await page.evaluate(() => ({
          session: Object.keys(sessionStorage).sort(),
          local: Object.keys(localStorage),
        }));
        assert.deepEqual(storage.session, [
          "corral-refresh-token",
          "corral-sso-client",
          "corral-token",
        ]);
        assert.deepEqual(storage.local, []);
        assert.equal(
          await page.locator("#account").textContent(),
          "Sign out",
        );
      },
    );

    await t.step("a redirect back with another state is refused", async () => {
      const fresh = await context!.newPage();
      await fresh.goto(`${origin}/console?code=stolen&state=forged#/clusters`);
      await fresh.locator("#sign-in-error", {
        hasText: "Sign-in refused",
      }).waitFor();
      assert.equal(new URL(fresh.url()).search, "");
      assert.equal(
        await fresh.evaluate(() => sessionStorage.getItem("corral-token")),
        null,
      );
      await fresh.close();
    });
  } finally {
    await context?.close();
    await corral?.stop();
    await sso?.close();
    await Deno.remove(dir, { recursive: true });
  }
});
