/**
 * Jobs: the RayJob custom resource Corral writes for a job, and the job read
 * back from one (their validation: job_validation.ts), in the format of KubeRay's
 * API server (apiserver/pkg/util/job.go and model/converter.go at v1.7.0).
 * Pure functions, in one named pair, jobToResource / jobFromResource.
 *
 * A job brings its own cluster or names one:
 * - `cluster_spec` is a cluster's spec: the handler renders it with
 *   clusterToResource, exactly as a cluster's, and hands its `spec` here as
 *   the RayJob's spec.rayClusterSpec (jobCluster() is the cluster it is).
 * - `cluster_selector` is {"ray.io/cluster": name}, the key the operator
 *   reads; no other key, since the operator would ignore it.
 *
 * runtime_env: KubeRay v0.6.0 sent it base64-encoded, later releases send
 * the YAML itself (spec.runtimeEnvYAML). A runtime environment is a YAML
 * mapping, so it holds a ":" or a "{"; a base64 string holds neither (its
 * alphabet is A-Z a-z 0-9 + / =). A value in the base64 alphabet, of a
 * length a multiple of 4, that decodes to UTF-8 text is taken as v0.6.0's
 * and decoded; anything else is the YAML as it is.
 */
import { NO_ADDRESSES } from "./cluster_addresses.ts";
import { ANNOTATION, APP_NAME, LABEL, MANAGED_BY } from "./resources.ts";
import { queuedJobMessage, queueLabels, queueOf } from "./queues.ts";
import type {
  KubeEvent,
  ObjectMeta,
  PodTemplateSpec,
  RayCluster,
} from "./resources.ts";
import type {
  Cluster,
  ClusterSpec,
  RayJob as Job,
  RayJobSubmitter,
} from "./types.ts";
import { clusterFromResource, userLabelValue } from "./conversions.ts";
import { clusterEventFromResource } from "./event_conversions.ts";
import { expiresAtOf, expiryAnnotations } from "./expiry.ts";
import { isLabelValue } from "./kubernetes_names.ts";

/** The clusterSelector key the operator reads: the cluster's name. */
export const CLUSTER_SELECTOR_KEY = "ray.io/cluster";
/**
 * The longest job name: the operator names the job's cluster
 * `<job>-<5 characters>`, which must be a cluster name (KubeRay's
 * MaxRayJobNameLength is MaxRayClusterNameLength - 6).
 */
export const MAX_JOB_NAME_LENGTH = 47;
/** The submitter pod's container, as KubeRay's API server names it. */
export const SUBMITTER_CONTAINER = "ray-job-submitter";

/** The spec of a RayJob, as far as Corral writes and reads it. */
export interface RayJobSpec {
  entrypoint?: string;
  metadata?: Record<string, string>;
  runtimeEnvYAML?: string;
  jobId?: string;
  shutdownAfterJobFinishes?: boolean;
  ttlSecondsAfterFinished?: number;
  activeDeadlineSeconds?: number;
  entrypointNumCpus?: number;
  entrypointNumGpus?: number;
  entrypointResources?: string;
  submitterPodTemplate?: PodTemplateSpec;
  rayClusterSpec?: RayCluster["spec"];
  clusterSelector?: Record<string, string>;
  suspend?: boolean;
  [key: string]: unknown;
}

/** The status the operator writes on a RayJob. */
export interface RayJobStatus {
  /** The Ray job's submission id, as the operator chose or was given it. */
  jobId?: string;
  jobStatus?: string;
  jobDeploymentStatus?: string;
  message?: string;
  startTime?: string;
  endTime?: string;
  rayClusterName?: string;
  [key: string]: unknown;
}

/** A ray.io RayJob. */
export interface RayJobResource {
  apiVersion: string;
  kind: "RayJob";
  metadata: ObjectMeta;
  spec: RayJobSpec;
  status?: RayJobStatus;
}

/**
 * The field selector of the events about RayJobs (the API server filters;
 * a field selector cannot also take RayClusters' in the same list).
 */
export const JOB_EVENTS_SELECTOR = "involvedObject.kind=RayJob";

/** The selector lists of jobs use: only jobs the API server manages. */
export const MANAGED_JOB_SELECTOR = `${LABEL.managedBy}=${MANAGED_BY}`;

export function isManagedJob(job: RayJobResource): boolean {
  return job.metadata?.labels?.[LABEL.managedBy] === MANAGED_BY;
}

/** `Cannot <verb> job "team-a/train"` (less when name or namespace is unknown). */
export function jobAction(verb: string, namespace: string, name = ""): string {
  const what = name !== "" && namespace !== ""
    ? ` "${namespace}/${name}"`
    : name !== ""
    ? ` "${name}"`
    : namespace !== ""
    ? ` in namespace "${namespace}"`
    : "";
  return `Cannot ${verb} job${what}`;
}

/**
 * The cluster a job with a `cluster_spec` brings, as a cluster message: the
 * job's name, namespace, user and version, so that validation, compute
 * templates, conversion and admission treat it exactly as a cluster.
 */
export function jobCluster(job: Job, namespace: string): Cluster {
  return {
    name: job.name,
    namespace,
    user: job.user,
    version: job.version,
    environment: "DEV",
    clusterSpec: job.clusterSpec,
    clusterState: "",
    events: [],
    serviceEndpoint: {},
    envs: {},
    envsValuesFrom: {},
    annotations: {},
    etag: "",
    ...NO_ADDRESSES,
    ttl: "",
    // The queue is the RayJob's: Kueue admits the job, not its cluster.
    queue: "",
  };
}

// ---------------------------------------------------------------------------
// Job -> RayJob

/**
 * The RayJob of a validated job in `namespace`: `rayClusterSpec` is the
 * spec of the job's own cluster as clusterToResource rendered it (absent
 * for a job on an existing cluster).
 */
export function jobToResource(
  job: Job,
  namespace: string,
  options: {
    apiVersion: string;
    rayClusterSpec?: RayCluster["spec"];
  },
): RayJobResource {
  const spec: RayJobSpec = {
    entrypoint: job.entrypoint,
    ...(Object.keys(job.metadata ?? {}).length > 0
      ? { metadata: { ...job.metadata } }
      : {}),
    ...(job.runtimeEnv !== ""
      ? { runtimeEnvYAML: runtimeEnvYaml(job.runtimeEnv) }
      : {}),
    ...(job.jobId !== "" ? { jobId: job.jobId } : {}),
    shutdownAfterJobFinishes: job.shutdownAfterJobFinishes,
    ...(job.ttlSecondsAfterFinished > 0
      ? { ttlSecondsAfterFinished: job.ttlSecondsAfterFinished }
      : {}),
    ...(job.activeDeadlineSeconds > 0
      ? { activeDeadlineSeconds: job.activeDeadlineSeconds }
      : {}),
    ...(job.entrypointNumCpus > 0
      ? { entrypointNumCpus: job.entrypointNumCpus }
      : {}),
    ...(job.entrypointNumGpus > 0
      ? { entrypointNumGpus: job.entrypointNumGpus }
      : {}),
    ...(job.entrypointResources !== ""
      ? { entrypointResources: job.entrypointResources }
      : {}),
    ...(job.jobSubmitter
      ? { submitterPodTemplate: submitterPod(job.jobSubmitter) }
      : {}),
    ...(options.rayClusterSpec
      ? { rayClusterSpec: options.rayClusterSpec }
      : { clusterSelector: { ...job.clusterSelector } }),
    // Queued: created suspended, as Kueue expects; it resumes the job.
    ...(job.suspend || job.queue ? { suspend: true } : {}),
  };
  return {
    apiVersion: options.apiVersion,
    kind: "RayJob",
    metadata: {
      name: job.name,
      namespace,
      labels: {
        [LABEL.clusterName]: job.name,
        [LABEL.user]: userLabelValue(job.user),
        ...(job.version !== "" ? { [LABEL.version]: job.version } : {}),
        [LABEL.appName]: APP_NAME,
        [LABEL.managedBy]: MANAGED_BY,
        ...queueLabels(job.queue),
      },
      annotations: {
        ...(isLabelValue(job.user) ? {} : { [ANNOTATION.user]: job.user }),
        // The job's expiry, which the operator copies to its cluster.
        ...expiryAnnotations(job.expiresAt),
      },
    },
    spec,
  };
}

/** The runtime environment as YAML: v0.6.0's base64 decoded (see above). */
export function runtimeEnvYaml(value: string): string {
  const text = value.trim();
  if (text.length % 4 !== 0 || !/^[A-Za-z0-9+/]+={0,2}$/.test(text)) {
    return value;
  }
  try {
    const bytes = Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return value;
  }
}

/** The submitter pod, as KubeRay's API server writes it. */
function submitterPod(submitter: RayJobSubmitter): PodTemplateSpec {
  const amounts = {
    cpu: submitter.cpu !== "" ? submitter.cpu : "1",
    memory: submitter.memory !== "" ? submitter.memory : "1Gi",
  };
  return {
    spec: {
      containers: [{
        name: SUBMITTER_CONTAINER,
        image: submitter.image,
        resources: { limits: { ...amounts }, requests: { ...amounts } },
      }],
      restartPolicy: "Never",
    },
  };
}

// ---------------------------------------------------------------------------
// RayJob -> Job

/**
 * The job a RayJob holds, whoever wrote it; tolerates missing fields. The
 * own cluster reads back through clusterFromResource, as a cluster's spec;
 * of `events`, those about this RayJob (eventsOfJob) are the job's.
 */
export function jobFromResource(
  resource: RayJobResource,
  events: readonly KubeEvent[] = [],
): Job {
  const metadata = resource.metadata ?? { name: "" };
  const labels = metadata.labels ?? {};
  const spec = resource.spec ?? {};
  const status = resource.status ?? {};
  const version = labels[LABEL.version] ?? spec.rayClusterSpec?.rayVersion ??
    "";
  return {
    name: metadata.name ?? "",
    namespace: metadata.namespace ?? "",
    user: metadata.annotations?.[ANNOTATION.user] ?? labels[LABEL.user] ?? "",
    version,
    entrypoint: spec.entrypoint ?? "",
    metadata: { ...spec.metadata },
    runtimeEnv: spec.runtimeEnvYAML ?? "",
    // The operator's, once it chose one (spec.jobId when given).
    jobId: status.jobId || spec.jobId || "",
    shutdownAfterJobFinishes: spec.shutdownAfterJobFinishes ?? false,
    clusterSelector: { ...spec.clusterSelector },
    clusterSpec: spec.rayClusterSpec
      ? ownClusterSpec(resource, spec.rayClusterSpec, version)
      : undefined,
    ttlSecondsAfterFinished: spec.ttlSecondsAfterFinished ?? 0,
    jobSubmitter: submitterOf(spec.submitterPodTemplate),
    entrypointNumCpus: spec.entrypointNumCpus ?? 0,
    entrypointNumGpus: spec.entrypointNumGpus ?? 0,
    entrypointResources: spec.entrypointResources ?? "",
    activeDeadlineSeconds: spec.activeDeadlineSeconds ?? 0,
    createdAt: parseTime(metadata.creationTimestamp),
    deleteAt: parseTime(metadata.deletionTimestamp),
    jobStatus: status.jobStatus ?? "",
    jobDeploymentStatus: status.jobDeploymentStatus ?? "",
    message: queuedJobMessage(labels, spec, status.message ?? ""),
    startTime: parseTime(status.startTime),
    endTime: parseTime(status.endTime),
    rayClusterName: status.rayClusterName ?? "",
    suspend: spec.suspend ?? false,
    queue: queueOf(labels),
    events: eventsOfJob(resource, events).map(clusterEventFromResource),
    ttl: "",
    ...expiresAtOf(metadata.annotations),
  };
}

/**
 * The events about this RayJob: involvedObject of kind RayJob with its
 * namespace and name, and its uid when both carry one (so a deleted
 * namesake's never show), oldest first as a cluster's.
 */
export function eventsOfJob(
  resource: RayJobResource,
  events: readonly KubeEvent[],
): KubeEvent[] {
  const { name, namespace, uid } = resource.metadata ?? { name: "" };
  return events
    .filter((event) => {
      const object = event.involvedObject ?? {};
      return object.kind === "RayJob" && object.name === name &&
        (object.namespace ?? "") === (namespace ?? "") &&
        !(object.uid && uid && object.uid !== uid);
    })
    .map((event, index) => ({ event, index, at: eventTime(event) }))
    .sort((a, b) => a.at - b.at || a.index - b.index)
    .map(({ event }) => event);
}

/** When an event last happened, in ms; 0 when it says nothing. */
function eventTime(event: KubeEvent): number {
  const time = parseTime(event.lastTimestamp) ?? parseTime(event.eventTime) ??
    parseTime(event.firstTimestamp) ??
    parseTime(event.metadata?.creationTimestamp);
  return time?.getTime() ?? 0;
}

/** The cluster spec of a job's own cluster, read as a cluster's. */
function ownClusterSpec(
  resource: RayJobResource,
  spec: RayCluster["spec"],
  version: string,
): ClusterSpec | undefined {
  const cluster: RayCluster = {
    apiVersion: resource.apiVersion,
    kind: "RayCluster",
    metadata: {
      name: resource.metadata?.name ?? "",
      labels: version !== "" ? { [LABEL.version]: version } : {},
      // A job's cluster has no `envs` (jobCluster): every variable is its
      // group's own. Without the list, the head's variables read back as
      // the cluster's envs, which a job's spec has no field for, and were
      // lost.
      annotations: { [ANNOTATION.envs]: "[]" },
    },
    spec,
  };
  return clusterFromResource(cluster, []).clusterSpec;
}

function submitterOf(
  template: PodTemplateSpec | undefined,
): RayJobSubmitter | undefined {
  const container = template?.spec?.containers?.[0];
  if (container === undefined) return undefined;
  const limits = container.resources?.limits ?? {};
  return {
    image: container.image ?? "",
    cpu: String(limits.cpu ?? ""),
    memory: String(limits.memory ?? ""),
  };
}

function parseTime(value: string | null | undefined): Date | undefined {
  if (value === undefined || value === null || value === "") return undefined;
  const time = new Date(value);
  return Number.isNaN(time.getTime()) ? undefined : time;
}
