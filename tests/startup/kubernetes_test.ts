/**
 * The start-up step that finds Kubernetes, called directly: the kubeconfig
 * a start refuses, the namespace of the pod, --write-kubeconfig, and the
 * embedded stand-in it starts.
 */
import assert from "node:assert/strict";
import * as k8s from "@kubernetes/client-node";
import { createLogger, silentLogger } from "../../api/log.ts";
import { parseSettings, type Settings } from "../../settings.ts";
import {
  checkPlainHttp,
  connectKubernetes,
  podNamespace,
  writeKubeconfig,
} from "../../startup/kubernetes.ts";

/** A kubeconfig of one cluster at `server`, its context in `namespace`. */
function kubeConfigOf(
  server: string,
  options: { skipTLSVerify?: boolean; namespace?: string } = {},
): k8s.KubeConfig {
  const kubeConfig = new k8s.KubeConfig();
  kubeConfig.loadFromOptions({
    clusters: [{
      name: "c",
      server,
      skipTLSVerify: options.skipTLSVerify ?? false,
    }],
    users: [{ name: "u" }],
    contexts: [{
      name: "x",
      cluster: "c",
      user: "u",
      namespace: options.namespace,
    }],
    currentContext: "x",
  });
  return kubeConfig;
}

function settingsOf(args: string[]): Settings {
  const invocation = parseSettings(["--allow-anonymous", ...args], {});
  assert.equal(invocation.kind, "run", JSON.stringify(invocation));
  return (invocation as { settings: Settings }).settings;
}

Deno.test("checkPlainHttp() refuses an http:// API server without insecure-skip-tls-verify, naming the kubeconfig and the server", () => {
  assert.throws(
    () => checkPlainHttp(kubeConfigOf("http://10.0.0.1:8080"), "/k/config"),
    (error: Error) => {
      assert.match(error.message, /kubeconfig "\/k\/config"/);
      assert.match(error.message, /is http:\/\/10\.0\.0\.1:8080, plain http/);
      assert.match(error.message, /insecure-skip-tls-verify: true/);
      return true;
    },
  );
  assert.throws(
    () => checkPlainHttp(kubeConfigOf("http://10.0.0.1:8080"), ""),
    /kubeconfig "in-cluster"/,
  );
});

Deno.test("checkPlainHttp() lets https:// through, and http:// with insecure-skip-tls-verify", () => {
  checkPlainHttp(kubeConfigOf("https://10.0.0.1:6443"), "/k/config");
  checkPlainHttp(
    kubeConfigOf("http://127.0.0.1:8080", { skipTLSVerify: true }),
    "/k/config",
  );
});

Deno.test("podNamespace() is the in-cluster context's namespace, trimmed, in kubernetes mode without a kubeconfig", () => {
  const kubeConfig = kubeConfigOf("https://10.0.0.1:443", {
    namespace: " corral\n",
  });
  assert.equal(podNamespace("kubernetes", "", kubeConfig), "corral");
  assert.equal(
    podNamespace("kubernetes", "", kubeConfigOf("https://10.0.0.1:443")),
    "",
  );
});

Deno.test("podNamespace() is empty with a kubeconfig and in embedded mode", () => {
  const kubeConfig = kubeConfigOf("https://10.0.0.1:443", {
    namespace: "corral",
  });
  assert.equal(podNamespace("kubernetes", "/k/config", kubeConfig), "");
  assert.equal(podNamespace("embedded", "", kubeConfig), "");
});

Deno.test("writeKubeconfig() writes the file and logs where, or fails naming --write-kubeconfig and the path", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const lines: string[] = [];
    const log = createLogger({ write: (line) => lines.push(line) });
    const path = `${dir}/standin.kubeconfig`;
    await writeKubeconfig(path, "apiVersion: v1\n", log);
    assert.equal(await Deno.readTextFile(path), "apiVersion: v1\n");
    assert.deepEqual(
      lines.map((l) => JSON.parse(l)).map((r) => [r.msg, r.path]),
      [
        ["Wrote kubeconfig for the stand-in", path],
      ],
    );

    const missing = `${dir}/no/such/dir/kubeconfig`;
    await assert.rejects(
      writeKubeconfig(missing, "apiVersion: v1\n", log),
      (error: Error) => {
        assert.ok(
          error.message.startsWith(
            `cannot write --write-kubeconfig "${missing}": `,
          ),
          error.message,
        );
        assert.ok(error.cause instanceof Deno.errors.NotFound);
        return true;
      },
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("connectKubernetes() fails the start on a kubeconfig whose API server is plain http://", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const path = `${dir}/config`;
    await Deno.writeTextFile(
      path,
      [
        "apiVersion: v1",
        "kind: Config",
        "clusters: [{name: c, cluster: {server: 'http://127.0.0.1:1'}}]",
        "users: [{name: u, user: {}}]",
        "contexts: [{name: x, context: {cluster: c, user: u}}]",
        "current-context: x",
      ].join("\n"),
    );
    await assert.rejects(
      connectKubernetes(settingsOf(["--kubeconfig", path]), silentLogger()),
      /plain http:\/\/, which the Kubernetes client refuses/,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("connectKubernetes() in embedded mode starts the stand-in, whose kubeconfig the client uses", async () => {
  const { kubeConfig, embedded } = await connectKubernetes(
    settingsOf(["--orchestrator", "embedded", "--operator-delay", "300ms"]),
    silentLogger(),
  );
  try {
    assert.ok(embedded, "the stand-in was started");
    const server = kubeConfig.getCurrentCluster()?.server ?? "";
    assert.match(server, /^http:\/\/127\.0\.0\.1:\d+$/);
    assert.ok(embedded.kubeconfig.includes(server), embedded.kubeconfig);
    const namespaces = await kubeConfig.makeApiClient(k8s.CoreV1Api)
      .listNamespace();
    assert.ok(Array.isArray(namespaces.items));
  } finally {
    await embedded?.close();
  }
});
