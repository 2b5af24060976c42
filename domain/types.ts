// Generated from proto/*.proto by `deno task types:gen` (tools/types_gen.ts).
// Do not edit: change the .proto files and run the task again.

/**
 * The service's messages, in the shape of the proto definition with
 * lowerCamelCase field names (as protobufjs names them). Every field is
 * present; an unset message field, timestamp or proto3 `optional` scalar is
 * `undefined`, enums are their value names. One module a .proto file, in
 * types/; this one exports them all and adds `ApiMethods`.
 */

import type {
  Cluster,
  CreateClusterRequest,
  DeleteClusterRequest,
  ExtendClusterRequest,
  GetClusterRequest,
  ListAllClustersRequest,
  ListAllClustersResponse,
  ListClustersRequest,
  ListClustersResponse,
  UpdateClusterRequest,
  WatchClustersRequest,
  WatchClustersResponse,
} from "./types/cluster.ts";
import type {
  ComputeTemplate,
  CreateComputeTemplateRequest,
  DeleteComputeTemplateRequest,
  GetComputeTemplateRequest,
  ListAllComputeTemplatesRequest,
  ListAllComputeTemplatesResponse,
  ListComputeTemplatesRequest,
  ListComputeTemplatesResponse,
} from "./types/compute_template.ts";
import type {
  CreateRayJobRequest,
  DeleteRayJobRequest,
  GetRayJobLogReply,
  GetRayJobLogRequest,
  GetRayJobRequest,
  ListAllRayJobsRequest,
  ListAllRayJobsResponse,
  ListRayJobsRequest,
  ListRayJobsResponse,
  RayJob,
  UpdateRayJobRequest,
  WatchRayJobLogRequest,
  WatchRayJobLogResponse,
  WatchRayJobsRequest,
  WatchRayJobsResponse,
} from "./types/job.ts";
import type {
  DeleteRayJobSubmissionRequest,
  GetJobDetailsRequest,
  GetJobLogReply,
  GetJobLogRequest,
  JobSubmissionInfo,
  ListJobDetailsRequest,
  ListJobSubmissionInfo,
  StopRayJobSubmissionRequest,
  SubmitRayJobReply,
  SubmitRayJobRequest,
  UploadJobPackageRequest,
  WatchJobLogRequest,
  WatchJobLogResponse,
} from "./types/job_submission.ts";
import type {
  GetQuotaUsageRequest,
  GetQuotaUsageResponse,
} from "./types/quota.ts";
import type {
  CreateRayServiceRequest,
  DeleteRayServiceRequest,
  GetRayServiceRequest,
  ListAllRayServicesRequest,
  ListAllRayServicesResponse,
  ListRayServicesRequest,
  ListRayServicesResponse,
  RayService,
  UpdateRayServiceConfigsRequest,
  UpdateRayServiceRequest,
} from "./types/serve.ts";
export * from "./types/cluster.ts";
export * from "./types/compute_template.ts";
export * from "./types/job.ts";
export * from "./types/serve.ts";
export * from "./types/job_submission.ts";
export * from "./types/quota.ts";

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
   * Reads a job's log: what its submitter pod printed (the operator's
   * batch/v1 Job named after the job runs `ray job submit`, which tails
   * the job's output), so it is there once the job has ended and after its
   * cluster is deleted, for as long as the job exists. Needs `get` on
   * jobs; under `owners: only`, of the caller's own jobs (or with
   * `admin`): the log is what the owner's code printed. FAILED_PRECONDITION
   * while the submitter has not started. (Not in KubeRay.)
   */
  "proto.RayJobService/GetRayJobLog": {
    request: GetRayJobLogRequest;
    response: GetRayJobLogReply;
    streaming: false;
  };
  /**
   * Follows a job's log, as GetRayJobLog reads it: what was printed so
   * far, then each part as it is printed; the stream ends when the
   * submitter ends. On HTTP: newline-delimited JSON ({"result": ...} per
   * line), or Server-Sent Events with Accept: text/event-stream, as
   * WatchJobLog. (Not in KubeRay.)
   */
  "proto.RayJobService/WatchRayJobLog": {
    request: WatchRayJobLogRequest;
    response: WatchRayJobLogResponse;
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
  /**
   * Changes the replicas and bounds of a service's worker groups by name:
   * KubeRay's call of v0.6.0 to 1.0.0 (which 1.1.0 removed), kept for the
   * clients of those versions. The service changes as UpdateRayService
   * would change it (the same checks, admission, quotas and owners); Serve's
   * first config format, the call's other half, is refused as everywhere.
   */
  "proto.RayServeService/UpdateRayServiceConfigs": {
    request: UpdateRayServiceConfigsRequest;
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
