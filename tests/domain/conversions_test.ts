import assert from "node:assert/strict";
import {
  clusterFromResource,
  clusterToResource,
  referencedTemplates,
  userLabelValue,
} from "../../domain/conversions.ts";
import {
  clusterEventFromResource,
  eventsOfCluster,
} from "../../domain/event_conversions.ts";
import {
  computeTemplateFromConfigMap,
  computeTemplateToConfigMap,
} from "../../domain/template_conversions.ts";
import { Code, ServiceError } from "../../domain/errors.ts";
import type {
  ConfigMap,
  KubeEvent,
  RayCluster,
} from "../../domain/resources.ts";
import type {
  Cluster,
  ClusterEvent,
  ClusterSpec,
  ComputeTemplate,
  WorkerGroupSpec,
} from "../../domain/types.ts";
import {
  cluster,
  headGroup,
  NO_CONTAINER_SETTINGS,
  NO_POD_SETTINGS,
  NO_SPEC_FIELDS,
  NO_VOLUME_FIELDS,
  volume,
  workerGroup,
} from "./builders.ts";

// ---------------------------------------------------------------------------
// Builders

function computeTemplate(
  name: string,
  cpu: number,
  memory: number,
  gpu = 0,
  gpuAccelerator = "",
  namespace = "team-a",
): ComputeTemplate {
  return {
    name,
    namespace,
    cpu,
    memory,
    gpu,
    gpuAccelerator,
    tolerations: [],
    extendedResources: {},
    memoryUnit: "",
  };
}

const TEMPLATES: ReadonlyMap<string, ComputeTemplate> = new Map(
  [
    computeTemplate("small", 1, 2),
    computeTemplate("big", 8, 32),
    computeTemplate("gpu", 4, 16, 1),
    computeTemplate("amd", 4, 16, 2, "amd.com/gpu"),
  ].map((t) => [t.name, t]),
);

const OPTIONS = {
  apiVersion: "ray.io/v1",
  now: new Date("2024-05-01T12:00:00.120Z"),
};

function toResource(c: Cluster): RayCluster {
  return clusterToResource(c, TEMPLATES, OPTIONS);
}

/** As the orchestrator sends and reads it back: plain JSON. */
function overJson<T>(value: T): T {
  return JSON.parse(JSON.stringify(value));
}

async function readJson<T>(name: string): Promise<T> {
  const url = new URL(`../testdata/${name}`, import.meta.url);
  return JSON.parse(await Deno.readTextFile(url));
}

function show(value: unknown): string {
  return JSON.stringify(value);
}

function assertSame(got: unknown, want: unknown, what = ""): void {
  assert.deepEqual(
    got,
    want,
    `${what}${what ? ": " : ""}got ${show(got)}, want ${show(want)}`,
  );
}

function head(resource: RayCluster) {
  return resource.spec.headGroupSpec;
}

function headContainer(resource: RayCluster) {
  return resource.spec.headGroupSpec.template.spec.containers[0];
}

function worker(resource: RayCluster, index = 0) {
  const group = resource.spec.workerGroupSpecs?.[index];
  assert.ok(group, `worker group ${index} is missing`);
  return group;
}

function workerContainer(resource: RayCluster, index = 0) {
  return worker(resource, index).template.spec.containers[0];
}

const POD_IP_ENV = {
  name: "MY_POD_IP",
  valueFrom: { fieldRef: { fieldPath: "status.podIP" } },
};

// ---------------------------------------------------------------------------
// clusterToResource

Deno.test("clusterToResource() writes a RayCluster in the KubeRay API server's format", () => {
  const input = cluster({
    environment: "PRODUCTION",
    envs: { B_VAR: "2", A_VAR: "1" },
    clusterSpec: {
      ...NO_SPEC_FIELDS,
      headGroupSpec: headGroup({
        serviceType: "NodePort",
        engineStartParams: { "dashboard-host": "0.0.0.0" },
        volumes: [volume({
          mountPath: "/logs",
          volumeType: "HOST_PATH",
          name: "logs",
          source: "/var/log/ray",
          mountPropagationMode: "HOSTTOCONTAINER",
        })],
      }),
      workerGroupSpec: [workerGroup({
        groupName: "gpu-workers",
        computeTemplate: "amd",
        image: "my.registry/ray:2.9.0-rocm",
        replicas: 1,
        minReplicas: 0,
        maxReplicas: 3,
        engineStartParams: { "num-gpus": "2" },
        volumes: [volume({ readOnly: true })],
      })],
    },
  });
  const env = [POD_IP_ENV, { name: "A_VAR", value: "1" }, {
    name: "B_VAR",
    value: "2",
  }];
  const want: RayCluster = {
    apiVersion: "ray.io/v1",
    kind: "RayCluster",
    metadata: {
      name: "blue",
      namespace: "team-a",
      labels: {
        "ray.io/cluster-name": "blue",
        "ray.io/user": "alice",
        "ray.io/version": "2.9.0",
        "ray.io/environment": "PRODUCTION",
        "app.kubernetes.io/name": "kuberay",
        "app.kubernetes.io/managed-by": "kuberay-apiserver",
      },
      annotations: {
        "ray.io/creation-timestamp": "2024-05-01 12:00:00.12 +0000 UTC",
      },
    },
    spec: {
      rayVersion: "2.9.0",
      headGroupSpec: {
        serviceType: "NodePort",
        rayStartParams: { "dashboard-host": "0.0.0.0" },
        template: {
          metadata: {
            annotations: {
              "ray.io/compute-template": "small",
              "ray.io/compute-image": "",
            },
          },
          spec: {
            containers: [{
              name: "ray-head",
              image: "rayproject/ray:2.9.0",
              env,
              ports: [
                { name: "redis", containerPort: 6379 },
                { name: "head", containerPort: 10001 },
                { name: "dashboard", containerPort: 8265 },
                { name: "metrics", containerPort: 8080 },
              ],
              resources: {
                limits: { cpu: "1", memory: "2Gi" },
                requests: { cpu: "1", memory: "2Gi" },
              },
              volumeMounts: [{
                name: "logs",
                mountPath: "/logs",
                mountPropagation: "HostToContainer",
              }],
            }],
            volumes: [{
              name: "logs",
              hostPath: { path: "/var/log/ray", type: "Directory" },
            }],
          },
        },
      },
      workerGroupSpecs: [{
        groupName: "gpu-workers",
        replicas: 1,
        minReplicas: 0,
        maxReplicas: 3,
        rayStartParams: { "num-gpus": "2" },
        template: {
          metadata: {
            annotations: {
              "ray.io/compute-template": "amd",
              "ray.io/compute-image": "my.registry/ray:2.9.0-rocm",
            },
          },
          spec: {
            containers: [{
              name: "ray-worker",
              image: "my.registry/ray:2.9.0-rocm",
              env,
              resources: {
                limits: { cpu: "4", memory: "16Gi", "amd.com/gpu": "2" },
                requests: { cpu: "4", memory: "16Gi", "amd.com/gpu": "2" },
              },
              volumeMounts: [{
                name: "data",
                mountPath: "/data",
                readOnly: true,
              }],
            }],
            volumes: [{
              name: "data",
              persistentVolumeClaim: { claimName: "data-pvc", readOnly: true },
            }],
          },
        },
      }],
    },
  };
  assertSame(toResource(input), want);
});

interface MappingCase {
  name: string;
  cluster: Cluster;
  templates?: ReadonlyMap<string, ComputeTemplate>;
  get: (resource: RayCluster) => unknown;
  want: unknown;
}

const MAPPING_CASES: MappingCase[] = [
  {
    name:
      "labels the cluster with name, user, version, environment and the managed-by label",
    cluster: cluster({
      environment: "STAGING",
      user: "bob",
      version: "2.10.0",
    }),
    get: (r) => r.metadata.labels,
    want: {
      "ray.io/cluster-name": "blue",
      "ray.io/user": "bob",
      "ray.io/version": "2.10.0",
      "ray.io/environment": "STAGING",
      "app.kubernetes.io/name": "kuberay",
      "app.kubernetes.io/managed-by": "kuberay-apiserver",
    },
  },
  {
    name: "takes name and namespace from the cluster",
    cluster: cluster({ name: "green", namespace: "team-b" }),
    get: (r) => [r.metadata.name, r.metadata.namespace],
    want: ["green", "team-b"],
  },
  {
    name: "writes ray.io/creation-timestamp in Go's time layout",
    cluster: cluster(),
    get: (r) => r.metadata.annotations,
    want: { "ray.io/creation-timestamp": "2024-05-01 12:00:00.12 +0000 UTC" },
  },
  {
    name: "sets spec.rayVersion to the version",
    cluster: cluster({ version: "2.30.0" }),
    get: (r) => r.spec.rayVersion,
    want: "2.30.0",
  },
  {
    name: "leaves spec.rayVersion out when there is no version",
    cluster: cluster({
      version: "",
      clusterSpec: {
        ...NO_SPEC_FIELDS,
        headGroupSpec: headGroup({ image: "rayproject/ray:2.9.0" }),
        workerGroupSpec: [],
      },
    }),
    get: (r) => "rayVersion" in r.spec,
    want: false,
  },
  {
    name: "defaults the image to rayproject/ray:<version>",
    cluster: cluster({
      version: "2.9.3",
      clusterSpec: {
        ...NO_SPEC_FIELDS,
        headGroupSpec: headGroup(),
        workerGroupSpec: [workerGroup()],
      },
    }),
    get: (r) => [headContainer(r).image, workerContainer(r).image],
    want: ["rayproject/ray:2.9.3", "rayproject/ray:2.9.3"],
  },
  {
    name: "runs a group's own image over the default",
    cluster: cluster({
      clusterSpec: {
        ...NO_SPEC_FIELDS,
        headGroupSpec: headGroup({ image: "my.registry/ray:head" }),
        workerGroupSpec: [workerGroup({ image: "my.registry/ray:worker" })],
      },
    }),
    get: (r) => [headContainer(r).image, workerContainer(r).image],
    want: ["my.registry/ray:head", "my.registry/ray:worker"],
  },
  {
    name: "annotates pods with the compute template and the image as given",
    cluster: cluster({
      clusterSpec: {
        ...NO_SPEC_FIELDS,
        headGroupSpec: headGroup({ image: "my.registry/ray:head" }),
        workerGroupSpec: [workerGroup({ computeTemplate: "big" })],
      },
    }),
    get: (r) => [
      head(r).template.metadata?.annotations,
      worker(r).template.metadata?.annotations,
    ],
    want: [
      {
        "ray.io/compute-template": "small",
        "ray.io/compute-image": "my.registry/ray:head",
      },
      { "ray.io/compute-template": "big", "ray.io/compute-image": "" },
    ],
  },
  {
    name: "sets the head service type when given",
    cluster: cluster({
      clusterSpec: {
        ...NO_SPEC_FIELDS,
        headGroupSpec: headGroup({ serviceType: "ClusterIP" }),
        workerGroupSpec: [],
      },
    }),
    get: (r) => head(r).serviceType,
    want: "ClusterIP",
  },
  {
    name: "leaves the head service type out when not given",
    cluster: cluster(),
    get: (r) => "serviceType" in head(r),
    want: false,
  },
  {
    name: "writes rayStartParams as {} when there are no engine start params",
    cluster: cluster({
      clusterSpec: {
        ...NO_SPEC_FIELDS,
        headGroupSpec: headGroup(),
        workerGroupSpec: [workerGroup()],
      },
    }),
    get: (r) => [head(r).rayStartParams, worker(r).rayStartParams],
    want: [{}, {}],
  },
  {
    name: "copies engine start params to rayStartParams",
    cluster: cluster({
      clusterSpec: {
        ...NO_SPEC_FIELDS,
        headGroupSpec: headGroup({
          engineStartParams: { "dashboard-host": "0.0.0.0", "num-cpus": "0" },
        }),
        workerGroupSpec: [workerGroup({
          engineStartParams: { "node-ip-address": "$MY_POD_IP" },
        })],
      },
    }),
    get: (r) => [head(r).rayStartParams, worker(r).rayStartParams],
    want: [{ "dashboard-host": "0.0.0.0", "num-cpus": "0" }, {
      "node-ip-address": "$MY_POD_IP",
    }],
  },
  {
    name:
      "gives the head container the named ports redis, head, dashboard and metrics",
    cluster: cluster(),
    get: (r) => headContainer(r).ports,
    want: [
      { name: "redis", containerPort: 6379 },
      { name: "head", containerPort: 10001 },
      { name: "dashboard", containerPort: 8265 },
      { name: "metrics", containerPort: 8080 },
    ],
  },
  {
    name: "names the containers ray-head and ray-worker",
    cluster: cluster({
      clusterSpec: {
        ...NO_SPEC_FIELDS,
        headGroupSpec: headGroup(),
        workerGroupSpec: [workerGroup()],
      },
    }),
    get: (r) => [headContainer(r).name, workerContainer(r).name],
    want: ["ray-head", "ray-worker"],
  },
  {
    name: "puts MY_POD_IP and the envs, sorted, on every container",
    cluster: cluster({
      envs: { ZETA: "z", ALPHA: "a" },
      clusterSpec: {
        ...NO_SPEC_FIELDS,
        headGroupSpec: headGroup(),
        workerGroupSpec: [workerGroup()],
      },
    }),
    get: (r) => [headContainer(r).env, workerContainer(r).env],
    want: [
      [POD_IP_ENV, { name: "ALPHA", value: "a" }, { name: "ZETA", value: "z" }],
      [POD_IP_ENV, { name: "ALPHA", value: "a" }, { name: "ZETA", value: "z" }],
    ],
  },
  {
    name:
      "requests cpu and memory in Gi from the compute template, limits equal",
    cluster: cluster({
      clusterSpec: {
        ...NO_SPEC_FIELDS,
        headGroupSpec: headGroup(),
        workerGroupSpec: [workerGroup({ computeTemplate: "big" })],
      },
    }),
    get: (r) => [headContainer(r).resources, workerContainer(r).resources],
    want: [
      {
        limits: { cpu: "1", memory: "2Gi" },
        requests: { cpu: "1", memory: "2Gi" },
      },
      {
        limits: { cpu: "8", memory: "32Gi" },
        requests: { cpu: "8", memory: "32Gi" },
      },
    ],
  },
  {
    name:
      "requests GPUs under nvidia.com/gpu when the template names no accelerator",
    cluster: cluster({
      clusterSpec: {
        ...NO_SPEC_FIELDS,
        headGroupSpec: headGroup({ computeTemplate: "gpu" }),
        workerGroupSpec: [],
      },
    }),
    get: (r) => headContainer(r).resources,
    want: {
      limits: { cpu: "4", memory: "16Gi", "nvidia.com/gpu": "1" },
      requests: { cpu: "4", memory: "16Gi", "nvidia.com/gpu": "1" },
    },
  },
  {
    name: "requests GPUs under the template's accelerator resource name",
    cluster: cluster({
      clusterSpec: {
        ...NO_SPEC_FIELDS,
        headGroupSpec: headGroup(),
        workerGroupSpec: [workerGroup({ computeTemplate: "amd" })],
      },
    }),
    get: (r) => workerContainer(r).resources,
    want: {
      limits: { cpu: "4", memory: "16Gi", "amd.com/gpu": "2" },
      requests: { cpu: "4", memory: "16Gi", "amd.com/gpu": "2" },
    },
  },
  {
    name: "requests no GPU when the template has 0, even with an accelerator",
    cluster: cluster(),
    templates: new Map([[
      "small",
      computeTemplate("small", 1, 2, 0, "nvidia.com/gpu"),
    ]]),
    get: (r) => headContainer(r).resources,
    want: {
      limits: { cpu: "1", memory: "2Gi" },
      requests: { cpu: "1", memory: "2Gi" },
    },
  },
  {
    name: "requests no resources for a group without a compute template",
    cluster: cluster({
      clusterSpec: {
        ...NO_SPEC_FIELDS,
        headGroupSpec: headGroup({ computeTemplate: "" }),
        workerGroupSpec: [],
      },
    }),
    get: (r) => [
      "resources" in headContainer(r),
      head(r).template.metadata?.annotations?.["ray.io/compute-template"],
    ],
    want: [false, ""],
  },
  {
    name: "keeps an explicit minReplicas of 0",
    cluster: cluster({
      clusterSpec: {
        ...NO_SPEC_FIELDS,
        headGroupSpec: headGroup(),
        workerGroupSpec: [workerGroup({
          replicas: 3,
          minReplicas: 0,
          maxReplicas: 10,
        })],
      },
    }),
    get: (r) => [
      worker(r).replicas,
      worker(r).minReplicas,
      worker(r).maxReplicas,
    ],
    want: [3, 0, 10],
  },
  {
    name: "uses replicas for a minReplicas or maxReplicas the caller omitted",
    cluster: cluster({
      clusterSpec: {
        ...NO_SPEC_FIELDS,
        headGroupSpec: headGroup(),
        workerGroupSpec: [
          workerGroup({ replicas: 3, minReplicas: undefined, maxReplicas: 8 }),
          workerGroup({
            groupName: "b",
            replicas: 2,
            minReplicas: 1,
            maxReplicas: undefined,
          }),
          workerGroup({
            groupName: "c",
            replicas: 0,
            minReplicas: undefined,
            maxReplicas: undefined,
          }),
        ],
      },
    }),
    get: (r) =>
      r.spec.workerGroupSpecs?.map((g) => [
        g.replicas,
        g.minReplicas,
        g.maxReplicas,
      ]),
    want: [[3, 3, 8], [2, 1, 2], [0, 0, 0]],
  },
  {
    name: "writes worker groups in order with their group names",
    cluster: cluster({
      clusterSpec: {
        ...NO_SPEC_FIELDS,
        headGroupSpec: headGroup(),
        workerGroupSpec: [
          workerGroup({ groupName: "cpu" }),
          workerGroup({ groupName: "gpu", computeTemplate: "gpu" }),
        ],
      },
    }),
    get: (r) => r.spec.workerGroupSpecs?.map((g) => g.groupName),
    want: ["cpu", "gpu"],
  },
  {
    name: "writes an empty workerGroupSpecs for a head-only cluster",
    cluster: cluster(),
    get: (r) => r.spec.workerGroupSpecs,
    want: [],
  },
  {
    name:
      "maps a PVC volume to persistentVolumeClaim.claimName, honouring readOnly",
    cluster: cluster({
      clusterSpec: {
        ...NO_SPEC_FIELDS,
        headGroupSpec: headGroup({
          volumes: [
            volume({
              name: "ro",
              mountPath: "/ro",
              source: "a",
              readOnly: true,
            }),
            volume({ name: "rw", mountPath: "/rw", source: "b" }),
          ],
        }),
        workerGroupSpec: [],
      },
    }),
    get: (r) => [head(r).template.spec.volumes, headContainer(r).volumeMounts],
    want: [
      [
        {
          name: "ro",
          persistentVolumeClaim: { claimName: "a", readOnly: true },
        },
        { name: "rw", persistentVolumeClaim: { claimName: "b" } },
      ],
      [
        { name: "ro", mountPath: "/ro", readOnly: true },
        { name: "rw", mountPath: "/rw" },
      ],
    ],
  },
  {
    name: "maps a host path volume to hostPath with type Directory or File",
    cluster: cluster({
      clusterSpec: {
        ...NO_SPEC_FIELDS,
        headGroupSpec: headGroup(),
        workerGroupSpec: [workerGroup({
          volumes: [
            volume({
              name: "dir",
              mountPath: "/dir",
              volumeType: "HOST_PATH",
              source: "/var/dir",
            }),
            volume({
              name: "file",
              mountPath: "/etc/app.conf",
              volumeType: "HOST_PATH",
              source: "/etc/app.conf",
              hostPathType: "FILE",
              readOnly: true,
            }),
          ],
        })],
      },
    }),
    get: (r) => [
      worker(r).template.spec.volumes,
      workerContainer(r).volumeMounts,
    ],
    want: [
      [
        { name: "dir", hostPath: { path: "/var/dir", type: "Directory" } },
        { name: "file", hostPath: { path: "/etc/app.conf", type: "File" } },
      ],
      [
        { name: "dir", mountPath: "/dir" },
        { name: "file", mountPath: "/etc/app.conf", readOnly: true },
      ],
    ],
  },
  {
    name: "maps mount propagation NONE, HOSTTOCONTAINER and BIDIRECTIONAL",
    cluster: cluster({
      clusterSpec: {
        ...NO_SPEC_FIELDS,
        headGroupSpec: headGroup({
          volumes: [
            volume({
              name: "a",
              mountPath: "/a",
              mountPropagationMode: "NONE",
            }),
            volume({
              name: "b",
              mountPath: "/b",
              mountPropagationMode: "HOSTTOCONTAINER",
            }),
            volume({
              name: "c",
              mountPath: "/c",
              volumeType: "HOST_PATH",
              source: "/c",
              mountPropagationMode: "BIDIRECTIONAL",
            }),
          ],
        }),
        workerGroupSpec: [],
      },
    }),
    get: (r) =>
      headContainer(r).volumeMounts?.map((m) =>
        m.mountPropagation ?? "(unset)"
      ),
    want: ["(unset)", "HostToContainer", "Bidirectional"],
  },
  {
    name: "mounts a group's volumes only into that group's pods",
    cluster: cluster({
      clusterSpec: {
        ...NO_SPEC_FIELDS,
        headGroupSpec: headGroup(),
        workerGroupSpec: [workerGroup({ volumes: [volume()] })],
      },
    }),
    get: (r) => [
      "volumes" in head(r).template.spec,
      "volumeMounts" in headContainer(r),
      worker(r).template.spec.volumes?.length,
    ],
    want: [false, false, 1],
  },
];

// The format is the KubeRay API server's (docs/design.md, "Kubernetes mapping").
Deno.test("clusterToResource() maps every field in the KubeRay API server's format", async (t) => {
  for (const c of MAPPING_CASES) {
    await t.step(c.name, () => {
      const resource = clusterToResource(
        c.cluster,
        c.templates ?? TEMPLATES,
        OPTIONS,
      );
      assertSame(c.get(resource), c.want);
    });
  }
});

Deno.test("clusterToResource() refuses a cluster whose compute templates are missing, naming them", () => {
  const input = cluster({
    clusterSpec: {
      ...NO_SPEC_FIELDS,
      headGroupSpec: headGroup({ computeTemplate: "huge" }),
      workerGroupSpec: [workerGroup({ computeTemplate: "tiny" })],
    },
  });
  assert.throws(
    () => toResource(input),
    (error: unknown) => {
      assert.ok(error instanceof ServiceError, `got ${error}`);
      assertSame(error.code, Code.FAILED_PRECONDITION, "code");
      assertSame(
        error.message,
        'Cannot create cluster "team-a/blue": compute templates "huge", "tiny" not found in namespace "team-a"',
        "message",
      );
      return true;
    },
  );
});

Deno.test("clusterToResource() refuses a cluster without a head group with INVALID_ARGUMENT", () => {
  const cases: [ClusterSpec | undefined, string][] = [
    [undefined, "cluster.clusterSpec"],
    [
      { ...NO_SPEC_FIELDS, workerGroupSpec: [] },
      "cluster.clusterSpec.headGroupSpec",
    ],
  ];
  for (const [spec, field] of cases) {
    assert.throws(
      () => toResource(cluster({ clusterSpec: spec })),
      (error: unknown) => {
        assert.ok(error instanceof ServiceError, `got ${error}`);
        assertSame(error.code, Code.INVALID_ARGUMENT, "code");
        assertSame(error.fieldViolations.map((v) => v.field), [field]);
        return true;
      },
    );
  }
});

// ---------------------------------------------------------------------------
// Round-trips

const ROUND_TRIP_CASES: { name: string; cluster: Cluster }[] = [
  { name: "a head-only cluster", cluster: cluster() },
  {
    name: "a cluster with an image and no version",
    cluster: cluster({
      version: "",
      clusterSpec: {
        ...NO_SPEC_FIELDS,
        headGroupSpec: headGroup({ image: "my.registry/ray:custom" }),
        workerGroupSpec: [workerGroup({ image: "my.registry/ray:custom" })],
      },
    }),
  },
  {
    name: "a cluster with several worker groups, min 0 included",
    cluster: cluster({
      environment: "TESTING",
      clusterSpec: {
        ...NO_SPEC_FIELDS,
        headGroupSpec: headGroup({
          serviceType: "NodePort",
          engineStartParams: { "dashboard-host": "0.0.0.0" },
        }),
        workerGroupSpec: [
          workerGroup({
            groupName: "cpu",
            replicas: 0,
            minReplicas: 0,
            maxReplicas: 0,
          }),
          workerGroupSpec("gpu", "gpu", 2, 0, 5),
          workerGroup({
            groupName: "amd",
            computeTemplate: "amd",
            image: "rocm/ray:2.9.0",
            engineStartParams: { "num-gpus": "2" },
          }),
        ],
      },
    }),
  },
  {
    name: "a cluster with PVC and host path volumes on head and workers",
    cluster: cluster({
      clusterSpec: {
        ...NO_SPEC_FIELDS,
        headGroupSpec: headGroup({
          volumes: [
            volume({ readOnly: true }),
            volume({
              name: "logs",
              mountPath: "/logs",
              volumeType: "HOST_PATH",
              source: "/var/log",
              mountPropagationMode: "HOSTTOCONTAINER",
            }),
          ],
        }),
        workerGroupSpec: [workerGroup({
          volumes: [
            volume({
              name: "conf",
              mountPath: "/etc/app.conf",
              volumeType: "HOST_PATH",
              source: "/etc/app.conf",
              hostPathType: "FILE",
              readOnly: true,
              mountPropagationMode: "BIDIRECTIONAL",
            }),
          ],
        })],
      },
    }),
  },
  {
    name: "a cluster with envs",
    cluster: cluster({
      environment: "PRODUCTION",
      envs: { AWS_REGION: "us-west-2", "dotted.name": "x", EMPTY: "" },
    }),
  },
  {
    name: "a cluster whose head has no compute template",
    cluster: cluster({
      clusterSpec: {
        ...NO_SPEC_FIELDS,
        headGroupSpec: headGroup({ computeTemplate: "" }),
        workerGroupSpec: [],
      },
    }),
  },
];

function workerGroupSpec(
  groupName: string,
  template: string,
  replicas: number,
  minReplicas: number,
  maxReplicas: number,
): WorkerGroupSpec {
  return workerGroup({
    groupName,
    computeTemplate: template,
    replicas,
    minReplicas,
    maxReplicas,
  });
}

Deno.test("clusterFromResource(clusterToResource(c)) is c, over JSON", async (t) => {
  for (const c of ROUND_TRIP_CASES) {
    await t.step(c.name, () => {
      const back = clusterFromResource(overJson(toResource(c.cluster)), []);
      assertSame(back, c.cluster);
    });
  }
});

Deno.test("clusterFromResource() reads an omitted minReplicas or maxReplicas back as the replicas written", () => {
  const input = cluster({
    clusterSpec: {
      ...NO_SPEC_FIELDS,
      headGroupSpec: headGroup(),
      workerGroupSpec: [
        workerGroup({ replicas: 3, minReplicas: undefined, maxReplicas: 5 }),
      ],
    },
  });
  const back = clusterFromResource(overJson(toResource(input)), []);
  const group = back.clusterSpec?.workerGroupSpec[0];
  assertSame([group?.minReplicas, group?.maxReplicas], [3, 5]);
});

Deno.test("a username a label cannot hold survives the round trip in an annotation", async (t) => {
  const cases: [string, string, string | undefined][] = [
    ["alice", "alice", undefined],
    [
      "alice.smith@example.com",
      "alice.smith_example.com",
      "alice.smith@example.com",
    ],
    [
      "system:serviceaccount:team-a:pipeline",
      "system_serviceaccount_team-a_pipeline",
      "system:serviceaccount:team-a:pipeline",
    ],
    ["@@alice@@", "alice", "@@alice@@"],
    [`${"u".repeat(70)}@x`, "u".repeat(63), `${"u".repeat(70)}@x`],
  ];
  for (const [user, label, annotation] of cases) {
    await t.step(user, () => {
      const resource = overJson(toResource(cluster({ user })));
      assert.equal(resource.metadata.labels?.["ray.io/user"], label);
      assert.equal(userLabelValue(user), label);
      assert.equal(resource.metadata.annotations?.["ray.io/user"], annotation);
      assert.equal(clusterFromResource(resource, []).user, user);
    });
  }
});

// ---------------------------------------------------------------------------
// Objects the KubeRay API server wrote

Deno.test("clusterFromResource() reads a RayCluster the KubeRay API server wrote, field for field", async () => {
  const resource = await readJson<RayCluster>("kuberay_raycluster.json");
  const events = await readJson<KubeEvent[]>("kuberay_events.json");
  const want: Cluster = {
    name: "test-cluster",
    namespace: "ray-system",
    user: "boris",
    version: "2.9.0",
    environment: "STAGING",
    clusterSpec: {
      ...NO_SPEC_FIELDS,
      headGroupSpec: {
        computeTemplate: "default-template",
        image: "",
        serviceType: "NodePort",
        engineStartParams: {
          "dashboard-host": "0.0.0.0",
          "metrics-export-port": "8080",
        },
        volumes: [{
          mountPath: "/home/ray/samples",
          volumeType: "HOST_PATH",
          name: "code-sample",
          source: "/var/ray/samples",
          readOnly: false,
          hostPathType: "DIRECTORY",
          mountPropagationMode: "HOSTTOCONTAINER",
          ...NO_VOLUME_FIELDS,
        }],
        ...NO_POD_SETTINGS,
        ...NO_CONTAINER_SETTINGS,
        enableIngress: false,
      },
      workerGroupSpec: [{
        ...NO_POD_SETTINGS,
        ...NO_CONTAINER_SETTINGS,
        groupName: "small-wg",
        computeTemplate: "gpu-template",
        image: "rayproject/ray:2.9.0-gpu",
        replicas: 2,
        minReplicas: 1,
        maxReplicas: 5,
        engineStartParams: { "node-ip-address": "$MY_POD_IP" },
        volumes: [{
          mountPath: "/data",
          volumeType: "PERSISTENT_VOLUME_CLAIM",
          name: "datasets",
          source: "datasets-pvc",
          readOnly: true,
          hostPathType: "DIRECTORY",
          mountPropagationMode: "NONE",
          ...NO_VOLUME_FIELDS,
        }],
      }],
    },
    createdAt: new Date("2023-09-25T10:48:35Z"),
    deletedAt: undefined,
    clusterState: "ready",
    events: [
      {
        id: "9a0b1c2d-3e4f-4a5b-8c6d-7e8f9a0b1c2d",
        name: "test-cluster.178817bd10374138",
        createdAt: new Date("2023-09-25T10:48:36Z"),
        firstTimestamp: new Date("2023-09-25T10:48:36Z"),
        lastTimestamp: new Date("2023-09-25T10:48:36Z"),
        reason: "CreatedService",
        message: "Created service ray-system/test-cluster-head-svc",
        type: "Normal",
        count: 1,
      },
      {
        id: "8c9d0e1f-2a3b-4c4d-9e5f-6a7b8c9d0e1f",
        name: "test-cluster.178817bd4d5e6f7a",
        createdAt: new Date("2023-09-25T10:48:39Z"),
        firstTimestamp: new Date("2023-09-25T10:48:39.123Z"),
        lastTimestamp: new Date("2023-09-25T10:48:39.123Z"),
        reason: "WorkerPodMissing",
        message: "Worker group small-wg is missing 1 Pod",
        type: "Warning",
        count: 1,
      },
      {
        id: "1b2c3d4e-5f6a-4b7c-8d9e-0f1a2b3c4d5e",
        name: "test-cluster.178817bd2b1c4e5f",
        createdAt: new Date("2023-09-25T10:48:37Z"),
        firstTimestamp: new Date("2023-09-25T10:48:37Z"),
        lastTimestamp: new Date("2023-09-25T10:48:41Z"),
        reason: "CreatedWorkerPod",
        message:
          "Created worker Pod ray-system/test-cluster-small-wg-worker-x7k2p",
        type: "Normal",
        count: 3,
      },
    ],
    serviceEndpoint: {
      dashboard: "31265",
      head: "31001",
      metrics: "31080",
      redis: "31379",
    },
    envs: { AWS_REGION: "us-west-2" },
    envsValuesFrom: {},
    annotations: {},
    etag: resource.metadata.resourceVersion ?? "",
    // Ready, and no status.head.serviceName: KubeRay's service name.
    clientUrl: "ray://test-cluster-head-svc.ray-system.svc:10001",
    dashboardUrl: "http://test-cluster-head-svc.ray-system.svc:8265",
    dashboardProxyUrl:
      "/apis/v1alpha2/namespaces/ray-system/clusters/test-cluster/dashboard/",
    // No corral.dev/expires-at: no expiry (and no expiresAt key).
    ttl: "",
    queue: "",
  };
  const got = clusterFromResource(resource, events);
  for (const key of Object.keys(want) as (keyof Cluster)[]) {
    assertSame(got[key], want[key], key);
  }
  assertSame(got, want);
});

Deno.test("clusterToResource() writes what the KubeRay API server writes for the same cluster", async () => {
  const kuberay = await readJson<RayCluster>("kuberay_raycluster.json");
  const templates = new Map([
    computeTemplate("default-template", 2, 4, 0, "", "ray-system"),
    computeTemplate("gpu-template", 4, 16, 1, "nvidia.com/gpu", "ray-system"),
  ].map((t) => [t.name, t]));
  // The cluster the KubeRay fixture reads back as.
  const input = clusterFromResource(kuberay, []);
  const ours = clusterToResource(input, templates, OPTIONS);

  assertSame(ours.metadata.labels, kuberay.metadata.labels, "labels");
  assertSame(ours.spec.rayVersion, kuberay.spec.rayVersion, "rayVersion");
  // The API server defaults each port's protocol to TCP.
  const theirHead = structuredClone(kuberay.spec.headGroupSpec);
  for (const port of theirHead.template.spec.containers[0].ports ?? []) {
    delete port.protocol;
  }
  assertSame(ours.spec.headGroupSpec, theirHead, "headGroupSpec");

  // KubeRay's worker container carries extra variables and a preStop hook;
  // everything Corral's API expresses is the same.
  const [theirs, mine] = [worker(kuberay), worker(ours)];
  for (
    const key of [
      "groupName",
      "replicas",
      "minReplicas",
      "maxReplicas",
      "rayStartParams",
    ] as const
  ) {
    assertSame(mine[key], theirs[key], key);
  }
  assertSame(mine.template.metadata, theirs.template.metadata, "metadata");
  assertSame(
    mine.template.spec.volumes,
    theirs.template.spec.volumes,
    "volumes",
  );
  const [theirContainer, myContainer] = [
    theirs.template.spec.containers[0],
    mine.template.spec.containers[0],
  ];
  for (const key of ["name", "image", "resources", "volumeMounts"] as const) {
    assertSame(myContainer[key], theirContainer[key], key);
  }
});

// ---------------------------------------------------------------------------
// Read-back details

function stored(overrides: (r: RayCluster) => void): RayCluster {
  const resource = overJson(toResource(cluster({
    clusterSpec: {
      ...NO_SPEC_FIELDS,
      headGroupSpec: headGroup(),
      workerGroupSpec: [workerGroup()],
    },
  })));
  resource.metadata.uid = "uid-1";
  resource.metadata.creationTimestamp = "2024-05-01T12:00:01Z";
  overrides(resource);
  return resource;
}

interface ReadBackCase {
  name: string;
  resource: RayCluster;
  get: (cluster: Cluster) => unknown;
  want: unknown;
}

const READ_BACK_CASES: ReadBackCase[] = [
  {
    name: "reads createdAt from creationTimestamp",
    resource: stored(() => {}),
    get: (c) => c.createdAt,
    want: new Date("2024-05-01T12:00:01Z"),
  },
  {
    name: "reads deletedAt from deletionTimestamp",
    resource: stored((r) => {
      r.metadata.deletionTimestamp = "2024-05-02T08:30:00Z";
    }),
    get: (c) => c.deletedAt,
    want: new Date("2024-05-02T08:30:00Z"),
  },
  {
    name: "reads clusterState as empty until the operator sets it",
    resource: stored(() => {}),
    get: (c) => c.clusterState,
    want: "",
  },
  {
    name: "reads clusterState from status.state",
    resource: stored((r) => {
      r.status = { state: "suspended" };
    }),
    get: (c) => c.clusterState,
    want: "suspended",
  },
  {
    name: "reads NodePort endpoints into serviceEndpoint",
    resource: stored((r) => {
      r.status = {
        state: "ready",
        endpoints: {
          dashboard: "30265",
          head: "30001",
          metrics: "30080",
          redis: "30379",
        },
      };
    }),
    get: (c) => c.serviceEndpoint,
    want: {
      dashboard: "30265",
      head: "30001",
      metrics: "30080",
      redis: "30379",
    },
  },
  {
    name: "reads serviceEndpoint as {} without endpoints",
    resource: stored((r) => {
      r.status = { state: "ready" };
    }),
    get: (c) => c.serviceEndpoint,
    want: {},
  },
  {
    name: "reads an unknown environment label as DEV",
    resource: stored((r) => {
      r.metadata.labels!["ray.io/environment"] = "QA";
    }),
    get: (c) => c.environment,
    want: "DEV",
  },
  {
    name: "reads a missing environment label as DEV",
    resource: stored((r) => {
      delete r.metadata.labels!["ray.io/environment"];
    }),
    get: (c) => c.environment,
    want: "DEV",
  },
  {
    name: "reads the version from spec.rayVersion when the label is missing",
    resource: stored((r) => {
      delete r.metadata.labels!["ray.io/version"];
      r.spec.rayVersion = "2.8.1";
    }),
    get: (c) => c.version,
    want: "2.8.1",
  },
  {
    name: "never swaps minReplicas and maxReplicas",
    resource: stored((r) => {
      Object.assign(r.spec.workerGroupSpecs![0], {
        replicas: 2,
        minReplicas: 1,
        maxReplicas: 9,
      });
    }),
    get: (c) => {
      const g = c.clusterSpec?.workerGroupSpec[0];
      return [g?.replicas, g?.minReplicas, g?.maxReplicas];
    },
    want: [2, 1, 9],
  },
  {
    name: "reads a missing replicas as the CRD's default 0",
    resource: stored((r) => {
      delete r.spec.workerGroupSpecs![0].replicas;
    }),
    get: (c) => c.clusterSpec?.workerGroupSpec[0].replicas,
    want: 0,
  },
  {
    name:
      "reads the image from the container when there is no image annotation",
    resource: stored((r) => {
      delete r.spec.headGroupSpec.template.metadata!.annotations![
        "ray.io/compute-image"
      ];
    }),
    get: (c) => c.clusterSpec?.headGroupSpec?.image,
    want: "rayproject/ray:2.9.0",
  },
  {
    name: "reads the container's image when someone changed it after creation",
    resource: stored((r) => {
      r.spec.headGroupSpec.template.spec.containers[0].image = "ray:patched";
    }),
    get: (c) => c.clusterSpec?.headGroupSpec?.image,
    want: "ray:patched",
  },
  {
    name:
      "reads envs from the plain values every container shares, without MY_POD_IP",
    resource: stored((r) => {
      const env = [
        {
          name: "MY_POD_IP",
          valueFrom: { fieldRef: { fieldPath: "status.podIP" } },
        },
        { name: "FROM_SECRET", valueFrom: {} },
        { name: "PLAIN", value: "1" },
        { name: "EMPTY" },
      ];
      r.spec.headGroupSpec.template.spec.containers[0].env = env;
      for (const group of r.spec.workerGroupSpecs ?? []) {
        group.template.spec.containers[0].env = [
          ...env,
          { name: "WORKER_ONLY", value: "w" },
        ];
      }
      r.spec.headGroupSpec.template.spec.containers[0].env = [
        ...env,
        { name: "HEAD_ONLY", value: "h" },
      ];
    }),
    get: (c) => [
      c.envs,
      c.clusterSpec?.headGroupSpec?.environment,
      c.clusterSpec?.workerGroupSpec.map((group) => group.environment),
    ],
    want: [
      { PLAIN: "1", EMPTY: "" },
      { HEAD_ONLY: "h" },
      [{ WORKER_ONLY: "w" }],
    ],
  },
  {
    name:
      "reads each group's environment apart from envs by the names ray.io/envs lists",
    resource: stored((r) => {
      r.metadata.annotations = {
        ...r.metadata.annotations,
        "ray.io/envs": '["SHARED"]',
      };
      const env = [{ name: "SHARED", value: "1" }, { name: "OWN", value: "1" }];
      r.spec.headGroupSpec.template.spec.containers[0].env = env;
      for (const group of r.spec.workerGroupSpecs ?? []) {
        group.template.spec.containers[0].env = env;
      }
    }),
    get: (c) => [
      c.envs,
      c.clusterSpec?.headGroupSpec?.environment,
      c.clusterSpec?.workerGroupSpec.map((group) => group.environment),
    ],
    want: [{ SHARED: "1" }, { OWN: "1" }, [{ OWN: "1" }]],
  },
  {
    name: "finds the ray-head container by name when a sidecar comes first",
    resource: stored((r) => {
      const spec = r.spec.headGroupSpec.template.spec;
      spec.containers.unshift({ name: "log-shipper", image: "fluent-bit:3" });
    }),
    get: (c) => c.clusterSpec?.headGroupSpec?.image,
    want: "",
  },
  {
    name:
      "leaves out volumes the API cannot express and volumes nothing mounts",
    resource: stored((r) => {
      const spec = r.spec.headGroupSpec.template.spec;
      spec.volumes = [
        { name: "shm", emptyDir: { medium: "Memory" } },
        { name: "config", configMap: { name: "app-config", defaultMode: 256 } },
        { name: "unmounted", persistentVolumeClaim: { claimName: "x" } },
        { name: "data", persistentVolumeClaim: { claimName: "data-pvc" } },
      ];
      spec.containers[0].volumeMounts = [
        { name: "shm", mountPath: "/dev/shm" },
        { name: "config", mountPath: "/etc/config" },
        { name: "data", mountPath: "/data" },
      ];
    }),
    get: (c) => c.clusterSpec?.headGroupSpec?.volumes,
    want: [volume()],
  },
  {
    name: "reads a PVC as read-only when only the claim says so",
    resource: stored((r) => {
      const spec = r.spec.headGroupSpec.template.spec;
      spec.volumes = [{
        name: "data",
        persistentVolumeClaim: { claimName: "data-pvc", readOnly: true },
      }];
      spec.containers[0].volumeMounts = [{ name: "data", mountPath: "/data" }];
    }),
    get: (c) => c.clusterSpec?.headGroupSpec?.volumes,
    want: [volume({ readOnly: true })],
  },
  {
    name:
      "reads an object without labels, annotations or status (kubectl-made)",
    resource: {
      apiVersion: "ray.io/v1",
      kind: "RayCluster",
      metadata: { name: "raw", namespace: "team-a" },
      spec: {
        headGroupSpec: {
          rayStartParams: {},
          template: {
            spec: {
              containers: [{ name: "ray-head", image: "rayproject/ray:2.9.0" }],
            },
          },
        },
      },
    },
    get: (c) => c,
    want: cluster({
      name: "raw",
      user: "",
      version: "",
      clusterSpec: {
        ...NO_SPEC_FIELDS,
        headGroupSpec: headGroup({
          computeTemplate: "",
          image: "rayproject/ray:2.9.0",
        }),
        workerGroupSpec: [],
      },
    }),
  },
];

Deno.test("clusterFromResource() reads every field back", async (t) => {
  for (const c of READ_BACK_CASES) {
    await t.step(c.name, () => {
      assertSame(c.get(clusterFromResource(c.resource, [])), c.want);
    });
  }
});

// ---------------------------------------------------------------------------
// Events

function kubeEvent(
  name: string,
  involvedObject: KubeEvent["involvedObject"],
  extra: Partial<KubeEvent> = {},
): KubeEvent {
  return {
    apiVersion: "v1",
    kind: "Event",
    metadata: {
      name,
      namespace: involvedObject.namespace,
      uid: `${name}-uid`,
      creationTimestamp: "2024-05-01T12:00:02Z",
    },
    involvedObject,
    reason: "Created",
    message: "m",
    type: "Normal",
    count: 1,
    firstTimestamp: "2024-05-01T12:00:02Z",
    lastTimestamp: "2024-05-01T12:00:02Z",
    ...extra,
  };
}

const BLUE = { kind: "RayCluster", namespace: "team-a", name: "blue" };

const EVENT_FILTER_CASES: {
  name: string;
  event: KubeEvent;
  kept: boolean;
}[] = [
  {
    name: "keeps an event about this cluster with its uid",
    event: kubeEvent("same-uid", { ...BLUE, uid: "uid-1" }),
    kept: true,
  },
  {
    name: "keeps an event about this cluster that carries no uid",
    event: kubeEvent("no-uid", { ...BLUE }),
    kept: true,
  },
  {
    name: "drops an event of a deleted namesake (other uid)",
    event: kubeEvent("namesake", { ...BLUE, uid: "uid-of-deleted-blue" }),
    kept: false,
  },
  {
    name: "drops an event of the same name in another namespace",
    event: kubeEvent("other-ns", { ...BLUE, namespace: "team-b" }),
    kept: false,
  },
  {
    name: "drops an event of another cluster in the namespace",
    event: kubeEvent("other-name", { ...BLUE, name: "green" }),
    kept: false,
  },
  {
    name: "drops an event of a cluster whose name merely starts the same",
    event: kubeEvent("prefix", { ...BLUE, name: "blue-2" }),
    kept: false,
  },
  {
    name: "drops an event of a Pod of the same name",
    event: kubeEvent("pod", { ...BLUE, kind: "Pod" }),
    kept: false,
  },
  {
    name: "drops an event without a kind",
    event: kubeEvent("no-kind", { namespace: "team-a", name: "blue" }),
    kept: false,
  },
];

Deno.test("eventsOfCluster() keeps only events whose involvedObject is this cluster", async (t) => {
  const resource = stored(() => {});
  for (const c of EVENT_FILTER_CASES) {
    await t.step(c.name, () => {
      const kept = eventsOfCluster(resource, [c.event]).length === 1;
      assert.equal(kept, c.kept, `got kept=${kept}, want kept=${c.kept}`);
    });
  }
});

Deno.test("eventsOfCluster() keeps the KubeRay operator's events of the fixture cluster only, oldest first", async () => {
  const resource = await readJson<RayCluster>("kuberay_raycluster.json");
  const events = await readJson<KubeEvent[]>("kuberay_events.json");
  assertSame(
    eventsOfCluster(resource, events).map((e) => e.metadata.name),
    [
      "test-cluster.178817bd10374138",
      "test-cluster.178817bd4d5e6f7a",
      "test-cluster.178817bd2b1c4e5f",
    ],
  );
});

Deno.test("clusterFromResource() shows no events of unmanaged namesakes", () => {
  const resource = stored(() => {});
  const events = [
    kubeEvent("ours", { ...BLUE, uid: "uid-1" }),
    kubeEvent("old-blue", { ...BLUE, uid: "uid-0" }),
    kubeEvent("team-b-blue", { ...BLUE, namespace: "team-b", uid: "uid-2" }),
  ];
  assertSame(
    clusterFromResource(resource, events).events.map((e) => e.name),
    ["ours"],
  );
});

const EVENT_CASES: { name: string; event: KubeEvent; want: ClusterEvent }[] = [
  {
    name: "maps a core/v1 event field for field",
    event: kubeEvent("blue.17a", BLUE, {
      reason: "CreatedWorkerPod",
      message: "Created worker Pod team-a/blue-workers-abc",
      type: "Warning",
      count: 4,
      firstTimestamp: "2024-05-01T12:00:03Z",
      lastTimestamp: "2024-05-01T12:05:00Z",
    }),
    want: {
      id: "blue.17a-uid",
      name: "blue.17a",
      createdAt: new Date("2024-05-01T12:00:02Z"),
      firstTimestamp: new Date("2024-05-01T12:00:03Z"),
      lastTimestamp: new Date("2024-05-01T12:05:00Z"),
      reason: "CreatedWorkerPod",
      message: "Created worker Pod team-a/blue-workers-abc",
      type: "Warning",
      count: 4,
    },
  },
  {
    name:
      "falls back to eventTime and counts 1 for an events.k8s.io-style event",
    event: kubeEvent("blue.17b", BLUE, {
      count: undefined,
      firstTimestamp: undefined,
      lastTimestamp: undefined,
      eventTime: "2024-05-01T12:00:04.500000Z",
    }),
    want: {
      id: "blue.17b-uid",
      name: "blue.17b",
      createdAt: new Date("2024-05-01T12:00:02Z"),
      firstTimestamp: new Date("2024-05-01T12:00:04.5Z"),
      lastTimestamp: new Date("2024-05-01T12:00:04.5Z"),
      reason: "Created",
      message: "m",
      type: "Normal",
      count: 1,
    },
  },
  {
    name: "uses the name as id and leaves unknown times unset",
    event: {
      metadata: { name: "bare" },
      involvedObject: BLUE,
    },
    want: {
      id: "bare",
      name: "bare",
      createdAt: undefined,
      firstTimestamp: undefined,
      lastTimestamp: undefined,
      reason: "",
      message: "",
      type: "",
      count: 1,
    },
  },
];

Deno.test("clusterEventFromResource() maps an Event to a ClusterEvent", async (t) => {
  for (const c of EVENT_CASES) {
    await t.step(c.name, () => {
      assertSame(clusterEventFromResource(overJson(c.event)), c.want);
    });
  }
});

// ---------------------------------------------------------------------------
// Compute templates

Deno.test("computeTemplateToConfigMap() writes the KubeRay API server's ConfigMap", () => {
  const want: ConfigMap = {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: {
      name: "gpu",
      namespace: "team-a",
      labels: {
        "ray.io/config-type": "compute-template",
        "ray.io/compute-template": "gpu",
      },
    },
    data: {
      name: "gpu",
      namespace: "team-a",
      cpu: "4",
      memory: "16",
      gpu: "1",
      gpu_accelerator: "",
    },
  };
  assertSame(computeTemplateToConfigMap(TEMPLATES.get("gpu")!), want);
});

Deno.test("computeTemplateFromConfigMap(computeTemplateToConfigMap(t)) is t, over JSON", async (t) => {
  for (
    const template of [
      ...TEMPLATES.values(),
      computeTemplate(
        "max",
        4294967295,
        4294967295,
        4294967295,
        "nvidia.com/mig-1g.5gb",
      ),
    ]
  ) {
    await t.step(template.name, () => {
      assertSame(
        computeTemplateFromConfigMap(
          overJson(computeTemplateToConfigMap(template)),
        ),
        template,
      );
    });
  }
});

Deno.test("computeTemplateFromConfigMap() reads ConfigMaps the KubeRay API server wrote", async () => {
  const configMaps = await readJson<ConfigMap[]>(
    "kuberay_compute_templates.json",
  );
  assertSame(configMaps.map(computeTemplateFromConfigMap), [
    computeTemplate("default-template", 2, 4, 0, "", "ray-system"),
    {
      ...computeTemplate(
        "gpu-template",
        4,
        16,
        1,
        "nvidia.com/gpu",
        "ray-system",
      ),
      tolerations: [{
        key: "ray.io/node-type",
        operator: "Equal",
        value: "worker",
        effect: "NoSchedule",
      }],
    },
  ]);
});

const TOLERANT_CASES: {
  name: string;
  configMap: ConfigMap;
  want: ComputeTemplate;
}[] = [
  {
    name: "reads missing keys as 0 and empty",
    configMap: {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "old", namespace: "team-a" },
      data: { cpu: "2", memory: "8" },
    },
    want: computeTemplate("old", 2, 8),
  },
  {
    name: "reads a ConfigMap without data",
    configMap: {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "empty", namespace: "team-a" },
    },
    want: computeTemplate("empty", 0, 0),
  },
  {
    name: "reads numbers that are not decimal integers as 0",
    configMap: {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "odd", namespace: "team-a" },
      data: { cpu: "1.5", memory: "4Gi", gpu: "-1" },
    },
    want: computeTemplate("odd", 0, 0),
  },
  {
    name: "prefers the object's name and namespace over the data's copies",
    configMap: {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "real", namespace: "team-b" },
      data: { name: "stale", namespace: "team-a", cpu: "1", memory: "1" },
    },
    want: computeTemplate("real", 1, 1, 0, "", "team-b"),
  },
];

Deno.test("computeTemplateFromConfigMap() tolerates incomplete ConfigMaps", async (t) => {
  for (const c of TOLERANT_CASES) {
    await t.step(c.name, () => {
      assertSame(computeTemplateFromConfigMap(c.configMap), c.want);
    });
  }
});

// ---------------------------------------------------------------------------
// referencedTemplates

Deno.test("referencedTemplates() lists each template of the head and workers once", async (t) => {
  const cases: { name: string; cluster: Cluster; want: string[] }[] = [
    { name: "head only", cluster: cluster(), want: ["small"] },
    {
      name: "distinct, head first",
      cluster: cluster({
        clusterSpec: {
          ...NO_SPEC_FIELDS,
          headGroupSpec: headGroup({ computeTemplate: "big" }),
          workerGroupSpec: [
            workerGroup({ computeTemplate: "small" }),
            workerGroup({ groupName: "b", computeTemplate: "big" }),
            workerGroup({ groupName: "c", computeTemplate: "gpu" }),
          ],
        },
      }),
      want: ["big", "small", "gpu"],
    },
    {
      name: "none for groups without templates",
      cluster: cluster({
        clusterSpec: {
          ...NO_SPEC_FIELDS,
          headGroupSpec: headGroup({ computeTemplate: "" }),
          workerGroupSpec: [workerGroup({ computeTemplate: "" })],
        },
      }),
      want: [],
    },
    {
      name: "none without a cluster spec",
      cluster: cluster({ clusterSpec: undefined }),
      want: [],
    },
  ];
  for (const c of cases) {
    await t.step(c.name, () => {
      assertSame(referencedTemplates(c.cluster), c.want);
    });
  }
});
