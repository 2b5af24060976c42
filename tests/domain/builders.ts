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
    engineStartParams: {},
    volumes: [],
    ...NO_POD_SETTINGS,
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
    clusterSpec: { headGroupSpec: headGroup(), workerGroupSpec: [] },
    createdAt: undefined,
    deletedAt: undefined,
    clusterState: "",
    events: [],
    serviceEndpoint: {},
    envs: {},
    etag: "",
    clientUrl: "",
    dashboardUrl: "",
    dashboardProxyUrl: "",
    ttl: "",
    queue: "",
    ...overrides,
  };
}
