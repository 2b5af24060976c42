/**
 * main.ts with --tls-cert-file, --tls-private-key-file and --client-ca-file:
 * both ports serve TLS only, and files it cannot use stop the start with
 * one JSON line naming the flag and the file.
 */
import assert from "node:assert/strict";
import https from "node:https";
import * as grpc from "@grpc/grpc-js";
import {
  DEV_PERMISSIONS,
  EMBEDDED,
  runMain,
  startMain,
} from "./main_process.ts";
import {
  createCa,
  issue,
  issueServer,
  SecretVolume,
} from "./test_certificates.ts";
import { allowAll, groups, policyText } from "./api/auth/policy_fixtures.ts";

const ca = await createCa();

function httpsGet(url: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    https.get(url, { ca: ca.cert, agent: false }, (response) => {
      let body = "";
      response.setEncoding("utf8");
      response.on("data", (chunk) => body += chunk);
      response.on("end", () => resolve({ status: response.statusCode!, body }));
      response.on("error", reject);
    }).on("error", reject);
  });
}

/** grpc.health.v1.Health/Check of the whole server: its status code. */
function healthCheck(
  address: string,
  credentials: grpc.ChannelCredentials,
): Promise<number> {
  const client = new grpc.Client(address, credentials);
  return new Promise<number>((resolve) =>
    client.makeUnaryRequest(
      "/grpc.health.v1.Health/Check",
      (bytes: Uint8Array) => Buffer.from(bytes),
      (bytes: Buffer) => bytes,
      new Uint8Array(),
      new grpc.Metadata(),
      { deadline: Date.now() + 5_000 },
      (error: grpc.ServiceError | null) => resolve(error?.code ?? 0),
    )
  ).finally(() => client.close());
}

Deno.test("main.ts with TLS files serves HTTPS and gRPC over TLS, and refuses plaintext on both ports", async () => {
  const server = await issueServer(ca);
  const volume = await SecretVolume.create({
    "tls.crt": server.cert,
    "tls.key": server.key,
    "ca.crt": ca.cert,
  });
  const main = await startMain({
    permissions: DEV_PERMISSIONS,
    args: [
      ...EMBEDDED,
      // A client certificate is optional: callers without one are anonymous.
      "--allow-anonymous",
      "--tls-cert-file",
      volume.path("tls.crt"),
      "--tls-private-key-file",
      volume.path("tls.key"),
      "--client-ca-file",
      volume.path("ca.crt"),
    ],
  });
  try {
    const base = `https://localhost:${main.started.httpPort}`;
    assert.equal(
      main.started.api,
      `https://127.0.0.1:${main.started.httpPort}/apis/v1alpha2`,
    );
    assert.equal(main.started.tls, true);
    assert.deepEqual(await httpsGet(`${base}/healthz`), {
      status: 200,
      body: '{"status":"ok"}',
    });
    const list = await httpsGet(`${base}/apis/v1alpha2/clusters`);
    assert.equal(list.status, 200, list.body);

    const grpcAddress = `localhost:${main.started.grpcPort}`;
    const secure = grpc.credentials.createSsl(Buffer.from(ca.cert));
    assert.equal(await healthCheck(grpcAddress, secure), grpc.status.OK);

    await assert.rejects(fetch(`${main.http}/healthz`));
    assert.equal(
      await healthCheck(grpcAddress, grpc.credentials.createInsecure()),
      grpc.status.UNAVAILABLE,
    );
  } finally {
    const status = await main.stop();
    await volume.remove();
    assert.equal(status.code, 0, main.logs.join("\n"));
  }
});

Deno.test("main.ts with a TLS file it cannot use logs one JSON line naming the flag and file, and exits 1", async (t) => {
  const server = await issueServer(ca);
  const other = await issueServer(ca);
  const dir = await Deno.makeTempDir();
  const file = async (name: string, text: string) => {
    await Deno.writeTextFile(`${dir}/${name}`, text);
    return `${dir}/${name}`;
  };
  const cert = await file("tls.crt", server.cert);
  const key = await file("tls.key", server.key);
  const otherKey = await file("other.key", other.key);
  try {
    const cases: [string, string[], string, string][] = [
      [
        "a missing certificate",
        ["--tls-cert-file", `${dir}/none.crt`, "--tls-private-key-file", key],
        "--tls-cert-file",
        `${dir}/none.crt`,
      ],
      [
        "the key of another certificate",
        ["--tls-cert-file", cert, "--tls-private-key-file", otherKey],
        "--tls-private-key-file",
        otherKey,
      ],
      [
        "a client CA that is no certificate",
        [
          "--tls-cert-file",
          cert,
          "--tls-private-key-file",
          key,
          "--client-ca-file",
          key,
        ],
        "--client-ca-file",
        key,
      ],
    ];
    for (const [name, args, flag, path] of cases) {
      await t.step(name, async () => {
        const output = await runMain({
          permissions: DEV_PERMISSIONS,
          args: [...EMBEDDED, ...args],
        });
        const lines = new TextDecoder().decode(output.stderr).trim()
          .split("\n");
        assert.equal(output.code, 1, lines.join("\n"));
        assert.equal(lines.length, 1, lines.join("\n"));
        const line = JSON.parse(lines[0]);
        assert.equal(line.level, "error");
        assert.ok(
          line.msg.startsWith(`Cannot start: Cannot use ${flag} "${path}": `),
          line.msg,
        );
        assert.equal(line.flag, flag);
        assert.equal(line.file, path);
      });
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("main.ts takes a client certificate's CN as the user and its O as groups, which the policy then judges", async () => {
  const server = await issueServer(ca);
  const alice = await issue(ca, {
    commonName: "alice",
    organizations: ["team-a"],
    usage: "client",
  });
  const volume = await SecretVolume.create({
    "tls.crt": server.cert,
    "tls.key": server.key,
    "ca.crt": ca.cert,
  });
  const dir = await Deno.makeTempDir({ prefix: "corral-client-cert-" });
  await Deno.writeTextFile(
    `${dir}/policy.yaml`,
    policyText([allowAll(groups("team-a"), ["team-a"])]),
  );
  const main = await startMain({
    permissions: DEV_PERMISSIONS,
    args: [
      ...EMBEDDED,
      "--tls-cert-file",
      volume.path("tls.crt"),
      "--tls-private-key-file",
      volume.path("tls.key"),
      "--client-ca-file",
      volume.path("ca.crt"),
      "--authorization-policy-file",
      `${dir}/policy.yaml`,
    ],
  });
  const get = (path: string, certificate?: { cert: string; key: string }) =>
    new Promise<{ status: number; body: string }>((resolve, reject) => {
      https.get(
        `https://localhost:${main.started.httpPort}${path}`,
        { ca: ca.cert, agent: false, ...certificate },
        (response) => {
          let body = "";
          response.setEncoding("utf8");
          response.on("data", (chunk) => body += chunk);
          response.on(
            "end",
            () => resolve({ status: response.statusCode!, body }),
          );
        },
      ).on("error", reject);
    });
  try {
    const own = "/apis/v1alpha2/namespaces/team-a/clusters";
    const other = "/apis/v1alpha2/namespaces/team-b/clusters";
    assert.equal((await get(own, alice)).status, 200);
    const denied = await get(other, alice);
    assert.equal(denied.status, 403, denied.body);
    assert.match(denied.body, /user \\"alice\\" may not list clusters/);
    // Without a certificate (and without a token) the caller is nobody.
    assert.equal((await get(own)).status, 401);

    const channel = grpc.credentials.createSsl(
      Buffer.from(ca.cert),
      Buffer.from(alice.key),
      Buffer.from(alice.cert),
    );
    const client = new grpc.Client(
      `localhost:${main.started.grpcPort}`,
      channel,
    );
    const list = (namespace: string) =>
      new Promise<number>((resolve) =>
        client.makeUnaryRequest(
          "/proto.ClusterService/ListCluster",
          () =>
            Buffer.from([
              0x0a,
              namespace.length,
              ...new TextEncoder().encode(namespace),
            ]),
          (bytes: Buffer) => bytes,
          {},
          new grpc.Metadata(),
          { deadline: Date.now() + 5_000 },
          (error: grpc.ServiceError | null) => resolve(error?.code ?? 0),
        )
      );
    try {
      assert.equal(await list("team-a"), grpc.status.OK);
      assert.equal(await list("team-b"), grpc.status.PERMISSION_DENIED);
    } finally {
      client.close();
    }
  } finally {
    const status = await main.stop();
    await volume.remove();
    await Deno.remove(dir, { recursive: true });
    assert.equal(status.code, 0, main.logs.join("\n"));
  }
});
