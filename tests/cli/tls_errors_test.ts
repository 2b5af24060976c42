/**
 * The command line against a Corral serving TLS that takes client
 * certificates and a token file: an untrusted server certificate says to
 * pass --certificate-authority (or CORRAL_CA), a refused token says which
 * server refused it (not "not signed in"), and a client certificate given
 * by flags, by CORRAL_CLIENT_CERT/KEY or by a context signs the caller in.
 */
import assert from "node:assert/strict";
import { EMBEDDED, NO_SHUTDOWN_DELAY } from "../main_process.ts";
import { createCa, issue, issueServer } from "../test_certificates.ts";
import { sandbox, startCorral } from "./cli_process.ts";

const TOKEN = "alice-token-0123456789abcdef0123456789";

Deno.test("corral's TLS and token errors say what to do; client certificates sign in", async (t) => {
  const box = await sandbox();
  const ca = await createCa();
  const server = await issueServer(ca);
  const client = await issue(ca, {
    commonName: "ada",
    organizations: ["team-a"],
    usage: "client",
  });
  const files: Record<string, string> = {
    "ca.pem": ca.cert,
    "tls.crt": server.cert,
    "tls.key": server.key,
    "client.crt": client.cert,
    "client.key": client.key,
    "tokens.csv": `${TOKEN},alice,1001,"team-a"\n`,
  };
  for (const [name, text] of Object.entries(files)) {
    await Deno.writeTextFile(`${box.dir}/${name}`, text);
  }
  const path = (name: string) => `${box.dir}/${name}`;
  const main = await startCorral({
    args: [
      ...EMBEDDED,
      ...NO_SHUTDOWN_DELAY,
      "--token-auth-file",
      path("tokens.csv"),
      "--tls-cert-file",
      path("tls.crt"),
      "--tls-private-key-file",
      path("tls.key"),
      "--client-ca-file",
      path("ca.pem"),
    ],
  });
  const https = `https://127.0.0.1:${main.started.httpPort}`;
  const trusted = [
    "--server",
    https,
    "--certificate-authority",
    path("ca.pem"),
  ];
  try {
    await t.step(
      "an untrusted certificate: pass --certificate-authority",
      async () => {
        const result = await box.run(["clusters", "list", "--server", https]);
        assert.equal(result.code, 3, result.stderr);
        assert.match(result.stderr, /^error: cannot reach Corral at https:/);
        assert.match(
          result.stderr,
          /pass --certificate-authority FILE \(or set CORRAL_CA\)/,
        );
      },
    );

    await t.step("a refused token names the server, exit 1", async () => {
      const result = await box.run([
        "clusters",
        "list",
        ...trusted,
        "--token",
        "not-a-token-of-this-corral-0123456789",
      ]);
      assert.equal(result.code, 1, result.stderr);
      assert.match(
        result.stderr,
        new RegExp(`^error: token not accepted by ${https}: check --token`),
      );
      assert.doesNotMatch(result.stderr, /not signed in/);
      const none = await box.run(["clusters", "list", ...trusted]);
      assert.equal(none.code, 1);
      assert.match(none.stderr, /^error: not signed in/);
      const good = await box.run([
        "clusters",
        "list",
        ...trusted,
        "--token",
        TOKEN,
      ]);
      assert.equal(good.code, 0, good.stderr);
    });

    await t.step("a certificate without its key is a usage error", async () => {
      const result = await box.run([
        "clusters",
        "list",
        ...trusted,
        "--client-certificate",
        path("client.crt"),
      ]);
      assert.equal(result.code, 2);
      assert.match(
        result.stderr,
        /^error: --client-certificate needs --client-key/,
      );
    });
    await t.step(
      "a client certificate by flags, environment or context",
      async () => {
        const byFlags = await box.run([
          "clusters",
          "list",
          "-n",
          "team-a",
          ...trusted,
          "--client-certificate",
          path("client.crt"),
          "--client-key",
          path("client.key"),
        ]);
        assert.equal(byFlags.code, 0, byFlags.stderr);
        const byEnv = await box.run([
          "clusters",
          "list",
          "-n",
          "team-a",
          ...trusted,
        ], {
          env: {
            CORRAL_CLIENT_CERT: path("client.crt"),
            CORRAL_CLIENT_KEY: path("client.key"),
          },
        });
        assert.equal(byEnv.code, 0, byEnv.stderr);
        const set = await box.run([
          "config",
          "set-context",
          "mtls",
          ...trusted.slice(0, 2),
          "--ca",
          path("ca.pem"),
          "--client-certificate",
          path("client.crt"),
          "--client-key",
          path("client.key"),
        ]);
        assert.equal(set.code, 0, set.stderr);
        const byContext = await box.run(["clusters", "list", "-n", "team-a"]);
        assert.equal(byContext.code, 0, byContext.stderr);
      },
    );
  } finally {
    await main.stop();
    await box.remove();
  }
});
