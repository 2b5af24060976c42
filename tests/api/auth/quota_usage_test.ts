/**
 * What quotas count (api/auth/quota_usage.ts): every pod Corral writes —
 * head, workers, a job's submitter (on an existing cluster too), a
 * service's clusters — with accelerators by name, and sums of usage as a
 * stored record holds them.
 */
import assert from "node:assert/strict";
import {
  clusterUsage,
  holdingsOf,
  podUsage,
  sumUsage,
  type Usage,
  usageWithAccelerators,
  workloadUsage,
} from "../../../api/auth/quota_usage.ts";
import type { RayJobResource } from "../../../domain/job_conversions.ts";
import type { PodTemplateSpec, RayCluster } from "../../../domain/resources.ts";
import type { RayServiceResource } from "../../../domain/service_resources.ts";

/** A pod of one container whose limits are `limits`. */
function pod(limits: Record<string, string>): PodTemplateSpec {
  return {
    spec: {
      containers: [{
        name: "ray",
        image: "rayproject/ray:2.9.0",
        resources: { limits },
      }],
    },
  };
}

/** A cluster spec: a head of `head`, `workers` workers of `worker`. */
function spec(
  head: Record<string, string>,
  workers = 0,
  worker: Record<string, string> = head,
): RayCluster["spec"] {
  return {
    headGroupSpec: { rayStartParams: {}, template: pod(head) },
    workerGroupSpecs: workers === 0 ? [] : [{
      groupName: "w",
      replicas: workers,
      maxReplicas: workers,
      rayStartParams: {},
      template: pod(worker),
    }],
  };
}

function job(
  name: string,
  fields: Partial<RayJobResource["spec"]>,
  state = "",
): RayJobResource {
  return {
    apiVersion: "ray.io/v1",
    kind: "RayJob",
    metadata: { name, labels: { "ray.io/user": "ada" } },
    spec: { entrypoint: "python train.py", ...fields },
    ...(state ? { status: { jobDeploymentStatus: state } } : {}),
  };
}

function usage(fields: Partial<Usage>): Usage {
  return {
    maxClusters: 0,
    maxWorkers: 0,
    cpu: 0,
    gpu: 0,
    memory: 0,
    ...fields,
  };
}

const submitter = (cpu: string, memory: string) => pod({ cpu, memory });

Deno.test("A job's submitter is counted, on an existing cluster too: its CPUs and memory, no cluster", () => {
  const onCluster = job("on-shared", {
    clusterSelector: { "ray.io/cluster": "shared" },
    submitterPodTemplate: submitter("1000", "4Ti"),
  });
  assert.deepEqual(
    workloadUsage(onCluster),
    usage({ cpu: 1000, memory: 4096 }),
  );
  // However the quantity is written.
  const written = job("k", {
    clusterSelector: { "ray.io/cluster": "shared" },
    submitterPodTemplate: submitter("1k", "4398046511104"),
  });
  assert.deepEqual(workloadUsage(written), usage({ cpu: 1000, memory: 4096 }));
  // Its own cluster and its submitter.
  const own = job("own", {
    rayClusterSpec: spec({ cpu: "2", memory: "4Gi" }, 1),
    submitterPodTemplate: submitter("500m", "512Mi"),
  });
  assert.deepEqual(
    workloadUsage(own),
    usage({ maxClusters: 1, maxWorkers: 1, cpu: 4.5, memory: 8.5 }),
  );
});

Deno.test("A job without a submitter counts the operator's default one; HTTPMode runs none", () => {
  const plain = job("plain", { clusterSelector: { "ray.io/cluster": "c" } });
  assert.deepEqual(workloadUsage(plain), usage({ cpu: 1, memory: 1 }));
  const http = job("http", {
    clusterSelector: { "ray.io/cluster": "c" },
    submissionMode: "HTTPMode",
  });
  assert.deepEqual(workloadUsage(http), usage({}));
});

Deno.test("holdingsOf() counts jobs until they finish, a job's cluster once, on an existing cluster too", () => {
  const jobs = [
    job("running", {
      clusterSelector: { "ray.io/cluster": "c" },
      submitterPodTemplate: submitter("2", "2Gi"),
    }, "Running"),
    job("suspended", {
      rayClusterSpec: spec({ cpu: "1", memory: "1Gi" }),
      submitterPodTemplate: submitter("1", "1Gi"),
    }, "Suspended"),
    job("done", {
      clusterSelector: { "ray.io/cluster": "c" },
      submitterPodTemplate: submitter("2", "2Gi"),
    }, "Complete"),
    job("failed", { rayClusterSpec: spec({ cpu: "8" }) }, "Failed"),
  ];
  const owned: RayCluster = {
    apiVersion: "ray.io/v1",
    kind: "RayCluster",
    metadata: {
      name: "suspended-x",
      ownerReferences: [{ kind: "RayJob", name: "suspended" }],
    } as RayCluster["metadata"],
    spec: spec({ cpu: "1", memory: "1Gi" }),
  };
  const holdings = holdingsOf([owned], jobs, []);
  assert.deepEqual(holdings.map((h) => [h.key, h.owner, h.usage]), [
    ["RayJob/running", "ada", usage({ cpu: 2, memory: 2 })],
    ["RayJob/suspended", "ada", usage({ maxClusters: 1, cpu: 2, memory: 2 })],
  ]);
});

Deno.test("holdingsOf() counts the cluster a finished job keeps while it stands, and knows owned clusters by KubeRay's labels alone (a cache drops ownerReferences)", () => {
  const kept = (name: string, owner: string): RayCluster => ({
    apiVersion: "ray.io/v1",
    kind: "RayCluster",
    metadata: {
      name,
      labels: {
        "ray.io/originated-from-crd": "RayJob",
        "ray.io/originated-from-cr-name": owner,
      },
    },
    spec: spec({ cpu: "4", memory: "2Gi" }, 1),
  });
  const jobs = [
    job("kept", {
      rayClusterSpec: spec({ cpu: "4", memory: "2Gi" }, 1),
      shutdownAfterJobFinishes: false,
    }, "Complete"),
    job("gone", { rayClusterSpec: spec({ cpu: "4" }, 1) }, "Complete"),
    job("running", { rayClusterSpec: spec({ cpu: "4", memory: "2Gi" }, 1) }),
  ];
  const holdings = holdingsOf(
    [kept("kept-x", "kept"), kept("running-x", "running")],
    jobs,
    [],
  );
  const cluster = usage({ maxClusters: 1, maxWorkers: 1, cpu: 8, memory: 4 });
  assert.deepEqual(holdings.map((h) => [h.key, h.usage]), [
    ["RayJob/kept", cluster],
    ["RayJob/running", usage({ ...cluster, cpu: 9, memory: 5 })],
  ]);
});

Deno.test("holdingsOf() counts a service's clusters: its spec, or both clusters while it upgrades", () => {
  const service = (name: string): RayServiceResource => ({
    apiVersion: "ray.io/v1",
    kind: "RayService",
    metadata: { name },
    spec: { rayClusterConfig: spec({ cpu: "2", "nvidia.com/gpu": "1" }, 1) },
  } as unknown as RayServiceResource);
  const cluster = (name: string, owner: string, gpu: string): RayCluster => ({
    apiVersion: "ray.io/v1",
    kind: "RayCluster",
    metadata: {
      name,
      ownerReferences: [{ kind: "RayService", name: owner }],
    } as RayCluster["metadata"],
    spec: spec({ cpu: "2", [gpu]: "1" }, 1),
  });
  const holdings = holdingsOf(
    [
      cluster("upgrading-active", "upgrading", "nvidia.com/gpu"),
      cluster("upgrading-pending", "upgrading", "amd.com/gpu"),
      cluster("steady-active", "steady", "nvidia.com/gpu"),
    ],
    [],
    [service("upgrading"), service("steady"), service("new")],
  );
  const one = usage({
    maxClusters: 1,
    maxWorkers: 1,
    cpu: 4,
    gpu: 2,
    extended: { "nvidia.com/gpu": 2 },
  });
  assert.deepEqual(holdings.map((h) => [h.key, h.usage]), [
    [
      "RayService/upgrading",
      usage({
        maxClusters: 2,
        maxWorkers: 2,
        cpu: 8,
        gpu: 4,
        extended: { "nvidia.com/gpu": 2, "amd.com/gpu": 2 },
      }),
    ],
    ["RayService/steady", one],
    ["RayService/new", one],
  ]);
});

Deno.test("podUsage() counts accelerators by name, gpu as the default accelerators, and takes requests where no limit is set", () => {
  const template: PodTemplateSpec = {
    spec: {
      containers: [
        {
          name: "ray",
          image: "i",
          resources: {
            limits: { cpu: "4", "nvidia.com/mig-7g.80gb": "8" },
            requests: { cpu: "2", memory: "16Gi", "example.com/fpga": "1" },
          },
        },
        { name: "sidecar", image: "i", resources: { limits: { cpu: "500m" } } },
      ],
      initContainers: [
        {
          name: "fetch",
          image: "i",
          resources: { limits: { cpu: "8", memory: "1Gi" } },
        },
        {
          name: "proxy",
          image: "i",
          restartPolicy: "Always",
          resources: { limits: { cpu: "1", memory: "1Gi" } },
        },
      ],
    },
  };
  assert.deepEqual(
    podUsage(template),
    usage({
      // The init container's 8 CPUs run alone; the sidecar beside the rest.
      cpu: 8,
      memory: 17,
      gpu: 8,
      extended: { "nvidia.com/mig-7g.80gb": 8, "example.com/fpga": 1 },
    }),
  );
});

Deno.test("usageWithAccelerators() recounts gpu under the policy's list; a usage without names keeps its gpu", () => {
  const counted = clusterUsage(
    spec({ cpu: "1", "example.com/fpga": "2", "nvidia.com/gpu": "1" }, 1),
  );
  assert.equal(counted.gpu, 2);
  assert.equal(
    usageWithAccelerators(counted, ["example.com/*", "nvidia.com/gpu"]).gpu,
    6,
  );
  assert.equal(usageWithAccelerators(counted, []).gpu, 0);
  const stored = usage({ maxClusters: 1, gpu: 3 });
  assert.equal(usageWithAccelerators(stored, []).gpu, 3);
});

Deno.test("sumUsage() adds dimensions and names, over usage stored with or without names", () => {
  const total = sumUsage([
    {
      key: "a",
      owner: "",
      usage: usage({ cpu: 1, gpu: 2, extended: { "nvidia.com/gpu": 2 } }),
    },
    {
      key: "b",
      owner: "",
      usage: usage({
        cpu: 2,
        gpu: 8,
        extended: { "nvidia.com/mig-7g.80gb": 8 },
      }),
    },
    // Stored before names were counted.
    { key: "c", owner: "", usage: usage({ maxClusters: 1, gpu: 1 }) },
    // JSON round trip, as a stored record.
    {
      key: "d",
      owner: "",
      usage: JSON.parse(
        JSON.stringify(usage({ gpu: 1, extended: { "nvidia.com/gpu": 1 } })),
      ),
    },
  ]);
  assert.deepEqual(
    total,
    usage({
      maxClusters: 1,
      cpu: 3,
      gpu: 12,
      extended: { "nvidia.com/gpu": 3, "nvidia.com/mig-7g.80gb": 8 },
    }),
  );
});
