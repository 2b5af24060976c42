/**
 * End to end: main.ts in embedded mode on free ports, driven over HTTP and
 * gRPC through the spec's flows, the simulated operator included.
 */
import { RAY_VERSIONS } from "../domain/ray_versions.ts";
import assert from "node:assert/strict";
import { loadApiSchema } from "../api/schema.ts";
import { grpcCaller } from "./api/grpc/client.ts";
import { NS, sampleCluster } from "./api/cases.ts";
import { eventually } from "./eventually.ts";
import {
  DEV_PERMISSIONS,
  EMBEDDED,
  type MainProcess,
  runMain,
  startMain,
} from "./main_process.ts";

interface Running extends MainProcess {
  kubeconfig: string;
}

/** main.ts in embedded mode, writing a kubeconfig for its stand-in. */
async function startEmbedded(): Promise<Running> {
  const kubeconfig = await Deno.makeTempFile({ suffix: ".kubeconfig" });
  const main = await startMain({
    permissions: DEV_PERMISSIONS,
    args: [...EMBEDDED, "--write-kubeconfig", kubeconfig],
  });
  return {
    ...main,
    kubeconfig,
    async stop() {
      const status = await main.stop();
      await Deno.remove(kubeconfig);
      return status;
    },
  };
}

async function json(response: Response) {
  return { status: response.status, body: await response.json() };
}

function post(url: string, body: unknown) {
  return fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json" },
    body: JSON.stringify(body),
  }).then(json);
}

Deno.test("main.ts in embedded mode serves the spec's flows over HTTP and gRPC", async (t) => {
  const corral = await startEmbedded();
  const schema = await loadApiSchema();
  const grpc = grpcCaller(schema, corral.grpc);
  try {
    await t.step("the root answers 404 Not Found", async () => {
      assert.deepEqual(await json(await fetch(`${corral.http}/`)), {
        status: 404,
        body: { code: 5, message: "Not Found" },
      });
    });

    await t.step(
      "a compute template and a cluster are created over HTTP",
      async () => {
        const template = await post(
          `${corral.http}/apis/v1/namespaces/${NS}/compute_templates`,
          {
            name: "small",
            namespace: NS,
            cpu: 2,
            memory: 4,
          },
        );
        assert.equal(template.status, 200, JSON.stringify(template.body));
        const cluster = await post(
          `${corral.http}/apis/v1alpha2/namespaces/${NS}/clusters`,
          sampleCluster(),
        );
        assert.equal(cluster.status, 200, JSON.stringify(cluster.body));
        assert.equal(cluster.body.clusterState, "");
      },
    );

    await t.step(
      "the simulated operator's state, endpoints and events show on GetCluster",
      async () => {
        const ready = await eventually("the cluster to be ready", async () => {
          const { body } = await json(
            await fetch(
              `${corral.http}/apis/v1alpha2/namespaces/${NS}/clusters/blue`,
            ),
          );
          return body.clusterState === "ready" && body.events.length > 0
            ? body
            : undefined;
        }, 15_000);
        assert.deepEqual(Object.keys(ready.serviceEndpoint).sort(), [
          "dashboard",
          "head",
          "metrics",
          "redis",
        ]);
        for (const port of Object.values(ready.serviceEndpoint)) {
          assert.match(port as string, /^3\d{4}$/, "a NodePort number");
        }
        for (const event of ready.events) {
          assert.equal(event.type, "Normal");
          assert.ok(
            event.reason && event.message && event.id,
            JSON.stringify(event),
          );
        }
      },
    );

    await t.step("gRPC sees the same cluster as HTTP", async () => {
      const http = await json(
        await fetch(
          `${corral.http}/apis/v1alpha2/namespaces/${NS}/clusters/blue`,
        ),
      );
      const got = await grpc.call("proto.ClusterService/GetCluster", {
        namespace: NS,
        name: "blue",
      });
      assert.equal(got.code, 0, got.message);
      const cluster = got.result!;
      assert.equal(cluster.clusterState, http.body.clusterState);
      assert.deepEqual(cluster.serviceEndpoint, http.body.serviceEndpoint);
      assert.equal(
        (cluster.events as unknown[]).length,
        http.body.events.length,
      );
      assert.equal(
        (cluster.createdAt as Date).toISOString().replace(".000", ""),
        http.body.createdAt,
      );
    });

    await t.step(
      "the cluster is listed in its namespace and across namespaces",
      async () => {
        for (
          const path of [
            `/apis/v1alpha2/namespaces/${NS}/clusters`,
            "/apis/v1alpha2/clusters",
          ]
        ) {
          const { status, body } = await json(await fetch(corral.http + path));
          assert.equal(status, 200);
          assert.deepEqual(body.clusters.map((c: { name: string }) => c.name), [
            "blue",
          ], path);
        }
        const all = await grpc.call("proto.ClusterService/ListAllClusters", {});
        assert.deepEqual(
          (all.result!.clusters as { name: string }[]).map((c) => c.name),
          ["blue"],
        );
      },
    );

    await t.step("the written kubeconfig reaches the stand-in", async () => {
      const text = await Deno.readTextFile(corral.kubeconfig);
      const server = /server: *"?([^"\s]+)/.exec(text)?.[1];
      assert.ok(server, text);
      const list = await (await fetch(
        `${server}/apis/ray.io/v1/namespaces/${NS}/rayclusters`,
      )).json();
      assert.deepEqual(
        list.items.map((i: { metadata: { name: string } }) => i.metadata.name),
        ["blue"],
      );
    });

    await t.step(
      "the cluster is deleted over gRPC, then not found over HTTP",
      async () => {
        const deleted = await grpc.call("proto.ClusterService/DeleteCluster", {
          namespace: NS,
          name: "blue",
        });
        assert.equal(deleted.code, 0, deleted.message);
        const { status, body } = await json(
          await fetch(
            `${corral.http}/apis/v1alpha2/namespaces/${NS}/clusters/blue`,
          ),
        );
        assert.equal(status, 404);
        assert.equal(body.code, 5);
      },
    );
  } finally {
    grpc.close();
    const status = await corral.stop();
    assert.equal(status.code, 0, `exit code; logs:\n${corral.logs.join("\n")}`);
  }
});

Deno.test("main.ts logs its mode, bound ports and the URLs a person wants at start-up", async () => {
  const corral = await startEmbedded();
  try {
    const line = corral.logs.map((l) => JSON.parse(l)).find((l) =>
      l.msg === "Corral started"
    );
    assert.equal(line.mode, "embedded");
    assert.equal(`http://127.0.0.1:${line.httpPort}`, corral.http);
    assert.equal(`127.0.0.1:${line.grpcPort}`, corral.grpc);
    assert.equal(line.api, `${corral.http}/apis/v1alpha2`);
    assert.equal(line.docs, `${corral.http}/docs`);
    assert.equal(line.console, `${corral.http}/console`);
    assert.equal(line.grpc, corral.grpc);
    assert.match(line.version, /^\d+\.\d+\.\d+$/);
    assert.equal((await fetch(line.docs)).status, 200);
    // And /version says it, as the Kubernetes API server's does.
    assert.deepEqual(await (await fetch(`${corral.http}/version`)).json(), {
      version: line.version,
      runtime: `deno ${Deno.version.deno}`,
      rayVersions: RAY_VERSIONS,
    });
  } finally {
    await corral.stop();
  }
});

Deno.test("main.ts checks every setting before it binds a port: problems on stderr, exit code 2", async () => {
  // A port held here: were it bound first, the answer would be "in use".
  const held = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  try {
    const output = await runMain({
      args: [
        "--host",
        "127.0.0.1",
        "--http-port",
        String(held.addr.port),
        "--shutdown-grace",
        "20",
        "--bogus",
      ],
    });
    const stderr = new TextDecoder().decode(output.stderr);
    assert.equal(output.code, 2, stderr);
    assert.deepEqual(stderr.trim().split("\n"), [
      "Unknown flag --bogus",
      '--shutdown-grace needs a unit: "20s" or "20ms", not "20"',
      "Kubernetes mode needs an authenticator: --token-auth-file, --oidc-issuer-url, --authentication-token-review or --client-ca-file; or --allow-anonymous to serve every caller as system:anonymous",
      "Run with --help to see every flag",
    ]);
  } finally {
    held.close();
  }
});

Deno.test("main.ts --version prints the version in deno.json", async () => {
  const output = await runMain({ args: ["--version"] });
  const { version } = JSON.parse(
    await Deno.readTextFile(new URL("../deno.json", import.meta.url)),
  );
  assert.equal(output.code, 0);
  assert.match(
    new TextDecoder().decode(output.stdout),
    new RegExp(`^corral ${version.replaceAll(".", "\\.")} \\(deno `),
  );
});

Deno.test("main.ts with a port in use logs one JSON line naming it and exits 1", async (t) => {
  const held = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const kubeconfig = await Deno.makeTempFile({ suffix: ".kubeconfig" });
  // Loading a kubeconfig contacts nothing: no cluster is needed here.
  await Deno.writeTextFile(
    kubeconfig,
    JSON.stringify({
      apiVersion: "v1",
      kind: "Config",
      clusters: [{ name: "c", cluster: { server: "https://127.0.0.1:9" } }],
      users: [{ name: "u", user: { token: "t" } }],
      contexts: [{ name: "c", context: { cluster: "c", user: "u" } }],
      "current-context": "c",
    }),
  );
  try {
    const modes = {
      kubernetes: ["--kubeconfig", kubeconfig, "--allow-anonymous"],
      embedded: ["--orchestrator", "embedded"],
    };
    for (
      const [mode, transport] of [
        ["kubernetes", "HTTP"],
        ["kubernetes", "gRPC"],
        ["embedded", "HTTP"],
      ] as const
    ) {
      await t.step(`${mode} mode, ${transport}`, async () => {
        const ports = transport === "HTTP"
          ? ["--http-port", String(held.addr.port), "--grpc-port", "0"]
          : ["--http-port", "0", "--grpc-port", String(held.addr.port)];
        const output = await runMain({
          permissions: DEV_PERMISSIONS,
          args: [...modes[mode], "--host", "127.0.0.1", ...ports],
        });
        const lines = new TextDecoder().decode(output.stderr).trim().split(
          "\n",
        );
        assert.equal(output.code, 1);
        assert.equal(lines.length, 1, lines.join("\n"));
        const line = JSON.parse(lines[0]);
        assert.equal(line.level, "error");
        assert.equal(
          line.msg,
          `Cannot start: the ${transport} address 127.0.0.1:${held.addr.port} is in use: choose another port with --${transport.toLowerCase()}-port (or CORRAL_${transport.toUpperCase()}_PORT; 0 picks a free one)`,
        );
      });
    }
  } finally {
    held.close();
    await Deno.remove(kubeconfig);
  }
});
