/**
 * corral_authentication_attempts_total and
 * corral_authorization_decisions_total: each request, over either
 * transport, moves exactly the series its authentication and authorization
 * outcome names, by one: a call refused after its namespace was allowed
 * (for its workload, or its user) counts as refused, once.
 */
import assert from "node:assert/strict";
import { Metrics } from "../../../api/metrics.ts";
import { startCorral, TRANSPORTS } from "../../harness.ts";
import { sampleCluster } from "../cases.ts";
import { ALICE, bearer, DAVE, fileAccess, ROOT } from "./access_fixtures.ts";

type Series = Record<string, number>;

/** Every series of a counter, by its labels in order: "a/b/c" -> value. */
async function series(metric: {
  get(): Promise<{ values: { labels: object; value: number }[] }>;
}): Promise<Series> {
  const out: Series = {};
  for (const { labels, value } of (await metric.get()).values) {
    out[Object.values(labels).join("/")] = value;
  }
  return out;
}

/** What changed from `before` to `after`, series by series. */
function moved(before: Series, after: Series): Series {
  const out: Series = {};
  for (const [key, value] of Object.entries(after)) {
    const delta = value - (before[key] ?? 0);
    if (delta !== 0) out[key] = delta;
  }
  return out;
}

const HOST_PATH = {
  name: "logs",
  mountPath: "/logs",
  source: "/var/log",
  volumeType: "HOST_PATH",
  hostPathType: "DIRECTORY",
};

const CASES: {
  name: string;
  authorization?: string;
  rpc: string;
  request: Record<string, unknown>;
  /** "authenticator/result" -> how much it moves. */
  authentications: Series;
  /** "verb/resource/decision" -> how much it moves. */
  authorizations: Series;
}[] = [
  {
    name: "no credentials",
    rpc: "proto.ClusterService/ListCluster",
    request: { namespace: "team-a" },
    authentications: { "none/no-credentials": 1 },
    authorizations: {},
  },
  {
    name: "a malformed header",
    authorization: `Token ${ALICE.token}`,
    rpc: "proto.ClusterService/ListCluster",
    request: { namespace: "team-a" },
    authentications: { "none/malformed": 1 },
    authorizations: {},
  },
  {
    name: "an unknown token",
    authorization: "Bearer unknown-0123456789abcdef",
    rpc: "proto.ClusterService/ListCluster",
    request: { namespace: "team-a" },
    authentications: { "none/unknown-token": 1 },
    authorizations: {},
  },
  {
    name: "a list allowed",
    authorization: bearer(ALICE),
    rpc: "proto.ClusterService/ListCluster",
    request: { namespace: "team-a" },
    authentications: { "token-file/success": 1 },
    authorizations: { "list/clusters/allowed": 1 },
  },
  {
    name: "a get of no rule",
    authorization: bearer(ALICE),
    rpc: "proto.ComputeTemplateService/GetComputeTemplate",
    request: { namespace: "team-b", name: "small" },
    authentications: { "token-file/success": 1 },
    authorizations: { "get/computetemplates/no-rule": 1 },
  },
  {
    name: "a list-all of no rule anywhere",
    authorization: bearer(DAVE),
    rpc: "proto.ClusterService/ListAllClusters",
    request: {},
    authentications: { "token-file/success": 1 },
    authorizations: { "list/clusters/no-rule": 1 },
  },
  {
    name: "a create refused for its HOST_PATH volume",
    authorization: bearer(ALICE),
    rpc: "proto.ClusterService/CreateCluster",
    request: {
      namespace: "team-a",
      cluster: sampleCluster({
        name: "hp",
        user: "",
        clusterSpec: {
          headGroupSpec: { volumes: [HOST_PATH] },
          workerGroupSpec: [],
        },
      }),
    },
    authentications: { "token-file/success": 1 },
    // One call, one decision: the namespace allowed it, the workload not.
    authorizations: { "create/clusters/host-path": 1 },
  },
  {
    name: "a create for another user",
    authorization: bearer(ALICE),
    rpc: "proto.ClusterService/CreateCluster",
    request: {
      namespace: "team-a",
      cluster: sampleCluster({ name: "for-bob", user: "bob" }),
    },
    authentications: { "token-file/success": 1 },
    authorizations: { "create/clusters/no-rule": 1 },
  },
  {
    name: "a create with HOST_PATH by a rule that allows it",
    authorization: bearer(ROOT),
    rpc: "proto.ClusterService/CreateCluster",
    request: {
      namespace: "team-a",
      cluster: sampleCluster({
        name: "hp",
        user: "",
        clusterSpec: {
          headGroupSpec: { volumes: [HOST_PATH] },
          workerGroupSpec: [],
        },
      }),
    },
    authentications: { "token-file/success": 1 },
    authorizations: { "create/clusters/allowed": 1 },
  },
];

for (const [transport, run] of TRANSPORTS) {
  Deno.test(`over ${transport}, each request moves its authentication and authorization series by one`, async (t) => {
    const files = await fileAccess();
    const metrics = new Metrics();
    const corral = await startCorral({ access: files.access, metrics });
    try {
      for (const c of CASES) {
        await t.step(c.name, async () => {
          const before = {
            authentications: await series(metrics.authentications),
            authorizations: await series(metrics.authorizations),
          };
          await run(corral, c.rpc, c.request, {
            authorization: c.authorization,
          });
          assert.deepEqual(
            moved(
              before.authentications,
              await series(metrics.authentications),
            ),
            c.authentications,
            "corral_authentication_attempts_total",
          );
          assert.deepEqual(
            moved(
              before.authorizations,
              await series(metrics.authorizations),
            ),
            c.authorizations,
            "corral_authorization_decisions_total",
          );
        });
      }
      await t.step("both appear in the text format", async () => {
        const text = await metrics.render();
        assert.match(
          text,
          /^corral_authentication_attempts_total\{authenticator="token-file",result="success"\} \d+$/m,
        );
        assert.match(
          text,
          /^corral_authorization_decisions_total\{verb="create",resource="clusters",decision="host-path"\} 1$/m,
        );
      });
    } finally {
      await corral.close();
      await files.close();
    }
  });
}
