// Generated from proto/job.proto by `deno task types:gen` (tools/types_gen.ts).
// Do not edit: change the .proto files and run the task again.

import type { ClusterEvent, ClusterSpec, EventType } from "./cluster.ts";

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

/** The answer of ListRayJobs. */
export interface ListRayJobsResponse {
  /** The jobs of the namespace. */
  jobs: RayJob[];
  /**
   * The token of the next page; empty on the last page. Numbered past the
   * fields KubeRay's later releases gave this message.
   */
  nextPageToken: string;
  /** next_page_token again, under KubeRay's current name and number. */
  continue: string;
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

/** The answer of ListAllRayJobs. */
export interface ListAllRayJobsResponse {
  /** The jobs of every namespace. */
  jobs: RayJob[];
  /** The token of the next page; empty on the last page. */
  nextPageToken: string;
  /** next_page_token again, under KubeRay's current name and number. */
  continue: string;
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
  /**
   * The job's lifetime, on create: a duration such as "8h", "30m" or
   * "1h30m" (hours, minutes, seconds) from now. Corral deletes the job, and
   * its cluster with it, once it is over, whether or not the job has
   * ended. At most the policy's maximum for the namespace; when neither
   * ttl nor expires_at is given, the policy's default applies, else its
   * maximum. Not read back: expires_at says when. Fields 110 and up:
   * expiry's own, as a cluster's.
   */
  ttl: string;
  /**
   * When Corral deletes the job: set on create (instead of ttl), or from
   * ttl or the policy. Stored as the RayJob's annotation
   * corral.dev/expires-at, which the operator copies to the job's cluster.
   */
  expiresAt?: Date;
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

/** The request of GetRayJobLog. */
export interface GetRayJobLogRequest {
  /** The name of the job. */
  name: string;
  /** The namespace of the job. */
  namespace: string;
  /** Only the last lines, this many; 0 (unset) answers the whole log. */
  tailLines: number;
}

/** The answer of GetRayJobLog. */
export interface GetRayJobLogReply {
  /**
   * What the job's submitter printed, from the beginning (or its last
   * tail_lines lines).
   */
  log: string;
}

/** The request of WatchRayJobLog. */
export interface WatchRayJobLogRequest {
  /** The name of the job. */
  name: string;
  /** The namespace of the job. */
  namespace: string;
  /**
   * Start with only the last lines, this many; 0 (unset) starts with the
   * whole log.
   */
  tailLines: number;
}

/** One answer of WatchRayJobLog. */
export interface WatchRayJobLogResponse {
  /** What the job's submitter printed since the previous answer. */
  log: string;
}
