/**
 * Builders of domain values for the tests: every field set to a plain
 * default, then changed by `overrides`.
 */
import type {
  Cluster,
  HeadGroupSpec,
  Volume,
  WorkerGroupSpec,
} from "../../domain/types.ts";

/** The fields of KubeRay's current cluster spec, none set. */
export const NO_SPEC_FIELDS = {
  enableInTreeAutoscaling: false,
  autoscalerOptions: undefined,
  headServiceAnnotations: {},
} as const;

/** The container settings of a group that sets none. */
export const NO_CONTAINER_SETTINGS = {
  imagePullPolicy: "",
  securityContext: undefined,
} as const;

/** The fields of KubeRay's current volume, none set. */
export const NO_VOLUME_FIELDS = {
  storageClassName: "",
  accessMode: "RWO",
  storage: "",
  items: {},
} as const;

/** The pod settings of a group that sets none. */
export const NO_POD_SETTINGS = {
  serviceAccount: "",
  imagePullSecret: "",
  environment: {},
  annotations: {},
  labels: {},
  environmentValuesFrom: {},
} as const;

export function headGroup(
  overrides: Partial<HeadGroupSpec> = {},
): HeadGroupSpec {
  return {
    computeTemplate: "small",
    image: "",
    serviceType: "",
    enableIngress: false,
    engineStartParams: {},
    volumes: [],
    ...NO_POD_SETTINGS,
    ...NO_CONTAINER_SETTINGS,
    ...overrides,
  };
}

export function workerGroup(
  overrides: Partial<WorkerGroupSpec> = {},
): WorkerGroupSpec {
  return {
    groupName: "workers",
    computeTemplate: "small",
    image: "",
    replicas: 2,
    minReplicas: 1,
    maxReplicas: 4,
    engineStartParams: {},
    volumes: [],
    ...NO_POD_SETTINGS,
    ...NO_CONTAINER_SETTINGS,
    ...overrides,
  };
}

export function volume(overrides: Partial<Volume> = {}): Volume {
  return {
    mountPath: "/data",
    volumeType: "PERSISTENT_VOLUME_CLAIM",
    name: "data",
    source: "data-pvc",
    readOnly: false,
    hostPathType: "DIRECTORY",
    mountPropagationMode: "NONE",
    ...NO_VOLUME_FIELDS,
    ...overrides,
  };
}

/** Cluster "blue" of team-a, a head group and no worker group. */
export function cluster(overrides: Partial<Cluster> = {}): Cluster {
  return {
    name: "blue",
    namespace: "team-a",
    user: "alice",
    version: "2.9.0",
    environment: "DEV",
    clusterSpec: {
      headGroupSpec: headGroup(),
      workerGroupSpec: [],
      ...NO_SPEC_FIELDS,
    },
    createdAt: undefined,
    deletedAt: undefined,
    clusterState: "",
    events: [],
    serviceEndpoint: {},
    envs: {},
    envsValuesFrom: {},
    annotations: {},
    etag: "",
    clientUrl: "",
    dashboardUrl: "",
    dashboardProxyUrl: "",
    ttl: "",
    queue: "",
    ...overrides,
  };
}
