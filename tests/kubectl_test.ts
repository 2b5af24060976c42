/**
 * Acceptance: the real `kubectl` (the one on PATH) against main.ts in
 * embedded mode, served over TLS with a bearer token (kubectl sends a
 * token only over TLS), with its default flags and resource names, no
 * `--raw`: create -f, get, get -o yaml, get -w, patch (JSON and merge),
 * get across namespaces, delete; a hostPath volume the policy does not
 * allow refused (Forbidden); a token Corral does not know refused.
 *
 * Without a kubectl on PATH the test is reported as ignored, saying why.
 */
import assert from "node:assert/strict";
import { stringify } from "yaml";
import {
  ALICE,
  tokenFileText,
  writeAccessFiles,
} from "./api/auth/access_fixtures.ts";
import { allowAll, policyText, users } from "./api/auth/policy_fixtures.ts";
import { rayCluster } from "./api/http/ray_objects_world.ts";
import { DEV_PERMISSIONS, EMBEDDED, startMain } from "./main_process.ts";
import { createCa, issueServer } from "./test_certificates.ts";

/** Whether `kubectl version --client` runs. */
function hasKubectl(): boolean {
  try {
    return new Deno.Command("kubectl", {
      args: ["version", "--client"],
      stdout: "null",
      stderr: "null",
    }).outputSync().success;
  } catch {
    return false;
  }
}

const KUBECTL = hasKubectl();
const NAME =
  "kubectl --server with a bearer token creates, gets, watches, patches and deletes RayClusters by resource name through Corral, and is refused a hostPath volume";

/** Reads a child's stdout one line at a time. */
function lines(stream: ReadableStream<Uint8Array>) {
  const reader = stream.pipeThrough(new TextDecoderStream()).getReader();
  let buffered = "";
  return {
    async next(): Promise<string | undefined> {
      while (!buffered.includes("\n")) {
        const { value, done } = await reader.read();
        if (done) return undefined;
        buffered += value;
      }
      const at = buffered.indexOf("\n");
      const line = buffered.slice(0, at);
      buffered = buffered.slice(at + 1);
      return line;
    },
    cancel: () => reader.cancel(),
  };
}

Deno.test({
  name: KUBECTL ? NAME : `${NAME} (ignored: no kubectl on PATH)`,
  ignore: !KUBECTL,
  async fn(t) {
    const files = await writeAccessFiles({
      tokens: tokenFileText([ALICE]),
      policy: policyText([allowAll(users("alice"), ["team-a"])]),
    });
    const ca = await createCa();
    const server = await issueServer(ca);
    const dir = files.dir;
    await Deno.writeTextFile(`${dir}/ca.crt`, ca.cert);
    await Deno.writeTextFile(`${dir}/tls.crt`, server.cert);
    await Deno.writeTextFile(`${dir}/tls.key`, server.key);
    await Deno.writeTextFile(
      `${dir}/blue.yaml`,
      stringify(rayCluster("blue")),
    );
    await Deno.writeTextFile(
      `${dir}/host.yaml`,
      stringify(rayCluster("host", {
        pods: {
          volumes: [{ name: "root", hostPath: { path: "/" } }],
        },
      })),
    );
    const corral = await startMain({
      permissions: DEV_PERMISSIONS,
      args: [
        ...EMBEDDED,
        "--token-auth-file",
        files.tokenFile,
        "--authorization-policy-file",
        files.policyFile,
        "--tls-cert-file",
        `${dir}/tls.crt`,
        "--tls-private-key-file",
        `${dir}/tls.key`,
      ],
      startTimeoutMs: 30_000,
    });
    const base = [
      "--server",
      corral.http.replace("http://", "https://"),
      "--certificate-authority",
      `${dir}/ca.crt`,
      "--cache-dir",
      `${dir}/kube-cache`,
    ];
    const kubectl = (args: string[], token = ALICE.token) =>
      new Deno.Command("kubectl", {
        args: [...base, ...(token ? ["--token", token] : []), ...args],
        env: { KUBECONFIG: `${dir}/no-kubeconfig`, HOME: dir },
        stdin: "null",
        stdout: "piped",
        stderr: "piped",
      });
    const run = async (args: string[], token?: string) => {
      const { code, stdout, stderr } = await kubectl(args, token).output();
      return {
        code,
        out: new TextDecoder().decode(stdout),
        err: new TextDecoder().decode(stderr),
      };
    };
    const ok = async (args: string[]) => {
      const got = await run(args);
      assert.equal(got.code, 0, `kubectl ${args.join(" ")}:\n${got.err}`);
      return got.out;
    };
    try {
      await t.step("create -f, with validation on", async () => {
        const out = await ok([
          "create",
          "-n",
          "team-a",
          "-f",
          `${dir}/blue.yaml`,
        ]);
        assert.match(out, /raycluster\.ray\.io\/blue created/);
      });
      await t.step("get, get -o yaml, get across namespaces", async () => {
        assert.match(
          await ok(["get", "rayclusters", "-n", "team-a"]),
          /^blue\s/m,
        );
        const yaml = await ok([
          "get",
          "raycluster",
          "blue",
          "-n",
          "team-a",
          "-o",
          "yaml",
        ]);
        assert.match(yaml, /ray\.io\/user: alice/);
        assert.match(await ok(["get", "rayclusters", "-A"]), /team-a\s+blue/);
        assert.match(await ok(["get", "all", "-n", "team-a"]), /blue/);
      });
      await t.step("get -w sees a patch and the delete", async () => {
        const watcher = kubectl([
          "get",
          "rayclusters",
          "-n",
          "team-a",
          "-w",
          "-o",
          "custom-columns=NAME:.metadata.name,TEAM:.metadata.labels.team",
          "--no-headers",
        ]).spawn();
        const seen = lines(watcher.stdout);
        try {
          assert.match((await seen.next()) ?? "", /^blue\s+<none>/);
          await ok([
            "patch",
            "raycluster",
            "blue",
            "-n",
            "team-a",
            "--type=json",
            "-p",
            '[{"op":"add","path":"/metadata/labels/team","value":"ml"}]',
          ]);
          assert.match((await seen.next()) ?? "", /^blue\s+ml/);
          await ok([
            "patch",
            "raycluster",
            "blue",
            "-n",
            "team-a",
            "--type=merge",
            "-p",
            '{"metadata":{"labels":{"team":"web"}}}',
          ]);
          assert.match((await seen.next()) ?? "", /^blue\s+web/);
          const deleted = await ok([
            "delete",
            "raycluster",
            "blue",
            "-n",
            "team-a",
          ]);
          assert.match(deleted, /deleted/);
        } finally {
          await seen.cancel();
          watcher.kill();
          await watcher.status;
          await watcher.stderr.cancel();
        }
        const none = await ok([
          "get",
          "rayclusters",
          "-n",
          "team-a",
          "-o",
          "name",
        ]);
        assert.equal(none.trim(), "");
      });
      await t.step(
        "a hostPath volume the policy does not allow is Forbidden",
        async () => {
          const refused = await run([
            "create",
            "-n",
            "team-a",
            "-f",
            `${dir}/host.yaml`,
          ], ALICE.token);
          assert.notEqual(refused.code, 0);
          assert.match(refused.err, /Forbidden/);
          assert.match(refused.err, /hostPath/);
        },
      );
      await t.step(
        "with a token Corral does not know, or in another namespace, kubectl is refused",
        async () => {
          // (Without any token, kubectl asks for a username instead.)
          const unknown = await run(
            ["get", "rayclusters", "-n", "team-a"],
            "unknown-0123456789abcdef0123456789abcdef",
          );
          assert.notEqual(unknown.code, 0);
          assert.match(unknown.err, /Unauthorized: the token is not valid/);
          const elsewhere = await run(
            ["get", "rayclusters", "-n", "team-b"],
            ALICE.token,
          );
          assert.notEqual(elsewhere.code, 0);
          assert.match(elsewhere.err, /Forbidden/);
        },
      );
    } finally {
      const status = await corral.stop();
      await files.remove();
      assert.equal(
        status.code,
        0,
        `main.ts exit code; logs:\n${corral.logs.join("\n")}`,
      );
    }
  },
});
