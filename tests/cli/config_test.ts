/**
 * Where the command line sends its requests and as whom: contexts in the
 * config file (set-context, use-context, get-contexts, current-context),
 * the precedence flag > environment > context, a context's token reaching
 * a Corral that requires one (401 without, 200 with), and a context's CA
 * trusted for a Corral that serves TLS.
 */
import { refusedUrl } from "../refused_url.ts";
import assert from "node:assert/strict";
import { parse } from "yaml";
import {
  EMBEDDED,
  type MainProcess,
  NO_SHUTDOWN_DELAY,
} from "../main_process.ts";
import { createCa, issueServer } from "../test_certificates.ts";
import { sandbox, startCorral } from "./cli_process.ts";

const TOKEN = "alice-token-0123456789abcdef0123456789";
const NOT_SIGNED_IN =
  "error: not signed in: set a token (--token, CORRAL_TOKEN or corral config set-context)\n";

Deno.test("corral config contexts, and a context's token reaching a Corral that requires one", async (t) => {
  const box = await sandbox();
  await Deno.writeTextFile(
    `${box.dir}/tokens.csv`,
    `${TOKEN},alice,1001,"team-a"\n`,
  );
  // A port nobody listens on, nor ever will during the suite.
  const away = await refusedUrl();
  const main: MainProcess = await startCorral({
    args: [
      ...EMBEDDED,
      ...NO_SHUTDOWN_DELAY,
      "--token-auth-file",
      `${box.dir}/tokens.csv`,
    ],
  });
  try {
    await t.step("without a token: 401 in plain words, exit 1", async () => {
      const result = await box.run(["clusters", "list", "--server", main.http]);
      assert.equal(result.code, 1);
      assert.equal(result.stderr, NOT_SIGNED_IN);
    });

    await t.step(
      "current-context without one: exit 1; get-contexts without any says how to add one",
      async () => {
        const current = await box.run(["config", "current-context"]);
        assert.equal(current.code, 1);
        assert.match(current.stderr, /^error: no current context is set/);
        const contexts = await box.run(["config", "get-contexts"]);
        assert.equal(contexts.code, 0);
        assert.match(contexts.stderr, /corral config set-context/);
      },
    );

    await t.step(
      "set-context adds a context; the first one becomes current; the file is its owner's only",
      async () => {
        const result = await box.run([
          "config",
          "set-context",
          "dev",
          "--server",
          main.http,
          "--token",
          TOKEN,
          "--namespace",
          "team-a",
        ]);
        assert.equal(result.code, 0, result.stderr);
        assert.equal(result.stdout, 'context "dev" added (current)\n');
        const config = parse(await Deno.readTextFile(box.config));
        assert.deepEqual(config, {
          currentContext: "dev",
          contexts: [{
            name: "dev",
            server: main.http,
            token: TOKEN,
            namespace: "team-a",
          }],
        });
        assert.equal((await Deno.stat(box.config)).mode! & 0o777, 0o600);
      },
    );

    await t.step(
      "the context's token reaches the server: 200, in the context's namespace",
      async () => {
        const created = await box.run([
          "templates",
          "create",
          "--name",
          "small",
          "--cpu",
          "1",
          "--memory",
          "1",
        ]);
        assert.equal(created.code, 0, created.stderr);
        assert.equal(created.stdout, "compute template team-a/small created\n");
        const listed = await box.run(["templates", "list"]);
        assert.equal(listed.code, 0, listed.stderr);
        assert.match(listed.stdout, /^small\s/m);
      },
    );

    await t.step(
      "the environment wins over the context, a flag over the environment",
      async () => {
        const env = await box.run(["templates", "list"], {
          env: { CORRAL_TOKEN: "wrong" },
        });
        assert.equal(env.code, 1);
        // A token was sent and refused: not "not signed in".
        assert.match(env.stderr, /^error: token not accepted by http:/);
        const flag = await box.run(["templates", "list", "--token", TOKEN], {
          env: { CORRAL_TOKEN: "wrong" },
        });
        assert.equal(flag.code, 0, flag.stderr);
        const namespace = await box.run(["templates", "list"], {
          env: { CORRAL_NAMESPACE: "team-b" },
        });
        assert.equal(namespace.stderr, "No compute templates found.\n");
      },
    );

    await t.step(
      "a second context; get-contexts marks the current one",
      async () => {
        const added = await box.run([
          "config",
          "set-context",
          "away",
          "--server",
          away,
        ]);
        assert.equal(added.stdout, 'context "away" added\n');
        const result = await box.run(["config", "get-contexts"]);
        const lines = result.stdout.trimEnd().split("\n");
        assert.deepEqual(lines[0].split(/\s+/), [
          "CURRENT",
          "NAME",
          "SERVER",
          "NAMESPACE",
          "TOKEN",
        ]);
        assert.match(
          lines[1],
          /^\*\s+dev\s+http:\/\/127\.0\.0\.1:\d+\s+team-a\s+set$/,
        );
        assert.deepEqual(lines[2].trim().split(/\s+/), ["away", away]);
      },
    );

    await t.step(
      "--context picks another context for one command: its server, unreachable, is exit 3 naming the URL",
      async () => {
        const result = await box.run(["clusters", "list", "--context", "away"]);
        assert.equal(result.code, 3);
        assert.match(
          result.stderr,
          /^error: cannot reach Corral at http:\/\/127\.0\.0\.1:\d+: .*refused/,
        );
        const missing = await box.run([
          "clusters",
          "list",
          "--context",
          "nope",
        ]);
        assert.equal(missing.code, 2);
        assert.equal(
          missing.stderr,
          'error: no context named "nope"\n  contexts: dev, away\n',
        );
      },
    );

    await t.step(
      "use-context switches; current-context prints it; set-context changes only what it is given",
      async () => {
        assert.equal(
          (await box.run(["config", "use-context", "away"])).stdout,
          'now using context "away"\n',
        );
        assert.equal(
          (await box.run(["config", "current-context"])).stdout,
          "away\n",
        );
        assert.equal((await box.run(["clusters", "list"])).code, 3);
        const changed = await box.run([
          "config",
          "set-context",
          "away",
          "--server",
          main.http,
          "--token",
          TOKEN,
        ]);
        assert.equal(changed.stdout, 'context "away" changed (current)\n');
        assert.equal(
          (await box.run(["clusters", "list", "-n", "team-a"])).code,
          0,
        );
        const unknown = await box.run(["config", "use-context", "nope"]);
        assert.equal(unknown.code, 1);
      },
    );

    await t.step(
      "a new context without --server is a usage error",
      async () => {
        const result = await box.run(["config", "set-context", "bare"]);
        assert.equal(result.code, 2);
        assert.match(result.stderr, /needs --server/);
      },
    );
  } finally {
    await main.stop();
    await box.remove();
  }
});

Deno.test("corral trusts a Corral serving TLS through the context's CA file, and not without it", async () => {
  const box = await sandbox();
  const ca = await createCa();
  const server = await issueServer(ca);
  await Deno.writeTextFile(`${box.dir}/ca.pem`, ca.cert);
  await Deno.writeTextFile(`${box.dir}/tls.crt`, server.cert);
  await Deno.writeTextFile(`${box.dir}/tls.key`, server.key);
  const main = await startCorral({
    args: [
      ...EMBEDDED,
      ...NO_SHUTDOWN_DELAY,
      "--allow-anonymous",
      "--tls-cert-file",
      `${box.dir}/tls.crt`,
      "--tls-private-key-file",
      `${box.dir}/tls.key`,
    ],
  });
  const https = `https://127.0.0.1:${main.started.httpPort}`;
  try {
    const untrusted = await box.run(["version", "--server", https]);
    assert.equal(untrusted.code, 3);
    assert.match(
      untrusted.stderr,
      new RegExp(`^error: cannot reach Corral at ${https}: `),
    );
    await box.run([
      "config",
      "set-context",
      "tls",
      "--server",
      https,
      "--ca",
      `${box.dir}/ca.pem`,
    ]);
    const trusted = await box.run(["version"]);
    assert.equal(trusted.code, 0, trusted.stderr);
    assert.match(trusted.stdout, /^Server Version: /m);
    const env = await box.run([
      "version",
      "--server",
      https,
      "--context",
      "tls",
    ], {
      env: { CORRAL_CA: `${box.dir}/missing.pem` },
    });
    assert.equal(env.code, 2, "CORRAL_CA wins over the context");
    assert.match(env.stderr, /cannot read certificate authority/);
  } finally {
    await main.stop();
    await box.remove();
  }
});
