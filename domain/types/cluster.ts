// Generated from proto/cluster.proto by `deno task types:gen` (tools/types_gen.ts).
// Do not edit: change the .proto files and run the task again.

/**
 * What happened. Values as Kubernetes names its watch events (AIP-126:
 * unprefixed, zero unspecified).
 */
export const EVENT_TYPES = [
  "EVENT_TYPE_UNSPECIFIED",
  "ADDED",
  "MODIFIED",
  "DELETED",
  "BOOKMARK",
] as const;
export type EventType = typeof EVENT_TYPES[number];

/** The deployment stage a cluster serves. */
export const ENVIRONMENTS = [
  "DEV",
  "TESTING",
  "STAGING",
  "PRODUCTION",
] as const;
export type Environment = typeof ENVIRONMENTS[number];

/** The kind of source. KubeRay's values: CONFIGMAP is the zero value. */
export const SOURCES = [
  "CONFIGMAP",
  "SECRET",
  "RESOURCEFIELD",
  "FIELD",
] as const;
export type Source = typeof SOURCES[number];

/** The kind of volume. */
export const VOLUME_TYPES = [
  "PERSISTENT_VOLUME_CLAIM",
  "HOST_PATH",
  "EPHEMERAL",
  "CONFIGMAP",
  "SECRET",
  "EMPTY_DIR",
] as const;
export type VolumeType = typeof VOLUME_TYPES[number];

/** What a host path must be. */
export const HOST_PATH_TYPES = ["DIRECTORY", "FILE"] as const;
export type HostPathType = typeof HOST_PATH_TYPES[number];

/** How mounts propagate between host and container. */
export const MOUNT_PROPAGATION_MODES = [
  "NONE",
  "HOSTTOCONTAINER",
  "BIDIRECTIONAL",
] as const;
export type MountPropagationMode = typeof MOUNT_PROPAGATION_MODES[number];

/** Access modes of an ephemeral volume's claim, as KubeRay names them. */
export const ACCESS_MODES = ["RWO", "ROX", "RWX"] as const;
export type AccessMode = typeof ACCESS_MODES[number];

/** The request of CreateCluster. */
export interface CreateClusterRequest {
  /** The cluster to create. */
  cluster?: Cluster;
  /** The namespace to create the cluster in. */
  namespace: string;
}

/** The request of GetCluster. */
export interface GetClusterRequest {
  /** The name of the cluster. */
  name: string;
  /** The namespace of the cluster. */
  namespace: string;
}

/** The request of ListCluster. */
export interface ListClustersRequest {
  /** The namespace whose clusters to list. */
  namespace: string;
  /**
   * Most clusters to answer, at most 1000 (larger values are taken as
   * 1000); 0 answers every cluster, as KubeRay's clients expect. Numbered
   * past the fields KubeRay's later releases gave this message.
   */
  pageSize: number;
  /** The next_page_token of the previous page; empty for the first page. */
  pageToken: string;
  /**
   * KubeRay's current name of page_token, with its number: the token of
   * the next page. Either name may be given; both, only if they agree.
   */
  continue: string;
  /**
   * KubeRay's current name of page_size, with its number (int64, as
   * KubeRay's). Either name may be given; both, only if they agree.
   */
  limit: number;
}

/** The answer of ListCluster. */
export interface ListClustersResponse {
  /** The clusters of the namespace. */
  clusters: Cluster[];
  /**
   * The token of the next page; empty on the last page. (The number
   * KubeRay v0.6.0 set aside for it.)
   */
  nextPageToken: string;
  /** next_page_token again, under KubeRay's current name and number. */
  continue: string;
}

/** The request of ListAllClusters. */
export interface ListAllClustersRequest {
  /**
   * Most clusters to answer, at most 1000 (larger values are taken as
   * 1000); 0 answers every cluster, as KubeRay's clients expect. Numbered
   * past the fields KubeRay's later releases gave this message.
   */
  pageSize: number;
  /** The next_page_token of the previous page; empty for the first page. */
  pageToken: string;
  /**
   * KubeRay's current name of page_token, with its number: the token of
   * the next page. Either name may be given; both, only if they agree.
   */
  continue: string;
  /**
   * KubeRay's current name of page_size, with its number (int64, as
   * KubeRay's). Either name may be given; both, only if they agree.
   */
  limit: number;
}

/** The answer of ListAllClusters. */
export interface ListAllClustersResponse {
  /** The clusters of every namespace. */
  clusters: Cluster[];
  /**
   * The token of the next page; empty on the last page. (The number
   * KubeRay v0.6.0 set aside for it.)
   */
  nextPageToken: string;
  /** next_page_token again, under KubeRay's current name and number. */
  continue: string;
}

/** The request of DeleteCluster. */
export interface DeleteClusterRequest {
  /** The name of the cluster. */
  name: string;
  /** The namespace of the cluster. */
  namespace: string;
}

/** The request of WatchClusters. */
export interface WatchClustersRequest {
  /** The namespace watched; empty for every namespace the caller may watch. */
  namespace: string;
  /** Only the cluster of this name, when set. */
  name: string;
  /**
   * Resume after this point: the resource_version of the last answer the
   * client had. Empty starts with the clusters as they are.
   */
  resourceVersion: string;
}

/** One answer of WatchClusters. */
export interface WatchClustersResponse {
  /** What happened. */
  type: EventType;
  /** The cluster, unset in a BOOKMARK. */
  cluster?: Cluster;
  /**
   * Where the stream is, to resume from. Empty in the ADDED events that
   * start a watch: resume from the BOOKMARK that follows them.
   */
  resourceVersion: string;
}

/** The request of UpdateCluster. */
export interface UpdateClusterRequest {
  /**
   * The cluster's new values of the fields update_mask names. Its name and
   * namespace, when set, must be the request's; its etag, when set, must be
   * the cluster's current one.
   */
  cluster?: Cluster;
  /**
   * The fields to update: cluster_spec.worker_group_spec and envs (on HTTP,
   * the query parameter updateMask, e.g.
   * "clusterSpec.workerGroupSpec,envs", or beside the cluster in the body:
   * {"cluster": {...}, "updateMask": "envs"}). When empty, the fields the
   * cluster sets (not empty), less name, namespace, etag and output fields.
   */
  updateMask?: { paths: string[] };
  /** The namespace of the cluster. */
  namespace: string;
  /** The name of the cluster. */
  name: string;
}

/** Asks for a cluster's expiry to be pushed back. */
export interface ExtendClusterRequest {
  /** The namespace of the cluster. */
  namespace: string;
  /** The name of the cluster. */
  name: string;
  /**
   * How much later the cluster expires: a duration such as "4h", "30m" or
   * "1h30m" (hours, minutes, seconds), more than zero.
   */
  by: string;
}

/** A compute cluster: one head group and any number of worker groups. */
export interface Cluster {
  /**
   * Unique name of the cluster in its namespace: lower case letters, digits
   * and '-', starting with a letter and ending with a letter or digit, at
   * most 53 characters (the operator derives longer names from it).
   */
  name: string;
  /** Namespace of the cluster. */
  namespace: string;
  /** The user who owns the cluster. */
  user: string;
  /** Engine version of the cluster; also picks the default image. */
  version: string;
  /** The deployment stage of the cluster. */
  environment: Environment;
  /** The cluster's configuration. */
  clusterSpec?: ClusterSpec;
  /** When the cluster was created. */
  createdAt?: Date;
  /** When the cluster's deletion began. */
  deletedAt?: Date;
  /**
   * The state the operator reports: ready, unhealthy, failed or
   * suspended; empty until the operator has set it. A queued cluster
   * (queue) that Kueue has not admitted yet reads "waiting for capacity".
   */
  clusterState: string;
  /** Events related to the cluster. */
  events: ClusterEvent[];
  /**
   * Service name (dashboard, head, metrics, redis) to port.
   * Filled when the cluster is exposed through node ports.
   */
  serviceEndpoint: Record<string, string>;
  /** Environment variables set in every container of the cluster. */
  envs: Record<string, string>;
  /**
   * The cluster's version for optimistic concurrency (AIP-154), from the
   * RayCluster's resourceVersion: changes whenever the cluster does. Sent
   * back in UpdateCluster, the update happens only if it still matches.
   * Field 14: KubeRay's Cluster message has used 1 to 13 in its versions
   * (13 for service_endpoint), never 14. Not OUTPUT_ONLY, since an update
   * sends it back.
   */
  etag: string;
  /**
   * How to reach the cluster, filled only while it is ready (cluster_state
   * "ready"), from its head service (the RayCluster's
   * status.head.serviceName, or "<name>-head-svc" as KubeRay names it).
   * Fields above 100: KubeRay's Cluster message has none of these, and
   * leaves room below for its own.
   *
   * The Ray client address inside the Kubernetes cluster:
   * "ray://<head service>.<namespace>.svc:10001".
   */
  clientUrl: string;
  /**
   * The Ray dashboard inside the Kubernetes cluster:
   * "http://<head service>.<namespace>.svc:8265".
   */
  dashboardUrl: string;
  /**
   * The Ray dashboard through Corral, for callers granted the policy verb
   * "proxy" on clusters: a path on Corral's own HTTP address,
   * "/apis/v1alpha2/namespaces/<namespace>/clusters/<name>/dashboard/".
   */
  dashboardProxyUrl: string;
  /**
   * The cluster's lifetime, on create: a duration such as "8h", "30m" or
   * "1h30m" (hours, minutes, seconds) from now. Corral deletes the cluster
   * once it is over. At most the policy's maximum for the namespace; when
   * neither ttl nor expires_at is given, the policy's default applies.
   * Not read back: expires_at says when. Fields 110 and up: expiry's own.
   */
  ttl: string;
  /**
   * When Corral deletes the cluster: set on create (instead of ttl), or
   * from ttl or the policy's default; pushed back by ExtendCluster. Stored
   * as the RayCluster's annotation corral.dev/expires-at.
   */
  expiresAt?: Date;
  /**
   * The Kueue LocalQueue the cluster waits in for capacity, in its
   * namespace: a Kubernetes object name of at most 63 characters. Written
   * as the RayCluster's label kueue.x-k8s.io/queue-name (and read back from
   * it); the cluster is then created suspended (spec.suspend) and Kueue
   * starts it once the queue's ClusterQueue has room. When empty, the
   * policy's default queue of the namespace applies, if it names one.
   * Set on create only. Field 112: Corral's own, past expiry's.
   */
  queue: string;
  /**
   * Fields 20 and up: those of KubeRay's current Cluster message that
   * KubeRay v0.6.0 did not have, under KubeRay's JSON names, at numbers
   * v0.6.0 never used here (KubeRay's own numbers for them, 7 and 8, were
   * v0.6.0's created_at and deleted_at).
   *
   * Annotations of the RayCluster itself, as KubeRay's API server writes
   * them. Keys under ray.io/, app.kubernetes.io/, kueue.x-k8s.io/,
   * corral.dev/ and kubectl.kubernetes.io/ are the service's (or kubectl's)
   * own, but for KubeRay's ray.io/enable-serve-service ("true" opens the
   * head's serve ports).
   */
  annotations: Record<string, string>;
  /**
   * Environment variables of every container of the cluster whose values
   * come from a Secret's or ConfigMap's key, or from the pod, by variable
   * name. KubeRay's current Cluster has them as the valuesFrom of envs (an
   * EnvironmentVariables message where v0.6.0 had the map Corral keeps in
   * 12): on HTTP, envs takes that shape too, {"values": {...},
   * "valuesFrom": {...}}, the values going to envs and valuesFrom here.
   */
  envsValuesFrom: Record<string, EnvValueFrom>;
}

/** The configuration of a cluster's groups. */
export interface ClusterSpec {
  /** The head group. Required. */
  headGroupSpec?: HeadGroupSpec;
  /** The worker groups. */
  workerGroupSpec: WorkerGroupSpec[];
  /**
   * Fields 3 to 5: KubeRay's current ones, at KubeRay's numbers (v0.6.0
   * used only 1 and 2 here).
   *
   * Let the operator run Ray's autoscaler beside the head (a container of
   * the head pod, counted in quotas), scaling worker groups between their
   * bounds.
   */
  enableInTreeAutoscaling: boolean;
  /**
   * Settings of that autoscaler; taken only with
   * enable_in_tree_autoscaling, as KubeRay's API server takes them.
   */
  autoscalerOptions?: AutoscalerOptions;
  /** Annotations of the head's Kubernetes service. */
  headServiceAnnotations: Record<string, string>;
}

/**
 * Settings of Ray's autoscaler, as KubeRay's message of this name has them
 * (same names and numbers).
 */
export interface AutoscalerOptions {
  /**
   * Seconds a worker stays idle before it is removed; the operator's
   * default (60) when 0.
   */
  idleTimeoutSeconds: number;
  /**
   * How fast to scale up: Default, Aggressive or Conservative; the
   * operator's default when empty.
   */
  upscalingMode: string;
  /** Container image of the autoscaler; the head's when empty. */
  image: string;
  /** Always, or empty for the operator's default (IfNotPresent). */
  imagePullPolicy: string;
  /**
   * CPU of the autoscaler container, a Kubernetes quantity ("500m"); with
   * memory set and this empty, 500m.
   */
  cpu: string;
  /**
   * Memory of the autoscaler container, a Kubernetes quantity ("512Mi");
   * with cpu set and this empty, 512Mi.
   */
  memory: string;
  /**
   * Environment variables of the autoscaler container, each valuesFrom
   * entry one variable from one key, as a group's. (KubeRay's API server
   * brings in every key of the Secret or ConfigMap instead, its variable
   * name and key unused.)
   */
  envs?: EnvironmentVariables;
  /**
   * Mounts of the head pod's volumes into the autoscaler container, by
   * name: each names a volume of the head group.
   */
  volumes: Volume[];
}

/** Environment variables, as KubeRay's message of this name has them. */
export interface EnvironmentVariables {
  /** Variables by name, with their values. */
  values: Record<string, string>;
  /** Variables by name, with where their values come from. */
  valuesFrom: Record<string, EnvValueFrom>;
}

/**
 * A container's security context, as KubeRay's message of this name has
 * it: set on the group's Ray container.
 */
export interface SecurityContext {
  /** Linux capabilities added and dropped. */
  capabilities?: Capabilities;
  /**
   * Run the container privileged.
   * Undefined when not set (proto3 `optional`).
   */
  privileged?: boolean;
}

/** Linux capabilities of a container, such as "NET_ADMIN" or "SYS_PTRACE". */
export interface Capabilities {
  /** Capabilities added. */
  add: string[];
  /** Capabilities dropped. */
  drop: string[];
}

/** The head group of a cluster. */
export interface HeadGroupSpec {
  /** Name of the compute template that sizes the head pod. */
  computeTemplate: string;
  /**
   * Container image of the head; defaults to the image of the cluster's
   * version.
   */
  image: string;
  /**
   * Kubernetes service type of the head: ClusterIP, NodePort or
   * LoadBalancer.
   */
  serviceType: string;
  /**
   * Start parameters of the head group. On HTTP, KubeRay's name for them,
   * rayStartParams, is taken too, and answers in KubeRay's JSON dialect
   * (--kuberay-json) use it.
   */
  engineStartParams: Record<string, string>;
  /** Volumes mounted into the head pod. */
  volumes: Volume[];
  /**
   * Kubernetes service account the head pod runs as; the namespace's
   * default when empty.
   */
  serviceAccount: string;
  /** Name of the Secret holding the credentials to pull the head's image. */
  imagePullSecret: string;
  /**
   * Environment variables of the head container only, in addition to the
   * cluster's envs (a name may be set in one of the two, not both). Their
   * values are readable by everyone who may read the cluster: put secrets in
   * environment_values_from. On HTTP, KubeRay's shape is accepted here too:
   * {"values": {...}, "valuesFrom": {...}}, the values going here and
   * valuesFrom to environment_values_from.
   */
  environment: Record<string, string>;
  /**
   * Annotations of the head pod. Keys under ray.io/, app.kubernetes.io/
   * and kueue.x-k8s.io/ are the service's own.
   */
  annotations: Record<string, string>;
  /**
   * Labels of the head pod. Keys under ray.io/, app.kubernetes.io/ and
   * kueue.x-k8s.io/ are the service's own (a queue is the cluster's queue).
   */
  labels: Record<string, string>;
  /**
   * Environment variables of the head container whose values come from a
   * Secret's or ConfigMap's key, or from the pod (Kubernetes' valueFrom),
   * by variable name; a name may be set in one of envs, environment and
   * this. KubeRay has them as the valuesFrom of its EnvironmentVariables
   * message, in field 9, whose type replaced the map of field 8 that Corral
   * keeps: changing a field's type breaks every gRPC client of it, and
   * Corral's 9 is annotations. So this is a new field, numbered past every
   * field KubeRay's releases gave this message (13).
   */
  environmentValuesFrom: Record<string, EnvValueFrom>;
  /**
   * Fields 12, 13 and 21: KubeRay's current ones that v0.6.0 did not have
   * (12 and 13 at KubeRay's numbers; its 4 for enable_ingress was v0.6.0's
   * ray_start_params, so 21, past Corral's 20).
   *
   * Always pulls the head's image on every start; empty or any other value
   * leaves Kubernetes' default (IfNotPresent), as KubeRay's API server does.
   */
  imagePullPolicy: string;
  /** The security context of the head's Ray container. */
  securityContext?: SecurityContext;
  /** Let the operator create an Ingress for the head's dashboard. */
  enableIngress: boolean;
}

/** A group of identical worker pods. */
export interface WorkerGroupSpec {
  /** Name of the worker group, unique in the cluster. Required. */
  groupName: string;
  /** Name of the compute template that sizes the worker pods. */
  computeTemplate: string;
  /**
   * Container image of the workers; defaults to the image of the cluster's
   * version.
   */
  image: string;
  /** Desired number of workers. Required. */
  replicas: number;
  /**
   * Minimum number of workers; defaults to replicas. 0 is a valid minimum.
   * Undefined when not set (proto3 `optional`).
   */
  minReplicas?: number;
  /**
   * Maximum number of workers; defaults to replicas.
   * Undefined when not set (proto3 `optional`).
   */
  maxReplicas?: number;
  /**
   * Start parameters of the worker group. On HTTP, KubeRay's name for them,
   * rayStartParams, is taken too, and answers in KubeRay's JSON dialect
   * (--kuberay-json) use it.
   */
  engineStartParams: Record<string, string>;
  /** Volumes mounted into the worker pods. */
  volumes: Volume[];
  /**
   * Kubernetes service account the worker pods run as; the namespace's
   * default when empty.
   */
  serviceAccount: string;
  /** Name of the Secret holding the credentials to pull the workers' image. */
  imagePullSecret: string;
  /**
   * Environment variables of the worker containers only, in addition to the
   * cluster's envs (a name may be set in one of the two, not both). Their
   * values are readable by everyone who may read the cluster: put secrets in
   * environment_values_from. On HTTP, KubeRay's shape is accepted here too:
   * {"values": {...}, "valuesFrom": {...}}, the values going here and
   * valuesFrom to environment_values_from.
   */
  environment: Record<string, string>;
  /**
   * Annotations of the worker pods. Keys under ray.io/, app.kubernetes.io/
   * and kueue.x-k8s.io/ are the service's own.
   */
  annotations: Record<string, string>;
  /**
   * Labels of the worker pods. Keys under ray.io/, app.kubernetes.io/ and
   * kueue.x-k8s.io/ are the service's own (a queue is the cluster's queue).
   */
  labels: Record<string, string>;
  /**
   * Environment variables of the worker containers whose values come from
   * a Secret's or ConfigMap's key, or from the pod (Kubernetes' valueFrom),
   * by variable name; a name may be set in one of envs, environment and
   * this. KubeRay has them as the valuesFrom of its EnvironmentVariables
   * message, in field 11, whose type replaced the map that Corral keeps
   * there: changing a field's type breaks every gRPC client of it. So this
   * is a new field, numbered past every field KubeRay's releases gave this
   * message (15).
   */
  environmentValuesFrom: Record<string, EnvValueFrom>;
  /**
   * Fields 14 and 15: KubeRay's current ones, at KubeRay's numbers (v0.6.0
   * used 1 to 13 here).
   *
   * Always pulls the workers' image on every start; empty or any other
   * value leaves Kubernetes' default (IfNotPresent), as KubeRay does.
   */
  imagePullPolicy: string;
  /** The security context of the workers' Ray container. */
  securityContext?: SecurityContext;
}

/**
 * Where an environment variable's value comes from, as KubeRay's message
 * of this name has it (same names and numbers): a key of a Secret or
 * ConfigMap of the cluster's namespace, a resource of the container, or a
 * field of the pod.
 */
export interface EnvValueFrom {
  /** The kind of source. */
  source: Source;
  /** The Secret or ConfigMap, or the container of a resource. */
  name: string;
  /** The Secret's or ConfigMap's key, the resource, or the field path. */
  key: string;
}

/** A volume mounted into the pods of a group. */
export interface Volume {
  /** Absolute path of the mount in the container. */
  mountPath: string;
  /** The kind of volume. */
  volumeType: VolumeType;
  /** Name of the volume, unique in the group. */
  name: string;
  /** The claim name of a persistent volume claim, or the path on the host. */
  source: string;
  /** Mount the volume read-only. */
  readOnly: boolean;
  /** For a host path: whether it is a directory or a file. */
  hostPathType: HostPathType;
  /** How mounts propagate between host and container. */
  mountPropagationMode: MountPropagationMode;
  /**
   * Fields 8 to 11: KubeRay's after v0.6.0, at its numbers.
   *
   * For an ephemeral volume: its claim's storage class; the cluster's
   * default when empty.
   */
  storageClassName: string;
  /** For an ephemeral volume: its claim's access mode. */
  accessMode: AccessMode;
  /**
   * A Kubernetes quantity ("10Gi"): an ephemeral volume's size (required),
   * an empty directory's size limit.
   */
  storage: string;
  /**
   * For a ConfigMap or Secret: the keys mounted, each to its path in the
   * volume; every key when empty.
   */
  items: Record<string, string>;
}

/** A Kubernetes event about a cluster. */
export interface ClusterEvent {
  /** Unique event id. */
  id: string;
  /** Human-readable event name. */
  name: string;
  /** When the event was created. */
  createdAt?: Date;
  /** When the event first occurred. */
  firstTimestamp?: Date;
  /** When the event most recently occurred. */
  lastTimestamp?: Date;
  /** Why the cluster entered its current status. */
  reason: string;
  /** Human-readable description of the status of the operation. */
  message: string;
  /** Normal or Warning; more types may be added later. */
  type: string;
  /** How many times the event occurred. */
  count: number;
}
