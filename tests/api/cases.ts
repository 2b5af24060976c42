/**
 * One list of RPC outcomes, run in order through every transport. Requests
 * are in proto3 JSON form (as a user writes them); each transport turns them
 * into its own wire form.
 */
import { EXAMPLES } from "../../api/openapi_examples.ts";

export interface Case {
  name: string;
  /** "proto.ClusterService/CreateCluster" */
  rpc: string;
  request: Record<string, unknown>;
  want: {
    code: number;
    /** Exact message, or a pattern. */
    message?: string | RegExp;
    /** The field paths of the violations, in order. */
    fields?: string[];
    /** Checks on the result of a success, in JSON form. */
    check?: (result: Record<string, unknown>) => void;
  };
}

export const NS = "team-a";

const template = {
  name: "small",
  namespace: NS,
  cpu: 2,
  memory: 4,
};

/**
 * The spec's sample cluster: the example body the OpenAPI document shows,
 * so the docs' example and the tests' cluster cannot drift apart.
 */
export function sampleCluster(overrides: Record<string, unknown> = {}) {
  return {
    ...structuredClone(EXAMPLES["proto.Cluster"] as Record<string, unknown>),
    namespace: NS,
    ...overrides,
  };
}

function withSpec(spec: Record<string, unknown>) {
  return sampleCluster({ clusterSpec: spec });
}

const CT = "proto.ComputeTemplateService";
const CS = "proto.ClusterService";

export const CASES: Case[] = [
  {
    name: "CreateComputeTemplate creates a template",
    rpc: `${CT}/CreateComputeTemplate`,
    request: { namespace: NS, computeTemplate: template },
    want: {
      code: 0,
      check: (r) =>
        assertFields(r, { ...template, gpu: 0, gpuAccelerator: "" }),
    },
  },
  {
    name: "CreateComputeTemplate refuses a duplicate name",
    rpc: `${CT}/CreateComputeTemplate`,
    request: { namespace: NS, computeTemplate: template },
    want: {
      code: 6,
      message: /^Cannot create compute template "team-a\/small": /,
    },
  },
  {
    name: "CreateComputeTemplate refuses cpu 0 and memory 0",
    rpc: `${CT}/CreateComputeTemplate`,
    request: {
      namespace: NS,
      computeTemplate: { name: "zero", cpu: 0, memory: 0 },
    },
    want: {
      code: 3,
      fields: ["computeTemplate.cpu", "computeTemplate.memory"],
    },
  },
  {
    name:
      "CreateComputeTemplate refuses 4,294,967,295 CPUs (--max-template-cpu)",
    rpc: `${CT}/CreateComputeTemplate`,
    request: {
      namespace: NS,
      computeTemplate: { name: "vast", cpu: 4_294_967_295, memory: 4 },
    },
    want: {
      code: 3,
      message:
        'Cannot create compute template "team-a/vast": computeTemplate.cpu: must be at most 1024 (--max-template-cpu)',
      fields: ["computeTemplate.cpu"],
    },
  },
  {
    name: "GetComputeTemplate answers a missing template with not found",
    rpc: `${CT}/GetComputeTemplate`,
    request: { namespace: NS, name: "missing" },
    want: {
      code: 5,
      message: /^Cannot get compute template "team-a\/missing": /,
    },
  },
  {
    name: "GetComputeTemplate gets the template",
    rpc: `${CT}/GetComputeTemplate`,
    request: { namespace: NS, name: "small" },
    want: { code: 0, check: (r) => assertFields(r, template) },
  },
  {
    name: "ListComputeTemplates lists the namespace's templates",
    rpc: `${CT}/ListComputeTemplates`,
    request: { namespace: NS },
    want: {
      code: 0,
      check: (r) => assertNames(r.computeTemplates, ["small"]),
    },
  },
  {
    name: "ListAllComputeTemplates lists every namespace's templates",
    rpc: `${CT}/ListAllComputeTemplates`,
    request: {},
    want: {
      code: 0,
      check: (r) => assertNames(r.computeTemplates, ["small"]),
    },
  },
  {
    name: "CreateCluster creates a cluster",
    rpc: `${CS}/CreateCluster`,
    request: { namespace: NS, cluster: sampleCluster() },
    want: {
      code: 0,
      check: (r) => {
        assertFields(r, {
          name: "blue",
          namespace: NS,
          user: "ada",
          version: "2.9.0",
        });
        if (typeof r.createdAt !== "string") {
          throw new Error(`createdAt: got ${r.createdAt}`);
        }
        const spec = r.clusterSpec as {
          workerGroupSpec: Record<string, unknown>[];
        };
        assertFields(spec.workerGroupSpec[0], {
          replicas: 2,
          minReplicas: 0,
          maxReplicas: 4,
        });
      },
    },
  },
  {
    name: "CreateCluster refuses a duplicate name",
    rpc: `${CS}/CreateCluster`,
    request: { namespace: NS, cluster: sampleCluster() },
    want: { code: 6, message: /^Cannot create cluster "team-a\/blue": / },
  },
  {
    name: "CreateCluster refuses a compute template that does not exist",
    rpc: `${CS}/CreateCluster`,
    request: {
      namespace: NS,
      cluster: withSpec({ headGroupSpec: { computeTemplate: "huge" } }),
    },
    want: {
      code: 9,
      message:
        'Cannot create cluster "team-a/blue": compute template "huge" not found in namespace "team-a"',
    },
  },
  {
    name: "CreateCluster refuses a missing cluster",
    rpc: `${CS}/CreateCluster`,
    request: { namespace: NS },
    want: { code: 3, fields: ["cluster"] },
  },
  {
    name: "CreateCluster refuses a missing name, user and clusterSpec",
    rpc: `${CS}/CreateCluster`,
    request: { namespace: NS, cluster: { version: "2.9.0" } },
    want: {
      code: 3,
      fields: ["cluster.name", "cluster.user", "cluster.clusterSpec"],
    },
  },
  {
    name: "CreateCluster refuses a clusterSpec without a head group",
    rpc: `${CS}/CreateCluster`,
    request: { namespace: NS, cluster: withSpec({ workerGroupSpec: [] }) },
    want: { code: 3, fields: ["cluster.clusterSpec.headGroupSpec"] },
  },
  {
    name: "CreateCluster refuses a worker group without groupName",
    rpc: `${CS}/CreateCluster`,
    request: {
      namespace: NS,
      cluster: withSpec({
        headGroupSpec: {},
        workerGroupSpec: [{ replicas: 1 }],
      }),
    },
    want: {
      code: 3,
      fields: ["cluster.clusterSpec.workerGroupSpec[0].groupName"],
    },
  },
  {
    name: "CreateCluster refuses a name that is not a DNS-1123 label",
    rpc: `${CS}/CreateCluster`,
    request: { namespace: NS, cluster: sampleCluster({ name: "Blue_1" }) },
    want: { code: 3, fields: ["cluster.name"] },
  },
  {
    name: "CreateCluster refuses a name longer than a label value",
    rpc: `${CS}/CreateCluster`,
    request: {
      namespace: NS,
      cluster: sampleCluster({ name: "a".repeat(64) }),
    },
    want: { code: 3, fields: ["cluster.name"] },
  },
  {
    name: "CreateCluster refuses a bad namespace",
    rpc: `${CS}/CreateCluster`,
    request: { namespace: "Team_A", cluster: sampleCluster({ namespace: "" }) },
    want: { code: 3, fields: ["namespace"] },
  },
  {
    name: "CreateCluster refuses minReplicas above replicas",
    rpc: `${CS}/CreateCluster`,
    request: {
      namespace: NS,
      cluster: withSpec({
        headGroupSpec: {},
        workerGroupSpec: [{
          groupName: "w",
          replicas: 1,
          minReplicas: 2,
          maxReplicas: 3,
        }],
      }),
    },
    want: {
      code: 3,
      fields: ["cluster.clusterSpec.workerGroupSpec[0].minReplicas"],
    },
  },
  {
    name: "CreateCluster refuses replicas above maxReplicas",
    rpc: `${CS}/CreateCluster`,
    request: {
      namespace: NS,
      cluster: withSpec({
        headGroupSpec: {},
        workerGroupSpec: [{ groupName: "w", replicas: 5, maxReplicas: 3 }],
      }),
    },
    want: {
      code: 3,
      fields: ["cluster.clusterSpec.workerGroupSpec[0].maxReplicas"],
    },
  },
  {
    name: "CreateCluster refuses 2,147,483,647 replicas (--max-replicas)",
    rpc: `${CS}/CreateCluster`,
    request: {
      namespace: NS,
      cluster: withSpec({
        headGroupSpec: {},
        workerGroupSpec: [{ groupName: "w", replicas: 2_147_483_647 }],
      }),
    },
    want: {
      code: 3,
      message:
        'Cannot create cluster "team-a/blue": cluster.clusterSpec.workerGroupSpec[0].replicas: must be at most 1000 (--max-replicas)',
      fields: ["cluster.clusterSpec.workerGroupSpec[0].replicas"],
    },
  },
  {
    name: "CreateCluster refuses a start parameter the shell would run",
    rpc: `${CS}/CreateCluster`,
    request: {
      namespace: NS,
      cluster: withSpec({
        headGroupSpec: { engineStartParams: { block: "true; curl x|sh" } },
      }),
    },
    want: {
      code: 3,
      message:
        'Cannot create cluster "team-a/blue": cluster.clusterSpec.headGroupSpec.engineStartParams["block"]: must have a value the shell reads as plain text: ";" is allowed only in quotes (the operator puts it unquoted on a bash command line)',
      fields: ['cluster.clusterSpec.headGroupSpec.engineStartParams["block"]'],
    },
  },
  {
    name: "CreateCluster refuses a body namespace that differs from the path",
    rpc: `${CS}/CreateCluster`,
    request: { namespace: NS, cluster: sampleCluster({ namespace: "team-b" }) },
    want: { code: 3, fields: ["cluster.namespace"] },
  },
  {
    name: "CreateCluster refuses groups with neither image nor version",
    rpc: `${CS}/CreateCluster`,
    request: {
      namespace: NS,
      cluster: sampleCluster({
        version: "",
        clusterSpec: {
          headGroupSpec: {},
          workerGroupSpec: [{
            groupName: "w",
            replicas: 1,
            image: "rayproject/ray:2.9.0",
          }],
        },
      }),
    },
    want: { code: 3, fields: ["cluster.clusterSpec.headGroupSpec.image"] },
  },
  {
    name: "GetCluster gets the cluster",
    rpc: `${CS}/GetCluster`,
    request: { namespace: NS, name: "blue" },
    want: {
      code: 0,
      check: (r) => assertFields(r, { name: "blue", user: "ada" }),
    },
  },
  {
    name: "GetCluster answers a missing cluster with not found",
    rpc: `${CS}/GetCluster`,
    request: { namespace: NS, name: "green" },
    want: { code: 5, message: /^Cannot get cluster "team-a\/green": / },
  },
  {
    name: "GetCluster refuses an invalid name",
    rpc: `${CS}/GetCluster`,
    request: { namespace: NS, name: "NO" },
    want: { code: 3, fields: ["name"] },
  },
  {
    name: "ListCluster lists the namespace's clusters",
    rpc: `${CS}/ListCluster`,
    request: { namespace: NS },
    want: { code: 0, check: (r) => assertNames(r.clusters, ["blue"]) },
  },
  {
    name: "ListCluster lists nothing in another namespace",
    rpc: `${CS}/ListCluster`,
    request: { namespace: "team-b" },
    want: { code: 0, check: (r) => assertNames(r.clusters, []) },
  },
  {
    name: "ListAllClusters lists every namespace's clusters",
    rpc: `${CS}/ListAllClusters`,
    request: {},
    want: { code: 0, check: (r) => assertNames(r.clusters, ["blue"]) },
  },
  {
    name: "DeleteCluster answers a missing cluster with not found",
    rpc: `${CS}/DeleteCluster`,
    request: { namespace: NS, name: "green" },
    want: { code: 5, message: /^Cannot delete cluster "team-a\/green": / },
  },
  {
    name: "UpdateCluster scales a worker group (updateMask names the groups)",
    rpc: `${CS}/UpdateCluster`,
    request: {
      namespace: NS,
      name: "blue",
      updateMask: "clusterSpec.workerGroupSpec",
      cluster: {
        clusterSpec: { workerGroupSpec: [scaledWorkers(3)] },
      },
    },
    want: {
      code: 0,
      check: (r) => {
        const spec = r.clusterSpec as {
          workerGroupSpec: Record<string, unknown>[];
        };
        assertFields(spec.workerGroupSpec[0], { replicas: 3, maxReplicas: 4 });
        assertFields(r, { name: "blue", user: "ada" });
        if (!/^\d+$/.test(String(r.etag))) {
          throw new Error(`etag: got ${r.etag}`);
        }
      },
    },
  },
  {
    name: "UpdateCluster sets envs (mask implied by the fields set)",
    rpc: `${CS}/UpdateCluster`,
    request: { namespace: NS, name: "blue", cluster: { envs: { A: "1" } } },
    want: { code: 0, check: (r) => assertFields(r, { envs: { A: "1" } }) },
  },
  {
    name: "UpdateCluster refuses a path that cannot be updated",
    rpc: `${CS}/UpdateCluster`,
    request: {
      namespace: NS,
      name: "blue",
      updateMask: "clusterSpec.headGroupSpec,envs",
      cluster: { envs: {} },
    },
    want: {
      code: 3,
      message:
        'Cannot update cluster "team-a/blue": updateMask: path "cluster_spec.head_group_spec" cannot be updated: only "cluster_spec.worker_group_spec" and "envs" can',
      fields: ["updateMask"],
    },
  },
  {
    name: "UpdateCluster refuses a stale etag with ABORTED",
    rpc: `${CS}/UpdateCluster`,
    request: {
      namespace: NS,
      name: "blue",
      updateMask: "envs",
      cluster: { envs: { A: "2" }, etag: "1" },
    },
    want: {
      code: 10,
      message:
        'Cannot update cluster "team-a/blue": etag "1" is not the cluster\'s current etag: get the cluster and try again',
    },
  },
  {
    name: "UpdateCluster validates the groups as create does, with field paths",
    rpc: `${CS}/UpdateCluster`,
    request: {
      namespace: NS,
      name: "blue",
      updateMask: "clusterSpec.workerGroupSpec",
      cluster: {
        clusterSpec: {
          workerGroupSpec: [
            { ...scaledWorkers(-1), minReplicas: 0, maxReplicas: 2000 },
          ],
        },
      },
    },
    want: {
      code: 3,
      fields: [
        "cluster.clusterSpec.workerGroupSpec[0].maxReplicas",
        "cluster.clusterSpec.workerGroupSpec[0].replicas",
      ],
    },
  },
  {
    name: "UpdateCluster answers a missing cluster with not found",
    rpc: `${CS}/UpdateCluster`,
    request: { namespace: NS, name: "green", cluster: { envs: { A: "1" } } },
    want: {
      code: 5,
      message: 'Cannot update cluster "team-a/green": not found',
    },
  },
  {
    name: "DeleteComputeTemplate refuses a template a cluster uses",
    rpc: `${CT}/DeleteComputeTemplate`,
    request: { namespace: NS, name: "small" },
    want: {
      code: 9,
      message:
        'Cannot delete compute template "team-a/small": cluster "blue" uses it',
    },
  },
  {
    name: "DeleteCluster deletes the cluster",
    rpc: `${CS}/DeleteCluster`,
    request: { namespace: NS, name: "blue" },
    want: { code: 0, check: (r) => assertFields(r, {}) },
  },
  {
    name: "GetCluster answers a deleted cluster with not found",
    rpc: `${CS}/GetCluster`,
    request: { namespace: NS, name: "blue" },
    want: { code: 5 },
  },
  {
    name: "DeleteComputeTemplate deletes the template",
    rpc: `${CT}/DeleteComputeTemplate`,
    request: { namespace: NS, name: "small" },
    want: { code: 0 },
  },
  {
    name: "DeleteComputeTemplate answers a missing template with not found",
    rpc: `${CT}/DeleteComputeTemplate`,
    request: { namespace: NS, name: "small" },
    want: {
      code: 5,
      message: /^Cannot delete compute template "team-a\/small": /,
    },
  },
];

/** The sample cluster's worker group with `replicas` workers. */
function scaledWorkers(replicas: number): Record<string, unknown> {
  const spec = (sampleCluster() as Record<string, unknown>).clusterSpec as {
    workerGroupSpec: Record<string, unknown>[];
  };
  return { ...spec.workerGroupSpec[0], replicas };
}

function assertFields(
  got: Record<string, unknown>,
  want: Record<string, unknown>,
) {
  for (const [key, value] of Object.entries(want)) {
    if (JSON.stringify(got[key]) !== JSON.stringify(value)) {
      throw new Error(
        `${key}: got ${JSON.stringify(got[key])}, want ${
          JSON.stringify(value)
        }`,
      );
    }
  }
}

function assertNames(list: unknown, want: string[]) {
  const names = (list as { name: string }[]).map((x) => x.name).sort();
  if (JSON.stringify(names) !== JSON.stringify(want)) {
    throw new Error(
      `names: got ${JSON.stringify(names)}, want ${JSON.stringify(want)}`,
    );
  }
}
