/**
 * Validation of a cluster to create (or of an update's result, a job's own
 * cluster, a service's). Every violation is collected, named by its
 * request-relative JSON field path (lowerCamelCase, the same for HTTP and
 * gRPC), and thrown once: INVALID_ARGUMENT listing them all.
 *
 * The rules are those Kubernetes and the KubeRay operator would otherwise
 * apply later, when the caller can no longer be told: names that become
 * object names or label values, the operator's own limits on RayCluster
 * names, replica bounds, volume and environment variable names; and the
 * upper bounds of limits.ts, which keep one request from asking for more
 * than a platform team allows. Envs become container variables and
 * engineStartParams the ray start command line, so only those places'
 * rules apply to their keys; the annotations of KubeRay's later fields
 * (the cluster's, the head service's) are checked as annotations
 * (current_fields_validation.ts, with the other later fields).
 */
import { clusterAction } from "./actions.ts";
import { type FieldViolation, invalidArgument } from "./errors.ts";
import {
  DEFAULT_LIMITS,
  LIMIT_FLAGS,
  type Limits,
  MAX_ENV_VALUE_LENGTH,
  MAX_START_PARAM_NAME_LENGTH,
  MAX_START_PARAM_VALUE_LENGTH,
} from "./limits.ts";
import {
  checkNamespace,
  clusterNameProblems,
  computeTemplateNameProblems,
  dns1123LabelProblems,
  labelValueProblems,
  objectNameProblems,
} from "./name_problems.ts";
import {
  envNameProblem,
  envValuesFromViolations,
  podSettingsViolations,
} from "./pod_validation.ts";
import { queueViolations } from "./queues.ts";
import {
  checkClusterAnnotations,
  checkClusterSpecFields,
  checkContainerSettings,
  checkVolumeKind,
} from "./current_fields_validation.ts";
import { HEAD_CONTAINER } from "./env_conversions.ts";
import { NEWEST_RAY_VERSION } from "./ray_versions.ts";
import { sourceViolations } from "./pod_validation.ts";
import { shellWordProblem } from "./shell_words.ts";
import type {
  Cluster,
  HeadGroupSpec,
  Volume,
  WorkerGroupSpec,
} from "./types.ts";
import { checkLimit, checkMapSize, Violations } from "./violations.ts";

/** Service types of the head node the operator can create. */
export const SERVICE_TYPES = ["ClusterIP", "NodePort", "LoadBalancer"] as const;

/** Longest username kept; Kubernetes user names have no limit, this is sane. */
const MAX_USER_LENGTH = 253;

/** Validates a CreateClusterRequest; throws INVALID_ARGUMENT listing all violations. */
export function validateCreateCluster(
  request: { cluster?: Cluster; namespace: string },
  limits: Limits = DEFAULT_LIMITS,
): void {
  const violations = clusterViolations(request, limits);
  if (violations.length > 0) {
    throw invalidArgument(
      clusterAction("create", request.namespace, request.cluster?.name),
      violations,
    );
  }
}

/**
 * Every violation of a cluster as a create (or an update's result) has it.
 * `message` is the request field the cluster is in, the prefix of every
 * field named: `cluster`, or `job` for a job's own cluster (whose spec is
 * the job's clusterSpec and whose version is the job's).
 */
export function clusterViolations(
  request: { cluster?: Cluster; namespace: string },
  limits: Limits = DEFAULT_LIMITS,
  message = "cluster",
): FieldViolation[] {
  const v = new Violations();
  checkNamespace(v, "namespace", request.namespace);
  const cluster = request.cluster;
  if (cluster === undefined || cluster === null) {
    v.add(message, "is required");
    return v.list;
  }

  v.addAll(`${message}.name`, clusterNameProblems(cluster.name));
  for (const q of queueViolations(`${message}.queue`, cluster.queue)) {
    v.add(q.field, q.description);
  }
  if (
    cluster.namespace !== "" && request.namespace !== "" &&
    cluster.namespace !== request.namespace
  ) {
    v.add(
      `${message}.namespace`,
      `must be empty or equal the request's namespace "${request.namespace}"`,
    );
  }
  checkUser(v, `${message}.user`, cluster.user);
  v.addAll(`${message}.version`, labelValueProblems(cluster.version));
  checkEnvs(v, `${message}.envs`, cluster.envs, limits);
  checkEnvsValuesFrom(v, message, cluster, limits);
  checkClusterAnnotations(v, `${message}.annotations`, cluster, limits);
  checkClusterSpec(v, `${message}.clusterSpec`, cluster, limits);
  return v.list;
}

/**
 * The cluster's `envsValuesFrom`: names set nowhere else in the cluster's
 * variables, sources as a group's; a container's resource names no
 * container, since the variable is in every group's.
 */
function checkEnvsValuesFrom(
  v: Violations,
  message: string,
  cluster: Cluster,
  limits: Limits,
): void {
  const path = `${message}.envsValuesFrom`;
  checkMapSize(v, path, cluster.envsValuesFrom, limits);
  for (const [name, from] of Object.entries(cluster.envsValuesFrom ?? {})) {
    const at = `${path}[${JSON.stringify(name)}]`;
    const add = (field: string, description: string) =>
      v.add(field === "" ? at : `${at}.${field}`, description);
    const problem = envNameProblem(name);
    if (problem !== undefined) add("", problem);
    if (Object.hasOwn(cluster.envs ?? {}, name)) {
      add("", `is also set in ${message}.envs: set a variable in one place`);
    }
    if (from.source === "RESOURCEFIELD" && from.name !== "") {
      add("name", "must be empty: the variable is in every group's container");
    }
    sourceViolations(
      { ...from, name: from.source === "RESOURCEFIELD" ? "" : from.name },
      HEAD_CONTAINER,
      add,
    );
  }
}

/** The names of the cluster's variables, each group's must differ from. */
function clusterVariables(cluster: Cluster): Record<string, string> {
  const names: Record<string, string> = { ...cluster.envs };
  for (const name of Object.keys(cluster.envsValuesFrom ?? {})) {
    names[name] = "";
  }
  return names;
}

/**
 * Any username an identity provider gives (e-mail addresses included):
 * conversions keep it whole in an annotation when a label cannot.
 */
function checkUser(v: Violations, path: string, user: string): void {
  if (user === "") {
    v.add(path, "is required");
    return;
  }
  if (user.length > MAX_USER_LENGTH) {
    v.add(path, `must be at most ${MAX_USER_LENGTH} characters`);
  }
  // deno-lint-ignore no-control-regex -- control characters are the point
  if (/[\u0000-\u001f\u007f-\u009f]/.test(user)) {
    v.add(path, "must not contain control characters");
  }
  if (user.trim() !== user) {
    v.add(path, "must not begin or end with white space");
  }
}

/** A cluster's spec at `path`: its head group and its worker groups. */
function checkClusterSpec(
  v: Violations,
  path: string,
  cluster: Cluster,
  limits: Limits,
): void {
  const spec = cluster.clusterSpec;
  if (spec === undefined || spec === null) {
    v.add(path, "is required");
    return;
  }
  const hasVersion = cluster.version !== "";
  const variables = clusterVariables(cluster);
  if (spec.headGroupSpec === undefined || spec.headGroupSpec === null) {
    v.add(`${path}.headGroupSpec`, "is required");
  } else {
    checkHeadGroup(
      v,
      `${path}.headGroupSpec`,
      spec.headGroupSpec,
      hasVersion,
      variables,
      limits,
    );
  }
  checkClusterSpecFields(v, path, spec, limits);
  const workers = spec.workerGroupSpec ?? [];
  if (workers.length > limits.maxWorkerGroups) {
    v.add(
      `${path}.workerGroupSpec`,
      `must have at most ${limits.maxWorkerGroups} worker groups, got ${workers.length} (--${LIMIT_FLAGS.maxWorkerGroups})`,
    );
  }
  const groupNames = new Map<string, number>();
  workers.forEach((group, index) => {
    const groupPath = `${path}.workerGroupSpec[${index}]`;
    checkWorkerGroup(
      v,
      groupPath,
      group,
      hasVersion,
      variables,
      limits,
    );
    const first = groupNames.get(group.groupName);
    if (group.groupName !== "" && first !== undefined) {
      v.add(
        `${groupPath}.groupName`,
        `must be unique: "${group.groupName}" is also the name of workerGroupSpec[${first}]`,
      );
    } else if (group.groupName !== "") {
      groupNames.set(group.groupName, index);
    }
  });
}

function checkHeadGroup(
  v: Violations,
  path: string,
  group: HeadGroupSpec,
  hasVersion: boolean,
  clusterEnvs: Record<string, string>,
  limits: Limits,
): void {
  checkGroup(v, path, group, hasVersion, clusterEnvs, limits);
  if (
    group.serviceType !== "" &&
    !(SERVICE_TYPES as readonly string[]).includes(group.serviceType)
  ) {
    v.add(
      `${path}.serviceType`,
      `must be one of ${SERVICE_TYPES.map((t) => `"${t}"`).join(", ")}`,
    );
  }
}

function checkWorkerGroup(
  v: Violations,
  path: string,
  group: WorkerGroupSpec,
  hasVersion: boolean,
  clusterEnvs: Record<string, string>,
  limits: Limits,
): void {
  if (group.groupName === "") {
    v.add(`${path}.groupName`, "is required");
  } else {
    v.addAll(`${path}.groupName`, dns1123LabelProblems(group.groupName));
  }
  checkGroup(v, path, group, hasVersion, clusterEnvs, limits);

  const { replicas, minReplicas: min, maxReplicas: max } = group;
  checkLimit(v, `${path}.replicas`, replicas, limits, "maxReplicas");
  checkLimit(v, `${path}.minReplicas`, min, limits, "maxReplicas");
  checkLimit(v, `${path}.maxReplicas`, max, limits, "maxReplicas");
  if (replicas < 0) v.add(`${path}.replicas`, "must not be negative");
  if (min !== undefined && min < 0) {
    v.add(`${path}.minReplicas`, "must not be negative");
  }
  if (max !== undefined && max < 0) {
    v.add(`${path}.maxReplicas`, "must not be negative");
  }
  let boundsChecked = false;
  if (replicas >= 0 && min !== undefined && min >= 0 && min > replicas) {
    v.add(
      `${path}.minReplicas`,
      `must not be greater than replicas (${replicas})`,
    );
    boundsChecked = true;
  }
  if (replicas >= 0 && max !== undefined && max >= 0 && max < replicas) {
    v.add(
      `${path}.maxReplicas`,
      `must not be less than replicas (${replicas})`,
    );
    boundsChecked = true;
  }
  if (
    !boundsChecked && min !== undefined && max !== undefined && min >= 0 &&
    max >= 0 && min > max
  ) {
    v.add(`${path}.maxReplicas`, `must not be less than minReplicas (${min})`);
  }
}

/** The request message a field path is in: `cluster` of `cluster.clusterSpec...`. */
function requestOf(path: string): string {
  return path.slice(0, path.indexOf("."));
}

/** Rules common to head and worker groups. */
function checkGroup(
  v: Violations,
  path: string,
  group: HeadGroupSpec | WorkerGroupSpec,
  hasVersion: boolean,
  clusterEnvs: Record<string, string>,
  limits: Limits,
): void {
  if (group.computeTemplate !== "") {
    v.addAll(
      `${path}.computeTemplate`,
      computeTemplateNameProblems(group.computeTemplate),
    );
  }
  if (group.image === "") {
    if (!hasVersion) {
      v.add(
        `${path}.image`,
        `is required when ${
          requestOf(path)
        }.version is not set (the newest Ray version Corral knows is ${NEWEST_RAY_VERSION})`,
      );
    }
  } else if (/\s/.test(group.image)) {
    v.add(`${path}.image`, "must not contain whitespace");
  }
  checkStartParams(
    v,
    `${path}.engineStartParams`,
    group.engineStartParams,
    limits,
  );
  checkVolumes(v, `${path}.volumes`, group.volumes ?? []);
  checkContainerSettings(v, path, group);
  checkEnvs(v, `${path}.environment`, group.environment, limits);
  for (const name of Object.keys(group.environment ?? {})) {
    if (Object.hasOwn(clusterEnvs, name)) {
      v.add(
        `${path}.environment[${JSON.stringify(name)}]`,
        `is also set in ${
          requestOf(path)
        }.envs: set a variable in one of the two`,
      );
    }
  }
  const valuesFrom = `${path}.environmentValuesFrom`;
  checkMapSize(v, valuesFrom, group.environmentValuesFrom, limits);
  v.list.push(...envValuesFromViolations(path, group, clusterEnvs));
  checkMapSize(v, `${path}.annotations`, group.annotations, limits);
  checkMapSize(v, `${path}.labels`, group.labels, limits);
  v.list.push(...podSettingsViolations(path, group));
}

function checkVolumes(v: Violations, path: string, volumes: Volume[]): void {
  const names = new Map<string, number>();
  const mountPaths = new Map<string, number>();
  volumes.forEach((volume, index) => {
    const at = `${path}[${index}]`;
    if (volume.name === "") {
      v.add(`${at}.name`, "is required");
    } else {
      v.addAll(`${at}.name`, dns1123LabelProblems(volume.name));
      const first = names.get(volume.name);
      if (first !== undefined) {
        v.add(
          `${at}.name`,
          `must be unique in the group: "${volume.name}" is also the name of volumes[${first}]`,
        );
      } else {
        names.set(volume.name, index);
      }
    }

    if (volume.mountPath === "") {
      v.add(`${at}.mountPath`, "is required");
    } else if (!volume.mountPath.startsWith("/")) {
      v.add(`${at}.mountPath`, "must be an absolute path");
    } else {
      const normalized = volume.mountPath.replace(/\/+$/, "") || "/";
      const first = mountPaths.get(normalized);
      if (first !== undefined) {
        v.add(
          `${at}.mountPath`,
          `must be unique in the group: "${volume.mountPath}" is also the mount path of volumes[${first}]`,
        );
      } else {
        mountPaths.set(normalized, index);
      }
    }

    checkVolumeKind(v, at, volume);
    // Other kinds' sources are checked by their kind (checkVolumeKind).
    const claimOrPath = volume.volumeType === "PERSISTENT_VOLUME_CLAIM" ||
      volume.volumeType === "HOST_PATH";
    if (!claimOrPath) return;
    if (volume.source === "") {
      v.add(`${at}.source`, "is required");
    } else if (volume.volumeType === "HOST_PATH") {
      if (!volume.source.startsWith("/")) {
        v.add(`${at}.source`, "must be an absolute path on the host");
      } else if (volume.source.split("/").includes("..")) {
        v.add(`${at}.source`, "must not contain '..'");
      }
    } else {
      // The name of a PersistentVolumeClaim.
      v.addAll(`${at}.source`, objectNameProblems(volume.source));
    }
  });
}

/**
 * Start parameters become `--key=value` on the ray start command line (see
 * limits.ts for their lengths).
 */
function checkStartParams(
  v: Violations,
  path: string,
  params: Record<string, string> | undefined,
  limits: Limits,
): void {
  checkMapSize(v, path, params, limits);
  for (const [key, value] of Object.entries(params ?? {})) {
    const at = `${path}[${JSON.stringify(key)}]`;
    if (key.trim() === "") {
      v.add(at, "must have a name");
    } else if (key.length > MAX_START_PARAM_NAME_LENGTH) {
      v.add(
        at,
        `must have a name of at most ${MAX_START_PARAM_NAME_LENGTH} characters`,
      );
    } else if (!START_PARAM_NAME.test(key)) {
      v.add(at, START_PARAM_NAME_MESSAGE);
    }
    if (value.length > MAX_START_PARAM_VALUE_LENGTH) {
      v.add(
        at,
        `must have a value of at most ${MAX_START_PARAM_VALUE_LENGTH} characters (it lands on the ray start command line)`,
      );
    } else {
      const problem = shellWordProblem(value);
      if (problem !== undefined) {
        v.add(
          at,
          `must have a value the shell reads as plain text: ${problem} (the operator puts it unquoted on a bash command line)`,
        );
      }
    }
  }
}

/**
 * A ray start flag name without its dashes (`num-cpus`, `dashboard-host`):
 * the operator writes `--<key>`, so anything else is not a flag.
 */
const START_PARAM_NAME = /^[a-z0-9][a-z0-9-]*$/;
const START_PARAM_NAME_MESSAGE =
  "must have a ray start flag name: lower case alphanumeric characters or '-', starting with an alphanumeric character";

function checkEnvs(
  v: Violations,
  path: string,
  envs: Record<string, string> | undefined,
  limits: Limits,
): void {
  checkMapSize(v, path, envs, limits);
  for (const [name, value] of Object.entries(envs ?? {})) {
    const at = `${path}[${JSON.stringify(name)}]`;
    if (value.length > MAX_ENV_VALUE_LENGTH) {
      v.add(
        at,
        `must have a value of at most ${MAX_ENV_VALUE_LENGTH} characters (it lands in every container's environment)`,
      );
    }
    const problem = envNameProblem(name);
    if (problem !== undefined) v.add(at, problem);
  }
}
