/**
 * Lists across namespaces, per caller: ListAllClusters and
 * ListAllComputeTemplates show only the namespaces the policy lets the
 * caller list, and with --namespaces (createHandlers' `namespaces`) only
 * those both allow; a caller who may list nowhere gets code 7. One case
 * list through both transports, over a stand-in holding a cluster and a
 * template in team-a, team-b and kube-system.
 */
import assert from "node:assert/strict";
import {
  type Corral,
  type Outcome,
  startCorral,
  TRANSPORTS,
  viaHttp,
} from "../../harness.ts";
import { sampleCluster } from "../cases.ts";
import {
  ALICE,
  bearer,
  BOB,
  CAROL,
  DAVE,
  fileAccess,
  type Person,
  ROOT,
} from "./access_fixtures.ts";

const SEEDED = ["team-a", "team-b", "kube-system"];
const ALL_CLUSTERS = "proto.ClusterService/ListAllClusters";
const ALL_TEMPLATES = "proto.ComputeTemplateService/ListAllComputeTemplates";
const LIST_CLUSTERS = "proto.ClusterService/ListCluster";

interface ScopeCase {
  name: string;
  person: Person;
  rpc: string;
  request?: Record<string, unknown>;
  want: {
    code: number;
    message?: string;
    /** "namespace/name" of every item listed, sorted. */
    items?: string[];
  };
}

const everywhere = (name: string, namespaces: string[]) =>
  namespaces.map((ns) => `${ns}/${name}`).sort();

/** Without --namespaces: the policy alone decides. */
const ALL_SERVED: ScopeCase[] = [
  {
    name: "alice lists team-a's clusters only",
    person: ALICE,
    rpc: ALL_CLUSTERS,
    want: { code: 0, items: ["team-a/blue"] },
  },
  {
    name: "alice lists team-a's compute templates only",
    person: ALICE,
    rpc: ALL_TEMPLATES,
    want: { code: 0, items: ["team-a/small"] },
  },
  {
    name: "bob lists team-b's clusters only, by his group",
    person: BOB,
    rpc: ALL_CLUSTERS,
    want: { code: 0, items: ["team-b/blue"] },
  },
  {
    name: "carol, who may only read team-a, lists team-a's clusters",
    person: CAROL,
    rpc: ALL_CLUSTERS,
    want: { code: 0, items: ["team-a/blue"] },
  },
  {
    name: "the admin lists every namespace's clusters",
    person: ROOT,
    rpc: ALL_CLUSTERS,
    want: { code: 0, items: everywhere("blue", SEEDED) },
  },
  {
    name: "the admin lists every namespace's compute templates",
    person: ROOT,
    rpc: ALL_TEMPLATES,
    want: { code: 0, items: everywhere("small", SEEDED) },
  },
  {
    name: "dave, with no list rule anywhere, gets code 7 for clusters",
    person: DAVE,
    rpc: ALL_CLUSTERS,
    want: {
      code: 7,
      message:
        'Cannot list clusters: user "dave" may list clusters in no namespace',
    },
  },
  {
    name: "dave gets code 7 for compute templates",
    person: DAVE,
    rpc: ALL_TEMPLATES,
    want: {
      code: 7,
      message:
        'Cannot list compute templates: user "dave" may list computetemplates in no namespace',
    },
  },
];

/** With --namespaces team-a,kube-system: both must allow. */
const SERVED = ["team-a", "kube-system"];
const SOME_SERVED: ScopeCase[] = [
  {
    name: "alice still lists team-a's clusters",
    person: ALICE,
    rpc: ALL_CLUSTERS,
    want: { code: 0, items: ["team-a/blue"] },
  },
  {
    name: "the admin lists the served namespaces' clusters, not team-b's",
    person: ROOT,
    rpc: ALL_CLUSTERS,
    want: { code: 0, items: everywhere("blue", SERVED) },
  },
  {
    name: "the admin lists the served namespaces' compute templates",
    person: ROOT,
    rpc: ALL_TEMPLATES,
    want: { code: 0, items: everywhere("small", SERVED) },
  },
  {
    name: "bob, whose only namespace is not served, gets code 7",
    person: BOB,
    rpc: ALL_CLUSTERS,
    want: {
      code: 7,
      message:
        'Cannot list clusters: user "bob" may list clusters in no namespace this Corral serves',
    },
  },
  {
    name: "bob's own namespace is not served: code 7",
    person: BOB,
    rpc: LIST_CLUSTERS,
    request: { namespace: "team-b" },
    want: {
      code: 7,
      message:
        'Cannot list clusters in namespace "team-b": namespace "team-b" is not served by this Corral (it serves "kube-system", "team-a")',
    },
  },
  {
    name: "a served namespace alice has no rule for: code 7",
    person: ALICE,
    rpc: LIST_CLUSTERS,
    request: { namespace: "kube-system" },
    want: {
      code: 7,
      message:
        'Cannot list clusters in namespace "kube-system": user "alice" may not list clusters in namespace "kube-system"',
    },
  },
];

/** A template "small" and a cluster "blue" in each namespace. */
async function seed(corral: Corral): Promise<void> {
  for (const namespace of SEEDED) {
    for (
      const [rpc, request] of [
        [
          "proto.ComputeTemplateService/CreateComputeTemplate",
          {
            namespace,
            computeTemplate: { name: "small", namespace, cpu: 1, memory: 1 },
          },
        ],
        [
          "proto.ClusterService/CreateCluster",
          { namespace, cluster: sampleCluster({ namespace }) },
        ],
      ] as const
    ) {
      const got = await viaHttp(corral, rpc, request);
      assert.equal(got.code, 0, `seeding ${namespace}: ${got.message}`);
    }
  }
}

function items(result: Record<string, unknown> | undefined): string[] {
  const list = (result?.clusters ?? result?.computeTemplates ?? []) as {
    namespace: string;
    name: string;
  }[];
  return list.map((item) => `${item.namespace}/${item.name}`).sort();
}

function check(got: Outcome, want: ScopeCase["want"]): void {
  assert.equal(
    got.code,
    want.code,
    `code: got ${got.code} (${got.message}), want ${want.code}`,
  );
  if (want.message !== undefined) assert.equal(got.message, want.message);
  if (want.items) assert.deepEqual(items(got.result), want.items, "items");
}

for (
  const [setting, namespaces, cases] of [
    ["without --namespaces", undefined, ALL_SERVED],
    [`with --namespaces ${SERVED}`, SERVED, SOME_SERVED],
  ] as const
) {
  Deno.test(`list-all is filtered per caller ${setting}, alike over HTTP and gRPC`, async (t) => {
    // An open Corral seeds the stand-in; the one under test shares it.
    const seeder = await startCorral();
    const files = await fileAccess();
    try {
      await seed(seeder);
      const corral = await startCorral({
        access: files.access,
        namespaces,
        kubeUrl: seeder.kubeUrl,
      });
      try {
        const outcomes: Record<string, Outcome[]> = { http: [], grpc: [] };
        for (const [transport, run] of TRANSPORTS) {
          await t.step(transport, async (t) => {
            for (const c of cases) {
              await t.step(c.name, async () => {
                const got = await run(corral, c.rpc, c.request ?? {}, {
                  authorization: bearer(c.person),
                });
                outcomes[transport].push(got);
                check(got, c.want);
              });
            }
          });
        }
        await t.step("both transports answer alike", () => {
          cases.forEach((c, i) => {
            const [http, grpc] = [outcomes.http[i], outcomes.grpc[i]];
            assert.equal(grpc?.code, http?.code, `${c.name}: code`);
            assert.equal(grpc?.message, http?.message, `${c.name}: message`);
            assert.deepEqual(
              items(grpc?.result),
              items(http?.result),
              `${c.name}: items`,
            );
          });
        });
      } finally {
        await corral.close();
      }
    } finally {
      await files.close();
      await seeder.close();
    }
  });
}
