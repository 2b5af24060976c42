/**
 * The cluster shapes of the spec, as a user sends them over HTTP/JSON (and,
 * with `asCluster`, as the domain holds them), and the compute templates
 * they use. Shared by the tests that check what Corral writes against the
 * operator's real CRD.
 */
import { NO_ADDRESSES } from "../../domain/cluster_addresses.ts";
import type { Cluster, ComputeTemplate } from "../../domain/types.ts";
import {
  headGroup,
  NO_CONTAINER_SETTINGS,
  NO_POD_SETTINGS,
  NO_SPEC_FIELDS,
  volume,
} from "../domain/builders.ts";

/** The operator's RayCluster CRD (a vendored copy). */
export const RAY_CRD = new URL(
  "../testdata/ray.io_rayclusters.yaml",
  import.meta.url,
).pathname;

/** The operator's RayService CRD (KubeRay v1.7.0's, a vendored copy). */
export const RAY_SERVICE_CRD = new URL(
  "../testdata/ray.io_rayservices.yaml",
  import.meta.url,
).pathname;

export const NAMESPACE = "team-a";

export const TEMPLATES: ComputeTemplate[] = [
  {
    name: "small",
    namespace: NAMESPACE,
    cpu: 2,
    memory: 4,
    gpu: 0,
    gpuAccelerator: "",
    tolerations: [],
    extendedResources: {},
    memoryUnit: "",
  },
  {
    name: "gpu",
    namespace: NAMESPACE,
    cpu: 8,
    memory: 32,
    gpu: 1,
    gpuAccelerator: "",
    tolerations: [
      { key: "nvidia.com/gpu", operator: "Exists", value: "", effect: "" },
      {
        key: "dedicated",
        operator: "Equal",
        value: "ray",
        effect: "NoSchedule",
      },
    ],
    extendedResources: {},
    memoryUnit: "",
  },
  {
    name: "amd",
    namespace: NAMESPACE,
    cpu: 4,
    memory: 16,
    gpu: 2,
    gpuAccelerator: "amd.com/gpu",
    tolerations: [],
    extendedResources: {},
    memoryUnit: "",
  },
];

/** The input fields of a Cluster: what a create request carries. */
export type ClusterInput =
  & Pick<
    Cluster,
    "name" | "namespace" | "user" | "version" | "environment" | "envs"
  >
  & { clusterSpec: NonNullable<Cluster["clusterSpec"]> };

function cluster(
  name: string,
  spec: ClusterInput["clusterSpec"],
  envs: Record<string, string> = {},
): ClusterInput {
  return {
    name,
    namespace: NAMESPACE,
    user: "ada",
    version: "2.9.0",
    environment: "DEV",
    envs,
    clusterSpec: spec,
  };
}

/** Every shape of the spec, keyed by what it shows. */
export const SHAPES: Record<string, ClusterInput> = {
  "head only": cluster("head-only", {
    ...NO_SPEC_FIELDS,
    headGroupSpec: headGroup(),
    workerGroupSpec: [],
  }),
  "several worker groups": cluster("several-groups", {
    ...NO_SPEC_FIELDS,
    headGroupSpec: headGroup({
      serviceType: "NodePort",
      engineStartParams: { "dashboard-host": "0.0.0.0", "num-cpus": "0" },
    }),
    workerGroupSpec: [
      {
        ...NO_POD_SETTINGS,
        ...NO_CONTAINER_SETTINGS,
        groupName: "small-workers",
        computeTemplate: "small",
        image: "",
        replicas: 2,
        minReplicas: 0,
        maxReplicas: 4,
        engineStartParams: {},
        volumes: [],
      },
      {
        ...NO_POD_SETTINGS,
        ...NO_CONTAINER_SETTINGS,
        groupName: "fixed",
        computeTemplate: "small",
        image: "rayproject/ray:2.9.0-py310",
        replicas: 1,
        engineStartParams: { "num-cpus": "2" },
        volumes: [],
      },
      {
        ...NO_POD_SETTINGS,
        ...NO_CONTAINER_SETTINGS,
        groupName: "elastic",
        computeTemplate: "small",
        image: "",
        replicas: 0,
        minReplicas: 0,
        maxReplicas: 10,
        engineStartParams: {},
        volumes: [],
      },
    ],
  }),
  "PVC and host-path volumes": cluster("volumes", {
    ...NO_SPEC_FIELDS,
    headGroupSpec: headGroup({
      serviceType: "ClusterIP",
      volumes: [
        volume({ readOnly: true }),
        volume({
          name: "logs",
          mountPath: "/var/log/ray",
          volumeType: "HOST_PATH",
          source: "/var/log/ray",
          hostPathType: "DIRECTORY",
          mountPropagationMode: "HOSTTOCONTAINER",
        }),
      ],
    }),
    workerGroupSpec: [{
      ...NO_POD_SETTINGS,
      ...NO_CONTAINER_SETTINGS,
      groupName: "workers",
      computeTemplate: "small",
      image: "",
      replicas: 1,
      minReplicas: 1,
      maxReplicas: 2,
      engineStartParams: {},
      volumes: [
        volume({
          name: "config",
          mountPath: "/etc/app.conf",
          volumeType: "HOST_PATH",
          source: "/etc/app.conf",
          hostPathType: "FILE",
          mountPropagationMode: "BIDIRECTIONAL",
        }),
        volume({ name: "scratch", mountPath: "/scratch", source: "scratch" }),
      ],
    }],
  }),
  "envs": cluster("envs", {
    ...NO_SPEC_FIELDS,
    headGroupSpec: headGroup(),
    workerGroupSpec: [{
      ...NO_POD_SETTINGS,
      ...NO_CONTAINER_SETTINGS,
      groupName: "workers",
      computeTemplate: "small",
      image: "",
      replicas: 1,
      engineStartParams: {},
      volumes: [],
    }],
  }, { A_VAR: "1", RAY_LOG_LEVEL: "debug", "QUOTED": 'say "hi"' }),
  "pod settings": cluster("pod-settings", {
    ...NO_SPEC_FIELDS,
    headGroupSpec: headGroup({
      serviceAccount: "ray-head",
      imagePullSecret: "registry-creds",
      environment: { HEAD_MODE: "driver" },
      annotations: { "prometheus.io/scrape": "true" },
      labels: { team: "vision" },
    }),
    workerGroupSpec: [{
      groupName: "gpu",
      computeTemplate: "gpu",
      image: "rayproject/ray:2.9.0-gpu",
      replicas: 1,
      minReplicas: 0,
      maxReplicas: 2,
      engineStartParams: {},
      volumes: [],
      serviceAccount: "ray-worker",
      imagePullSecret: "registry-creds",
      environment: { NCCL_DEBUG: "INFO" },
      annotations: { "example.com/cost-center": "ml-42" },
      labels: { team: "vision", accelerator: "a100" },
      environmentValuesFrom: {},
      ...NO_CONTAINER_SETTINGS,
    }],
  }, { AWS_REGION: "eu-west-1" }),
  "GPU templates": cluster("gpu", {
    ...NO_SPEC_FIELDS,
    headGroupSpec: headGroup({
      computeTemplate: "gpu",
      image: "rayproject/ray:2.9.0-gpu",
    }),
    workerGroupSpec: [
      {
        ...NO_POD_SETTINGS,
        ...NO_CONTAINER_SETTINGS,
        groupName: "nvidia",
        computeTemplate: "gpu",
        image: "rayproject/ray:2.9.0-gpu",
        replicas: 2,
        minReplicas: 0,
        maxReplicas: 4,
        engineStartParams: { "num-gpus": "1" },
        volumes: [],
      },
      {
        ...NO_POD_SETTINGS,
        ...NO_CONTAINER_SETTINGS,
        groupName: "rocm",
        computeTemplate: "amd",
        image: "my.registry/ray:2.9.0-rocm",
        replicas: 1,
        engineStartParams: { "num-gpus": "2" },
        volumes: [],
      },
    ],
  }),
};

/** The domain Cluster a create request of `input` becomes. */
export function asCluster(input: ClusterInput): Cluster {
  return {
    ...input,
    clusterState: "",
    events: [],
    serviceEndpoint: {},
    etag: "",
    ...NO_ADDRESSES,
    ttl: "",
    queue: "",
    envsValuesFrom: {},
    annotations: {},
    ...input,
  };
}

/** Every leaf of a JSON value with its path: `spec.a[0].b`. */
export function leaves(
  value: unknown,
  path = "",
): [string, unknown][] {
  if (Array.isArray(value)) {
    if (value.length === 0) return [[path, []]];
    return value.flatMap((item, i) => leaves(item, `${path}[${i}]`));
  }
  if (typeof value === "object" && value !== null) {
    const entries = Object.entries(value);
    if (entries.length === 0) return [[path, {}]];
    return entries.flatMap(([key, item]) =>
      leaves(item, path === "" ? key : `${path}.${key}`)
    );
  }
  return [[path, value]];
}
