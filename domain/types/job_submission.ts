// Generated from proto/job_submission.proto by `deno task types:gen` (tools/types_gen.ts).
// Do not edit: change the .proto files and run the task again.

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
