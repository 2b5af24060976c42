/**
 * Rules for what a group asks of its pods beyond size and image: the
 * service account, the image pull secret, pod labels and annotations, and
 * the tolerations of a compute template, environment variables' names and
 * where their values come from. Kubernetes' own rules for those fields
 * (apimachinery's validation of names, labels and annotations, and core/v1's
 * of tolerations and of environment variables), checked here so a bad value is refused with its
 * field path before any object is written.
 */
import type { FieldViolation } from "./errors.ts";
import {
  isDns1123Subdomain,
  isLabelValue,
  isQualifiedName,
  MAX_SUBDOMAIN_LENGTH,
  splitQualifiedName,
} from "./kubernetes_names.ts";
import {
  HEAD_CONTAINER,
  POD_IP_ENV,
  WORKER_CONTAINER,
} from "./env_conversions.ts";
import { MAX_ENV_NAME_LENGTH } from "./limits.ts";
import type { EnvValueFrom, PodToleration } from "./types.ts";

/**
 * Label and annotation key prefixes of the service's own: the labels and
 * annotations it writes itself, and those the operator reads; and Kueue's,
 * whose queue-name label on a pod would queue the pod by itself (Kueue's
 * pod integration), beside the queue Corral writes from `queue`.
 */
export const RESERVED_KEY_PREFIXES = [
  "ray.io",
  "app.kubernetes.io",
  "kueue.x-k8s.io",
] as const;

/** Kubernetes' limit on the annotations of one object, keys and values. */
export const MAX_ANNOTATIONS_BYTES = 256 * 1024;

export const TOLERATION_OPERATORS = ["Exists", "Equal"] as const;
export const TAINT_EFFECTS = [
  "NoSchedule",
  "PreferNoSchedule",
  "NoExecute",
] as const;

/** What a head or worker group sets on its pods. */
export interface PodSettings {
  serviceAccount: string;
  imagePullSecret: string;
  annotations: Record<string, string>;
  labels: Record<string, string>;
}

/** Whether a label or annotation key is one the service keeps for itself. */
export function isReservedKey(key: string): boolean {
  const { prefix } = splitQualifiedName(key);
  return (RESERVED_KEY_PREFIXES as readonly string[]).includes(prefix ?? "");
}

/** The violations of a group's pod settings; `path` is the group's. */
export function podSettingsViolations(
  path: string,
  group: PodSettings,
): FieldViolation[] {
  const out: FieldViolation[] = [];
  const add = (field: string, description: string) =>
    out.push({ field, description });
  for (const field of ["serviceAccount", "imagePullSecret"] as const) {
    const value = group[field];
    if (value !== "" && !isDns1123Subdomain(value)) {
      add(
        `${path}.${field}`,
        `must be a Kubernetes object name: lower case letters, digits, '-' and '.', starting and ending with a letter or digit, at most ${MAX_SUBDOMAIN_LENGTH} characters`,
      );
    }
  }
  for (const [key, value] of Object.entries(group.labels ?? {})) {
    const at = `${path}.labels[${JSON.stringify(key)}]`;
    checkKey(add, at, key, "label");
    if (!isLabelValue(value)) {
      add(
        at,
        "must have a valid label value: at most 63 characters, letters, digits, '-', '_' and '.', starting and ending with a letter or digit",
      );
    }
  }
  let annotationBytes = 0;
  const encoder = new TextEncoder();
  for (const [key, value] of Object.entries(group.annotations ?? {})) {
    checkKey(
      add,
      `${path}.annotations[${JSON.stringify(key)}]`,
      key,
      "annotation",
    );
    annotationBytes += encoder.encode(key).length +
      encoder.encode(value).length;
  }
  if (annotationBytes > MAX_ANNOTATIONS_BYTES) {
    add(
      `${path}.annotations`,
      `must total at most ${MAX_ANNOTATIONS_BYTES} bytes of keys and values, got ${annotationBytes}`,
    );
  }
  return out;
}

function checkKey(
  add: (field: string, description: string) => void,
  at: string,
  key: string,
  kind: "label" | "annotation",
): void {
  if (!isQualifiedName(key)) {
    add(
      at,
      `is not a valid ${kind} key: an optional DNS subdomain prefix and '/', then at most 63 letters, digits, '-', '_' and '.', starting and ending with a letter or digit`,
    );
  } else if (isReservedKey(key)) {
    add(
      at,
      `is reserved: ${kind} keys under ${
        RESERVED_KEY_PREFIXES.map((p) => `${p}/`).join(", ")
      } are the service's own`,
    );
  }
}

/** The violations of a compute template's tolerations (`path` is theirs). */
export function tolerationViolations(
  path: string,
  tolerations: readonly PodToleration[],
): FieldViolation[] {
  const out: FieldViolation[] = [];
  tolerations.forEach((toleration, index) => {
    const at = `${path}[${index}]`;
    const add = (field: string, description: string) =>
      out.push({ field: `${at}.${field}`, description });
    const { key, operator, value, effect } = toleration;
    if (
      operator !== "" &&
      !(TOLERATION_OPERATORS as readonly string[]).includes(operator)
    ) {
      add("operator", 'must be "Exists", "Equal" or empty (Equal)');
    }
    if (key !== "" && !isQualifiedName(key)) {
      add(
        "key",
        "is not a valid taint key: an optional DNS subdomain prefix and '/', then at most 63 letters, digits, '-', '_' and '.'",
      );
    }
    if (key === "" && operator !== "Exists") {
      add("operator", 'must be "Exists" when key is empty');
    }
    if (operator === "Exists" && value !== "") {
      add("value", 'must be empty when operator is "Exists"');
    } else if (operator !== "Exists" && !isLabelValue(value)) {
      add(
        "value",
        "must be a valid taint value: at most 63 letters, digits, '-', '_' and '.', starting and ending with a letter or digit",
      );
    }
    if (
      effect !== "" && !(TAINT_EFFECTS as readonly string[]).includes(effect)
    ) {
      add(
        "effect",
        `must be one of ${
          TAINT_EFFECTS.map((e) => `"${e}"`).join(", ")
        } or empty (every effect)`,
      );
    }
  });
  return out;
}

/** Environment variables the service sets itself; not allowed in `envs`. */
export const RESERVED_ENVS = [POD_IP_ENV] as const;

const ENV_VAR_NAME = /^[-._a-zA-Z][-._a-zA-Z0-9]*$/;

/** Why `name` cannot be an environment variable's, if it cannot. */
export function envNameProblem(name: string): string | undefined {
  if (name.length > MAX_ENV_NAME_LENGTH) {
    return `must have a name of at most ${MAX_ENV_NAME_LENGTH} characters`;
  }
  if (!ENV_VAR_NAME.test(name)) {
    return "is not a valid environment variable name: must consist of alphabetic characters, digits, '_', '-' or '.', and must not start with a digit";
  }
  if ((RESERVED_ENVS as readonly string[]).includes(name)) {
    return "is reserved: the service sets it on every container";
  }
  return undefined;
}

/** A Secret's or ConfigMap's data key (core/v1's IsConfigMapKey). */
export const CONFIG_KEY = /^[-._a-zA-Z0-9]+$/;

/**
 * Resources a variable may take from its container (core/v1's
 * validContainerResourceFieldPathPrefixes and hugepages).
 */
const RESOURCE_FIELDS: readonly string[] = [
  "limits.cpu",
  "limits.memory",
  "limits.ephemeral-storage",
  "requests.cpu",
  "requests.memory",
  "requests.ephemeral-storage",
];
const HUGEPAGES_RESOURCE = /^(limits|requests)\.hugepages-[0-9]+[a-zA-Z]*$/;

/** Pod fields a variable may take (core/v1's validEnvDownwardAPIFieldPathExpressions). */
const POD_FIELDS: readonly string[] = [
  "metadata.name",
  "metadata.namespace",
  "metadata.uid",
  "spec.nodeName",
  "spec.serviceAccountName",
  "status.hostIP",
  "status.hostIPs",
  "status.podIP",
  "status.podIPs",
];
const POD_LABEL_OR_ANNOTATION = /^metadata\.(labels|annotations)\['(.+)'\]$/;

/**
 * The violations of a group's `environmentValuesFrom` (`path` is the
 * group's): each name a valid variable name set nowhere else (the cluster's
 * `envs`, the group's `environment`), each source complete and valid.
 */
export function envValuesFromViolations(
  path: string,
  group: {
    groupName?: string;
    environment: Record<string, string>;
    environmentValuesFrom: Record<string, EnvValueFrom>;
  },
  clusterEnvs: Record<string, string>,
): FieldViolation[] {
  const out: FieldViolation[] = [];
  const container = group.groupName === undefined
    ? HEAD_CONTAINER
    : WORKER_CONTAINER;
  for (
    const [name, from] of Object.entries(group.environmentValuesFrom ?? {})
  ) {
    const at = `${path}.environmentValuesFrom[${JSON.stringify(name)}]`;
    const add = (field: string, description: string) =>
      out.push({ field: field === "" ? at : `${at}.${field}`, description });
    const problem = envNameProblem(name);
    if (problem !== undefined) add("", problem);
    if (Object.hasOwn(clusterEnvs, name)) {
      add("", "is also set in cluster.envs: set a variable in one place");
    }
    if (Object.hasOwn(group.environment ?? {}, name)) {
      add(
        "",
        `is also set in ${path}.environment: set a variable in one place`,
      );
    }
    sourceViolations(from, container, add);
  }
  return out;
}

/** The problems of one EnvValueFrom, by its field ("name", "key"). */
export function sourceViolations(
  from: EnvValueFrom,
  container: string,
  add: (field: string, description: string) => void,
): void {
  const { source, name, key } = from;
  if (source === "SECRET" || source === "CONFIGMAP") {
    const kind = source === "SECRET" ? "Secret" : "ConfigMap";
    if (name === "") add("name", `is required: the ${kind}'s name`);
    else if (!isDns1123Subdomain(name)) {
      add(
        "name",
        `must be a ${kind}'s name: lower case letters, digits, '-' and '.', starting and ending with a letter or digit, at most ${MAX_SUBDOMAIN_LENGTH} characters`,
      );
    }
    if (key === "") add("key", `is required: the key in the ${kind}`);
    else if (
      key.length > MAX_SUBDOMAIN_LENGTH || !CONFIG_KEY.test(key) ||
      key === "." || key === ".."
    ) {
      add(
        "key",
        `must be a ${kind}'s key: letters, digits, '-', '_' and '.', not "." or "..", at most ${MAX_SUBDOMAIN_LENGTH} characters`,
      );
    }
  } else if (source === "RESOURCEFIELD") {
    if (name !== "" && name !== container) {
      add(
        "name",
        `must be empty or "${container}", the group's container, got ${
          JSON.stringify(name)
        }`,
      );
    }
    if (!RESOURCE_FIELDS.includes(key) && !HUGEPAGES_RESOURCE.test(key)) {
      add(
        "key",
        `must be a resource of the container: one of ${
          RESOURCE_FIELDS.map((r) => `"${r}"`).join(", ")
        } or limits.hugepages-<size>, requests.hugepages-<size>`,
      );
    }
  } else {
    if (name !== "") {
      add("name", "must be empty for FIELD: the field's path goes in key");
    }
    if (!isPodField(key)) {
      add(
        "key",
        `must be a field of the pod: one of ${
          POD_FIELDS.map((f) => `"${f}"`).join(", ")
        }, metadata.labels['<key>'] or metadata.annotations['<key>']`,
      );
    }
  }
}

function isPodField(path: string): boolean {
  if (POD_FIELDS.includes(path)) return true;
  const match = POD_LABEL_OR_ANNOTATION.exec(path);
  return match !== null && isQualifiedName(match[2]);
}
