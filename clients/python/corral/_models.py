# Generated from Corral's OpenAPI document by `deno task sdk:gen`
# (tools/sdk_gen.ts). Do not edit: change proto/ and run the task again.
"""The JSON of Corral's API, as TypedDicts.

Requests and answers are plain dicts in the API's JSON (lowerCamelCase
names, enums by name, timestamps as RFC 3339 strings); these types name
their keys for a type checker and an editor. Every TypedDict is
total=False: an answer leaves out fields at their default, and a request
needs only the fields the API documents as required.
"""

from __future__ import annotations

from typing import Any, Literal, Optional, TypedDict

#: The deployment stage a cluster serves.
ClusterEnvironment = Literal["DEV", "TESTING", "STAGING", "PRODUCTION"]

#: The kind of source. KubeRay's values: CONFIGMAP is the zero value.
EnvValueFromSource = Literal["CONFIGMAP", "SECRET", "RESOURCEFIELD", "FIELD"]

#: Access modes of an ephemeral volume's claim, as KubeRay names them.
VolumeAccessMode = Literal["RWO", "ROX", "RWX"]

#: What a host path must be.
VolumeHostPathType = Literal["DIRECTORY", "FILE"]

#: How mounts propagate between host and container.
VolumeMountPropagationMode = Literal["NONE", "HOSTTOCONTAINER", "BIDIRECTIONAL"]

#: The kind of volume.
VolumeVolumeType = Literal["PERSISTENT_VOLUME_CLAIM", "HOST_PATH", "EPHEMERAL", "CONFIGMAP", "SECRET", "EMPTY_DIR"]

#: What happened. Values as Kubernetes names its watch events (AIP-126: unprefixed, zero unspecified).
WatchClustersResponseEventType = Literal["EVENT_TYPE_UNSPECIFIED", "ADDED", "MODIFIED", "DELETED", "BOOKMARK"]


class ActorOptions(TypedDict, total=False):
    """Actor options of Serve's first config format, as KubeRay v0.6.0 declared them; refused."""

    #: Runtime environment of the actor.
    runtimeEnv: str
    #: CPUs per replica.
    cpusPerActor: float
    #: GPUs per replica.
    gpusPerActor: float
    #: Heap memory per replica.
    memoryPerActor: int
    #: Object store memory per replica.
    objectStoreMemoryPerActor: int
    #: Custom resources per replica.
    customResource: str
    #: Accelerator type of the replicas (KubeRay's spelling).
    accceleratorType: str


class AutoscalerOptions(TypedDict, total=False):
    """Settings of Ray's autoscaler, as KubeRay's message of this name has them (same names and numbers)."""

    #: Seconds a worker stays idle before it is removed; the operator's default (60) when 0.
    idleTimeoutSeconds: int
    #: How fast to scale up: Default, Aggressive or Conservative; the operator's default when empty.
    upscalingMode: str
    #: Container image of the autoscaler; the head's when empty.
    image: str
    #: Always, or empty for the operator's default (IfNotPresent).
    imagePullPolicy: str
    #: CPU of the autoscaler container, a Kubernetes quantity ("500m"); with memory set and this empty, 500m.
    cpu: str
    #: Memory of the autoscaler container, a Kubernetes quantity ("512Mi"); with cpu set and this empty, 512Mi.
    memory: str
    #: Environment variables of the autoscaler container, each valuesFrom entry one variable from one key, as a group's. (KubeRay's API server brings in every key of the Secret or ConfigMap instead, its variable name and key unused.)
    envs: Optional[EnvironmentVariables]
    #: Mounts of the head pod's volumes into the autoscaler container, by name: each names a volume of the head group.
    volumes: list[Volume]


class Capabilities(TypedDict, total=False):
    """Linux capabilities of a container, such as "NET_ADMIN" or "SYS_PTRACE"."""

    #: Capabilities added.
    add: list[str]
    #: Capabilities dropped.
    drop: list[str]


class Cluster(TypedDict, total=False):
    """A compute cluster: one head group and any number of worker groups."""

    #: Unique name of the cluster in its namespace: lower case letters, digits and '-', starting with a letter and ending with a letter or digit, at most 53 characters (the operator derives longer names from it).
    name: str
    #: Namespace of the cluster.
    namespace: str
    #: The user who owns the cluster.
    user: str
    #: Engine version of the cluster; also picks the default image.
    version: str
    #: The deployment stage of the cluster.
    environment: ClusterEnvironment
    #: The cluster's configuration.
    clusterSpec: ClusterSpec
    #: When the cluster was created.
    createdAt: Optional[str]
    #: When the cluster's deletion began.
    deletedAt: Optional[str]
    #: The state the operator reports: ready, unhealthy, failed or suspended; empty until the operator has set it. A queued cluster (queue) that Kueue has not admitted yet reads "waiting for capacity".
    clusterState: str
    #: Events related to the cluster.
    events: list[ClusterEvent]
    #: Service name (dashboard, head, metrics, redis) to port. Filled when the cluster is exposed through node ports.
    serviceEndpoint: dict[str, str]
    #: Environment variables set in every container of the cluster.
    envs: dict[str, str]
    #: The cluster's version for optimistic concurrency (AIP-154), from the RayCluster's resourceVersion: changes whenever the cluster does. Sent back in UpdateCluster, the update happens only if it still matches. Field 14: KubeRay's Cluster message has used 1 to 13 in its versions (13 for service_endpoint), never 14. Not OUTPUT_ONLY, since an update sends it back.
    etag: str
    #: How to reach the cluster, filled only while it is ready (cluster_state "ready"), from its head service (the RayCluster's status.head.serviceName, or "<name>-head-svc" as KubeRay names it). Fields above 100: KubeRay's Cluster message has none of these, and leaves room below for its own. The Ray client address inside the Kubernetes cluster: "ray://<head service>.<namespace>.svc:10001".
    clientUrl: str
    #: The Ray dashboard inside the Kubernetes cluster: "http://<head service>.<namespace>.svc:8265".
    dashboardUrl: str
    #: The Ray dashboard through Corral, for callers granted the policy verb "proxy" on clusters: a path on Corral's own HTTP address, "/apis/v1alpha2/namespaces/<namespace>/clusters/<name>/dashboard/".
    dashboardProxyUrl: str
    #: The cluster's lifetime, on create: a duration such as "8h", "30m" or "1h30m" (hours, minutes, seconds) from now. Corral deletes the cluster once it is over. At most the policy's maximum for the namespace; when neither ttl nor expires_at is given, the policy's default applies. Not read back: expires_at says when. Fields 110 and up: expiry's own.
    ttl: str
    #: When Corral deletes the cluster: set on create (instead of ttl), or from ttl or the policy's default; pushed back by ExtendCluster. Stored as the RayCluster's annotation corral.dev/expires-at.
    expiresAt: Optional[str]
    #: The Kueue LocalQueue the cluster waits in for capacity, in its namespace: a Kubernetes object name of at most 63 characters. Written as the RayCluster's label kueue.x-k8s.io/queue-name (and read back from it); the cluster is then created suspended (spec.suspend) and Kueue starts it once the queue's ClusterQueue has room. When empty, the policy's default queue of the namespace applies, if it names one. Set on create only. Field 112: Corral's own, past expiry's.
    queue: str
    #: Fields 20 and up: those of KubeRay's current Cluster message that KubeRay v0.6.0 did not have, under KubeRay's JSON names, at numbers v0.6.0 never used here (KubeRay's own numbers for them, 7 and 8, were v0.6.0's created_at and deleted_at). Annotations of the RayCluster itself, as KubeRay's API server writes them. Keys under ray.io/, app.kubernetes.io/, kueue.x-k8s.io/, corral.dev/ and kubectl.kubernetes.io/ are the service's (or kubectl's) own, but for KubeRay's ray.io/enable-serve-service ("true" opens the head's serve ports).
    annotations: dict[str, str]
    #: Environment variables of every container of the cluster whose values come from a Secret's or ConfigMap's key, or from the pod, by variable name. KubeRay's current Cluster has them as the valuesFrom of envs (an EnvironmentVariables message where v0.6.0 had the map Corral keeps in 12): on HTTP, envs takes that shape too, {"values": {...}, "valuesFrom": {...}}, the values going to envs and valuesFrom here.
    envsValuesFrom: dict[str, EnvValueFrom]


class ClusterEvent(TypedDict, total=False):
    """A Kubernetes event about a cluster."""

    #: Unique event id.
    id: str
    #: Human-readable event name.
    name: str
    #: When the event was created.
    createdAt: Optional[str]
    #: When the event first occurred.
    firstTimestamp: Optional[str]
    #: When the event most recently occurred.
    lastTimestamp: Optional[str]
    #: Why the cluster entered its current status.
    reason: str
    #: Human-readable description of the status of the operation.
    message: str
    #: Normal or Warning; more types may be added later.
    type: str
    #: How many times the event occurred.
    count: int


class ExtendClusterBody(TypedDict, total=False):
    """Asks for a cluster's expiry to be pushed back."""

    #: How much later the cluster expires: a duration such as "4h", "30m" or "1h30m" (hours, minutes, seconds), more than zero.
    by: str


class ClusterSpec(TypedDict, total=False):
    """The configuration of a cluster's groups."""

    #: The head group. Required.
    headGroupSpec: HeadGroupSpec
    #: The worker groups.
    workerGroupSpec: list[WorkerGroupSpec]
    #: Fields 3 to 5: KubeRay's current ones, at KubeRay's numbers (v0.6.0 used only 1 and 2 here). Let the operator run Ray's autoscaler beside the head (a container of the head pod, counted in quotas), scaling worker groups between their bounds.
    enableInTreeAutoscaling: bool
    #: Settings of that autoscaler; taken only with enable_in_tree_autoscaling, as KubeRay's API server takes them.
    autoscalerOptions: Optional[AutoscalerOptions]
    #: Annotations of the head's Kubernetes service.
    headServiceAnnotations: dict[str, str]


class ComputeTemplate(TypedDict, total=False):
    """A named pod size."""

    #: Name of the template, unique in its namespace: a DNS-1123 label of at most 63 characters.
    name: str
    #: Namespace of the template.
    namespace: str
    #: CPU cores. Must be greater than 0.
    cpu: int
    #: Memory in GiB. Must be greater than 0.
    memory: int
    #: Number of GPUs.
    gpu: int
    #: Kubernetes resource name of the GPU; defaults to nvidia.com/gpu.
    gpuAccelerator: str
    #: Tolerations of every pod of a group that uses the template, so that it can run on tainted nodes (GPU node pools usually are).
    tolerations: list[PodToleration]
    #: Fields 8 and 9: KubeRay's after v0.6.0, at its numbers. More resources each pod of a group using the template requests (and is limited to), by Kubernetes resource name, such as "vpc.amazonaws.com/efa": 1.
    extendedResources: dict[str, int]
    #: The unit of memory: a Kubernetes quantity suffix such as "Gi" (the default when empty), "Mi" or "G".
    memoryUnit: str


class EnvValueFrom(TypedDict, total=False):
    """Where an environment variable's value comes from, as KubeRay's message of this name has it (same names and numbers): a key of a Secret or ConfigMap of the cluster's namespace, a resource of the container, or a field of the pod."""

    #: The kind of source.
    source: EnvValueFromSource
    #: The Secret or ConfigMap, or the container of a resource.
    name: str
    #: The Secret's or ConfigMap's key, the resource, or the field path.
    key: str


class EnvironmentVariables(TypedDict, total=False):
    """Environment variables, as KubeRay's message of this name has them."""

    #: Variables by name, with their values.
    values: dict[str, str]
    #: Variables by name, with where their values come from.
    valuesFrom: dict[str, EnvValueFrom]


class GetJobLogReply(TypedDict, total=False):
    """The answer of GetJobLog."""

    #: Content of the log. Always from the beginning
    log: str


class GetQuotaUsageResponse(TypedDict, total=False):
    """A namespace's usage and the quotas that apply to the caller there."""

    #: The namespace.
    namespace: str
    #: What the whole namespace holds.
    used: Optional[QuotaAmounts]
    #: The quotas that apply to the caller here, in the policy's order.
    quotas: list[QuotaStatus]


class GetRayJobLogReply(TypedDict, total=False):
    """The answer of GetRayJobLog."""

    #: What the job's submitter printed, from the beginning (or its last tail_lines lines).
    log: str


class HeadGroupSpec(TypedDict, total=False):
    """The head group of a cluster."""

    #: Name of the compute template that sizes the head pod.
    computeTemplate: str
    #: Container image of the head; defaults to the image of the cluster's version.
    image: str
    #: Kubernetes service type of the head: ClusterIP, NodePort or LoadBalancer.
    serviceType: str
    #: Start parameters of the head group. On HTTP, KubeRay's name for them, rayStartParams, is taken too, and answers in KubeRay's JSON dialect (--kuberay-json) use it.
    engineStartParams: dict[str, str]
    #: Volumes mounted into the head pod.
    volumes: list[Volume]
    #: Kubernetes service account the head pod runs as; the namespace's default when empty.
    serviceAccount: str
    #: Name of the Secret holding the credentials to pull the head's image.
    imagePullSecret: str
    #: Environment variables of the head container only, in addition to the cluster's envs (a name may be set in one of the two, not both). Their values are readable by everyone who may read the cluster: put secrets in environment_values_from. On HTTP, KubeRay's shape is accepted here too: {"values": {...}, "valuesFrom": {...}}, the values going here and valuesFrom to environment_values_from.
    environment: dict[str, str]
    #: Annotations of the head pod. Keys under ray.io/, app.kubernetes.io/ and kueue.x-k8s.io/ are the service's own.
    annotations: dict[str, str]
    #: Labels of the head pod. Keys under ray.io/, app.kubernetes.io/ and kueue.x-k8s.io/ are the service's own (a queue is the cluster's queue).
    labels: dict[str, str]
    #: Environment variables of the head container whose values come from a Secret's or ConfigMap's key, or from the pod (Kubernetes' valueFrom), by variable name; a name may be set in one of envs, environment and this. KubeRay has them as the valuesFrom of its EnvironmentVariables message, in field 9, whose type replaced the map of field 8 that Corral keeps: changing a field's type breaks every gRPC client of it, and Corral's 9 is annotations. So this is a new field, numbered past every field KubeRay's releases gave this message (13).
    environmentValuesFrom: dict[str, EnvValueFrom]
    #: Fields 12, 13 and 21: KubeRay's current ones that v0.6.0 did not have (12 and 13 at KubeRay's numbers; its 4 for enable_ingress was v0.6.0's ray_start_params, so 21, past Corral's 20). Always pulls the head's image on every start; empty or any other value leaves Kubernetes' default (IfNotPresent), as KubeRay's API server does.
    imagePullPolicy: str
    #: The security context of the head's Ray container.
    securityContext: Optional[SecurityContext]
    #: Let the operator create an Ingress for the head's dashboard.
    enableIngress: bool


class JobSubmissionInfo(TypedDict, total=False):
    """A job as the dashboard reports it."""

    #: Submission entry point
    entrypoint: str
    #: Job ID
    jobId: str
    #: Submission ID
    submissionId: str
    #: Submission status: PENDING, RUNNING, STOPPED, SUCCEEDED or FAILED
    status: str
    #: Associated message
    message: str
    #: Error type
    errorType: str
    #: Job Start time, milliseconds since the epoch
    startTime: int
    #: Job end time, milliseconds since the epoch
    endTime: int
    #: Arbitrary user-provided metadata for the job.
    metadata: dict[str, str]
    #: The runtime environment for the job, each value as text (JSON for one that is not a string)
    runtimeEnv: dict[str, str]


#: The answer of ListAllClusters.
ListAllClustersResponse = TypedDict("ListAllClustersResponse", {
    #: The clusters of every namespace.
    "clusters": "list[Cluster]",
    #: The token of the next page; empty on the last page. (The number KubeRay v0.6.0 set aside for it.)
    "nextPageToken": "str",
    #: next_page_token again, under KubeRay's current name and number.
    "continue": "str",
}, total=False)


class ListAllComputeTemplatesResponse(TypedDict, total=False):
    """The answer of ListAllComputeTemplates."""

    #: The templates of every namespace.
    computeTemplates: list[ComputeTemplate]
    #: The token of the next page; empty on the last page.
    nextPageToken: str


#: The answer of ListAllRayJobs.
ListAllRayJobsResponse = TypedDict("ListAllRayJobsResponse", {
    #: The jobs of every namespace.
    "jobs": "list[RayJob]",
    #: The token of the next page; empty on the last page.
    "nextPageToken": "str",
    #: next_page_token again, under KubeRay's current name and number.
    "continue": "str",
}, total=False)


class ListAllRayServicesResponse(TypedDict, total=False):
    """The answer of ListAllRayServices."""

    #: The services of every namespace.
    services: list[RayService]
    #: How many services the list has, on every page.
    totalSize: int
    #: The token of the next page; empty on the last page.
    nextPageToken: str


#: The answer of ListCluster.
ListClustersResponse = TypedDict("ListClustersResponse", {
    #: The clusters of the namespace.
    "clusters": "list[Cluster]",
    #: The token of the next page; empty on the last page. (The number KubeRay v0.6.0 set aside for it.)
    "nextPageToken": "str",
    #: next_page_token again, under KubeRay's current name and number.
    "continue": "str",
}, total=False)


class ListComputeTemplatesResponse(TypedDict, total=False):
    """The answer of ListComputeTemplates."""

    #: The templates of the namespace.
    computeTemplates: list[ComputeTemplate]
    #: The token of the next page; empty on the last page.
    nextPageToken: str


class ListJobSubmissionInfo(TypedDict, total=False):
    """The answer of ListJobDetails."""

    #: The cluster's jobs, as the dashboard lists them.
    submissions: list[JobSubmissionInfo]


#: The answer of ListRayJobs.
ListRayJobsResponse = TypedDict("ListRayJobsResponse", {
    #: The jobs of the namespace.
    "jobs": "list[RayJob]",
    #: The token of the next page; empty on the last page. Numbered past the fields KubeRay's later releases gave this message.
    "nextPageToken": "str",
    #: next_page_token again, under KubeRay's current name and number.
    "continue": "str",
}, total=False)


class ListRayServicesResponse(TypedDict, total=False):
    """The answer of ListRayServices."""

    #: The services of the namespace.
    services: list[RayService]
    #: How many services the list has, on every page.
    totalSize: int
    #: The token of the next page; empty on the last page.
    nextPageToken: str


class PodToleration(TypedDict, total=False):
    """A toleration of a node taint, as in a Kubernetes pod."""

    #: The taint key the toleration applies to; empty with operator Exists tolerates every taint.
    key: str
    #: Exists or Equal; empty means Equal.
    operator: str
    #: The taint value to match with Equal; empty with Exists.
    value: str
    #: The taint effect to match: NoSchedule, PreferNoSchedule or NoExecute; empty matches every effect.
    effect: str


class QuotaAmounts(TypedDict, total=False):
    """What some workloads hold: clusters, workers (the sum of worker groups' max replicas), and CPUs, accelerators and memory (GiB) of their pods, head included, each worker group at its max replicas, and jobs' submitter pods."""

    #: Clusters: RayClusters, jobs' own clusters and services' clusters.
    clusters: float
    #: Workers: the sum of worker groups' max replicas.
    workers: float
    #: CPUs of the pods.
    cpu: float
    #: Accelerators of the pods: the devices of every resource the policy's `accelerators` names (by default nvidia.com/gpu, nvidia.com/mig-*, amd.com/gpu, gpu.intel.com/*, google.com/tpu, aws.amazon.com/neuron*, habana.ai/gaudi).
    gpu: float
    #: Memory of the pods, in GiB.
    memoryGib: float
    #: Accelerators by resource name ("nvidia.com/mig-1g.10gb"), each also counted in `gpu`: all of them in what a namespace holds, those a quota names in a quota's limits and usage.
    accelerators: dict[str, float]


class QuotaStatus(TypedDict, total=False):
    """One quota of the policy as it applies to the caller."""

    #: "team-a" for the namespace's total, `user "ada" in team-a` for a quota that counts each user's own clusters.
    scope: str
    #: The limits; a dimension the quota does not limit is absent from `limited`.
    limits: Optional[QuotaAmounts]
    #: The dimensions the quota limits: clusters, workers, cpu, gpu, memory, and the accelerator resources it names ("nvidia.com/mig-1g.10gb").
    limited: list[str]
    #: What the quota counts now.
    used: Optional[QuotaAmounts]


class RayJob(TypedDict, total=False):
    """A job: an entrypoint run on a cluster."""

    #: The job's name, unique in its namespace: a DNS-1035 label of at most 47 characters (the operator names the job's cluster after it).
    name: str
    #: The job's namespace; empty or the request's.
    namespace: str
    #: Who owns the job; an authenticated caller's own name when empty.
    user: str
    #: The Ray version of the job's own cluster (its default image).
    version: str
    #: The command the job runs, e.g. "python train.py".
    entrypoint: str
    #: Data stored with the job (the RayJob's spec.metadata).
    metadata: dict[str, str]
    #: The job's runtime environment, in YAML (spec.runtimeEnvYAML). KubeRay v0.6.0 sent it base64-encoded: a value that is base64 of text (and no YAML with a key) is decoded first.
    runtimeEnv: str
    #: The Ray job id; the operator generates one when empty.
    jobId: str
    #: Whether the job's own cluster is deleted when the job ends.
    shutdownAfterJobFinishes: bool
    #: The cluster to run on: {"ray.io/cluster": "<name>"}, a cluster Corral manages in the job's namespace. Exactly one of cluster_selector and cluster_spec is set.
    clusterSelector: dict[str, str]
    #: The job's own cluster, as a cluster's cluster_spec.
    clusterSpec: Optional[ClusterSpec]
    #: Seconds after the job ends before its cluster is deleted (with shutdown_after_job_finishes).
    ttlSecondsAfterFinished: int
    #: The pod that submits the entrypoint; the operator's default when unset.
    jobSubmitter: Optional[RayJobSubmitter]
    #: CPUs reserved for the entrypoint.
    entrypointNumCpus: float
    #: GPUs reserved for the entrypoint.
    entrypointNumGpus: float
    #: Custom resources reserved for the entrypoint, a JSON object of amounts.
    entrypointResources: str
    #: Seconds the job may be active before the operator ends it; 0 for no limit.
    activeDeadlineSeconds: int
    #: Output. When the job was created.
    createdAt: Optional[str]
    #: Output. When the job's deletion began.
    deleteAt: Optional[str]
    #: Output. The Ray job's status: PENDING, RUNNING, STOPPED, SUCCEEDED, FAILED, as the operator writes it.
    jobStatus: str
    #: Output. The RayJob's deployment status: Initializing, Running, Complete, Failed, Suspended..., as the operator writes it.
    jobDeploymentStatus: str
    #: Output. What the operator says of the job's status.
    message: str
    #: Output. When the job started (its deployment left New).
    startTime: Optional[str]
    #: Output. When the job ended.
    endTime: Optional[str]
    #: Output. The name of the cluster the job runs on.
    rayClusterName: str
    #: Whether the job is suspended (queued): the operator holds it, or stops it and deletes its cluster, until it is resumed. Needs shutdown_after_job_finishes and a cluster_spec. Corral's own: KubeRay's message has none.
    suspend: bool
    #: Output. What happened to the job: the Kubernetes events about its RayJob (the operator's, such as the submitter's creation or the job's end), oldest first, as a cluster's events. KubeRay's RayJob message has no such field: this one is Corral's.
    events: list[ClusterEvent]
    #: The Kueue LocalQueue the job waits in for capacity, as a cluster's queue: the RayJob's label kueue.x-k8s.io/queue-name. A queued job is created suspended, so it needs shutdown_after_job_finishes and a cluster_spec; until Kueue admits it, job_deployment_status is the operator's (Suspended) and message says it waits for capacity. Field 103: 101 and 102 are suspend and events.
    queue: str
    #: The job's lifetime, on create: a duration such as "8h", "30m" or "1h30m" (hours, minutes, seconds) from now. Corral deletes the job, and its cluster with it, once it is over, whether or not the job has ended. At most the policy's maximum for the namespace; when neither ttl nor expires_at is given, the policy's default applies, else its maximum. Not read back: expires_at says when. Fields 110 and up: expiry's own, as a cluster's.
    ttl: str
    #: When Corral deletes the job: set on create (instead of ttl), or from ttl or the policy. Stored as the RayJob's annotation corral.dev/expires-at, which the operator copies to the job's cluster.
    expiresAt: Optional[str]


class RayJobSubmission(TypedDict, total=False):
    """A job to submit."""

    #: Required. Entry point
    entrypoint: str
    #: Optional submission id
    submissionId: str
    #: Optional. Arbitrary user-provided metadata for the job.
    metadata: dict[str, str]
    #: Optional. The runtime environment for the job: a YAML (or JSON) mapping, e.g. "working_dir: gcs://_ray_pkg_0123abcd.zip".
    runtimeEnv: str
    #: Optional. Number of CPUs to allocate for the execution of the entrypoint command, separately from any Ray tasks or actors that are created by it.
    entrypointNumCpus: float
    #: Optional. Number of GPUs to allocate for the execution of the entrypoint command, separately from any Ray tasks or actors that are created by it.
    entrypointNumGpus: float
    #: Optional. The quantity of various custom resources to allocate for the execution of the entrypoint command, separately from any Ray tasks or actors that are created by it.
    entrypointResources: dict[str, str]


class UploadJobPackageBody(TypedDict, total=False):
    """The request of UploadJobPackage."""

    #: Required. The zip archive, base64-encoded (standard alphabet, padded), on both transports alike.
    content: str


class RayJobSubmitter(TypedDict, total=False):
    """The pod that submits a job's entrypoint to its cluster."""

    #: The submitter's image; its Ray version should be the cluster's.
    image: str
    #: CPUs of the submitter, a Kubernetes quantity; "1" when empty.
    cpu: str
    #: Memory of the submitter, a Kubernetes quantity; "1Gi" when empty.
    memory: str


class RayService(TypedDict, total=False):
    """A Ray Serve service: the applications of a Serve config, on a cluster the operator runs for them."""

    #: Unique name of the service in its namespace: lower case letters, digits and '-', starting with a letter, at most 53 characters (its cluster is named after it).
    name: str
    #: Namespace of the service.
    namespace: str
    #: The user who owns the service.
    user: str
    #: Serve's first config format (KubeRay v0.6.0), which the operator no longer accepts: a request that sets it is INVALID_ARGUMENT. Declared so that such a request decodes and is told to use serve_config_V2.
    serveDeploymentGraphSpec: Optional[ServeDeploymentGraphSpec]
    #: The cluster the service runs on: a cluster's spec, with the same compute templates, validation and admission.
    clusterSpec: ClusterSpec
    #: The service's status, as the operator reports it.
    rayServiceStatus: Optional[RayServiceStatus]
    #: When the service was created.
    createdAt: Optional[str]
    #: When the service's deletion began.
    deleteAt: Optional[str]
    #: The Serve config (Serve's config file format, YAML): a mapping with `applications`, a list of applications each with an import_path.
    serveConfigV2: str
    #: Seconds the service may stay unhealthy before the operator replaces its cluster (the RayService's serviceUnhealthySecondThreshold); the operator's default when 0. Deprecated in KubeRay's CRD, which its operator no longer reads since Serve config v2. Fields 10 and 11: KubeRay's after v0.6.0, at its numbers.
    serviceUnhealthySecondThreshold: int
    #: Seconds a deployment may stay unhealthy before the operator replaces the cluster (deploymentUnhealthySecondThreshold); as the above.
    deploymentUnhealthySecondThreshold: int
    #: Engine version of the service's cluster; also picks the default image.
    version: str
    #: The service's lifetime, on create: a duration such as "8h", "30m" or "1h30m" (hours, minutes, seconds) from now. Corral deletes the service, and its cluster with it, once it is over. At most the policy's maximum for the namespace; when neither ttl nor expires_at is given, the policy's default applies, else its maximum; none of them where the policy exempts services. Not read back: expires_at says when. Fields 110 and up: expiry's own, as a cluster's (KubeRay's RayService message has neither).
    ttl: str
    #: When Corral deletes the service: set on create (instead of ttl), or from ttl or the policy. Stored as the RayService's annotation corral.dev/expires-at, which the operator copies to the service's clusters.
    expiresAt: Optional[str]


class RayServiceCondition(TypedDict, total=False):
    """A condition of a RayService, as Kubernetes' metav1.Condition."""

    #: Ready, UpgradeInProgress, RollbackInProgress, Suspending, Suspended.
    type: str
    #: True, False or Unknown.
    status: str
    #: One word saying why.
    reason: str
    #: What happened, for people.
    message: str
    #: When the status last changed.
    lastTransitionTime: Optional[str]


class RayServiceEvent(TypedDict, total=False):
    """A Kubernetes event about a service."""

    #: Unique event id.
    id: str
    #: The event's name.
    name: str
    #: When the event was created.
    createdAt: Optional[str]
    #: When the event first occurred.
    firstTimestamp: Optional[str]
    #: When the event most recently occurred.
    lastTimestamp: Optional[str]
    #: Why the service entered its current status.
    reason: str
    #: What happened, for people.
    message: str
    #: Normal or Warning.
    type: str
    #: How many times the event occurred.
    count: int


class RayServiceStatus(TypedDict, total=False):
    """A service's status, from the RayService's status."""

    #: Whether the service serves: "Running" when the operator says it is ready (the RayService's status.serviceStatus); empty otherwise.
    applicationStatus: str
    #: Why, when the operator says: the message of its Ready condition.
    applicationMessage: str
    #: KubeRay's deprecated per-deployment list: the deployments of every application of the active cluster.
    serveDeploymentStatus: list[ServeDeploymentStatus]
    #: The events about the service, oldest first.
    rayServiceEvents: list[RayServiceEvent]
    #: The active cluster's name: the one serving.
    rayClusterName: str
    #: The active cluster's state (ready, unhealthy, failed...).
    rayClusterState: str
    #: The active cluster's endpoints: service name (dashboard, head, serve...) to port.
    serviceEndpoint: dict[str, str]
    #: The applications of the active cluster with their deployments.
    serveApplicationStatus: list[ServeApplicationStatus]
    #: The pending cluster's name: the one the operator prepares to replace the active one after a change of the cluster spec; empty when none. Numbered past every field KubeRay's releases gave this message.
    pendingRayClusterName: str
    #: The applications of the pending cluster.
    pendingServeApplicationStatus: list[ServeApplicationStatus]
    #: How many pods serve requests now.
    numServeEndpoints: int
    #: The RayService's conditions (Ready, UpgradeInProgress...).
    conditions: list[RayServiceCondition]


class SecurityContext(TypedDict, total=False):
    """A container's security context, as KubeRay's message of this name has it: set on the group's Ray container."""

    #: Linux capabilities added and dropped.
    capabilities: Optional[Capabilities]
    #: Run the container privileged.
    privileged: Optional[bool]


class ServeApplicationStatus(TypedDict, total=False):
    """One Serve application and its deployments."""

    #: The application's name.
    name: str
    #: Its status (RUNNING, DEPLOYING, DEPLOY_FAILED, UNHEALTHY...).
    status: str
    #: Details of the status.
    message: str
    #: Its deployments.
    serveDeploymentStatus: list[ServeDeploymentStatus]


class ServeConfig(TypedDict, total=False):
    """One deployment of Serve's first config format, as KubeRay v0.6.0 declared it; refused."""

    #: Deployment name.
    deploymentName: str
    #: Replicas of the deployment.
    replicas: int
    #: Route prefix of the deployment.
    routePrefix: str
    #: Most concurrent queries of a replica.
    maxConcurrentQueries: int
    #: User config of the deployment.
    userConfig: str
    #: Autoscaling config of the deployment.
    autoscalingConfig: str
    #: Actor options of the deployment's replicas.
    actorOptions: Optional[ActorOptions]


class ServeDeploymentGraphSpec(TypedDict, total=False):
    """Serve's first config format, as KubeRay v0.6.0 declared it; refused."""

    #: Import path of the Serve application.
    importPath: str
    #: Runtime environment of the application.
    runtimeEnv: str
    #: Configs of its deployments.
    serveConfigs: list[ServeConfig]


class ServeDeploymentStatus(TypedDict, total=False):
    """One Serve deployment."""

    #: The deployment's name.
    deploymentName: str
    #: Its status (HEALTHY, UPDATING, UNHEALTHY...).
    status: str
    #: Details of the status.
    message: str


class SubmitRayJobReply(TypedDict, total=False):
    """The answer of SubmitRayJob."""

    #: Created submission ID
    submissionId: str


class UpdateRayServiceBody(TypedDict, total=False):
    """What UpdateRayServiceConfigs changes: at least one worker group."""

    #: The worker groups to change, each named; the others stay as they are.
    workerGroupUpdateSpec: list[WorkerGroupUpdateSpec]
    #: Serve's first config format: refused (INVALID_ARGUMENT), as on create. Declared so that such a request decodes and is told to use serve_config_V2 with UpdateRayService.
    serveDeploymentGraphSpec: Optional[ServeDeploymentGraphSpec]


class Volume(TypedDict, total=False):
    """A volume mounted into the pods of a group."""

    #: Absolute path of the mount in the container.
    mountPath: str
    #: The kind of volume.
    volumeType: VolumeVolumeType
    #: Name of the volume, unique in the group.
    name: str
    #: The claim name of a persistent volume claim, or the path on the host.
    source: str
    #: Mount the volume read-only.
    readOnly: bool
    #: For a host path: whether it is a directory or a file.
    hostPathType: VolumeHostPathType
    #: How mounts propagate between host and container.
    mountPropagationMode: VolumeMountPropagationMode
    #: Fields 8 to 11: KubeRay's after v0.6.0, at its numbers. For an ephemeral volume: its claim's storage class; the cluster's default when empty.
    storageClassName: str
    #: For an ephemeral volume: its claim's access mode.
    accessMode: VolumeAccessMode
    #: A Kubernetes quantity ("10Gi"): an ephemeral volume's size (required), an empty directory's size limit.
    storage: str
    #: For a ConfigMap or Secret: the keys mounted, each to its path in the volume; every key when empty.
    items: dict[str, str]


class WatchClustersResponse(TypedDict, total=False):
    """One answer of WatchClusters."""

    #: What happened.
    type: WatchClustersResponseEventType
    #: The cluster, unset in a BOOKMARK.
    cluster: Optional[Cluster]
    #: Where the stream is, to resume from. Empty in the ADDED events that start a watch: resume from the BOOKMARK that follows them.
    resourceVersion: str


class WatchJobLogResponse(TypedDict, total=False):
    """One answer of WatchJobLog."""

    #: What the job logged since the previous answer.
    log: str
    #: The job's status when this part was read; the last answer's is the final one (STOPPED, SUCCEEDED or FAILED).
    status: str


class WatchRayJobLogResponse(TypedDict, total=False):
    """One answer of WatchRayJobLog."""

    #: What the job's submitter printed since the previous answer.
    log: str


class WatchRayJobsResponse(TypedDict, total=False):
    """One answer of WatchRayJobs."""

    #: What happened, as in WatchClusters: ADDED (the job exists: it was created, or the watch starts with it), MODIFIED (its spec, status or events changed), DELETED (job holds it as it last was), BOOKMARK (no job: the stream is alive and has sent everything up to resource_version).
    type: WatchClustersResponseEventType
    #: The job, unset in a BOOKMARK.
    job: Optional[RayJob]
    #: Where the stream is, to resume from. Empty in the ADDED events that start a watch: resume from the BOOKMARK that follows them.
    resourceVersion: str


class WorkerGroupSpec(TypedDict, total=False):
    """A group of identical worker pods."""

    #: Name of the worker group, unique in the cluster. Required.
    groupName: str
    #: Name of the compute template that sizes the worker pods.
    computeTemplate: str
    #: Container image of the workers; defaults to the image of the cluster's version.
    image: str
    #: Desired number of workers. Required.
    replicas: int
    #: Minimum number of workers; defaults to replicas. 0 is a valid minimum.
    minReplicas: Optional[int]
    #: Maximum number of workers; defaults to replicas.
    maxReplicas: Optional[int]
    #: Start parameters of the worker group. On HTTP, KubeRay's name for them, rayStartParams, is taken too, and answers in KubeRay's JSON dialect (--kuberay-json) use it.
    engineStartParams: dict[str, str]
    #: Volumes mounted into the worker pods.
    volumes: list[Volume]
    #: Kubernetes service account the worker pods run as; the namespace's default when empty.
    serviceAccount: str
    #: Name of the Secret holding the credentials to pull the workers' image.
    imagePullSecret: str
    #: Environment variables of the worker containers only, in addition to the cluster's envs (a name may be set in one of the two, not both). Their values are readable by everyone who may read the cluster: put secrets in environment_values_from. On HTTP, KubeRay's shape is accepted here too: {"values": {...}, "valuesFrom": {...}}, the values going here and valuesFrom to environment_values_from.
    environment: dict[str, str]
    #: Annotations of the worker pods. Keys under ray.io/, app.kubernetes.io/ and kueue.x-k8s.io/ are the service's own.
    annotations: dict[str, str]
    #: Labels of the worker pods. Keys under ray.io/, app.kubernetes.io/ and kueue.x-k8s.io/ are the service's own (a queue is the cluster's queue).
    labels: dict[str, str]
    #: Environment variables of the worker containers whose values come from a Secret's or ConfigMap's key, or from the pod (Kubernetes' valueFrom), by variable name; a name may be set in one of envs, environment and this. KubeRay has them as the valuesFrom of its EnvironmentVariables message, in field 11, whose type replaced the map that Corral keeps there: changing a field's type breaks every gRPC client of it. So this is a new field, numbered past every field KubeRay's releases gave this message (15).
    environmentValuesFrom: dict[str, EnvValueFrom]
    #: Fields 14 and 15: KubeRay's current ones, at KubeRay's numbers (v0.6.0 used 1 to 13 here). Always pulls the workers' image on every start; empty or any other value leaves Kubernetes' default (IfNotPresent), as KubeRay does.
    imagePullPolicy: str
    #: The security context of the workers' Ray container.
    securityContext: Optional[SecurityContext]


class WorkerGroupUpdateSpec(TypedDict, total=False):
    """The new replicas and bounds of one worker group, each greater than 0."""

    #: The worker group's name.
    groupName: str
    #: Its replicas, within its bounds.
    replicas: int
    #: Its least replicas.
    minReplicas: int
    #: Its most replicas.
    maxReplicas: int


class Empty(TypedDict, total=False):
    """An empty message: `{}`"""


class BadRequestFieldViolationsItem(TypedDict, total=False):
    #: The JSON path of the field, e.g. cluster.clusterSpec.workerGroupSpec[0].groupName
    field: str
    #: The rule the field breaks
    description: str


#: The field violations of an invalid request
BadRequest = TypedDict("BadRequest", {
    "@type": "Literal[\"type.googleapis.com/google.rpc.BadRequest\"]",
    "fieldViolations": "list[BadRequestFieldViolationsItem]",
}, total=False)


#: When to retry a call that was refused for now
RetryInfo = TypedDict("RetryInfo", {
    "@type": "Literal[\"type.googleapis.com/google.rpc.RetryInfo\"]",
    #: How long to wait, in seconds, e.g. "1.5s"
    "retryDelay": "str",
}, total=False)


class Status(TypedDict, total=False):
    """The error body of every operation (the JSON form of google.rpc.Status). A gRPC client gets the same code and message. The HTTP status follows from the code:

    | code | name | HTTP status |
    | --- | --- | --- |
    | 1 | CANCELLED | 499 |
    | 2 | UNKNOWN | 500 |
    | 3 | INVALID_ARGUMENT | 400 |
    | 4 | DEADLINE_EXCEEDED | 504 |
    | 5 | NOT_FOUND | 404 |
    | 6 | ALREADY_EXISTS | 409 |
    | 7 | PERMISSION_DENIED | 403 |
    | 8 | RESOURCE_EXHAUSTED | 429 (413 for a request body over the size limit) |
    | 9 | FAILED_PRECONDITION | 400 |
    | 10 | ABORTED | 409 |
    | 11 | OUT_OF_RANGE | 400 |
    | 12 | UNIMPLEMENTED | 501 (405 for a known path with another method) |
    | 13 | INTERNAL | 500 |
    | 14 | UNAVAILABLE | 503 |
    | 15 | DATA_LOSS | 500 |
    | 16 | UNAUTHENTICATED | 401 |
    """

    #: The gRPC status code, e.g. 3 INVALID_ARGUMENT, 5 NOT_FOUND, 6 ALREADY_EXISTS
    code: int
    #: What went wrong, for a person to read
    message: str
    #: Structured details; present only when there are any. An invalid request carries a google.rpc.BadRequest listing every violation.
    details: list[BadRequest | RetryInfo]
