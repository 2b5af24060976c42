/**
 * Findings 1, 7 and 8 of issue 23 tried as an attacker with an ordinary
 * team account would, through both transports: what the pods of a cluster
 * may carry is decided on the RayCluster Corral writes (service accounts,
 * tolerations from a compute template, service types, annotations, labels,
 * pull secrets, claims, exposure start parameters), on create and update;
 * "*" does not reach kube-* namespaces; `owners: only` keeps teammates'
 * hands off a cluster. Legitimate clusters (the docs' example, granted
 * extras) keep working, and the audit record says what was written.
 */
import assert from "node:assert/strict";
import {
  type Corral,
  type Outcome,
  schema,
  startCorral,
  TRANSPORTS,
} from "../../harness.ts";
import { sampleCluster } from "../cases.ts";
import { messageFromJson } from "../../../domain/codec.ts";
import {
  clusterToResource,
  referencedTemplates,
} from "../../../domain/conversions.ts";
import type { FieldViolation } from "../../../domain/errors.ts";
import type { RayCluster } from "../../../domain/resources.ts";
import type { Cluster } from "../../../domain/types.ts";
import { until } from "../../eventually.ts";
import { kubeFetch } from "../../standin/with_standin.ts";
import { WATCH_TRANSPORTS } from "../stream_watchers.ts";
import {
  auditLines,
  bearer,
  fileAccess,
  type Person,
  person,
  type TestAccess,
  tokenFileText,
} from "./access_fixtures.ts";
import { allow, allowAll, groups, policyText } from "./policy_fixtures.ts";

const NS = "team-a";
const CS = "proto.ClusterService";
const CT = "proto.ComputeTemplateService";

const MALLORY = person("mallory", "mallory", ["team-a"]);
const TOM = person("tom", "tom", ["team-a"]);
const LEA = person("lea", "lea", ["team-a", "team-a-leads"]);
const GINA = person("gina", "gina", ["gpu-team"]);
const OPS = person("ops", "ops", ["ops"]);

/** Team A's rule covers "*", as in finding 1; gpu-team is granted extras. */
const POLICY = policyText([
  allowAll(groups("team-a"), ["*"], {
    images: ["rayproject/ray:*"],
    owners: "only",
  }),
  allow(groups("team-a-leads"), ["team-a"], ["clusters"], ["admin"]),
  allowAll(groups("gpu-team"), ["team-a"], {
    serviceAccounts: ["ray-worker"],
    imagePullSecrets: ["regcred"],
    tolerations: [{ key: "nvidia.com/gpu", effects: ["NoSchedule"] }],
    serviceTypes: ["ClusterIP", "LoadBalancer"],
    annotations: ["example.com/*"],
    labels: ["team"],
    volumes: { persistentVolumeClaims: ["datasets"] },
  }),
  allowAll(groups("ops"), ["kube-system"]),
]);

interface Case {
  name: string;
  who: Person;
  rpc: string;
  request: Record<string, unknown>;
  /** The code, and what the message must contain. */
  want: {
    code: number;
    has?: string[];
    check?: (result: Record<string, unknown>) => void;
  };
}

const template = (name: string, tolerations: unknown[] = []) => ({
  name,
  namespace: NS,
  cpu: 1,
  memory: 2,
  ...(tolerations.length > 0 ? { tolerations } : {}),
});

/** The docs' example cluster with `head` and `worker` merged into its groups. */
function cluster(
  name: string,
  { head = {}, worker = {}, template = "small" }: {
    head?: Record<string, unknown>;
    worker?: Record<string, unknown>;
    template?: string;
  } = {},
) {
  const base: Record<string, unknown> = sampleCluster({ name, user: "" });
  const spec = base.clusterSpec as {
    headGroupSpec: Record<string, unknown>;
    workerGroupSpec: Record<string, unknown>[];
  };
  return {
    ...base,
    clusterSpec: {
      headGroupSpec: { ...spec.headGroupSpec, ...head },
      workerGroupSpec: [{
        ...spec.workerGroupSpec[0],
        computeTemplate: template,
        ...worker,
      }],
    },
  };
}

const create = (
  who: Person,
  name: string,
  want: Case["want"],
  options: Parameters<typeof cluster>[1] = {},
  namespace = NS,
): Case => ({
  name,
  who,
  rpc: `${CS}/CreateCluster`,
  request: { namespace, cluster: { ...cluster(name, options), namespace } },
  want,
});

const W = "cluster.clusterSpec.workerGroupSpec[0]";
const H = "cluster.clusterSpec.headGroupSpec";
const RW = "spec.workerGroupSpecs[0].template";

const CASES: Case[] = [
  ...["small", "gpu"].map((name) => ({
    name: `compute template "${name}" is created`,
    who: GINA,
    rpc: `${CT}/CreateComputeTemplate`,
    request: {
      namespace: NS,
      computeTemplate: template(
        name,
        name === "gpu"
          ? [{
            key: "nvidia.com/gpu",
            operator: "Exists",
            effect: "NoSchedule",
          }]
          : [],
      ),
    },
    want: { code: 0 },
  })),
  {
    name: "a compute template tolerating the control plane is created",
    who: MALLORY,
    rpc: `${CT}/CreateComputeTemplate`,
    request: {
      namespace: NS,
      computeTemplate: template("control-plane", [{
        key: "node-role.kubernetes.io/control-plane",
        operator: "Exists",
        effect: "NoSchedule",
      }]),
    },
    want: { code: 0 },
  },
  create(MALLORY, "legit", { code: 0 }),
  create(MALLORY, "as-corral", {
    code: 7,
    has: [
      `${W}.serviceAccount: user "mallory" may not use the service account "corral" (RayCluster ${RW}.spec.serviceAccountName)`,
    ],
  }, { worker: { serviceAccount: "corral" } }),
  create(MALLORY, "on-control-plane", {
    code: 7,
    has: [
      `${W}.computeTemplate: user "mallory" may not tolerate the taint "node-role.kubernetes.io/control-plane" (NoSchedule) (RayCluster ${RW}.spec.tolerations[0])`,
    ],
  }, { template: "control-plane" }),
  create(MALLORY, "load-balancer", {
    code: 7,
    has: [
      `${H}.serviceType: user "mallory" may not use the service type "LoadBalancer" (RayCluster spec.headGroupSpec.serviceType)`,
    ],
  }, { head: { serviceType: "LoadBalancer" } }),
  create(MALLORY, "unconfined", {
    code: 7,
    has: [
      `${W}.annotations["container.apparmor.security.beta.kubernetes.io/ray-worker"]: user "mallory" may not set the pod annotation`,
    ],
  }, {
    worker: {
      annotations: {
        "container.apparmor.security.beta.kubernetes.io/ray-worker":
          "unconfined",
      },
    },
  }),
  create(MALLORY, "payments-label", {
    code: 7,
    has: [`${W}.labels["app"]: user "mallory" may not set the pod label "app"`],
  }, { worker: { labels: { app: "payments" } } }),
  create(MALLORY, "pull-secret", {
    code: 7,
    has: [
      `${W}.imagePullSecret: user "mallory" may not use the image pull secret "regcred"`,
    ],
  }, { worker: { imagePullSecret: "regcred" } }),
  create(MALLORY, "claim", {
    code: 7,
    has: [
      `${W}.volumes[0].source: user "mallory" may not mount the persistent volume claim "datasets"`,
    ],
  }, {
    worker: {
      volumes: [{
        name: "data",
        mountPath: "/data",
        source: "datasets",
        volumeType: "PERSISTENT_VOLUME_CLAIM",
      }],
    },
  }),
  create(
    MALLORY,
    "in-kube-system",
    {
      code: 7,
      has: [
        'user "mallory" may not create clusters in namespace "kube-system"',
      ],
    },
    {},
    "kube-system",
  ),
  {
    name: "ops creates a compute template in kube-system, which its rule names",
    who: OPS,
    rpc: `${CT}/CreateComputeTemplate`,
    request: {
      namespace: "kube-system",
      computeTemplate: { ...template("small"), namespace: "kube-system" },
    },
    want: { code: 0 },
  },
  create(OPS, "system", { code: 0 }, {}, "kube-system"),
  {
    name: 'a "*" rule\'s ListAllClusters leaves the reserved kube-system out',
    who: MALLORY,
    rpc: `${CS}/ListAllClusters`,
    request: {},
    want: {
      code: 0,
      check: (result) => {
        const clusters = result.clusters as { namespace: string }[];
        assert.deepEqual(
          [...new Set(clusters.map((c) => c.namespace))],
          [NS],
        );
      },
    },
  },
  {
    name: 'a "*" rule does not reach a cluster in kube-system',
    who: MALLORY,
    rpc: `${CS}/GetCluster`,
    request: { namespace: "kube-system", name: "system" },
    want: { code: 7 },
  },
  create(GINA, "gpu-extras", { code: 0 }, {
    template: "gpu",
    head: { serviceType: "LoadBalancer", engineStartParams: {} },
    worker: {
      serviceAccount: "ray-worker",
      imagePullSecret: "regcred",
      annotations: { "example.com/cost-center": "42" },
      labels: { team: "gpu" },
      volumes: [{
        name: "data",
        mountPath: "/data",
        source: "datasets",
        volumeType: "PERSISTENT_VOLUME_CLAIM",
      }],
    },
  }),
  create(GINA, "exposed-dashboard", {
    code: 7,
    has: [
      `${H}.engineStartParams["dashboard-host"]: user "gina" may not set the start parameter "dashboard-host" to "0.0.0.0" on a LoadBalancer service`,
    ],
  }, { head: { serviceType: "LoadBalancer" } }),
  {
    name: "UpdateCluster admits the RayCluster it writes too",
    who: MALLORY,
    rpc: `${CS}/UpdateCluster`,
    request: {
      namespace: NS,
      name: "legit",
      cluster: {
        clusterSpec: {
          workerGroupSpec: [{
            groupName: "workers",
            computeTemplate: "small",
            replicas: 1,
            serviceAccount: "corral",
          }],
        },
      },
      updateMask: "cluster_spec.worker_group_spec",
    },
    want: {
      code: 7,
      has: [
        'Cannot update cluster "team-a/legit": ',
        'may not use the service account "corral"',
      ],
    },
  },
  // Finding 8: owners only.
  {
    name: "a teammate may read the cluster",
    who: TOM,
    rpc: `${CS}/GetCluster`,
    request: { namespace: NS, name: "legit" },
    want: { code: 0 },
  },
  ...["UpdateCluster", "DeleteCluster"].map((rpc) => ({
    name: `a teammate may not ${rpc} it`,
    who: TOM,
    rpc: `${CS}/${rpc}`,
    request: {
      namespace: NS,
      name: "legit",
      ...(rpc === "UpdateCluster"
        ? { cluster: { envs: { LD_PRELOAD: "/tmp/x.so" } }, updateMask: "envs" }
        : {}),
    },
    want: {
      code: 7,
      has: [
        `user "tom" may not ${
          rpc === "UpdateCluster" ? "update" : "delete"
        } a cluster of "mallory": only its owner or a caller granted "admin" may`,
      ],
    },
  })),
  {
    name: "its owner may update it",
    who: MALLORY,
    rpc: `${CS}/UpdateCluster`,
    request: {
      namespace: NS,
      name: "legit",
      cluster: { envs: { MODE: "fast" } },
      updateMask: "envs",
    },
    want: { code: 0 },
  },
  {
    name: "a lead granted admin may delete it",
    who: LEA,
    rpc: `${CS}/DeleteCluster`,
    request: { namespace: NS, name: "legit" },
    want: { code: 0 },
  },
];

async function started(): Promise<{ corral: Corral; files: TestAccess }> {
  const files = await fileAccess({
    tokens: tokenFileText([MALLORY, TOM, LEA, GINA, OPS]),
    policy: POLICY,
  });
  return { corral: await startCorral({ access: files.access }), files };
}

function check(got: Outcome, want: Case["want"]): void {
  assert.equal(
    got.code,
    want.code,
    `code: got ${got.code} (${got.message}), want ${want.code}`,
  );
  if (want.check) want.check(got.result!);
  for (const part of want.has ?? []) {
    assert.ok(
      got.message.includes(part),
      `message: got ${got.message}, want it to contain ${part}`,
    );
  }
}

Deno.test("the workload's admission refuses what no rule grants the pods, on create and update, alike over HTTP and gRPC", async (t) => {
  const outcomes: Record<string, Outcome[]> = { http: [], grpc: [] };
  for (const [transport, run] of TRANSPORTS) {
    const { corral, files } = await started();
    try {
      await t.step(transport, async (t) => {
        for (const c of CASES) {
          await t.step(c.name, async () => {
            const got = await run(corral, c.rpc, c.request, {
              authorization: bearer(c.who),
            });
            outcomes[transport].push(got);
            check(got, c.want);
          });
        }
        await t.step(
          "the audit record says what workload was written",
          async () => {
            const lines = await auditLines(files.auditLog);
            const created = lines.find((line) =>
              line.verb === "create" && line.name === "gpu-extras"
            );
            assert.deepEqual(created?.workload, {
              images: ["rayproject/ray:2.9.0"],
              serviceAccounts: ["ray-worker"],
              volumes: ["persistentVolumeClaim:datasets"],
              tolerations: ["nvidia.com/gpu:NoSchedule"],
              serviceType: "LoadBalancer",
            });
            const updated = lines.find((line) =>
              line.verb === "update" && line.user === "mallory" &&
              line.code === 0
            );
            assert.deepEqual(
              (updated?.workload as { mask?: string[] })?.mask,
              ["envs"],
            );
          },
        );
      });
    } finally {
      await corral.close();
      await files.close();
    }
  }
  await t.step("both transports answer alike", () => {
    CASES.forEach((c, i) => {
      assert.equal(outcomes.grpc[i]?.code, outcomes.http[i]?.code, c.name);
      assert.equal(
        outcomes.grpc[i]?.message,
        outcomes.http[i]?.message,
        c.name,
      );
    });
  });
});

Deno.test('a "*" rule\'s watch of every namespace leaves the reserved kube-system out, on every transport', async () => {
  const files = await fileAccess({
    tokens: tokenFileText([MALLORY, OPS]),
    policy: POLICY,
  });
  const corral = await startCorral({ access: files.access, cache: {} });
  try {
    // Written by someone else, straight into Kubernetes.
    for (const namespace of [NS, "kube-system"]) {
      const response = await kubeFetch(
        corral.kubeUrl,
        "POST",
        `/apis/ray.io/v1/namespaces/${namespace}/rayclusters`,
        await seenCluster(namespace),
      );
      assert.equal(response.status, 201, await response.text());
    }
    for (const [transport, open] of WATCH_TRANSPORTS) {
      const watch = await open(corral, {}, bearer(MALLORY));
      try {
        await until(
          `${transport}: the first state's BOOKMARK`,
          () => watch.answers.some((a) => a.type === "BOOKMARK"),
        );
        const namespaces = watch.answers
          .filter((a) => a.type === "ADDED")
          .map((a) => (a.cluster as { namespace: string }).namespace);
        assert.deepEqual(namespaces, [NS], transport);
      } finally {
        watch.close();
      }
    }
  } finally {
    await corral.close();
    await files.close();
  }
});

/** A RayCluster "seen" in `namespace`, as Corral would have written it. */
async function seenCluster(namespace: string): Promise<RayCluster> {
  const violations: FieldViolation[] = [];
  const cluster = messageFromJson(
    (await schema()).root.lookupType("proto.Cluster"),
    sampleCluster({ name: "seen", namespace }),
    "",
    violations,
  ) as unknown as Cluster;
  assert.deepEqual(violations, []);
  const templates = new Map(
    referencedTemplates(cluster).map((name) => [name, {
      name,
      namespace,
      cpu: 1,
      memory: 1,
      gpu: 0,
      gpuAccelerator: "",
      tolerations: [],
      extendedResources: {},
      memoryUnit: "",
    }]),
  );
  return clusterToResource(cluster, templates, {
    apiVersion: "ray.io/v1",
    now: new Date(),
  });
}

Deno.test('with --namespaces serving kube-system, a "*" rule\'s list across namespaces still leaves it out', async () => {
  const files = await fileAccess({
    tokens: tokenFileText([MALLORY, OPS]),
    policy: POLICY,
  });
  const corral = await startCorral({
    access: files.access,
    namespaces: [NS, "kube-system"],
  });
  try {
    for (const namespace of [NS, "kube-system"]) {
      const response = await kubeFetch(
        corral.kubeUrl,
        "POST",
        `/apis/ray.io/v1/namespaces/${namespace}/rayclusters`,
        await seenCluster(namespace),
      );
      assert.equal(response.status, 201, await response.text());
    }
    for (const [transport, run] of TRANSPORTS) {
      const got = await run(corral, `${CS}/ListAllClusters`, {}, {
        authorization: bearer(MALLORY),
      });
      assert.equal(got.code, 0, `${transport}: ${got.message}`);
      const clusters = got.result!.clusters as { namespace: string }[];
      assert.deepEqual(clusters.map((c) => c.namespace), [NS], transport);
    }
  } finally {
    await corral.close();
    await files.close();
  }
});
