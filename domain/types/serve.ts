// Generated from proto/serve.proto by `deno task types:gen` (tools/types_gen.ts).
// Do not edit: change the .proto files and run the task again.

import type { ClusterSpec } from "./cluster.ts";

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

/** The request of UpdateRayServiceConfigs, with KubeRay v0.6.0's numbers. */
export interface UpdateRayServiceConfigsRequest {
  /** The name of the service. */
  name: string;
  /** The namespace of the service. */
  namespace: string;
  /** What to change. */
  updateService?: UpdateRayServiceBody;
}

/** What UpdateRayServiceConfigs changes: at least one worker group. */
export interface UpdateRayServiceBody {
  /** The worker groups to change, each named; the others stay as they are. */
  workerGroupUpdateSpec: WorkerGroupUpdateSpec[];
  /**
   * Serve's first config format: refused (INVALID_ARGUMENT), as on create.
   * Declared so that such a request decodes and is told to use
   * serve_config_V2 with UpdateRayService.
   */
  serveDeploymentGraphSpec?: ServeDeploymentGraphSpec;
}

/** The new replicas and bounds of one worker group, each greater than 0. */
export interface WorkerGroupUpdateSpec {
  /** The worker group's name. */
  groupName: string;
  /** Its replicas, within its bounds. */
  replicas: number;
  /** Its least replicas. */
  minReplicas: number;
  /** Its most replicas. */
  maxReplicas: number;
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
  /**
   * Seconds the service may stay unhealthy before the operator replaces
   * its cluster (the RayService's serviceUnhealthySecondThreshold); the
   * operator's default when 0. Deprecated in KubeRay's CRD, which its
   * operator no longer reads since Serve config v2. Fields 10 and 11:
   * KubeRay's after v0.6.0, at its numbers.
   */
  serviceUnhealthySecondThreshold: number;
  /**
   * Seconds a deployment may stay unhealthy before the operator replaces
   * the cluster (deploymentUnhealthySecondThreshold); as the above.
   */
  deploymentUnhealthySecondThreshold: number;
  /** Engine version of the service's cluster; also picks the default image. */
  version: string;
  /**
   * The service's lifetime, on create: a duration such as "8h", "30m" or
   * "1h30m" (hours, minutes, seconds) from now. Corral deletes the service,
   * and its cluster with it, once it is over. At most the policy's maximum
   * for the namespace; when neither ttl nor expires_at is given, the
   * policy's default applies, else its maximum; none of them where the
   * policy exempts services. Not read back: expires_at says when. Fields
   * 110 and up: expiry's own, as a cluster's (KubeRay's RayService message
   * has neither).
   */
  ttl: string;
  /**
   * When Corral deletes the service: set on create (instead of ttl), or
   * from ttl or the policy. Stored as the RayService's annotation
   * corral.dev/expires-at, which the operator copies to the service's
   * clusters.
   */
  expiresAt?: Date;
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
