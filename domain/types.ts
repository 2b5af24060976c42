/**
 * The service's messages, in the shape of the proto definition with
 * lowerCamelCase field names (as protobufjs names them). Every field is
 * present; an unset message field or proto3 `optional` scalar is `undefined`,
 * an unset timestamp is `undefined`, enums are their value names.
 */

export const ENVIRONMENTS = [
  "DEV",
  "TESTING",
  "STAGING",
  "PRODUCTION",
] as const;
export type Environment = typeof ENVIRONMENTS[number];
export const VOLUME_TYPES = ["PERSISTENT_VOLUME_CLAIM", "HOST_PATH"] as const;
export type VolumeType = typeof VOLUME_TYPES[number];
export const HOST_PATH_TYPES = ["DIRECTORY", "FILE"] as const;
export type HostPathType = typeof HOST_PATH_TYPES[number];
export const MOUNT_PROPAGATION_MODES = [
  "NONE",
  "HOSTTOCONTAINER",
  "BIDIRECTIONAL",
] as const;
export type MountPropagationMode = typeof MOUNT_PROPAGATION_MODES[number];

export interface Volume {
  mountPath: string;
  volumeType: VolumeType;
  name: string;
  source: string;
  readOnly: boolean;
  hostPathType: HostPathType;
  mountPropagationMode: MountPropagationMode;
}

export interface HeadGroupSpec {
  computeTemplate: string;
  image: string;
  serviceType: string;
  engineStartParams: Record<string, string>;
  volumes: Volume[];
}

export interface WorkerGroupSpec {
  groupName: string;
  computeTemplate: string;
  image: string;
  replicas: number;
  /** proto3 `optional`: undefined when the caller did not give it. */
  minReplicas?: number;
  /** proto3 `optional`: undefined when the caller did not give it. */
  maxReplicas?: number;
  engineStartParams: Record<string, string>;
  volumes: Volume[];
}

export interface ClusterSpec {
  headGroupSpec?: HeadGroupSpec;
  workerGroupSpec: WorkerGroupSpec[];
}

export interface ClusterEvent {
  id: string;
  name: string;
  createdAt?: Date;
  firstTimestamp?: Date;
  lastTimestamp?: Date;
  reason: string;
  message: string;
  type: string;
  count: number;
}

export interface Cluster {
  name: string;
  namespace: string;
  user: string;
  version: string;
  environment: Environment;
  clusterSpec?: ClusterSpec;
  createdAt?: Date;
  deletedAt?: Date;
  clusterState: string;
  events: ClusterEvent[];
  serviceEndpoint: Record<string, string>;
  envs: Record<string, string>;
}

export interface ComputeTemplate {
  name: string;
  namespace: string;
  /** Cores. */
  cpu: number;
  /** GiB. */
  memory: number;
  gpu: number;
  /** The GPU's extended resource name; empty means `nvidia.com/gpu`. */
  gpuAccelerator: string;
}
