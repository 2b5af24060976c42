/**
 * The API's JSON as the command line reads it: only the fields it shows or
 * changes. Everything else a message carries is kept as it came (a scale
 * sends the worker groups back whole), hence the index signatures.
 */

/** A cluster as GetCluster answers it (proto3 JSON, lowerCamelCase). */
export interface Cluster {
  name: string;
  namespace: string;
  user?: string;
  version?: string;
  clusterSpec?: {
    workerGroupSpec?: WorkerGroup[];
    [field: string]: unknown;
  };
  /** RFC 3339, e.g. "2026-11-26T04:30:15Z". */
  createdAt?: string | null;
  deletedAt?: string | null;
  /**
   * ready, failed, ... as the operator writes it; empty until then;
   * "waiting for capacity" while a queued cluster waits for Kueue.
   */
  clusterState?: string;
  /** The Kueue LocalQueue the cluster waits in; empty when not queued. */
  queue?: string;
  events?: ClusterEvent[];
  etag?: string;
  /** Port name to port of the head service, e.g. dashboard: "8265". */
  serviceEndpoint?: Record<string, string>;
  envs?: Record<string, string>;
  /** Where a ready cluster is (empty until ready): Ray's client address. */
  clientUrl?: string;
  /** The dashboard inside Kubernetes. */
  dashboardUrl?: string;
  /** The dashboard through Corral: a path on Corral's own address. */
  dashboardProxyUrl?: string;
  [field: string]: unknown;
}

export interface WorkerGroup {
  groupName: string;
  replicas?: number;
  minReplicas?: number;
  maxReplicas?: number;
  computeTemplate?: string;
  image?: string;
  [field: string]: unknown;
}

export interface ClusterEvent {
  id?: string;
  reason?: string;
  message?: string;
  /** Normal or Warning. */
  type?: string;
  lastTimestamp?: string | null;
}

export interface ComputeTemplate {
  name: string;
  namespace?: string;
  cpu?: number;
  /** In memoryUnit. */
  memory?: number;
  /** A quantity suffix ("Mi", "G"); none (absent or empty) is Gi. */
  memoryUnit?: string;
  gpu?: number;
  gpuAccelerator?: string;
  [field: string]: unknown;
}

/** A job as GetRayJob answers it (proto3 JSON, KubeRay's field names). */
export interface Job {
  name: string;
  namespace: string;
  user?: string;
  entrypoint?: string;
  clusterSelector?: Record<string, string>;
  /** PENDING, RUNNING, STOPPED, SUCCEEDED, FAILED; empty until the operator writes one. */
  jobStatus?: string;
  /** Initializing, Running, Complete, Failed, Suspended...; empty until then. */
  jobDeploymentStatus?: string;
  message?: string;
  rayClusterName?: string;
  createdAt?: string | null;
  startTime?: string | null;
  endTime?: string | null;
  /** Absent until the API reports a job's events. */
  events?: ClusterEvent[];
  [field: string]: unknown;
}

/** A Serve application of a service, with its deployments. */
export interface ServeApplication {
  name?: string;
  /** RUNNING, DEPLOYING, DEPLOY_FAILED, UNHEALTHY... */
  status?: string;
  message?: string;
  serveDeploymentStatus?: {
    deploymentName?: string;
    status?: string;
    message?: string;
  }[];
}

/** A service as GetRayService answers it (KubeRay's field names). */
export interface Service {
  name: string;
  namespace: string;
  user?: string;
  version?: string;
  /** Serve's config file, YAML. */
  serveConfigV2?: string;
  clusterSpec?: {
    workerGroupSpec?: WorkerGroup[];
    [field: string]: unknown;
  };
  rayServiceStatus?: {
    /** "Running" once the operator says the service serves; empty before. */
    applicationStatus?: string;
    applicationMessage?: string;
    rayClusterName?: string;
    rayClusterState?: string;
    pendingRayClusterName?: string;
    serviceEndpoint?: Record<string, string>;
    serveApplicationStatus?: ServeApplication[];
    rayServiceEvents?: ClusterEvent[];
    [field: string]: unknown;
  };
  createdAt?: string | null;
  deleteAt?: string | null;
  [field: string]: unknown;
}
