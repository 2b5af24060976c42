/**
 * Access as a new user would check it, through main.ts: a token file, an
 * OIDC issuer and a policy for two teams, and the promises kept over HTTP
 * and gRPC alike: no request served without valid credentials on any API
 * route, no read or write in a namespace the caller has no rule for, lists
 * across namespaces filtered per caller, a cluster's user enforced, and
 * HOST_PATH volumes only where a rule allows them.
 */
import assert from "node:assert/strict";
import { compileRoutes } from "../api/http/rules.ts";
import { methodKey } from "../api/schema.ts";
import {
  bearer,
  person,
  tokenFileText,
  writeAccessFiles,
} from "./api/auth/access_fixtures.ts";
import {
  makeSigningKey,
  sign,
  startTestIssuer,
} from "./api/auth/test_issuer.ts";
import { sampleCluster } from "./api/cases.ts";
import { schema } from "./harness.ts";
import { mainClient } from "./main_client.ts";
import { EMBEDDED, startMain } from "./main_process.ts";
import { allowAll, groups, policyText } from "./api/auth/policy_fixtures.ts";

const TRANSPORTS = ["http", "grpc"] as const;
const CS = "proto.ClusterService";
const CT = "proto.ComputeTemplateService";

const ALICE = person("alice", "alice", ["team-a"]);
const ROOT = person("root", "root", ["admins"]);

const POLICY = policyText([
  allowAll(groups("team-a"), ["team-a"]),
  allowAll(groups("team-b"), ["team-b"]),
  allowAll(groups("admins"), ["*"], { allowHostPath: true }),
]);

const HOST_PATH = {
  name: "logs",
  mountPath: "/logs",
  source: "/var/log",
  volumeType: "HOST_PATH",
  hostPathType: "DIRECTORY",
};

function cluster(name: string, namespace: string, extra = {}) {
  return sampleCluster({
    name,
    namespace,
    user: "",
    clusterSpec: {
      headGroupSpec: { computeTemplate: "small" },
      workerGroupSpec: [{
        groupName: "workers",
        computeTemplate: "small",
        replicas: 1,
      }],
    },
    ...extra,
  });
}

/** Every namespaced RPC, as it would touch `namespace`. */
function namespacedCalls(
  namespace: string,
): [string, Record<string, unknown>][] {
  return [
    [`${CT}/CreateComputeTemplate`, {
      namespace,
      computeTemplate: { name: "mine", namespace, cpu: 1, memory: 1 },
    }],
    [`${CT}/GetComputeTemplate`, { namespace, name: "small" }],
    [`${CT}/ListComputeTemplates`, { namespace }],
    [`${CT}/DeleteComputeTemplate`, { namespace, name: "small" }],
    [`${CS}/CreateCluster`, { namespace, cluster: cluster("mine", namespace) }],
    [`${CS}/GetCluster`, { namespace, name: "blue" }],
    [`${CS}/ListCluster`, { namespace }],
    [`${CS}/DeleteCluster`, { namespace, name: "blue" }],
  ];
}

Deno.test("acceptance: with a token file, an OIDC issuer and a policy for two teams, main.ts serves each caller only what the policy grants, over HTTP and gRPC", async (t) => {
  const issuer = await startTestIssuer();
  const key = await makeSigningKey("RS256", "key-1");
  issuer.keys = [key];
  const files = await writeAccessFiles({
    tokens: tokenFileText([ALICE, ROOT]),
    policy: POLICY,
  });
  const caFile = `${files.dir}/issuer-ca.pem`;
  await Deno.writeTextFile(caFile, issuer.ca.certPem);
  const main = await startMain({
    args: [
      ...EMBEDDED,
      // Every failure here must be a 401 to be told apart; the limit on
      // failures has its own tests (tests/api/auth/failure_limit_test.ts).
      "--auth-failure-rate=0",
      "--token-auth-file",
      files.tokenFile,
      "--oidc-issuer-url",
      issuer.url,
      "--oidc-client-id",
      "corral",
      "--oidc-ca-file",
      caFile,
      "--oidc-username-claim",
      "email",
      "--authorization-policy-file",
      files.policyFile,
    ],
    startTimeoutMs: 30_000,
  });
  const client = await mainClient(main);
  const now = Math.floor(Date.now() / 1000);
  const claims = {
    iss: issuer.url,
    aud: "corral",
    sub: "u-42",
    email: "ann@example.com",
    groups: ["team-b"],
  };
  const ann = `Bearer ${await sign(key, {
    ...claims,
    iat: now,
    exp: now + 600,
  })}`;
  const expired = `Bearer ${await sign(key, {
    ...claims,
    iat: now - 7200,
    exp: now - 3600,
  })}`;
  const root = { authorization: bearer(ROOT) };
  try {
    await t.step("the admin seeds team-a and team-b", async () => {
      for (const namespace of ["team-a", "team-b"]) {
        for (
          const [rpc, request] of [
            [`${CT}/CreateComputeTemplate`, {
              namespace,
              computeTemplate: { name: "small", namespace, cpu: 1, memory: 1 },
            }],
            [`${CS}/CreateCluster`, {
              namespace,
              cluster: cluster("blue", namespace),
            }],
          ] as const
        ) {
          const got = await client.call("http", rpc, request, root);
          assert.equal(got.code, 0, got.message);
        }
      }
    });

    await t.step(
      "0 requests served without valid credentials on any API route, over either transport",
      async () => {
        const api = await schema();
        const routes = compileRoutes(api.services);
        const methods = api.services.flatMap((s) =>
          s.methodsArray.map(methodKey)
        );
        const served: string[] = [];
        let asked = 0;
        for (
          const authorization of [
            undefined,
            "Bearer unknown-0123456789abcdef",
            expired,
            `Basic ${btoa(`alice:${ALICE.token}`)}`,
          ]
        ) {
          for (const route of routes) {
            const path = route.segments.map((s) =>
              "literal" in s
                ? s.literal
                : s.variable === "namespace"
                ? "team-a"
                : "blue"
            ).join("/");
            const response = await fetch(`${main.http}/${path}`, {
              method: route.verb,
              headers: {
                "content-type": "application/json",
                ...(authorization ? { authorization } : {}),
              },
              body: route.body ? "{}" : undefined,
            });
            await response.body?.cancel();
            asked++;
            if (response.status !== 401) {
              served.push(`HTTP ${route.verb} /${path}: ${response.status}`);
            }
          }
          for (const rpc of methods) {
            const got = await client.call("grpc", rpc, {}, { authorization });
            asked++;
            if (got.code !== 16) served.push(`gRPC ${rpc}: ${got.code}`);
          }
        }
        assert.deepEqual(served, [], `served without credentials, of ${asked}`);
        assert.ok(asked >= 4 * 2 * 10, `asked: ${asked}`);
      },
    );

    await t.step(
      "0 reads or writes in a namespace the caller has no rule for",
      async () => {
        const crossings: string[] = [];
        for (
          const [who, authorization, namespace] of [
            ["alice (token file)", bearer(ALICE), "team-b"],
            ["ann (OIDC)", ann, "team-a"],
            ["alice (token file)", bearer(ALICE), "kube-system"],
          ] as const
        ) {
          for (const transport of TRANSPORTS) {
            for (const [rpc, request] of namespacedCalls(namespace)) {
              const got = await client.call(transport, rpc, request, {
                authorization,
              });
              if (got.code !== 7) {
                crossings.push(
                  `${who} ${transport} ${rpc} in ${namespace}: ${got.code} ${got.message}`,
                );
              }
            }
          }
        }
        assert.deepEqual(crossings, []);
        // Nothing changed: the admin sees the seeds as they were.
        const got = await client.call(
          "grpc",
          `${CS}/ListAllClusters`,
          {},
          root,
        );
        assert.deepEqual(
          (got.result?.clusters as { namespace: string; name: string }[])
            .map((c) => `${c.namespace}/${c.name}`).sort(),
          ["team-a/blue", "team-b/blue"],
        );
      },
    );

    await t.step(
      "list-all shows each caller their own team's clusters",
      async () => {
        for (const transport of TRANSPORTS) {
          for (
            const [authorization, want] of [
              [bearer(ALICE), ["team-a/blue"]],
              [ann, ["team-b/blue"]],
              [bearer(ROOT), ["team-a/blue", "team-b/blue"]],
            ] as const
          ) {
            const got = await client.call(
              transport,
              `${CS}/ListAllClusters`,
              {},
              {
                authorization,
              },
            );
            assert.equal(got.code, 0, got.message);
            assert.deepEqual(
              (got.result?.clusters as { namespace: string; name: string }[])
                .map((c) => `${c.namespace}/${c.name}`).sort(),
              want,
              `${transport}`,
            );
          }
        }
      },
    );

    await t.step("a cluster's user is its creator", async () => {
      for (const transport of TRANSPORTS) {
        const forBob = await client.call(transport, `${CS}/CreateCluster`, {
          namespace: "team-a",
          cluster: cluster(`for-bob-${transport}`, "team-a", { user: "bob" }),
        }, { authorization: bearer(ALICE) });
        assert.equal(forBob.code, 7, forBob.message);
        assert.match(forBob.message, /cluster\.user: /);
        for (
          const [authorization, namespace, user] of [
            [bearer(ALICE), "team-a", "alice"],
            [ann, "team-b", "ann@example.com"],
          ] as const
        ) {
          const got = await client.call(transport, `${CS}/CreateCluster`, {
            namespace,
            cluster: cluster(`own-${transport}`, namespace),
          }, { authorization });
          assert.equal(got.code, 0, got.message);
          assert.equal(got.result?.user, user);
        }
      }
    });

    await t.step(
      "HOST_PATH volumes only where a rule allows them",
      async () => {
        const withHostPath = (name: string) =>
          cluster(name, "team-a", {
            clusterSpec: {
              headGroupSpec: { computeTemplate: "small", volumes: [HOST_PATH] },
              workerGroupSpec: [],
            },
          });
        for (const transport of TRANSPORTS) {
          const refused = await client.call(transport, `${CS}/CreateCluster`, {
            namespace: "team-a",
            cluster: withHostPath(`hp-alice-${transport}`),
          }, { authorization: bearer(ALICE) });
          assert.equal(refused.code, 7, refused.message);
          assert.match(
            refused.message,
            /cluster\.clusterSpec\.headGroupSpec\.volumes\[0\]\.volumeType: /,
          );
          const allowed = await client.call(transport, `${CS}/CreateCluster`, {
            namespace: "team-a",
            cluster: withHostPath(`hp-root-${transport}`),
          }, root);
          assert.equal(allowed.code, 0, allowed.message);
        }
      },
    );
  } finally {
    await client.close();
    await main.stop();
    await issuer.close();
    await files.remove();
  }
});
