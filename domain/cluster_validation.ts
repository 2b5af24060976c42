/**
 * Request validation. Each validator collects every violation, named by its
 * request-relative JSON field path (lowerCamelCase, the same for HTTP and
 * gRPC), and throws once: INVALID_ARGUMENT listing them all.
 *
 * The rules are those Kubernetes and the KubeRay operator would otherwise
 * apply later, when the caller can no longer be told: names that become
 * object names or label values, the operator's own limits on RayCluster
 * names, replica bounds, volume and environment variable names; and the
 * upper bounds of limits.ts, which keep one request from asking for more
 * than a platform team allows. No map field lands in a label or an
 * annotation (envs become container variables, engineStartParams the ray
 * start command line), so only those places' rules apply to their keys.
 */
import { queueViolations } from "./queues.ts";
import {
  Code,
  type FieldViolation,
  invalidArgument,
  ServiceError,
} from "./errors.ts";
import {
  matchesDns1035Label,
  matchesDns1123Label,
  matchesDns1123Subdomain,
  matchesLabelValue,
  matchesQualifiedNamePart,
  MAX_LABEL_LENGTH,
  MAX_SUBDOMAIN_LENGTH,
} from "./kubernetes_names.ts";
import {
  DEFAULT_LIMITS,
  LIMIT_FLAGS,
  type Limits,
  MAX_ENV_VALUE_LENGTH,
  MAX_START_PARAM_NAME_LENGTH,
  MAX_START_PARAM_VALUE_LENGTH,
} from "./limits.ts";
import {
  envNameProblem,
  envValuesFromViolations,
  podSettingsViolations,
  tolerationViolations,
} from "./pod_validation.ts";
import { shellWordProblem } from "./shell_words.ts";
import type {
  Cluster,
  ComputeTemplate,
  HeadGroupSpec,
  Volume,
  WorkerGroupSpec,
} from "./types.ts";

/**
 * The longest RayCluster name the KubeRay operator reconciles: it appends
 * `-serve-svc` (10 characters) to make Service names of at most 63.
 */
export const MAX_CLUSTER_NAME_LENGTH = 53;
/** Kubernetes' limit on label values, DNS-1123 labels and namespaces. */
export { MAX_LABEL_LENGTH };
/** Kubernetes' limit on object names (DNS-1123 subdomains). */
export const MAX_OBJECT_NAME_LENGTH = MAX_SUBDOMAIN_LENGTH;
/** Service types of the head node the operator can create. */
export const SERVICE_TYPES = ["ClusterIP", "NodePort", "LoadBalancer"] as const;

const DNS1123_LABEL_MESSAGE =
  "must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character";
const DNS1035_LABEL_MESSAGE =
  "must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character";
const DNS1123_SUBDOMAIN_MESSAGE =
  "must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";
const LABEL_VALUE_MESSAGE =
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";

/** Violations of one request, in the order they were found. */
class Violations {
  readonly list: FieldViolation[] = [];

  add(field: string, description: string): void {
    this.list.push({ field, description });
  }

  /** Adds each description, all for one field. */
  addAll(field: string, descriptions: string[]): void {
    for (const description of descriptions) this.add(field, description);
  }

  throwIfAny(action: string): void {
    if (this.list.length > 0) throw invalidArgument(action, this.list);
  }
}

/**
 * `must be at most 1000 (--max-replicas)` when `value` exceeds the limit.
 * Undefined (an unset optional field) is within every limit.
 */
function checkLimit(
  v: Violations,
  field: string,
  value: number | undefined,
  limits: Limits,
  limit: keyof Limits,
): void {
  if (value !== undefined && value > limits[limit]) {
    v.add(
      field,
      `must be at most ${limits[limit]} (--${LIMIT_FLAGS[limit]})`,
    );
  }
}

/** `must have at most 100 entries (--max-map-entries)` for a map too large. */
function checkMapSize(
  v: Violations,
  field: string,
  map: Record<string, unknown> | undefined,
  limits: Limits,
): void {
  const entries = Object.keys(map ?? {}).length;
  if (entries > limits.maxMapEntries) {
    v.add(
      field,
      `must have at most ${limits.maxMapEntries} entries, got ${entries} (--${LIMIT_FLAGS.maxMapEntries})`,
    );
  }
}

// ---------------------------------------------------------------------------
// Actions: the first part of every message

/** `Cannot <verb> cluster "team-a/blue"` (less when name or namespace is unknown). */
export function clusterAction(
  verb: string,
  namespace: string,
  name = "",
): string {
  return `Cannot ${verb} cluster${describe(namespace, name)}`;
}

/** `Cannot <verb> compute template "team-a/big"`. */
export function computeTemplateAction(
  verb: string,
  namespace: string,
  name = "",
): string {
  return `Cannot ${verb} compute template${describe(namespace, name)}`;
}

/** ` "team-a/blue"`, ` "blue"`, ` in namespace "team-a"` or nothing. */
function describe(namespace: string, name: string): string {
  if (name !== "" && namespace !== "") return ` "${namespace}/${name}"`;
  if (name !== "") return ` "${name}"`;
  if (namespace !== "") return ` in namespace "${namespace}"`;
  return "";
}

// ---------------------------------------------------------------------------
// Clusters

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
  if (cluster.user === "") {
    v.add(`${message}.user`, "is required");
  } else {
    // Any username an identity provider gives (e-mail addresses included):
    // conversions keep it whole in an annotation when a label cannot.
    if (cluster.user.length > MAX_USER_LENGTH) {
      v.add(`${message}.user`, `must be at most ${MAX_USER_LENGTH} characters`);
    }
    // deno-lint-ignore no-control-regex -- control characters are the point
    if (/[\u0000-\u001f\u007f-\u009f]/.test(cluster.user)) {
      v.add(`${message}.user`, "must not contain control characters");
    }
    if (cluster.user.trim() !== cluster.user) {
      v.add(`${message}.user`, "must not begin or end with white space");
    }
  }
  v.addAll(`${message}.version`, labelValueProblems(cluster.version));
  checkEnvs(v, `${message}.envs`, cluster.envs, limits);

  const spec = cluster.clusterSpec;
  if (spec === undefined || spec === null) {
    v.add(`${message}.clusterSpec`, "is required");
  } else {
    const path = `${message}.clusterSpec`;
    const hasVersion = cluster.version !== "";
    if (spec.headGroupSpec === undefined || spec.headGroupSpec === null) {
      v.add(`${path}.headGroupSpec`, "is required");
    } else {
      checkHeadGroup(
        v,
        `${path}.headGroupSpec`,
        spec.headGroupSpec,
        hasVersion,
        cluster.envs ?? {},
        limits,
      );
    }
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
        cluster.envs ?? {},
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
  return v.list;
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
        `is required when ${requestOf(path)}.version is not set`,
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

/**
 * Validates the namespace and name of a cluster to get, delete or watch
 * (a watch of every namespace has no namespace).
 */
export const validateClusterKey = validateKey;

/** Validates the namespace of a list request. */
export function validateNamespace(namespace: string, action: string): void {
  const v = new Violations();
  checkNamespace(v, "namespace", namespace);
  v.throwIfAny(action);
}

/**
 * Keys of existing objects: any name Kubernetes accepts for the object (a
 * DNS-1123 subdomain), so objects other writers created stay reachable, and
 * nothing that could change the meaning of a Kubernetes API path.
 */
function validateKey(
  request: { namespace?: string; name: string },
  action: string,
): void {
  const v = new Violations();
  if (request.namespace !== undefined) {
    checkNamespace(v, "namespace", request.namespace);
  }
  if (request.name === "") {
    v.add("name", "is required");
  } else {
    v.addAll("name", objectNameProblems(request.name));
  }
  v.throwIfAny(action);
}

/**
 * The FAILED_PRECONDITION error of a cluster whose compute templates do not
 * exist, naming them: `Cannot create cluster "team-a/blue": compute template
 * "big" not found in namespace "team-a"`.
 */
export function missingTemplatesError(
  cluster: Cluster,
  namespace: string,
  missing: string[],
  verb = "create",
): ServiceError {
  const names = missing.map((name) => `"${name}"`).join(", ");
  const noun = missing.length === 1 ? "compute template" : "compute templates";
  return new ServiceError(
    Code.FAILED_PRECONDITION,
    `${
      clusterAction(verb, namespace, cluster.name)
    }: ${noun} ${names} not found in namespace "${namespace}"`,
  );
}

/** How many clusters a template-in-use refusal names before "and N more". */
const CLUSTERS_NAMED = 5;

/**
 * The FAILED_PRECONDITION error of deleting a compute template that
 * clusters use: `Cannot delete compute template "team-a/small": clusters
 * "a", "b", "c", "d", "e" and 3 more use it`.
 */
export function templateInUseError(
  namespace: string,
  name: string,
  clusters: string[],
): ServiceError {
  const named = clusters.slice(0, CLUSTERS_NAMED).map((c) => `"${c}"`);
  const more = clusters.length - named.length;
  const list = more > 0
    ? `${named.join(", ")} and ${more} more`
    : named.length > 1
    ? `${named.slice(0, -1).join(", ")} and ${named[named.length - 1]}`
    : named[0];
  const subject = clusters.length === 1
    ? `cluster ${list} uses`
    : `clusters ${list} use`;
  return new ServiceError(
    Code.FAILED_PRECONDITION,
    `${computeTemplateAction("delete", namespace, name)}: ${subject} it`,
  );
}

// ---------------------------------------------------------------------------
// Compute templates

/** Validates a CreateComputeTemplateRequest; throws listing all violations. */
export function validateCreateComputeTemplate(
  request: { computeTemplate?: ComputeTemplate; namespace: string },
  limits: Limits = DEFAULT_LIMITS,
): void {
  const v = new Violations();
  checkNamespace(v, "namespace", request.namespace);
  const template = request.computeTemplate;
  if (template === undefined || template === null) {
    v.add("computeTemplate", "is required");
    v.throwIfAny(computeTemplateAction("create", request.namespace));
    return;
  }
  const path = "computeTemplate";
  if (template.name === "") {
    v.add(`${path}.name`, "is required");
  } else {
    v.addAll(`${path}.name`, computeTemplateNameProblems(template.name));
  }
  if (
    template.namespace !== "" && request.namespace !== "" &&
    template.namespace !== request.namespace
  ) {
    v.add(
      `${path}.namespace`,
      `must be empty or equal the request's namespace "${request.namespace}"`,
    );
  }
  if (!(template.cpu > 0)) v.add(`${path}.cpu`, "must be greater than 0");
  if (!(template.memory > 0)) v.add(`${path}.memory`, "must be greater than 0");
  if (!(template.gpu >= 0)) v.add(`${path}.gpu`, "must not be negative");
  checkLimit(v, `${path}.cpu`, template.cpu, limits, "maxTemplateCpu");
  checkLimit(v, `${path}.memory`, template.memory, limits, "maxTemplateMemory");
  checkLimit(v, `${path}.gpu`, template.gpu, limits, "maxTemplateGpu");
  if (template.gpuAccelerator !== "") {
    v.addAll(
      `${path}.gpuAccelerator`,
      extendedResourceNameProblems(template.gpuAccelerator),
    );
  }
  const tolerations = template.tolerations ?? [];
  if (tolerations.length > limits.maxMapEntries) {
    v.add(
      `${path}.tolerations`,
      `must have at most ${limits.maxMapEntries} entries, got ${tolerations.length} (--${LIMIT_FLAGS.maxMapEntries})`,
    );
  }
  v.list.push(...tolerationViolations(`${path}.tolerations`, tolerations));
  v.throwIfAny(
    computeTemplateAction("create", request.namespace, template.name),
  );
}

/** Validates the namespace and name of a compute template to get or delete. */
export function validateComputeTemplateKey(
  request: { namespace: string; name: string },
  action: string,
): void {
  validateKey(request, action);
}

// ---------------------------------------------------------------------------
// Kubernetes naming rules, each returning what is wrong (nothing when valid)

function checkNamespace(v: Violations, field: string, namespace: string): void {
  if (namespace === "") {
    v.add(field, "is required");
  } else {
    v.addAll(field, dns1123LabelProblems(namespace));
  }
}

/**
 * A RayCluster name the operator reconciles: a DNS-1035 label of at most 53
 * characters (it rejects longer ones and names starting with a digit). It
 * is also the value of the `ray.io/cluster-name` label.
 */
function clusterNameProblems(name: string): string[] {
  if (name === "") return ["is required"];
  const problems = maxLength(name, MAX_CLUSTER_NAME_LENGTH).map((problem) =>
    `${problem} (the operator derives longer Kubernetes names from it)`
  );
  if (!matchesDns1035Label(name)) problems.push(DNS1035_LABEL_MESSAGE);
  return problems;
}

/** A ConfigMap name that is also a label value (`ray.io/compute-template`). */
function computeTemplateNameProblems(name: string): string[] {
  const problems = maxLength(name, MAX_LABEL_LENGTH);
  if (!matchesDns1123Subdomain(name)) problems.push(DNS1123_SUBDOMAIN_MESSAGE);
  return problems;
}

function dns1123LabelProblems(value: string): string[] {
  const problems = maxLength(value, MAX_LABEL_LENGTH);
  if (!matchesDns1123Label(value)) problems.push(DNS1123_LABEL_MESSAGE);
  return problems;
}

function objectNameProblems(value: string): string[] {
  const problems = maxLength(value, MAX_OBJECT_NAME_LENGTH);
  if (!matchesDns1123Subdomain(value)) problems.push(DNS1123_SUBDOMAIN_MESSAGE);
  return problems;
}

/** A label value; the empty string is one. */
/** Longest username kept; Kubernetes user names have no limit, this is sane. */
const MAX_USER_LENGTH = 253;

function labelValueProblems(value: string): string[] {
  const problems = maxLength(value, MAX_LABEL_LENGTH);
  if (!matchesLabelValue(value)) problems.push(LABEL_VALUE_MESSAGE);
  return problems;
}

/**
 * An extended resource name (`nvidia.com/gpu`, `amd.com/gpu`): a domain
 * prefix outside kubernetes.io, a slash, and a name part, as Kubernetes'
 * IsExtendedResourceName requires.
 */
function extendedResourceNameProblems(value: string): string[] {
  const description =
    'must be an extended resource name: a domain prefix outside kubernetes.io, "/" and a name, such as "nvidia.com/gpu"';
  const slash = value.indexOf("/");
  if (slash < 0) return [description];
  const prefix = value.slice(0, slash);
  const name = value.slice(slash + 1);
  const valid = prefix.length <= MAX_OBJECT_NAME_LENGTH &&
    matchesDns1123Subdomain(prefix) &&
    prefix !== "kubernetes.io" && !prefix.endsWith(".kubernetes.io") &&
    !prefix.startsWith("requests.") &&
    name.length <= MAX_LABEL_LENGTH && matchesQualifiedNamePart(name);
  return valid ? [] : [description];
}

function maxLength(value: string, limit: number): string[] {
  return value.length > limit ? [`must be at most ${limit} characters`] : [];
}
