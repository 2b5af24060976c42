/**
 * Namespace scope (`--namespaces`, createHandlers' `namespaces`): one case
 * list through both transports, the gateway function and a real gRPC client,
 * against a Corral serving team-a and team-b while team-c holds a cluster
 * and a template written by someone else. Requests naming team-c are
 * PERMISSION_DENIED before any Kubernetes call; list-all lists each served
 * namespace and nothing else.
 */
import assert from "node:assert/strict";
import type { KubernetesCallRecord } from "../../domain/ports.ts";
import { startCorral, TRANSPORTS } from "../harness.ts";
import { sampleCluster } from "./cases.ts";

const SERVED = ["team-b", "team-a"]; // given unsorted; messages sort them
const OTHER = "team-c";
const NOT_SERVED =
  `namespace "${OTHER}" is not served by this Corral (it serves "team-a", "team-b")`;

interface ScopeCase {
  name: string;
  rpc: string;
  request: Record<string, unknown>;
  want: {
    code: number;
    message?: string;
    /** The Kubernetes calls the request makes, as "verb resource". */
    kubernetesCalls?: string[];
    check?: (result: Record<string, unknown>) => void;
  };
}

const template = (namespace: string) => ({
  name: "small",
  namespace,
  cpu: 2,
  memory: 4,
});

const names = (list: unknown) =>
  (list as { namespace: string; name: string }[]).map((item) =>
    `${item.namespace}/${item.name}`
  );

const CASES: ScopeCase[] = [
  {
    name: "a compute template is created in a served namespace",
    rpc: "proto.ComputeTemplateService/CreateComputeTemplate",
    request: { namespace: "team-a", computeTemplate: template("team-a") },
    want: { code: 0 },
  },
  {
    name: "a compute template in another namespace is refused",
    rpc: "proto.ComputeTemplateService/CreateComputeTemplate",
    request: { namespace: OTHER, computeTemplate: template(OTHER) },
    want: {
      code: 7,
      message: `Cannot create compute template "${OTHER}/small": ${NOT_SERVED}`,
      kubernetesCalls: [],
    },
  },
  {
    name: "a cluster is created in a served namespace",
    rpc: "proto.ClusterService/CreateCluster",
    request: { namespace: "team-a", cluster: sampleCluster() },
    want: { code: 0 },
  },
  {
    name: "a cluster in another namespace is refused, naming the namespaces",
    rpc: "proto.ClusterService/CreateCluster",
    request: {
      namespace: OTHER,
      cluster: sampleCluster({ namespace: OTHER }),
    },
    want: {
      code: 7,
      message: `Cannot create cluster "${OTHER}/blue": ${NOT_SERVED}`,
      kubernetesCalls: [],
    },
  },
  {
    name:
      "scope is checked before validation: an invalid cluster elsewhere is 7",
    rpc: "proto.ClusterService/CreateCluster",
    request: { namespace: OTHER, cluster: { name: "blue" } },
    want: {
      code: 7,
      message: `Cannot create cluster "${OTHER}/blue": ${NOT_SERVED}`,
      kubernetesCalls: [],
    },
  },
  {
    name: "another namespace's existing cluster cannot be read",
    rpc: "proto.ClusterService/GetCluster",
    request: { namespace: OTHER, name: "red" },
    want: {
      code: 7,
      message: `Cannot get cluster "${OTHER}/red": ${NOT_SERVED}`,
      kubernetesCalls: [],
    },
  },
  {
    name: "another namespace's cluster cannot be deleted",
    rpc: "proto.ClusterService/DeleteCluster",
    request: { namespace: OTHER, name: "red" },
    want: {
      code: 7,
      message: `Cannot delete cluster "${OTHER}/red": ${NOT_SERVED}`,
      kubernetesCalls: [],
    },
  },
  {
    name: "another namespace's clusters cannot be listed",
    rpc: "proto.ClusterService/ListCluster",
    request: { namespace: OTHER },
    want: {
      code: 7,
      message: `Cannot list clusters in namespace "${OTHER}": ${NOT_SERVED}`,
      kubernetesCalls: [],
    },
  },
  {
    name: "another namespace's compute template cannot be read",
    rpc: "proto.ComputeTemplateService/GetComputeTemplate",
    request: { namespace: OTHER, name: "default-template" },
    want: {
      code: 7,
      message:
        `Cannot get compute template "${OTHER}/default-template": ${NOT_SERVED}`,
      kubernetesCalls: [],
    },
  },
  {
    name: "another namespace's compute template cannot be deleted",
    rpc: "proto.ComputeTemplateService/DeleteComputeTemplate",
    request: { namespace: OTHER, name: "default-template" },
    want: {
      code: 7,
      message:
        `Cannot delete compute template "${OTHER}/default-template": ${NOT_SERVED}`,
      kubernetesCalls: [],
    },
  },
  {
    name: "another namespace's compute templates cannot be listed",
    rpc: "proto.ComputeTemplateService/ListComputeTemplates",
    request: { namespace: OTHER },
    want: {
      code: 7,
      message:
        `Cannot list compute templates in namespace "${OTHER}": ${NOT_SERVED}`,
      kubernetesCalls: [],
    },
  },
  {
    name: "a served namespace without clusters lists none",
    rpc: "proto.ClusterService/ListCluster",
    request: { namespace: "team-b" },
    want: {
      code: 0,
      kubernetesCalls: ["list rayclusters", "list events"],
      check: (result) => assert.deepEqual(result.clusters, []),
    },
  },
  {
    name: "list-all clusters lists each served namespace, and only those",
    rpc: "proto.ClusterService/ListAllClusters",
    request: {},
    want: {
      code: 0,
      // Two calls per served namespace, never a cluster-wide list.
      kubernetesCalls: [
        "list events",
        "list events",
        "list rayclusters",
        "list rayclusters",
      ],
      check: (result) =>
        assert.deepEqual(names(result.clusters), ["team-a/blue"]),
    },
  },
  {
    name:
      "list-all compute templates lists each served namespace, and only those",
    rpc: "proto.ComputeTemplateService/ListAllComputeTemplates",
    request: {},
    want: {
      code: 0,
      kubernetesCalls: ["list configmaps", "list configmaps"],
      check: (result) =>
        assert.deepEqual(names(result.computeTemplates), ["team-a/small"]),
    },
  },
  {
    name: "a cluster in a served namespace is deleted",
    rpc: "proto.ClusterService/DeleteCluster",
    request: { namespace: "team-a", name: "blue" },
    want: { code: 0 },
  },
];

/** team-c's cluster "red" and template "default-template", as KubeRay wrote them. */
async function seedOtherNamespace(kubeUrl: string): Promise<void> {
  const fixture = (name: string) =>
    Deno.readTextFile(new URL(`../testdata/${name}`, import.meta.url)).then(
      JSON.parse,
    );
  const cluster = await fixture("kuberay_raycluster.json");
  const [configMap] = await fixture("kuberay_compute_templates.json");
  const clean = (object: { metadata: Record<string, unknown> }) => {
    for (const key of ["resourceVersion", "uid", "creationTimestamp"]) {
      delete object.metadata[key];
    }
    object.metadata.namespace = OTHER;
    return object;
  };
  delete cluster.status;
  clean(cluster);
  cluster.metadata.name = "red";
  cluster.metadata.labels["ray.io/cluster-name"] = "red";
  clean(configMap);
  configMap.data.namespace = OTHER;
  for (
    const [path, body] of [
      [`/apis/ray.io/v1/namespaces/${OTHER}/rayclusters`, cluster],
      [`/api/v1/namespaces/${OTHER}/configmaps`, configMap],
    ]
  ) {
    const response = await fetch(kubeUrl + path, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    assert.equal(response.status, 201, `${path}: ${await response.text()}`);
  }
}

for (const [transport, call] of TRANSPORTS) {
  Deno.test(`namespace scope over ${transport}: other namespaces get code 7 before any Kubernetes call`, async (t) => {
    const calls: KubernetesCallRecord[] = [];
    const corral = await startCorral({
      namespaces: SERVED,
      onKubernetesCall: (record) => calls.push(record),
    });
    try {
      await seedOtherNamespace(corral.kubeUrl);
      for (const c of CASES) {
        await t.step(c.name, async () => {
          calls.length = 0;
          const got = await call(corral, c.rpc, c.request);
          assert.equal(
            got.code,
            c.want.code,
            `code: got ${got.code} (${got.message}), want ${c.want.code}`,
          );
          if (c.want.message !== undefined) {
            assert.equal(got.message, c.want.message);
          }
          if (c.want.kubernetesCalls) {
            assert.deepEqual(
              calls.map((r) => `${r.verb} ${r.resource}`).sort(),
              [...c.want.kubernetesCalls].sort(),
              "Kubernetes calls",
            );
          }
          c.want.check?.(got.result!);
        });
      }
      await t.step("team-c's cluster and template are untouched", async () => {
        for (
          const path of [
            `/apis/ray.io/v1/namespaces/${OTHER}/rayclusters/red`,
            `/api/v1/namespaces/${OTHER}/configmaps/default-template`,
          ]
        ) {
          const response = await fetch(corral.kubeUrl + path);
          await response.body?.cancel();
          assert.equal(response.status, 200, path);
        }
      });
    } finally {
      await corral.close();
    }
  });
}

Deno.test("namespace scope: an empty namespace is still INVALID_ARGUMENT, not 7", async () => {
  const corral = await startCorral({ namespaces: SERVED });
  try {
    const got = await corral.grpc.call("proto.ClusterService/GetCluster", {
      namespace: "",
      name: "blue",
    });
    assert.equal(got.code, 3, got.message);
  } finally {
    await corral.close();
  }
});

Deno.test("without namespaces, list-all is one cluster-wide list and every namespace is served", async () => {
  const calls: KubernetesCallRecord[] = [];
  const corral = await startCorral({
    onKubernetesCall: (record) => calls.push(record),
  });
  try {
    await seedOtherNamespace(corral.kubeUrl);
    for (const [transport, call] of TRANSPORTS) {
      calls.length = 0;
      const all = await call(
        corral,
        "proto.ClusterService/ListAllClusters",
        {},
      );
      assert.deepEqual(names(all.result!.clusters), [`${OTHER}/red`]);
      assert.deepEqual(
        calls.map((r) => `${r.verb} ${r.resource}`).sort(),
        ["list events", "list rayclusters"],
        transport,
      );
      const got = await call(
        corral,
        "proto.ComputeTemplateService/GetComputeTemplate",
        { namespace: OTHER, name: "default-template" },
      );
      assert.equal(got.code, 0, `${transport}: ${got.message}`);
    }
  } finally {
    await corral.close();
  }
});
