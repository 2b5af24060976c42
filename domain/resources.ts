/**
 * The Kubernetes objects Corral reads and writes, typed as far as Corral
 * touches them. Plain JSON shapes: the orchestrator sends and receives them
 * as they are.
 */

export interface ObjectMeta {
  name: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

export interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: EnvVarSource;
}

/** core/v1 EnvVarSource: where a variable's value comes from. */
export interface EnvVarSource {
  fieldRef?: { fieldPath: string; apiVersion?: string };
  resourceFieldRef?: {
    resource: string;
    containerName?: string;
    divisor?: string;
  };
  configMapKeyRef?: { name: string; key: string; optional?: boolean };
  secretKeyRef?: { name: string; key: string; optional?: boolean };
}

export interface ContainerPort {
  name?: string;
  containerPort: number;
  protocol?: string;
}

export interface VolumeMount {
  name: string;
  mountPath: string;
  readOnly?: boolean;
  mountPropagation?: "None" | "HostToContainer" | "Bidirectional";
}

export interface Container {
  name: string;
  image: string;
  env?: EnvVar[];
  ports?: ContainerPort[];
  resources?: {
    requests?: Record<string, string>;
    limits?: Record<string, string>;
  };
  volumeMounts?: VolumeMount[];
  [key: string]: unknown;
}

export interface PodVolume {
  name: string;
  persistentVolumeClaim?: { claimName: string; readOnly?: boolean };
  hostPath?: { path: string; type?: string };
  [key: string]: unknown;
}

export interface PodTemplateSpec {
  metadata?: {
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
  };
  spec: {
    containers: Container[];
    volumes?: PodVolume[];
    serviceAccountName?: string;
    imagePullSecrets?: { name?: string }[];
    tolerations?: Record<string, string>[];
    [key: string]: unknown;
  };
}

export interface HeadGroup {
  serviceType?: string;
  rayStartParams: Record<string, string>;
  template: PodTemplateSpec;
  [key: string]: unknown;
}

export interface WorkerGroup {
  groupName: string;
  replicas?: number;
  minReplicas?: number;
  maxReplicas?: number;
  rayStartParams: Record<string, string>;
  template: PodTemplateSpec;
  [key: string]: unknown;
}

export interface RayClusterStatus {
  state?: string;
  endpoints?: Record<string, string>;
  [key: string]: unknown;
}

export interface RayCluster {
  apiVersion: string;
  kind: "RayCluster";
  metadata: ObjectMeta;
  spec: {
    rayVersion?: string;
    headGroupSpec: HeadGroup;
    workerGroupSpecs?: WorkerGroup[];
    [key: string]: unknown;
  };
  status?: RayClusterStatus;
}

export interface ConfigMap {
  apiVersion: "v1";
  kind: "ConfigMap";
  metadata: ObjectMeta;
  data?: Record<string, string>;
}

/** A core/v1 Event. */
export interface KubeEvent {
  apiVersion?: "v1";
  kind?: "Event";
  metadata: ObjectMeta;
  involvedObject: {
    apiVersion?: string;
    kind?: string;
    namespace?: string;
    name?: string;
    uid?: string;
  };
  reason?: string;
  message?: string;
  type?: string;
  count?: number;
  firstTimestamp?: string;
  lastTimestamp?: string;
  eventTime?: string;
  source?: { component?: string; host?: string };
}

/** Labels and annotations of the KubeRay API server's format. */
export const LABEL = {
  clusterName: "ray.io/cluster-name",
  user: "ray.io/user",
  version: "ray.io/version",
  environment: "ray.io/environment",
  appName: "app.kubernetes.io/name",
  managedBy: "app.kubernetes.io/managed-by",
  configType: "ray.io/config-type",
  computeTemplate: "ray.io/compute-template",
} as const;

export const APP_NAME = "kuberay";
export const MANAGED_BY = "kuberay-apiserver";
export const COMPUTE_TEMPLATE_CONFIG_TYPE = "compute-template";

export const ANNOTATION = {
  creationTimestamp: "ray.io/creation-timestamp",
  /**
   * The owner's username exactly, where the `ray.io/user` label cannot hold
   * it (an e-mail address: a label value has no "@"); Corral's own.
   */
  user: "ray.io/user",
  computeTemplate: "ray.io/compute-template",
  computeImage: "ray.io/compute-image",
  /**
   * The names of the cluster's `envs` (a JSON array), so they read back
   * apart from the variables of one group's `environment`; Corral's own.
   */
  envs: "ray.io/envs",
} as const;

/** The selector lists of clusters use: only clusters the API server manages. */
export const MANAGED_CLUSTER_SELECTOR = `${LABEL.managedBy}=${MANAGED_BY}`;
/** The field selector of events about RayClusters (of any cluster). */
export const CLUSTER_EVENTS_SELECTOR = "involvedObject.kind=RayCluster";
/** The selector of compute-template ConfigMaps. */
export const COMPUTE_TEMPLATE_SELECTOR =
  `${LABEL.configType}=${COMPUTE_TEMPLATE_CONFIG_TYPE}`;

export function isManagedCluster(cluster: RayCluster): boolean {
  return cluster.metadata.labels?.[LABEL.managedBy] === MANAGED_BY;
}

export function isComputeTemplate(configMap: ConfigMap): boolean {
  return configMap.metadata.labels?.[LABEL.configType] ===
    COMPUTE_TEMPLATE_CONFIG_TYPE;
}
