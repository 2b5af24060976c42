/**
 * main.ts's start-up as a new user meets it: a mistyped --orchestrator is
 * one problem, not two; --write-kubeconfig leaves a working file alone when
 * the start fails; a kubeconfig that `deno task start`'s permissions cannot
 * read says what to do instead; an http:// API server is said at start-up
 * and its answer given in /readyz; and --log-format text prints a banner with
 * the URLs, the mode and who may call, then a readable line per record.
 */
import assert from "node:assert/strict";
import {
  DEV_PERMISSIONS,
  EMBEDDED,
  MAIN,
  NO_SHUTDOWN_DELAY,
  runMain,
  startMain,
} from "./main_process.ts";
import { until } from "./eventually.ts";

const ROOT = new URL("../", import.meta.url).pathname;
const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

Deno.test("--orchestrator kube: only the unknown value, with the allowed ones, exit 2", async () => {
  const output = await runMain({ args: ["--orchestrator", "kube"] });
  assert.equal(output.code, 2);
  assert.deepEqual(decode(output.stderr).trim().split("\n"), [
    '--orchestrator must be one of kubernetes, embedded, got "kube"',
    "Run with --help to see every flag",
  ]);
});

Deno.test("--write-kubeconfig: a start that fails on a taken port leaves the file as it was", async () => {
  const dir = await Deno.makeTempDir();
  const file = `${dir}/kubeconfig`;
  await Deno.writeTextFile(file, "a working kubeconfig\n");
  const held = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  try {
    const output = await runMain({
      permissions: DEV_PERMISSIONS,
      args: [
        ...EMBEDDED,
        "--http-port",
        String(held.addr.port),
        "--grpc-port",
        "0",
        "--write-kubeconfig",
        file,
      ],
    });
    assert.equal(output.code, 1);
    const [line] = decode(output.stderr).trim().split("\n").map((l) =>
      JSON.parse(l)
    );
    assert.equal(
      line.msg,
      `Cannot start: the HTTP address 127.0.0.1:${held.addr.port} is in use: choose another port with --http-port (or CORRAL_HTTP_PORT; 0 picks a free one)`,
    );
    assert.equal(await Deno.readTextFile(file), "a working kubeconfig\n");
  } finally {
    held.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("deno task start's permissions and a kubeconfig outside the repository: what to do instead", async () => {
  const dir = await Deno.makeTempDir();
  const kubeconfig = `${dir}/config`;
  await Deno.writeTextFile(kubeconfig, "apiVersion: v1\nkind: Config\n");
  // The task's --allow-read, from deno.json: what a task user runs with.
  const denoJson = JSON.parse(await Deno.readTextFile(`${ROOT}deno.json`));
  const allowRead = /--allow-read=\S+/.exec(denoJson.tasks.start)![0];
  try {
    const output = await runMain({
      cwd: ROOT,
      permissions: ["--allow-net", "--allow-env", allowRead],
      args: ["--allow-anonymous", "--kubeconfig", kubeconfig],
    });
    assert.equal(output.code, 1);
    const lines = decode(output.stderr).trim().split("\n");
    assert.equal(lines.length, 1, lines.join("\n"));
    const { msg } = JSON.parse(lines[0]);
    assert.match(msg, /^Cannot start: Cannot load kubeconfig/);
    assert.doesNotMatch(msg, /run again with the --allow-read flag/);
    assert.match(msg, /deno task start may read only this directory/);
    assert.ok(
      msg.includes(`--allow-read=.,${kubeconfig}`),
      `names the file to allow: ${msg}`,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("--log-format text: a banner with the URLs, mode and who may call, then readable lines", async () => {
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      ...DEV_PERMISSIONS,
      MAIN,
      ...EMBEDDED,
      ...NO_SHUTDOWN_DELAY,
      "--log-format",
      "text",
      // As `deno task dev` runs it: the second gRPC port in the banner too.
      "--kuberay-grpc-port",
      "0",
    ],
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  let stderr = "";
  const reading = (async () => {
    for await (
      const text of child.stderr.pipeThrough(new TextDecoderStream())
    ) stderr += text;
  })();
  try {
    await until(
      "the banner's last line",
      () => stderr.includes("Stop with Ctrl-C"),
      30_000,
    );
    const lines = stderr.split("\n");
    const start = lines.findIndex((l) =>
      /^Corral \d+\.\d+\.\d+ started$/.test(l)
    );
    assert.ok(start >= 0, stderr);
    const banner = lines.slice(start).join("\n");
    assert.match(
      banner,
      /^ {2}console {5}http:\/\/127\.0\.0\.1:\d+\/console$/m,
    );
    assert.match(banner, /^ {2}gRPC {8}127\.0\.0\.1:\d+$/m);
    assert.match(
      banner,
      /^ {2}KubeRay gRPC 127\.0\.0\.1:\d+ {3}\(KubeRay's current protos; the port above: v0\.6\.0's\)$/m,
    );
    assert.match(banner, /^ {2}mode {8}embedded: /m);
    assert.match(banner, /^ {2}who may call: anyone, without credentials/m);
    for (const line of lines.filter(Boolean)) {
      assert.ok(!line.startsWith("{"), `no JSON records: ${line}`);
    }
  } finally {
    child.kill("SIGTERM");
    await child.status;
    await reading;
  }
});

/** A kubeconfig for `server`, with insecure-skip-tls-verify or not. */
async function writeKubeconfig(
  path: string,
  server: string,
  insecure: boolean,
): Promise<void> {
  await Deno.writeTextFile(
    path,
    JSON.stringify({
      apiVersion: "v1",
      kind: "Config",
      clusters: [{
        name: "c",
        cluster: {
          server,
          ...(insecure ? { "insecure-skip-tls-verify": true } : {}),
        },
      }],
      users: [{ name: "u", user: { token: "t" } }],
      contexts: [{ name: "c", context: { cluster: "c", user: "u" } }],
      "current-context": "c",
    }),
  );
}

const KUBERNETES_ARGS = [
  "--allow-anonymous",
  "--host",
  "127.0.0.1",
  "--http-port",
  "0",
  "--grpc-port",
  "0",
  ...NO_SHUTDOWN_DELAY,
];

Deno.test("a kubeconfig whose API server is http://, which the client refuses: said at start-up, exit 1", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await writeKubeconfig(`${dir}/config`, "http://127.0.0.1:9", false);
    const output = await runMain({
      permissions: DEV_PERMISSIONS,
      args: [...KUBERNETES_ARGS, "--kubeconfig", `${dir}/config`],
    });
    assert.equal(output.code, 1);
    const lines = decode(output.stderr).trim().split("\n");
    assert.equal(lines.length, 1, lines.join("\n"));
    const { msg } = JSON.parse(lines[0]);
    assert.match(
      msg,
      /^Cannot start: the API server of kubeconfig ".*" is http:\/\/127\.0\.0\.1:9, plain http:\/\/, which the Kubernetes client refuses: use its https:\/\/ URL/,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("an http:// kubeconfig to a server that wants HTTPS: its answer in /readyz", async () => {
  // What an API server that serves HTTPS answers a plaintext request.
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    () =>
      new Response("Client sent an HTTP request to an HTTPS server.\n", {
        status: 400,
      }),
  );
  const dir = await Deno.makeTempDir();
  const url = `http://127.0.0.1:${server.addr.port}`;
  await writeKubeconfig(`${dir}/config`, url, true);
  const main = await startMain({
    permissions: DEV_PERMISSIONS,
    args: [...KUBERNETES_ARGS, "--kubeconfig", `${dir}/config`],
  });
  try {
    let body = "";
    await until("/readyz to give the API server's answer", async () => {
      const response = await fetch(`${main.http}/readyz`);
      body = await response.text();
      return response.status === 503 &&
        body.includes("Client sent an HTTP request to an HTTPS server");
    }, 20_000);
    assert.match(
      body,
      /cache has not listed everything yet: \w+: \/\S+ answered 400: /,
      body,
    );
  } finally {
    await main.stop();
    await server.shutdown();
    await Deno.remove(dir, { recursive: true });
  }
});
