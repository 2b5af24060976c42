/**
 * Conversions between the service's messages and the Kubernetes objects that
 * hold them, in the format of the KubeRay API server (apiserver/pkg/util
 * cluster.go and apiserver/pkg/model), so objects either side wrote read back
 * through the other. Pure functions, in named pairs:
 *
 * - clusterToResource / clusterFromResource (RayCluster)
 *
 * Beside them: a compute template's ConfigMap (template_conversions.ts),
 * a cluster's events (event_conversions.ts).
 *
 * Decisions the KubeRay format leaves open, made here once:
 *
 * - Worker min/max replicas: a given value is written as it is, 0 included
 *   (KubeRay replaced 0 with replicas). A value the caller omitted becomes
 *   `replicas`, which is what the operator then keeps the group at; the CRD
 *   requires both. Read-back returns what is stored, min as min and max as
 *   max, so an omitted bound reads back as the replicas it was given.
 * - Image: the container runs the group's `image`, else
 *   `rayproject/ray:<version>`. The pod annotation `ray.io/compute-image`
 *   holds the image as the caller gave it (empty when defaulted), as KubeRay
 *   writes it. Read-back takes the container's image, except that the
 *   default image under an empty annotation reads back as "" (what the
 *   caller sent), so a round-trip is the identity.
 * - A group without a compute template gets no resource requests or limits
 *   (the annotation `ray.io/compute-template` is then empty).
 * - `envs` go on every container (head and workers) after `MY_POD_IP`, then
 *   the group's own `environment`, each sorted by name so the object is
 *   deterministic. When a group has an `environment`, the annotation
 *   `ray.io/envs` names the cluster's `envs`, so each reads back where it was
 *   given; without it (objects the KubeRay API server wrote), `envs` are the
 *   plain-value variables the head and every worker container share, and a
 *   group's `environment` the rest of its container's.
 * - Pod settings and tolerations: pod_conversions.ts; volumes of every
 *   type: volume_conversions.ts; KubeRay's later fields: a group's image
 *   pull policy and security context (container_settings.ts), the
 *   autoscaler (autoscaler_conversions.ts), the cluster's annotations
 *   (cluster_annotations.ts), written here with `enableIngress`, the head
 *   service's annotations and the cluster's `envsValuesFrom` (after `envs`,
 *   their names in `ray.io/envs` so they read back apart).
 * - The annotation `ray.io/creation-timestamp` uses Go's `time.Time.String()`
 *   layout in UTC (`2023-09-25 10:48:35.766 +0000 UTC`), as KubeRay writes it.
 */
import { expiresAtOf, expiryAnnotations } from "./expiry.ts";
import { clusterAddressesOf } from "./cluster_addresses.ts";
import { isLabelValue, MAX_LABEL_LENGTH } from "./kubernetes_names.ts";
import { queuedClusterState, queueLabels, queueOf } from "./queues.ts";
import { clusterAction } from "./actions.ts";
import { missingTemplatesError } from "./template_errors.ts";
import { invalidArgument } from "./errors.ts";
import {
  clusterEventFromResource,
  eventsOfCluster,
} from "./event_conversions.ts";
import { parseKubernetesTime } from "./timestamps.ts";
import {
  clusterEnvs,
  clusterValuesFrom,
  containerEnv,
  envsAnnotation,
  groupEnvironment,
  groupValuesFrom,
  HEAD_CONTAINER,
  listedNames,
  plainEnv,
  WORKER_CONTAINER,
} from "./env_conversions.ts";
import { applyPodSettings, podSettingsOf } from "./pod_conversions.ts";
import { podVolume, volumeMount, volumesOf } from "./volume_conversions.ts";
import {
  applyContainerSettings,
  containerSettingsOf,
} from "./container_settings.ts";
import {
  autoscalerOf,
  autoscalerToResource,
} from "./autoscaler_conversions.ts";
import {
  clusterAnnotationsOf,
  ENABLE_SERVE_SERVICE,
} from "./cluster_annotations.ts";
import {
  ANNOTATION,
  APP_NAME,
  type Container,
  type HeadGroup,
  type KubeEvent,
  LABEL,
  MANAGED_BY,
  type PodTemplateSpec,
  type RayCluster,
  type WorkerGroup,
} from "./resources.ts";
import {
  type Cluster,
  type ClusterSpec,
  type ComputeTemplate,
  type Environment,
  ENVIRONMENTS,
  type EnvValueFrom,
  type HeadGroupSpec,
  type WorkerGroupSpec,
} from "./types.ts";

/** The image repository a group runs when it names no image. */
export const DEFAULT_IMAGE_REPOSITORY = "rayproject/ray";
/** The extended resource GPUs are requested under when no accelerator is set. */
export const DEFAULT_GPU_RESOURCE = "nvidia.com/gpu";
/** The head container's ports, by name (KubeRay API server's set). */
export const HEAD_PORTS: readonly { name: string; containerPort: number }[] = [
  { name: "redis", containerPort: 6379 },
  { name: "head", containerPort: 10001 },
  { name: "dashboard", containerPort: 8265 },
  { name: "metrics", containerPort: 8080 },
];

/**
 * The head's serve ports, added when the cluster's annotation
 * ray.io/enable-serve-service is "true", as KubeRay's API server adds them.
 */
const SERVE_PORTS: readonly { name: string; containerPort: number }[] = [
  { name: "dashboard-agent", containerPort: 52365 },
  { name: "serve", containerPort: 8000 },
];

// ---------------------------------------------------------------------------
// Cluster -> RayCluster

/**
 * The RayCluster for a cluster. `templates` holds (at least) every compute
 * template the cluster references, by name; a missing one is a
 * FAILED_PRECONDITION error naming it. The caller has validated the cluster
 * (validateCreateCluster); a cluster without a head group is still refused
 * with INVALID_ARGUMENT rather than crashing.
 */
export function clusterToResource(
  cluster: Cluster,
  templates: ReadonlyMap<string, ComputeTemplate>,
  options: { apiVersion: string; now: Date },
): RayCluster {
  const spec = cluster.clusterSpec;
  const head = spec?.headGroupSpec;
  if (spec === undefined || head === undefined) {
    const action = clusterAction("create", cluster.namespace, cluster.name);
    throw invalidArgument(action, [{
      field: spec === undefined
        ? "cluster.clusterSpec"
        : "cluster.clusterSpec.headGroupSpec",
      description: "is required",
    }]);
  }
  const missing = referencedTemplates(cluster).filter((name) =>
    !templates.has(name)
  );
  if (missing.length > 0) {
    throw missingTemplatesError(cluster, cluster.namespace, missing);
  }
  const template = (name: string) =>
    name === "" ? undefined : templates.get(name);

  const serve = cluster.annotations?.[ENABLE_SERVE_SERVICE] === "true";
  const headGroup: HeadGroup = {
    ...(head.serviceType !== "" ? { serviceType: head.serviceType } : {}),
    ...(head.enableIngress ? { enableIngress: true } : {}),
    rayStartParams: { ...head.engineStartParams },
    template: podTemplate({
      containerName: HEAD_CONTAINER,
      group: head,
      version: cluster.version,
      envs: cluster.envs,
      envsValuesFrom: cluster.envsValuesFrom,
      template: template(head.computeTemplate),
      ports: [...HEAD_PORTS, ...(serve ? SERVE_PORTS : [])].map((port) => ({
        ...port,
      })),
    }),
  };

  const workers = spec.workerGroupSpec ?? [];
  const workerGroups = workers.map((group) =>
    workerGroupToResource(group, cluster, template(group.computeTemplate))
  );

  const envNames = envsAnnotation(cluster.envs, cluster.envsValuesFrom, [
    head,
    ...workers,
  ]);
  const resource: RayCluster = {
    apiVersion: options.apiVersion,
    kind: "RayCluster",
    metadata: {
      name: cluster.name,
      namespace: cluster.namespace,
      labels: {
        [LABEL.clusterName]: cluster.name,
        [LABEL.user]: userLabelValue(cluster.user),
        [LABEL.version]: cluster.version,
        [LABEL.environment]: cluster.environment,
        [LABEL.appName]: APP_NAME,
        [LABEL.managedBy]: MANAGED_BY,
        ...queueLabels(cluster.queue),
      },
      annotations: {
        ...cluster.annotations,
        [ANNOTATION.creationTimestamp]: goTimeString(options.now),
        ...(envNames === undefined ? {} : { [ANNOTATION.envs]: envNames }),
        ...(isLabelValue(cluster.user)
          ? {}
          : { [ANNOTATION.user]: cluster.user }),
        ...expiryAnnotations(cluster.expiresAt),
      },
    },
    spec: {
      ...(cluster.version !== "" ? { rayVersion: cluster.version } : {}),
      headGroupSpec: headGroup,
      workerGroupSpecs: workerGroups,
      ...(Object.keys(spec.headServiceAnnotations ?? {}).length > 0
        ? { headServiceAnnotations: { ...spec.headServiceAnnotations } }
        : {}),
      ...autoscalerToResource(spec),
      // Queued: created suspended, as Kueue's webhook would make it; Kueue
      // clears it when it admits the cluster.
      ...(cluster.queue ? { suspend: true } : {}),
    },
  };
  return resource;
}

/** The RayCluster worker group of one of the cluster's worker groups. */
export function workerGroupToResource(
  group: WorkerGroupSpec,
  cluster: Cluster,
  template: ComputeTemplate | undefined,
): WorkerGroup {
  return {
    groupName: group.groupName,
    replicas: group.replicas,
    minReplicas: group.minReplicas ?? group.replicas,
    maxReplicas: group.maxReplicas ?? group.replicas,
    rayStartParams: { ...group.engineStartParams },
    template: podTemplate({
      containerName: WORKER_CONTAINER,
      group,
      version: cluster.version,
      envs: cluster.envs,
      envsValuesFrom: cluster.envsValuesFrom,
      template,
    }),
  };
}

function podTemplate(input: {
  containerName: string;
  group: HeadGroupSpec | WorkerGroupSpec;
  version: string;
  envs: Record<string, string>;
  envsValuesFrom: Record<string, EnvValueFrom> | undefined;
  template: ComputeTemplate | undefined;
  ports?: { name: string; containerPort: number }[];
}): PodTemplateSpec {
  const { group, template } = input;
  const container: Container = {
    name: input.containerName,
    image: group.image !== "" ? group.image : defaultImage(input.version),
    env: containerEnv(input.envs, group, input.envsValuesFrom ?? {}),
  };
  applyContainerSettings(container, group);
  if (input.ports !== undefined) container.ports = input.ports;
  if (template !== undefined) {
    const quantities = resourceQuantities(template);
    container.resources = { limits: quantities, requests: { ...quantities } };
  }
  if (group.volumes.length > 0) {
    container.volumeMounts = group.volumes.map(volumeMount);
  }
  const pod: PodTemplateSpec = {
    metadata: {
      annotations: {
        [ANNOTATION.computeTemplate]: group.computeTemplate,
        [ANNOTATION.computeImage]: group.image,
      },
    },
    spec: { containers: [container] },
  };
  if (group.volumes.length > 0) pod.spec.volumes = group.volumes.map(podVolume);
  applyPodSettings(pod, group, template?.tolerations ?? []);
  return pod;
}

/**
 * Requests (= limits) of a compute template: cpu, memory in its unit (Gi
 * by default), gpu when > 0, then its extended resources (each > 0, by
 * name), as KubeRay's API server adds them.
 */
export function resourceQuantities(
  template: ComputeTemplate,
): Record<string, string> {
  const quantities: Record<string, string> = {
    cpu: String(template.cpu),
    memory: `${template.memory}${template.memoryUnit || "Gi"}`,
  };
  if (template.gpu > 0) {
    const name = template.gpuAccelerator !== ""
      ? template.gpuAccelerator
      : DEFAULT_GPU_RESOURCE;
    quantities[name] = String(template.gpu);
  }
  const extended = template.extendedResources ?? {};
  for (const name of Object.keys(extended).sort()) {
    if (extended[name] > 0) quantities[name] = String(extended[name]);
  }
  return quantities;
}

function defaultImage(version: string): string {
  return `${DEFAULT_IMAGE_REPOSITORY}:${version}`;
}

/**
 * Go's `time.Time.String()` of a UTC time, as the KubeRay API server writes
 * `ray.io/creation-timestamp`: `2006-01-02 15:04:05.999999999 -0700 MST`
 * (fraction without trailing zeros).
 */
function goTimeString(time: Date): string {
  const iso = time.toISOString(); // 2023-09-25T10:48:35.766Z
  const fraction = iso.slice(19, 23).replace(/\.?0+$/, "");
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)}${fraction} +0000 UTC`;
}

/**
 * The `ray.io/user` label of a cluster: the username itself when a label
 * can hold it (as KubeRay writes it), else a readable stand-in, every run of
 * characters a label value cannot hold turned into "_" and cut to 63; the
 * username itself then goes into the `ray.io/user` annotation.
 */
export function userLabelValue(user: string): string {
  if (isLabelValue(user)) return user;
  return user.replace(/[^A-Za-z0-9._-]+/g, "_").slice(0, MAX_LABEL_LENGTH)
    .replace(/^[^A-Za-z0-9]+|[^A-Za-z0-9]+$/g, "");
}

/** Distinct compute template names of the head and worker groups, in order. */
export function referencedTemplates(cluster: Cluster): string[] {
  const spec = cluster.clusterSpec;
  const names = [
    spec?.headGroupSpec?.computeTemplate ?? "",
    ...(spec?.workerGroupSpec ?? []).map((group) => group.computeTemplate),
  ];
  return [...new Set(names.filter((name) => name !== ""))];
}

// ---------------------------------------------------------------------------
// RayCluster -> Cluster

/**
 * The cluster a RayCluster holds, whoever wrote it (Corral, the KubeRay API
 * server, or kubectl), with those of `events` that are about it
 * (eventsOfCluster). Tolerates missing fields rather than failing.
 */
export function clusterFromResource(
  resource: RayCluster,
  events: readonly KubeEvent[],
): Cluster {
  const metadata = resource.metadata ?? { name: "" };
  const labels = metadata.labels ?? {};
  const spec = resource.spec ?? {};
  const version = labels[LABEL.version] ?? spec.rayVersion ?? "";
  const head = spec.headGroupSpec;
  const headContainer = head === undefined
    ? undefined
    : mainContainer(head.template, HEAD_CONTAINER);

  const envNames = metadata.annotations?.[ANNOTATION.envs];
  const clusterFromNames = listedNames(envNames);
  const envs = clusterEnvs(
    envNames,
    plainEnv(headContainer?.env),
    (spec.workerGroupSpecs ?? []).map((group) =>
      plainEnv(mainContainer(group.template, WORKER_CONTAINER)?.env)
    ),
  );
  const headVolumes = volumesOf(head?.template, headContainer);
  const clusterSpec: ClusterSpec = {
    headGroupSpec: head === undefined ? undefined : {
      computeTemplate: annotation(head.template, ANNOTATION.computeTemplate),
      image: imageOf(head.template, headContainer, version),
      serviceType: head.serviceType ?? "",
      enableIngress: head.enableIngress === true,
      engineStartParams: stringMap(head.rayStartParams),
      volumes: headVolumes,
      ...podSettingsOf(head.template),
      ...containerSettingsOf(headContainer),
      environment: groupEnvironment(
        headContainer,
        envs,
        envNames === undefined,
      ),
      environmentValuesFrom: groupValuesFrom(
        headContainer,
        envNames === undefined,
        clusterFromNames,
      ),
    },
    workerGroupSpec: (spec.workerGroupSpecs ?? []).map((group) => {
      const container = mainContainer(group.template, WORKER_CONTAINER);
      return {
        ...podSettingsOf(group.template),
        ...containerSettingsOf(container),
        environment: groupEnvironment(container, envs, envNames === undefined),
        environmentValuesFrom: groupValuesFrom(
          container,
          envNames === undefined,
          clusterFromNames,
        ),
        groupName: group.groupName ?? "",
        computeTemplate: annotation(group.template, ANNOTATION.computeTemplate),
        image: imageOf(group.template, container, version),
        // The CRD defaults replicas to 0.
        replicas: group.replicas ?? 0,
        minReplicas: group.minReplicas ?? undefined,
        maxReplicas: group.maxReplicas ?? undefined,
        engineStartParams: stringMap(group.rayStartParams),
        volumes: volumesOf(group.template, container),
      };
    }),
    ...autoscalerOf(spec, headVolumes),
    headServiceAnnotations: stringMap(
      spec.headServiceAnnotations as Record<string, unknown> | undefined,
    ),
  };

  return {
    name: metadata.name ?? "",
    namespace: metadata.namespace ?? "",
    user: metadata.annotations?.[ANNOTATION.user] ?? labels[LABEL.user] ?? "",
    version,
    environment: environmentOf(labels[LABEL.environment]),
    clusterSpec,
    createdAt: parseKubernetesTime(metadata.creationTimestamp),
    deletedAt: parseKubernetesTime(metadata.deletionTimestamp),
    clusterState: queuedClusterState(
      labels,
      spec,
      resource.status?.state ?? "",
    ),
    events: eventsOfCluster(resource, events).map(clusterEventFromResource),
    serviceEndpoint: stringMap(resource.status?.endpoints),
    envs,
    envsValuesFrom: clusterValuesFrom(envNames, headContainer),
    annotations: clusterAnnotationsOf(metadata.annotations),
    etag: metadata.resourceVersion ?? "",
    ...clusterAddressesOf(resource),
    ttl: "",
    ...expiresAtOf(metadata.annotations),
    queue: queueOf(labels),
  };
}

function environmentOf(label: string | undefined): Environment {
  return ENVIRONMENTS.find((name) => name === label) ?? "DEV";
}

/** The container named `name`, else the first one. */
export function mainContainer(
  template: PodTemplateSpec | undefined,
  name: string,
): Container | undefined {
  const containers = template?.spec?.containers ?? [];
  return containers.find((c) => c.name === name) ?? containers[0];
}

function annotation(
  template: PodTemplateSpec | undefined,
  key: string,
): string {
  return template?.metadata?.annotations?.[key] ?? "";
}

function imageOf(
  template: PodTemplateSpec | undefined,
  container: Container | undefined,
  version: string,
): string {
  const image = container?.image ?? "";
  const given = template?.metadata?.annotations?.[ANNOTATION.computeImage];
  // The caller gave no image and the group runs the default one.
  if (given === "" && image === defaultImage(version)) return "";
  return image;
}

// ---------------------------------------------------------------------------

function stringMap(
  map: Record<string, unknown> | undefined,
): Record<string, string> {
  const result: Record<string, string> = {};
  for (const [key, value] of Object.entries(map ?? {})) {
    result[key] = String(value);
  }
  return result;
}
