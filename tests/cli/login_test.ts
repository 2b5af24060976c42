/**
 * `corral login` against a test OIDC issuer, end to end: main.ts takes
 * the issuer's ID tokens (--oidc-*) and names it at
 * /apis/v1alpha2/auth-config; the command line, run as its users run it,
 * signs in with the device grant (the test approving the code as the
 * user would) or in a browser with PKCE (the test following the printed
 * URL as the browser would), keeps the tokens in the context, and sends
 * the ID token with later commands, refreshed once it has expired.
 */
import assert from "node:assert/strict";
import { parse, stringify } from "yaml";
import { EMBEDDED, startMain } from "../main_process.ts";
import { type Sandbox, sandbox, startCorral } from "./cli_process.ts";
import { SSO_CLIENT_ID, type SsoIssuer, startSsoIssuer } from "./sso_issuer.ts";
import type { Config } from "../../cli/config.ts";

async function readConfig(box: Sandbox): Promise<Config> {
  return parse(await Deno.readTextFile(box.config)) as Config;
}

function expOf(jwt: string): number {
  return JSON.parse(atob(
    jwt.split(".")[1].replaceAll("-", "+")
      .replaceAll("_", "/"),
  )).exp;
}

/** `corral login` with the device grant, approved (or denied) by the test. */
async function deviceLogin(
  box: Sandbox,
  sso: SsoIssuer,
  args: string[],
  decide: "approve" | "deny" = "approve",
) {
  const login = box.spawn(["login", ...args]);
  const line = await login.line((l) => l.includes("enter the code"));
  const code = /enter the code (\S+)/.exec(line)![1];
  sso[decide](code);
  return await login.done;
}

/** `corral login --browser`: the authorization URL it printed, followed. */
async function browserLogin(
  box: Sandbox,
  sso: SsoIssuer,
  args: string[],
  tamper: (callback: URL) => void = () => {},
) {
  const login = box.spawn(["login", "--browser", ...args]);
  const line = await login.line((l) => l.trim().startsWith(sso.url));
  const http = Deno.createHttpClient({ caCerts: [sso.ca.certPem] });
  try {
    const authorize = await fetch(line.trim(), {
      client: http,
      redirect: "manual",
    });
    await authorize.body?.cancel();
    assert.equal(authorize.status, 302);
    const callback = new URL(authorize.headers.get("location")!);
    assert.match(callback.href, /^http:\/\/127\.0\.0\.1:\d+\/callback\?/);
    tamper(callback);
    const page = await fetch(callback);
    return {
      page: { status: page.status, text: await page.text() },
      ...await login.done,
    };
  } finally {
    http.close();
  }
}

Deno.test("corral login signs in against the OIDC issuer Corral names, and later commands use and refresh the token", async (t) => {
  const sso = await startSsoIssuer();
  const dir = await Deno.makeTempDir({ prefix: "corral-sso-" });
  const caFile = `${dir}/issuer-ca.pem`;
  await Deno.writeTextFile(caFile, sso.ca.certPem);
  const main = await startMain({
    args: [
      ...EMBEDDED,
      "--oidc-issuer-url",
      sso.url,
      "--oidc-client-id",
      SSO_CLIENT_ID,
      "--oidc-ca-file",
      caFile,
      "--oidc-scopes",
      "openid email groups offline_access",
    ],
    startTimeoutMs: 30_000,
  });
  const box = await sandbox();
  const server = ["--server", main.http];
  const loginArgs = [...server, "--issuer-certificate-authority", caFile];
  try {
    await t.step(
      "the discovery endpoint names the issuer without credentials",
      async () => {
        const response = await fetch(`${main.http}/apis/v1alpha2/auth-config`);
        assert.equal(response.status, 200);
        assert.deepEqual(await response.json(), {
          oidc: {
            issuerUrl: sso.url,
            clientId: SSO_CLIENT_ID,
            scopes: ["openid", "email", "groups", "offline_access"],
          },
        });
      },
    );

    await t.step("before signing in, a command is refused", async () => {
      const got = await box.run(["clusters", "list", ...server]);
      assert.equal(got.code, 1, got.stderr);
    });

    await t.step(
      "device grant: prints the page and code, signs in once approved",
      async () => {
        const got = await deviceLogin(box, sso, loginArgs);
        assert.equal(got.code, 0, got.stderr);
        assert.match(got.stdout, new RegExp(`open ${sso.url}/device\\n`));
        assert.match(
          got.stdout,
          new RegExp(
            `Signed in to ${main.http} as ${sso.url}#u-1 \\(context "default"\\)`,
          ),
        );
        const config = await readConfig(box);
        assert.equal(config.currentContext, "default");
        const signIn = config.contexts[0].signIn!;
        assert.equal(signIn.issuerUrl, sso.url);
        assert.equal(signIn.clientId, SSO_CLIENT_ID);
        assert.equal(signIn.issuerCertificateAuthority, caFile);
        assert.ok(signIn.idToken && signIn.refreshToken);
        assert.equal((await Deno.stat(box.config)).mode! & 0o777, 0o600);
      },
    );

    await t.step("a later command sends the kept ID token", async () => {
      const got = await box.run(["clusters", "list"]);
      assert.equal(got.code, 0, got.stderr);
      assert.equal(sso.counts.refresh_token ?? 0, 0);
    });

    await t.step(
      "an expired ID token is refreshed first, and the new one kept",
      async () => {
        const config = await readConfig(box);
        const signIn = config.contexts[0].signIn!;
        sso.nextExp = Math.floor(Date.now() / 1000) - 60;
        signIn.idToken = await sso.idToken();
        await Deno.writeTextFile(box.config, stringify(config));
        const got = await box.run(["clusters", "list"]);
        assert.equal(got.code, 0, got.stderr);
        assert.equal(sso.counts.refresh_token, 1);
        const kept = (await readConfig(box)).contexts[0].signIn!;
        assert.ok(expOf(kept.idToken) > Date.now() / 1000);
        assert.notEqual(kept.refreshToken, signIn.refreshToken);
        assert.equal((await Deno.stat(box.config)).mode! & 0o777, 0o600);
      },
    );

    await t.step(
      "a refresh the issuer refuses says to sign in again",
      async () => {
        const config = await readConfig(box);
        const signIn = config.contexts[0].signIn!;
        sso.nextExp = Math.floor(Date.now() / 1000) - 60;
        const valid = { ...signIn };
        signIn.idToken = await sso.idToken();
        signIn.refreshToken = "revoked";
        await Deno.writeTextFile(box.config, stringify(config));
        const got = await box.run(["clusters", "list"]);
        assert.equal(got.code, 1);
        assert.match(
          got.stderr,
          /error: the sign-in of context "default" could not be refreshed \(invalid_grant\)\n {2}sign in again with: corral login/,
        );
        config.contexts[0].signIn = valid;
        await Deno.writeTextFile(box.config, stringify(config));
      },
    );

    await t.step("a denied device code ends with a clear error", async () => {
      const other = await sandbox();
      try {
        const got = await deviceLogin(other, sso, loginArgs, "deny");
        assert.equal(got.code, 1);
        assert.match(got.stderr, /^error: sign-in denied: /m);
        await assert.rejects(Deno.stat(other.config), Deno.errors.NotFound);
      } finally {
        await other.remove();
      }
    });

    await t.step(
      "--browser: PKCE on a loopback redirect, the URL followed as a browser would",
      async () => {
        const other = await sandbox();
        try {
          const got = await browserLogin(other, sso, loginArgs);
          assert.equal(got.code, 0, got.stderr);
          assert.equal(got.page.status, 200);
          assert.match(got.page.text, /Signed in to Corral/);
          const list = await other.run(["clusters", "list"]);
          assert.equal(list.code, 0, list.stderr);
        } finally {
          await other.remove();
        }
      },
    );

    await t.step(
      "--browser --callback-port: the redirect on that port",
      async () => {
        const other = await sandbox();
        // A port free a moment ago, as a user would register one.
        const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
        const port = listener.addr.port;
        listener.close();
        try {
          const got = await browserLogin(
            other,
            sso,
            [...loginArgs, "--callback-port", String(port)],
            (callback) => assert.equal(callback.port, String(port)),
          );
          assert.equal(got.code, 0, got.stderr);
        } finally {
          await other.remove();
        }
      },
    );

    await t.step(
      "--browser: a redirect with another state is refused",
      async () => {
        const other = await sandbox();
        try {
          const before = sso.counts.authorization_code ?? 0;
          const got = await browserLogin(other, sso, loginArgs, (callback) => {
            callback.searchParams.set("state", "forged");
          });
          assert.equal(got.page.status, 400);
          assert.equal(got.code, 1);
          assert.match(got.stderr, /^error: sign-in refused: .*another state/m);
          // The code was never exchanged.
          assert.equal(sso.counts.authorization_code ?? 0, before);
        } finally {
          await other.remove();
        }
      },
    );

    await t.step(
      "config get-contexts says the context is signed in; a token set replaces the sign-in",
      async () => {
        const listed = await box.run(["config", "get-contexts"]);
        assert.match(listed.stdout, /^\*\s+default\s+\S+\s+signed in$/m);
        const other = await sandbox();
        try {
          await Deno.writeTextFile(
            other.config,
            await Deno.readTextFile(box.config),
          );
          const got = await other.run([
            "config",
            "set-context",
            "default",
            "--token",
            "static-token",
          ]);
          assert.equal(got.code, 0, got.stderr);
          const context = (await readConfig(other)).contexts[0];
          assert.equal(context.token, "static-token");
          assert.equal(context.signIn, undefined);
        } finally {
          await other.remove();
        }
      },
    );

    await t.step("corral logout forgets the tokens", async () => {
      const got = await box.run(["logout"]);
      assert.equal(got.code, 0, got.stderr);
      assert.match(got.stdout, /Signed out of context "default"/);
      assert.equal((await readConfig(box)).contexts[0].signIn, undefined);
      const list = await box.run(["clusters", "list"]);
      assert.equal(list.code, 1);
    });
  } finally {
    await box.remove();
    await main.stop();
    await sso.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("corral login against a Corral without single sign-on says so and keeps nothing", async () => {
  const main = await startCorral();
  const box = await sandbox();
  try {
    const got = await box.run(["login", "--server", main.http]);
    assert.equal(got.code, 1);
    assert.equal(
      got.stderr,
      `error: ${main.http} has no single sign-on configured\n` +
        "  ask its operators for a token, and keep it with: corral config set-context NAME --token TOKEN\n",
    );
    await assert.rejects(Deno.stat(box.config), Deno.errors.NotFound);
  } finally {
    await box.remove();
    await main.stop();
  }
});

Deno.test("corral login to a server other than its context's refuses, keeping the sign-in out of that context", async (t) => {
  const box = await sandbox();
  const prod: Config = {
    currentContext: "prod",
    contexts: [{ name: "prod", server: "https://corral.example.com" }],
  };
  const other = "https://other.example.com";
  const refusal = (from: string) =>
    `error: ${other} (from ${from}) is not the server of context "prod" (https://corral.example.com), where the sign-in would be kept\n` +
    `  sign in to a context of ${other} with: corral login --context NAME\n` +
    `  or set one up with: corral config set-context NAME --server ${other}\n`;
  try {
    await Deno.writeTextFile(box.config, stringify(prod));
    await t.step("named by --server", async () => {
      const got = await box.run(["login", "--server", other]);
      assert.equal(got.code, 2);
      assert.equal(got.stderr, refusal("--server"));
    });
    await t.step("named by CORRAL_SERVER", async () => {
      const got = await box.run(["login"], { env: { CORRAL_SERVER: other } });
      assert.equal(got.code, 2);
      assert.equal(got.stderr, refusal("CORRAL_SERVER"));
    });
    assert.deepEqual(await readConfig(box), prod);
  } finally {
    await box.remove();
  }
});
