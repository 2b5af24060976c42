/**
 * Validation of the fields of KubeRay's current messages that v0.6.0 did
 * not have: the kinds of volume past claims and host paths and their
 * fields, a group's image pull policy and security context, the cluster's
 * autoscaler, and the annotations of the cluster and its head service.
 * Each field's rule is what Kubernetes or the operator would otherwise
 * refuse later, and a field a volume's kind does not use is refused rather
 * than dropped, so that what is written reads back as it was given.
 */
import { annotationViolations } from "./cluster_annotations.ts";
import { IMAGE_PULL_POLICIES } from "./container_settings.ts";
import {
  isDns1123Subdomain,
  MAX_SUBDOMAIN_LENGTH,
} from "./kubernetes_names.ts";
import { LIMIT_FLAGS, type Limits } from "./limits.ts";
import { objectNameProblems } from "./name_problems.ts";
import {
  CONFIG_KEY,
  envNameProblem,
  sourceViolations,
} from "./pod_validation.ts";
import { cpusOf, gibOf, isQuantity, quantityValue } from "./quantities.ts";
import type {
  AutoscalerOptions,
  Cluster,
  ClusterSpec,
  HeadGroupSpec,
  SecurityContext,
  Volume,
  WorkerGroupSpec,
} from "./types.ts";
import { checkMapSize, type Violations } from "./violations.ts";

/** The upscaling modes of Ray's autoscaler (the CRD's enum). */
const UPSCALING_MODES = ["Default", "Aggressive", "Conservative"];

/** The autoscaler container's name in the head pod (the operator's). */
const AUTOSCALER_CONTAINER = "autoscaler";

/** A Linux capability's name, as Kubernetes' examples spell them. */
const CAPABILITY = /^[A-Z][A-Z0-9_]{0,63}$/;

/** The source, storage and items rules of a volume by its kind. */
export function checkVolumeKind(v: Violations, at: string, volume: Volume) {
  const kind = volume.volumeType;
  const objectKind = kind === "CONFIGMAP" || kind === "SECRET";
  const sized = kind === "EPHEMERAL" || kind === "EMPTY_DIR";
  if (objectKind) {
    if (volume.source === "") v.add(`${at}.source`, "is required");
    else v.addAll(`${at}.source`, objectNameProblems(volume.source));
  } else if (sized && volume.source !== "") {
    v.add(`${at}.source`, `must be empty for ${kind} volumes`);
  }
  if (sized) {
    checkStorage(v, `${at}.storage`, volume.storage, kind === "EPHEMERAL");
  } else if (volume.storage !== "") {
    v.add(`${at}.storage`, "applies only to EPHEMERAL and EMPTY_DIR volumes");
  }
  if (kind === "EPHEMERAL") {
    if (
      volume.storageClassName !== "" &&
      !isDns1123Subdomain(volume.storageClassName)
    ) {
      v.add(
        `${at}.storageClassName`,
        `must be a storage class name: lower case letters, digits, '-' and '.', at most ${MAX_SUBDOMAIN_LENGTH} characters`,
      );
    }
  } else {
    if (volume.storageClassName !== "") {
      v.add(`${at}.storageClassName`, "applies only to EPHEMERAL volumes");
    }
    if (volume.accessMode !== "RWO") {
      v.add(`${at}.accessMode`, "applies only to EPHEMERAL volumes");
    }
  }
  const items = Object.entries(volume.items ?? {});
  if (!objectKind && items.length > 0) {
    v.add(`${at}.items`, "applies only to CONFIGMAP and SECRET volumes");
  }
  for (const [key, path] of objectKind ? items : []) {
    checkItem(v, `${at}.items[${JSON.stringify(key)}]`, key, path);
  }
}

function checkStorage(
  v: Violations,
  at: string,
  storage: string,
  required: boolean,
): void {
  if (storage === "") {
    if (required) v.add(at, 'is required: a size such as "10Gi"');
    return;
  }
  if (!isQuantity(storage) || !((quantityValue(storage) ?? 0) > 0)) {
    v.add(at, 'must be a Kubernetes quantity above 0, such as "10Gi"');
  }
}

function checkItem(v: Violations, at: string, key: string, path: string) {
  if (
    key.length > MAX_SUBDOMAIN_LENGTH || !CONFIG_KEY.test(key) ||
    key === "." || key === ".."
  ) {
    v.add(
      at,
      `must have a key of the object: letters, digits, '-', '_' and '.', not "." or "..", at most ${MAX_SUBDOMAIN_LENGTH} characters`,
    );
  }
  if (
    path === "" || path.startsWith("/") || path.split("/").includes("..") ||
    path.length > 4096
  ) {
    v.add(
      at,
      "must have a relative path in the volume, without '..' (at most 4096 characters)",
    );
  }
}

/** A group's image pull policy and security context. */
export function checkContainerSettings(
  v: Violations,
  path: string,
  group: HeadGroupSpec | WorkerGroupSpec,
): void {
  checkPullPolicy(v, `${path}.imagePullPolicy`, group.imagePullPolicy);
  if (group.securityContext) {
    checkSecurityContext(v, `${path}.securityContext`, group.securityContext);
  }
}

function checkPullPolicy(v: Violations, at: string, policy: string): void {
  if (policy !== "" && !IMAGE_PULL_POLICIES.some((p) => p === policy)) {
    v.add(
      at,
      `must be one of ${
        IMAGE_PULL_POLICIES.map((p) => `"${p}"`).join(", ")
      } or empty (Kubernetes' default)`,
    );
  }
}

function checkSecurityContext(
  v: Violations,
  at: string,
  context: SecurityContext,
): void {
  for (const list of ["add", "drop"] as const) {
    (context.capabilities?.[list] ?? []).forEach((name, i) => {
      if (!CAPABILITY.test(name)) {
        v.add(
          `${at}.capabilities.${list}[${i}]`,
          "must be a Linux capability name such as \"NET_ADMIN\": upper case letters, digits and '_'",
        );
      }
    });
  }
}

/** The cluster's own annotations (a cluster request's only). */
export function checkClusterAnnotations(
  v: Violations,
  path: string,
  cluster: Cluster,
  limits: Limits,
): void {
  checkMapSize(v, path, cluster.annotations, limits);
  v.list.push(...annotationViolations(path, cluster.annotations, true));
}

/** A cluster spec's head service annotations and autoscaler. */
export function checkClusterSpecFields(
  v: Violations,
  path: string,
  spec: ClusterSpec,
  limits: Limits,
): void {
  const annotations = `${path}.headServiceAnnotations`;
  checkMapSize(v, annotations, spec.headServiceAnnotations, limits);
  v.list.push(
    ...annotationViolations(annotations, spec.headServiceAnnotations, false),
  );
  const options = spec.autoscalerOptions;
  if (!options) return;
  const at = `${path}.autoscalerOptions`;
  if (!spec.enableInTreeAutoscaling) {
    v.add(at, `applies only with ${path}.enableInTreeAutoscaling`);
  }
  checkAutoscaler(v, at, options, spec.headGroupSpec?.volumes ?? [], limits);
}

function checkAutoscaler(
  v: Violations,
  at: string,
  options: AutoscalerOptions,
  headVolumes: readonly Volume[],
  limits: Limits,
): void {
  if (options.idleTimeoutSeconds < 0) {
    v.add(`${at}.idleTimeoutSeconds`, "must not be negative");
  }
  const mode = options.upscalingMode;
  if (mode !== "" && !UPSCALING_MODES.includes(mode)) {
    v.add(
      `${at}.upscalingMode`,
      `must be one of ${UPSCALING_MODES.map((m) => `"${m}"`).join(", ")}`,
    );
  }
  if (/\s/.test(options.image)) {
    v.add(`${at}.image`, "must not contain whitespace");
  }
  checkPullPolicy(v, `${at}.imagePullPolicy`, options.imagePullPolicy);
  checkFigure(v, `${at}.cpu`, options.cpu, cpusOf, limits, "maxTemplateCpu");
  checkFigure(
    v,
    `${at}.memory`,
    options.memory,
    gibOf,
    limits,
    "maxTemplateMemory",
  );
  const values = options.envs?.values ?? {};
  const valuesFrom = options.envs?.valuesFrom ?? {};
  checkMapSize(v, `${at}.envs.values`, values, limits);
  checkMapSize(v, `${at}.envs.valuesFrom`, valuesFrom, limits);
  for (const name of Object.keys(values)) {
    const problem = envNameProblem(name);
    if (problem) v.add(`${at}.envs.values[${JSON.stringify(name)}]`, problem);
  }
  for (const [name, from] of Object.entries(valuesFrom)) {
    const field = `${at}.envs.valuesFrom[${JSON.stringify(name)}]`;
    const add = (suffix: string, description: string) =>
      v.add(suffix === "" ? field : `${field}.${suffix}`, description);
    const problem = envNameProblem(name);
    if (problem) add("", problem);
    if (Object.hasOwn(values, name)) {
      add("", `is also set in ${at}.envs.values: set a variable in one place`);
    }
    sourceViolations(from, AUTOSCALER_CONTAINER, add);
  }
  options.volumes.forEach((volume, i) => {
    const where = `${at}.volumes[${i}]`;
    if (!headVolumes.some((head) => head.name === volume.name)) {
      v.add(`${where}.name`, "must name a volume of the head group");
    }
    if (!volume.mountPath.startsWith("/")) {
      v.add(`${where}.mountPath`, "must be an absolute path");
    }
  });
}

/** A quantity of cpu or memory within the template bound of its kind. */
function checkFigure(
  v: Violations,
  at: string,
  figure: string,
  amount: (quantity: string) => number,
  limits: Limits,
  limit: "maxTemplateCpu" | "maxTemplateMemory",
): void {
  if (figure === "") return;
  if (!isQuantity(figure) || !((quantityValue(figure) ?? 0) > 0)) {
    v.add(at, 'must be a Kubernetes quantity above 0, such as "500m"');
  } else if (amount(figure) > limits[limit]) {
    v.add(
      at,
      `must be at most ${limits[limit]}${
        limit === "maxTemplateMemory" ? " GiB" : " CPUs"
      } (--${LIMIT_FLAGS[limit]})`,
    );
  }
}
