// Generated from proto/*.proto by `deno task types:gen` (tools/types_gen.ts).
// Do not edit: change the .proto files and run the task again.

/**
 * The service's messages, in the shape of the proto definition with
 * lowerCamelCase field names (as protobufjs names them). Every field is
 * present; an unset message field, timestamp or proto3 `optional` scalar is
 * `undefined`, enums are their value names.
 */

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
export const VOLUME_TYPES = ["PERSISTENT_VOLUME_CLAIM", "HOST_PATH"] as const;
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
}

/** The configuration of a cluster's groups. */
export interface ClusterSpec {
  /** The head group. Required. */
  headGroupSpec?: HeadGroupSpec;
  /** The worker groups. */
  workerGroupSpec: WorkerGroupSpec[];
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
  /** Start parameters of the head group. */
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
  /** Start parameters of the worker group. */
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

/** A named pod size. */
export interface ComputeTemplate {
  /**
   * Name of the template, unique in its namespace: a DNS-1123 label of at
   * most 63 characters.
   */
  name: string;
  /** Namespace of the template. */
  namespace: string;
  /** CPU cores. Must be greater than 0. */
  cpu: number;
  /** Memory in GiB. Must be greater than 0. */
  memory: number;
  /** Number of GPUs. */
  gpu: number;
  /** Kubernetes resource name of the GPU; defaults to nvidia.com/gpu. */
  gpuAccelerator: string;
  /**
   * Tolerations of every pod of a group that uses the template, so that it
   * can run on tainted nodes (GPU node pools usually are).
   */
  tolerations: PodToleration[];
}

/** A toleration of a node taint, as in a Kubernetes pod. */
export interface PodToleration {
  /**
   * The taint key the toleration applies to; empty with operator Exists
   * tolerates every taint.
   */
  key: string;
  /** Exists or Equal; empty means Equal. */
  operator: string;
  /** The taint value to match with Equal; empty with Exists. */
  value: string;
  /**
   * The taint effect to match: NoSchedule, PreferNoSchedule or NoExecute;
   * empty matches every effect.
   */
  effect: string;
}

/** The request of CreateComputeTemplate. */
export interface CreateComputeTemplateRequest {
  /** The compute template to create. */
  computeTemplate?: ComputeTemplate;
  /** The namespace to create the template in. */
  namespace: string;
}

/** The request of GetComputeTemplate. */
export interface GetComputeTemplateRequest {
  /** The name of the template. */
  name: string;
  /** The namespace of the template. */
  namespace: string;
}

/** The request of ListComputeTemplates. */
export interface ListComputeTemplatesRequest {
  /** The namespace whose templates to list. */
  namespace: string;
  /**
   * Most templates to answer, at most 1000 (larger values are taken as
   * 1000); 0 answers every template, as KubeRay's clients expect. Numbered
   * past the fields KubeRay's later releases gave this message.
   */
  pageSize: number;
  /** The next_page_token of the previous page; empty for the first page. */
  pageToken: string;
}

/** The answer of ListComputeTemplates. */
export interface ListComputeTemplatesResponse {
  /** The templates of the namespace. */
  computeTemplates: ComputeTemplate[];
  /** The token of the next page; empty on the last page. */
  nextPageToken: string;
}

/** The request of ListAllComputeTemplates. */
export interface ListAllComputeTemplatesRequest {
  /**
   * Most templates to answer, at most 1000 (larger values are taken as
   * 1000); 0 answers every template, as KubeRay's clients expect. Numbered
   * past the fields KubeRay's later releases gave this message.
   */
  pageSize: number;
  /** The next_page_token of the previous page; empty for the first page. */
  pageToken: string;
}

/** The answer of ListAllComputeTemplates. */
export interface ListAllComputeTemplatesResponse {
  /** The templates of every namespace. */
  computeTemplates: ComputeTemplate[];
  /** The token of the next page; empty on the last page. */
  nextPageToken: string;
}

/** The request of DeleteComputeTemplate. */
export interface DeleteComputeTemplateRequest {
  /** The name of the template. */
  name: string;
  /** The namespace of the template. */
  namespace: string;
}

/** The request of CreateRayJob. */
export interface CreateRayJobRequest {
  /** The job to create. */
  job?: RayJob;
  /** The namespace to create the job in. */
  namespace: string;
}

/** The request of GetRayJob. */
export interface GetRayJobRequest {
  /** The name of the job. */
  name: string;
  /** The namespace of the job. */
  namespace: string;
}

/** The request of ListRayJobs. */
export interface ListRayJobsRequest {
  /** The namespace whose jobs to list. */
  namespace: string;
  /**
   * Most jobs to answer, at most 1000 (larger values are taken as 1000); 0
   * answers every job, as KubeRay's clients expect. Numbered past the
   * fields KubeRay's later releases gave this message.
   */
  pageSize: number;
  /** The next_page_token of the previous page; empty for the first page. */
  pageToken: string;
}

/** The answer of ListRayJobs. */
export interface ListRayJobsResponse {
  /** The jobs of the namespace. */
  jobs: RayJob[];
  /**
   * The token of the next page; empty on the last page. Numbered past the
   * fields KubeRay's later releases gave this message.
   */
  nextPageToken: string;
}

/** The request of ListAllRayJobs. */
export interface ListAllRayJobsRequest {
  /**
   * Most jobs to answer, at most 1000 (larger values are taken as 1000); 0
   * answers every job, as KubeRay's clients expect.
   */
  pageSize: number;
  /** The next_page_token of the previous page; empty for the first page. */
  pageToken: string;
}

/** The answer of ListAllRayJobs. */
export interface ListAllRayJobsResponse {
  /** The jobs of every namespace. */
  jobs: RayJob[];
  /** The token of the next page; empty on the last page. */
  nextPageToken: string;
}

/** The request of UpdateRayJob. */
export interface UpdateRayJobRequest {
  /**
   * The job with its new suspend; its name and namespace, when set, must be
   * the request's.
   */
  job?: RayJob;
  /** The namespace of the job. */
  namespace: string;
  /** The name of the job. */
  name: string;
}

/** The request of DeleteRayJob. */
export interface DeleteRayJobRequest {
  /** The name of the job. */
  name: string;
  /** The namespace of the job. */
  namespace: string;
}

/** The pod that submits a job's entrypoint to its cluster. */
export interface RayJobSubmitter {
  /** The submitter's image; its Ray version should be the cluster's. */
  image: string;
  /** CPUs of the submitter, a Kubernetes quantity; "1" when empty. */
  cpu: string;
  /** Memory of the submitter, a Kubernetes quantity; "1Gi" when empty. */
  memory: string;
}

/** A job: an entrypoint run on a cluster. */
export interface RayJob {
  /**
   * The job's name, unique in its namespace: a DNS-1035 label of at most
   * 47 characters (the operator names the job's cluster after it).
   */
  name: string;
  /** The job's namespace; empty or the request's. */
  namespace: string;
  /** Who owns the job; an authenticated caller's own name when empty. */
  user: string;
  /** The Ray version of the job's own cluster (its default image). */
  version: string;
  /** The command the job runs, e.g. "python train.py". */
  entrypoint: string;
  /** Data stored with the job (the RayJob's spec.metadata). */
  metadata: Record<string, string>;
  /**
   * The job's runtime environment, in YAML (spec.runtimeEnvYAML). KubeRay
   * v0.6.0 sent it base64-encoded: a value that is base64 of text (and no
   * YAML with a key) is decoded first.
   */
  runtimeEnv: string;
  /** The Ray job id; the operator generates one when empty. */
  jobId: string;
  /** Whether the job's own cluster is deleted when the job ends. */
  shutdownAfterJobFinishes: boolean;
  /**
   * The cluster to run on: {"ray.io/cluster": "<name>"}, a cluster Corral
   * manages in the job's namespace. Exactly one of cluster_selector and
   * cluster_spec is set.
   */
  clusterSelector: Record<string, string>;
  /** The job's own cluster, as a cluster's cluster_spec. */
  clusterSpec?: ClusterSpec;
  /**
   * Seconds after the job ends before its cluster is deleted (with
   * shutdown_after_job_finishes).
   */
  ttlSecondsAfterFinished: number;
  /** The pod that submits the entrypoint; the operator's default when unset. */
  jobSubmitter?: RayJobSubmitter;
  /** CPUs reserved for the entrypoint. */
  entrypointNumCpus: number;
  /** GPUs reserved for the entrypoint. */
  entrypointNumGpus: number;
  /** Custom resources reserved for the entrypoint, a JSON object of amounts. */
  entrypointResources: string;
  /**
   * Seconds the job may be active before the operator ends it; 0 for no
   * limit.
   */
  activeDeadlineSeconds: number;
  /** Output. When the job was created. */
  createdAt?: Date;
  /** Output. When the job's deletion began. */
  deleteAt?: Date;
  /**
   * Output. The Ray job's status: PENDING, RUNNING, STOPPED, SUCCEEDED,
   * FAILED, as the operator writes it.
   */
  jobStatus: string;
  /**
   * Output. The RayJob's deployment status: Initializing, Running,
   * Complete, Failed, Suspended..., as the operator writes it.
   */
  jobDeploymentStatus: string;
  /** Output. What the operator says of the job's status. */
  message: string;
  /** Output. When the job started (its deployment left New). */
  startTime?: Date;
  /** Output. When the job ended. */
  endTime?: Date;
  /** Output. The name of the cluster the job runs on. */
  rayClusterName: string;
  /**
   * Whether the job is suspended (queued): the operator holds it, or stops
   * it and deletes its cluster, until it is resumed. Needs
   * shutdown_after_job_finishes and a cluster_spec. Corral's own: KubeRay's
   * message has none.
   */
  suspend: boolean;
  /**
   * Output. What happened to the job: the Kubernetes events about its
   * RayJob (the operator's, such as the submitter's creation or the job's
   * end), oldest first, as a cluster's events. KubeRay's RayJob message has
   * no such field: this one is Corral's.
   */
  events: ClusterEvent[];
  /**
   * The Kueue LocalQueue the job waits in for capacity, as a cluster's
   * queue: the RayJob's label kueue.x-k8s.io/queue-name. A queued job is
   * created suspended, so it needs shutdown_after_job_finishes and a
   * cluster_spec; until Kueue admits it, job_deployment_status is the
   * operator's (Suspended) and message says it waits for capacity. Field
   * 103: 101 and 102 are suspend and events.
   */
  queue: string;
}

/** The request of WatchRayJobs. */
export interface WatchRayJobsRequest {
  /** The namespace watched; empty for every namespace the caller may watch. */
  namespace: string;
  /** Only the job of this name, when set. */
  name: string;
  /**
   * Resume after this point: the resource_version of the last answer the
   * client had. Empty starts with the jobs as they are.
   */
  resourceVersion: string;
}

/** One answer of WatchRayJobs. */
export interface WatchRayJobsResponse {
  /**
   * What happened, as in WatchClusters: ADDED (the job exists: it was
   * created, or the watch starts with it), MODIFIED (its spec, status or
   * events changed), DELETED (job holds it as it last was), BOOKMARK (no
   * job: the stream is alive and has sent everything up to
   * resource_version).
   */
  type: EventType;
  /** The job, unset in a BOOKMARK. */
  job?: RayJob;
  /**
   * Where the stream is, to resume from. Empty in the ADDED events that
   * start a watch: resume from the BOOKMARK that follows them.
   */
  resourceVersion: string;
}

/** The request of CreateRayService. */
export interface CreateRayServiceRequest {
  /** The service to create. */
  service?: RayService;
  /** The namespace to create the service in. */
  namespace: string;
}

/** The request of UpdateRayService. */
export interface UpdateRayServiceRequest {
  /**
   * The service as it should be. Its name and namespace, when set, must be
   * the request's.
   */
  service?: RayService;
  /** The namespace of the service. */
  namespace: string;
  /** The name of the service. */
  name: string;
}

/** The request of GetRayService. */
export interface GetRayServiceRequest {
  /** The name of the service. */
  name: string;
  /** The namespace of the service. */
  namespace: string;
}

/** The request of ListRayServices. */
export interface ListRayServicesRequest {
  /** The namespace whose services to list. */
  namespace: string;
  /** The next_page_token of the previous page; empty for the first page. */
  pageToken: string;
  /**
   * Most services to answer, at most 1000 (larger values are taken as
   * 1000); 0 answers every service.
   */
  pageSize: number;
}

/** The answer of ListRayServices. */
export interface ListRayServicesResponse {
  /** The services of the namespace. */
  services: RayService[];
  /** How many services the list has, on every page. */
  totalSize: number;
  /** The token of the next page; empty on the last page. */
  nextPageToken: string;
}

/** The request of ListAllRayServices. */
export interface ListAllRayServicesRequest {
  /** The next_page_token of the previous page; empty for the first page. */
  pageToken: string;
  /**
   * Most services to answer, at most 1000 (larger values are taken as
   * 1000); 0 answers every service.
   */
  pageSize: number;
}

/** The answer of ListAllRayServices. */
export interface ListAllRayServicesResponse {
  /** The services of every namespace. */
  services: RayService[];
  /** How many services the list has, on every page. */
  totalSize: number;
  /** The token of the next page; empty on the last page. */
  nextPageToken: string;
}

/** The request of DeleteRayService. */
export interface DeleteRayServiceRequest {
  /** The name of the service. */
  name: string;
  /** The namespace of the service. */
  namespace: string;
}

/**
 * A Ray Serve service: the applications of a Serve config, on a cluster the
 * operator runs for them.
 */
export interface RayService {
  /**
   * Unique name of the service in its namespace: lower case letters, digits
   * and '-', starting with a letter, at most 53 characters (its cluster is
   * named after it).
   */
  name: string;
  /** Namespace of the service. */
  namespace: string;
  /** The user who owns the service. */
  user: string;
  /**
   * Serve's first config format (KubeRay v0.6.0), which the operator no
   * longer accepts: a request that sets it is INVALID_ARGUMENT. Declared so
   * that such a request decodes and is told to use serve_config_V2.
   */
  serveDeploymentGraphSpec?: ServeDeploymentGraphSpec;
  /**
   * The cluster the service runs on: a cluster's spec, with the same
   * compute templates, validation and admission.
   */
  clusterSpec?: ClusterSpec;
  /** The service's status, as the operator reports it. */
  rayServiceStatus?: RayServiceStatus;
  /** When the service was created. */
  createdAt?: Date;
  /** When the service's deletion began. */
  deleteAt?: Date;
  /**
   * The Serve config (Serve's config file format, YAML): a mapping with
   * `applications`, a list of applications each with an import_path.
   */
  serveConfig_V2: string;
  /** Engine version of the service's cluster; also picks the default image. */
  version: string;
}

/** Serve's first config format, as KubeRay v0.6.0 declared it; refused. */
export interface ServeDeploymentGraphSpec {
  /** Import path of the Serve application. */
  importPath: string;
  /** Runtime environment of the application. */
  runtimeEnv: string;
  /** Configs of its deployments. */
  serveConfigs: ServeConfig[];
}

/**
 * One deployment of Serve's first config format, as KubeRay v0.6.0
 * declared it; refused.
 */
export interface ServeConfig {
  /** Deployment name. */
  deploymentName: string;
  /** Replicas of the deployment. */
  replicas: number;
  /** Route prefix of the deployment. */
  routePrefix: string;
  /** Most concurrent queries of a replica. */
  maxConcurrentQueries: number;
  /** User config of the deployment. */
  userConfig: string;
  /** Autoscaling config of the deployment. */
  autoscalingConfig: string;
  /** Actor options of the deployment's replicas. */
  actorOptions?: ActorOptions;
}

/**
 * Actor options of Serve's first config format, as KubeRay v0.6.0 declared
 * them; refused.
 */
export interface ActorOptions {
  /** Runtime environment of the actor. */
  runtimeEnv: string;
  /** CPUs per replica. */
  cpusPerActor: number;
  /** GPUs per replica. */
  gpusPerActor: number;
  /** Heap memory per replica. */
  memoryPerActor: number;
  /** Object store memory per replica. */
  objectStoreMemoryPerActor: number;
  /** Custom resources per replica. */
  customResource: string;
  /** Accelerator type of the replicas (KubeRay's spelling). */
  accceleratorType: string;
}

/** A service's status, from the RayService's status. */
export interface RayServiceStatus {
  /**
   * Whether the service serves: "Running" when the operator says it is
   * ready (the RayService's status.serviceStatus); empty otherwise.
   */
  applicationStatus: string;
  /** Why, when the operator says: the message of its Ready condition. */
  applicationMessage: string;
  /**
   * KubeRay's deprecated per-deployment list: the deployments of every
   * application of the active cluster.
   */
  serveDeploymentStatus: ServeDeploymentStatus[];
  /** The events about the service, oldest first. */
  rayServiceEvents: RayServiceEvent[];
  /** The active cluster's name: the one serving. */
  rayClusterName: string;
  /** The active cluster's state (ready, unhealthy, failed...). */
  rayClusterState: string;
  /**
   * The active cluster's endpoints: service name (dashboard, head, serve...)
   * to port.
   */
  serviceEndpoint: Record<string, string>;
  /** The applications of the active cluster with their deployments. */
  serveApplicationStatus: ServeApplicationStatus[];
  /**
   * The pending cluster's name: the one the operator prepares to replace
   * the active one after a change of the cluster spec; empty when none.
   * Numbered past every field KubeRay's releases gave this message.
   */
  pendingRayClusterName: string;
  /** The applications of the pending cluster. */
  pendingServeApplicationStatus: ServeApplicationStatus[];
  /** How many pods serve requests now. */
  numServeEndpoints: number;
  /** The RayService's conditions (Ready, UpgradeInProgress...). */
  conditions: RayServiceCondition[];
}

/** A condition of a RayService, as Kubernetes' metav1.Condition. */
export interface RayServiceCondition {
  /** Ready, UpgradeInProgress, RollbackInProgress, Suspending, Suspended. */
  type: string;
  /** True, False or Unknown. */
  status: string;
  /** One word saying why. */
  reason: string;
  /** What happened, for people. */
  message: string;
  /** When the status last changed. */
  lastTransitionTime?: Date;
}

/** One Serve application and its deployments. */
export interface ServeApplicationStatus {
  /** The application's name. */
  name: string;
  /** Its status (RUNNING, DEPLOYING, DEPLOY_FAILED, UNHEALTHY...). */
  status: string;
  /** Details of the status. */
  message: string;
  /** Its deployments. */
  serveDeploymentStatus: ServeDeploymentStatus[];
}

/** One Serve deployment. */
export interface ServeDeploymentStatus {
  /** The deployment's name. */
  deploymentName: string;
  /** Its status (HEALTHY, UPDATING, UNHEALTHY...). */
  status: string;
  /** Details of the status. */
  message: string;
}

/** A Kubernetes event about a service. */
export interface RayServiceEvent {
  /** Unique event id. */
  id: string;
  /** The event's name. */
  name: string;
  /** When the event was created. */
  createdAt?: Date;
  /** When the event first occurred. */
  firstTimestamp?: Date;
  /** When the event most recently occurred. */
  lastTimestamp?: Date;
  /** Why the service entered its current status. */
  reason: string;
  /** What happened, for people. */
  message: string;
  /** Normal or Warning. */
  type: string;
  /** How many times the event occurred. */
  count: number;
}

/** The request of SubmitRayJob. */
export interface SubmitRayJobRequest {
  /** Required. The namespace of the cluster for the job to be created */
  namespace: string;
  /** Required. The name of the cluster for the job */
  clustername: string;
  /** Required. The job to be created. */
  jobsubmission?: RayJobSubmission;
}

/** The answer of SubmitRayJob. */
export interface SubmitRayJobReply {
  /** Created submission ID */
  submissionId: string;
}

/** The request of GetJobDetails. */
export interface GetJobDetailsRequest {
  /** Required. The namespace of the cluster for the job */
  namespace: string;
  /** Required. The name of the cluster for the job */
  clustername: string;
  /** Required. The submission id of the job */
  submissionid: string;
}

/** The request of GetJobLog. */
export interface GetJobLogRequest {
  /** Required. The namespace of the cluster for the job */
  namespace: string;
  /** Required. The name of the cluster for the job */
  clustername: string;
  /** Required. The submission id of the job */
  submissionid: string;
}

/** The answer of GetJobLog. */
export interface GetJobLogReply {
  /** Content of the log. Always from the beginning */
  log: string;
}

/** The request of ListJobDetails. */
export interface ListJobDetailsRequest {
  /** Required. The namespace of the cluster for the job */
  namespace: string;
  /** Required. The name of the cluster for the job */
  clustername: string;
}

/** The answer of ListJobDetails. */
export interface ListJobSubmissionInfo {
  /** The cluster's jobs, as the dashboard lists them. */
  submissions: JobSubmissionInfo[];
}

/** The request of StopRayJob. */
export interface StopRayJobSubmissionRequest {
  /** Required. The namespace of the cluster for the job */
  namespace: string;
  /** Required. The name of the cluster for the job */
  clustername: string;
  /** Required. The submission id of the job */
  submissionid: string;
}

/** The request of DeleteRayJob. */
export interface DeleteRayJobSubmissionRequest {
  /** Required. The namespace of the cluster for the job */
  namespace: string;
  /** Required. The name of the cluster for the job */
  clustername: string;
  /** Required. The submission id of the job */
  submissionid: string;
}

/** A job to submit. */
export interface RayJobSubmission {
  /** Required. Entry point */
  entrypoint: string;
  /** Optional submission id */
  submissionId: string;
  /** Optional. Arbitrary user-provided metadata for the job. */
  metadata: Record<string, string>;
  /**
   * Optional. The runtime environment for the job: a YAML (or JSON) mapping,
   * e.g. "working_dir: gcs://_ray_pkg_0123abcd.zip".
   */
  runtimeEnv: string;
  /** Optional. Number of CPUs to allocate for the execution of the entrypoint command, separately from any Ray tasks or actors that are created by it. */
  entrypointNumCpus: number;
  /** Optional. Number of GPUs to allocate for the execution of the entrypoint command, separately from any Ray tasks or actors that are created by it. */
  entrypointNumGpus: number;
  /** Optional. The quantity of various custom resources to allocate for the execution of the entrypoint command, separately from any Ray tasks or actors that are created by it. */
  entrypointResources: Record<string, string>;
}

/** A job as the dashboard reports it. */
export interface JobSubmissionInfo {
  /** Submission entry point */
  entrypoint: string;
  /** Job ID */
  jobId: string;
  /** Submission ID */
  submissionId: string;
  /** Submission status: PENDING, RUNNING, STOPPED, SUCCEEDED or FAILED */
  status: string;
  /** Associated message */
  message: string;
  /** Error type */
  errorType: string;
  /** Job Start time, milliseconds since the epoch */
  startTime: number;
  /** Job end time, milliseconds since the epoch */
  endTime: number;
  /** Arbitrary user-provided metadata for the job. */
  metadata: Record<string, string>;
  /**
   * The runtime environment for the job, each value as text (JSON for one
   * that is not a string)
   */
  runtimeEnv: Record<string, string>;
}

/** The request of WatchJobLog. */
export interface WatchJobLogRequest {
  /** Required. The namespace of the cluster for the job */
  namespace: string;
  /** Required. The name of the cluster for the job */
  clustername: string;
  /** Required. The submission id of the job */
  submissionid: string;
}

/** One answer of WatchJobLog. */
export interface WatchJobLogResponse {
  /** What the job logged since the previous answer. */
  log: string;
  /**
   * The job's status when this part was read; the last answer's is the
   * final one (STOPPED, SUCCEEDED or FAILED).
   */
  status: string;
}

/** The request of UploadJobPackage. */
export interface UploadJobPackageRequest {
  /** Required. The namespace of the cluster */
  namespace: string;
  /** Required. The name of the cluster */
  clustername: string;
  /** Required. The package's name: `_ray_pkg_<hash>.zip` */
  name: string;
  /**
   * Required. The zip archive, base64-encoded (standard alphabet, padded),
   * on both transports alike.
   */
  content: string;
}

/** The namespace whose usage to read. */
export interface GetQuotaUsageRequest {
  /** The namespace. */
  namespace: string;
}

/**
 * What some clusters hold: clusters, workers (the sum of worker groups'
 * max replicas), and CPUs, GPUs and memory (GiB) of their pods, head
 * included, each worker group at its max replicas.
 */
export interface QuotaAmounts {
  /** Clusters: RayClusters, jobs' own clusters and services' clusters. */
  clusters: number;
  /** Workers: the sum of worker groups' max replicas. */
  workers: number;
  /** CPUs of the pods. */
  cpu: number;
  /** GPUs of the pods (any resource whose name has "gpu" in it). */
  gpu: number;
  /** Memory of the pods, in GiB. */
  memoryGib: number;
}

/** One quota of the policy as it applies to the caller. */
export interface QuotaStatus {
  /**
   * "team-a" for the namespace's total, `user "ada" in team-a` for a
   * quota that counts each user's own clusters.
   */
  scope: string;
  /**
   * The limits; a dimension the quota does not limit is absent from
   * `limited`.
   */
  limits?: QuotaAmounts;
  /** The dimensions the quota limits: clusters, workers, cpu, gpu, memory. */
  limited: string[];
  /** What the quota counts now. */
  used?: QuotaAmounts;
}

/** A namespace's usage and the quotas that apply to the caller there. */
export interface GetQuotaUsageResponse {
  /** The namespace. */
  namespace: string;
  /** What the whole namespace holds. */
  used?: QuotaAmounts;
  /** The quotas that apply to the caller here, in the policy's order. */
  quotas: QuotaStatus[];
}

/** The API's methods, by the key of their handler. */
export interface ApiMethods {
  /**
   * Creates a cluster in a namespace. The namespace comes from the path; a
   * namespace in the body must match it. Every compute template the cluster
   * names must exist in that namespace.
   */
  "proto.ClusterService/CreateCluster": {
    request: CreateClusterRequest;
    response: Cluster;
    streaming: false;
  };
  /**
   * Gets a cluster by its name and namespace, with its state, endpoints and
   * events.
   */
  "proto.ClusterService/GetCluster": {
    request: GetClusterRequest;
    response: Cluster;
    streaming: false;
  };
  /** Lists the clusters of one namespace. */
  "proto.ClusterService/ListCluster": {
    request: ListClustersRequest;
    response: ListClustersResponse;
    streaming: false;
  };
  /** Lists the clusters of every namespace. */
  "proto.ClusterService/ListAllClusters": {
    request: ListAllClustersRequest;
    response: ListAllClustersResponse;
    streaming: false;
  };
  /**
   * Updates a cluster (AIP-134): the fields update_mask names, of
   * cluster_spec.worker_group_spec (the worker groups, replaced as a whole:
   * replicas, bounds, compute templates, images and start parameters of
   * groups; groups added or removed) and envs. Without an update_mask, the
   * fields the cluster sets are updated. With the cluster's etag, the update
   * happens only if the cluster has not changed since (ABORTED otherwise).
   */
  "proto.ClusterService/UpdateCluster": {
    request: UpdateClusterRequest;
    response: Cluster;
    streaming: false;
  };
  /**
   * Pushes a cluster's expiry back by a duration, from its current expiry
   * (or from now, for a cluster without one), never past now plus the
   * policy's maximum lifetime for the namespace. A method of its own rather
   * than UpdateCluster with an update mask on expires_at: the new time is
   * computed by the server from the stored one, so two callers extending at
   * once both count, and the caller need not know the time or the maximum.
   */
  "proto.ClusterService/ExtendCluster": {
    request: ExtendClusterRequest;
    response: Cluster;
    streaming: false;
  };
  /**
   * Deletes a cluster by its name and namespace. The runs and jobs of the
   * cluster are not deleted with it: delete those first.
   */
  "proto.ClusterService/DeleteCluster": {
    request: DeleteClusterRequest;
    response: Record<string, never>;
    streaming: false;
  };
  /**
   * Watches clusters change, as a stream: first each cluster as it is
   * (ADDED) and a BOOKMARK, then every change as it happens: a cluster
   * created (ADDED), changed in any way, its state, endpoints and events
   * included (MODIFIED), or deleted (DELETED). A BOOKMARK at least every
   * 15 s shows the stream is alive. Resumed from a resource_version, only
   * the changes after it are sent; ABORTED when that point is too old to
   * resume from. On HTTP: newline-delimited JSON ({"result": ...} per line),
   * or Server-Sent Events with Accept: text/event-stream.
   */
  "proto.ClusterService/WatchClusters": {
    request: WatchClustersRequest;
    response: WatchClustersResponse;
    streaming: true;
  };
  /**
   * Creates a compute template in a namespace. The namespace comes from the
   * path; a namespace in the body must match it.
   */
  "proto.ComputeTemplateService/CreateComputeTemplate": {
    request: CreateComputeTemplateRequest;
    response: ComputeTemplate;
    streaming: false;
  };
  /** Gets a compute template by its name and namespace. */
  "proto.ComputeTemplateService/GetComputeTemplate": {
    request: GetComputeTemplateRequest;
    response: ComputeTemplate;
    streaming: false;
  };
  /** Lists the compute templates of one namespace. */
  "proto.ComputeTemplateService/ListComputeTemplates": {
    request: ListComputeTemplatesRequest;
    response: ListComputeTemplatesResponse;
    streaming: false;
  };
  /** Lists the compute templates of every namespace. */
  "proto.ComputeTemplateService/ListAllComputeTemplates": {
    request: ListAllComputeTemplatesRequest;
    response: ListAllComputeTemplatesResponse;
    streaming: false;
  };
  /**
   * Deletes a compute template by its name and namespace. Clusters already
   * created from it keep their sizes.
   */
  "proto.ComputeTemplateService/DeleteComputeTemplate": {
    request: DeleteComputeTemplateRequest;
    response: Record<string, never>;
    streaming: false;
  };
  /**
   * Creates a job in a namespace. The namespace comes from the path; a
   * namespace in the body must match it. KubeRay v0.6.0's binding, POST
   * /apis/v1alpha2/jobs, takes it from the job (or the query parameter
   * namespace). The job brings its own cluster (cluster_spec, with the
   * compute templates, validation and admission of a cluster) or runs on a
   * cluster Corral manages in the same namespace (cluster_selector with the
   * key "ray.io/cluster"), which the caller must be allowed to update.
   */
  "proto.RayJobService/CreateRayJob": {
    request: CreateRayJobRequest;
    response: RayJob;
    streaming: false;
  };
  /** Gets a job by its name and namespace, with its status. */
  "proto.RayJobService/GetRayJob": {
    request: GetRayJobRequest;
    response: RayJob;
    streaming: false;
  };
  /** Lists the jobs of one namespace. */
  "proto.RayJobService/ListRayJobs": {
    request: ListRayJobsRequest;
    response: ListRayJobsResponse;
    streaming: false;
  };
  /** Lists the jobs of every namespace. */
  "proto.RayJobService/ListAllRayJobs": {
    request: ListAllRayJobsRequest;
    response: ListAllRayJobsResponse;
    streaming: false;
  };
  /**
   * Updates a job: only suspend may change after creation (the operator
   * acts on nothing else of a running job). Any other field of the job
   * given that differs from the job as it is is refused, naming it; fields
   * left empty and output fields are ignored. (KubeRay declares no update
   * of a job: PATCH, as UpdateCluster.)
   */
  "proto.RayJobService/UpdateRayJob": {
    request: UpdateRayJobRequest;
    response: RayJob;
    streaming: false;
  };
  /**
   * Deletes a job by its name and namespace, and with it the cluster the
   * job brought (the operator's owner reference); a cluster it ran on is
   * left.
   */
  "proto.RayJobService/DeleteRayJob": {
    request: DeleteRayJobRequest;
    response: Record<string, never>;
    streaming: false;
  };
  /**
   * Watches jobs change, as a stream, as WatchClusters does clusters:
   * first each job as it is (ADDED) and a BOOKMARK, then every change as
   * it happens: a job created (ADDED), changed in any way, its status and
   * events included (MODIFIED), or deleted (DELETED). A BOOKMARK at least
   * every 15 s shows the stream is alive. Resumed from a resource_version,
   * only the changes after it are sent; ABORTED when that point is too old
   * to resume from. On HTTP: newline-delimited JSON ({"result": ...} per
   * line), or Server-Sent Events with Accept: text/event-stream. (KubeRay
   * declares no watch of jobs.)
   */
  "proto.RayJobService/WatchRayJobs": {
    request: WatchRayJobsRequest;
    response: WatchRayJobsResponse;
    streaming: true;
  };
  /**
   * Creates a service in a namespace. The namespace comes from the path; a
   * namespace in the body must match it. Its cluster_spec is a cluster's,
   * with the same compute templates, validation and admission.
   */
  "proto.RayServeService/CreateRayService": {
    request: CreateRayServiceRequest;
    response: RayService;
    streaming: false;
  };
  /**
   * Updates a service (PUT, as KubeRay's): the whole service is sent, and
   * only what the operator applies to a running service may differ from
   * what it is: serve_config_V2, and the replicas, min_replicas and
   * max_replicas of its worker groups. Anything else that differs is
   * INVALID_ARGUMENT naming the field.
   */
  "proto.RayServeService/UpdateRayService": {
    request: UpdateRayServiceRequest;
    response: RayService;
    streaming: false;
  };
  /** Gets a service by its name and namespace, with its status and events. */
  "proto.RayServeService/GetRayService": {
    request: GetRayServiceRequest;
    response: RayService;
    streaming: false;
  };
  /** Lists the services of one namespace. */
  "proto.RayServeService/ListRayServices": {
    request: ListRayServicesRequest;
    response: ListRayServicesResponse;
    streaming: false;
  };
  /** Lists the services of every namespace. */
  "proto.RayServeService/ListAllRayServices": {
    request: ListAllRayServicesRequest;
    response: ListAllRayServicesResponse;
    streaming: false;
  };
  /**
   * Deletes a service by its name and namespace; the operator deletes its
   * clusters with it.
   */
  "proto.RayServeService/DeleteRayService": {
    request: DeleteRayServiceRequest;
    response: Record<string, never>;
    streaming: false;
  };
  /** Submits a job to the cluster's dashboard; answers its submission id. */
  "proto.RayJobSubmissionService/SubmitRayJob": {
    request: SubmitRayJobRequest;
    response: SubmitRayJobReply;
    streaming: false;
  };
  /** Gets a job of the cluster by its submission id. */
  "proto.RayJobSubmissionService/GetJobDetails": {
    request: GetJobDetailsRequest;
    response: JobSubmissionInfo;
    streaming: false;
  };
  /** Gets a job's logs so far, from the beginning. */
  "proto.RayJobSubmissionService/GetJobLog": {
    request: GetJobLogRequest;
    response: GetJobLogReply;
    streaming: false;
  };
  /** Lists the jobs of the cluster. */
  "proto.RayJobSubmissionService/ListJobDetails": {
    request: ListJobDetailsRequest;
    response: ListJobSubmissionInfo;
    streaming: false;
  };
  /** Stops a job; a job that has already ended is left as it is. */
  "proto.RayJobSubmissionService/StopRayJob": {
    request: StopRayJobSubmissionRequest;
    response: Record<string, never>;
    streaming: false;
  };
  /** Deletes a job that has ended, with its logs. */
  "proto.RayJobSubmissionService/DeleteRayJob": {
    request: DeleteRayJobSubmissionRequest;
    response: Record<string, never>;
    streaming: false;
  };
  /**
   * Follows a job's logs: what it logged so far, then each new part as it
   * comes, and a last answer with the job's final status when it ends.
   * Corral polls the dashboard's GET /api/jobs/{id}/logs and sends what is
   * new. On HTTP: newline-delimited JSON ({"result": ...} per line), or
   * Server-Sent Events with Accept: text/event-stream. (Not in KubeRay.)
   */
  "proto.RayJobSubmissionService/WatchJobLog": {
    request: WatchJobLogRequest;
    response: WatchJobLogResponse;
    streaming: true;
  };
  /**
   * Uploads a zip of a working directory as a package on the cluster, as
   * Ray's job client does: name it `_ray_pkg_<hash>.zip` and set the job's
   * runtime_env working_dir to `gcs://<name>`. Uploading a name that exists
   * replaces it. (Not in KubeRay.)
   */
  "proto.RayJobSubmissionService/UploadJobPackage": {
    request: UploadJobPackageRequest;
    response: Record<string, never>;
    streaming: false;
  };
  /**
   * The quotas that apply to the caller in a namespace, each with what it
   * counts now, read from Kubernetes: the namespace's totals and the
   * caller's own. A namespace without quotas answers its usage and no
   * quotas.
   */
  "proto.QuotaService/GetQuotaUsage": {
    request: GetQuotaUsageRequest;
    response: GetQuotaUsageResponse;
    streaming: false;
  };
}
