/**
 * Admission of the workload Corral is about to write: the RayCluster after
 * its compute templates are merged (clusterToResource, updatedResource),
 * not the request's fields, so a field that reaches the pods by any road
 * (a template's tolerations, an update's merge) is decided the same way.
 *
 * Deny by default, field by field. Every field of a group's pod template
 * is listed below (POD_METADATA_FIELDS, POD_SPEC_FIELDS, CONTAINER_FIELDS,
 * GROUP_FIELDS): "decided" fields are checked against a rule's grants;
 * "refused" ones (and any field not listed, such as one a newer operator
 * adds) are refused unless a rule opens them by name (`podFields`,
 * `containerFields`). tests/api/auth/admission_fields_test.ts fails when
 * the RayCluster CRD has a pod-level field these lists do not name.
 *
 * One rule must allow the whole workload: the grants of several rules are
 * never combined (an image from one, a service account from another would
 * be allowed by no rule).
 */
import { ANNOTATION, type RayCluster } from "../../domain/resources.ts";
import type { RayJobResource } from "../../domain/job_conversions.ts";

/**
 * What admission decides on: a RayCluster, or a RayJob (its own cluster's
 * spec.rayClusterSpec walked as a cluster's spec, and its submitter pod).
 */
export type Workload = RayCluster | RayJobResource;

/** A toleration a rule grants: the taint key (a pattern), and its effects. */
export interface TolerationGrant {
  /** A key pattern; "*" also grants a toleration of every key (no key). */
  key: string;
  /** Patterns of the effects granted; undefined grants every effect. */
  effects?: string[];
}

/** What a rule lets the pods of a cluster carry. Patterns: `*` is any run. */
export interface WorkloadGrants {
  /** Images; undefined allows any. */
  images?: string[];
  /** Service accounts beyond the namespace's `default`. */
  serviceAccounts: string[];
  imagePullSecrets: string[];
  tolerations: TolerationGrant[];
  /** `key=value` patterns of nodeSelector entries. */
  nodeSelectors: string[];
  serviceTypes: string[];
  /** Key patterns of pod template annotations and labels. */
  annotations: string[];
  labels: string[];
  /** hostPath paths (clean absolute paths); ["*"] is any. */
  hostPaths: string[];
  /** persistentVolumeClaim claim names. */
  claims: string[];
  /** Values allowed for the start parameters that change exposure. */
  startParams: Record<string, string[]>;
  /** Secrets and ConfigMaps usable by env valueFrom and envFrom. */
  secrets: string[];
  /** Pod spec fields listed "refused" below that this rule opens. */
  podFields: string[];
  containerFields: string[];
}

/** The safe defaults: a rule that says nothing of the workload grants this. */
export function defaultGrants(): WorkloadGrants {
  return {
    serviceAccounts: [],
    imagePullSecrets: [],
    tolerations: [],
    nodeSelectors: [],
    serviceTypes: ["ClusterIP", "NodePort"],
    annotations: [],
    labels: [],
    hostPaths: [],
    claims: [],
    startParams: {},
    secrets: [],
    podFields: [],
    containerFields: [],
  };
}

/** Everything: the grants of the policy without a policy file. */
export function anyGrants(): WorkloadGrants {
  return {
    serviceAccounts: ["*"],
    imagePullSecrets: ["*"],
    tolerations: [{ key: "*" }],
    nodeSelectors: ["*"],
    serviceTypes: ["*"],
    annotations: ["*"],
    labels: ["*"],
    hostPaths: ["*"],
    claims: ["*"],
    startParams: { "*": ["*"] },
    secrets: ["*"],
    podFields: ["*"],
    containerFields: ["*"],
  };
}

type Decision = "decided" | "refused";

/**
 * Every field of the CRD's head and worker groups (not their templates).
 * numOfHosts and priority are decided as allowed only at the values the
 * CRD defaults them to (the API server writes those into every group);
 * scaleStrategy only names workers the autoscaler removes.
 */
export const GROUP_FIELDS: Record<string, Decision> = {
  groupName: "decided",
  replicas: "decided",
  minReplicas: "decided",
  maxReplicas: "decided",
  rayStartParams: "decided",
  serviceType: "decided",
  template: "decided",
  numOfHosts: "decided",
  priority: "decided",
  scaleStrategy: "decided",
  enableIngress: "refused",
  headService: "refused",
  idleTimeoutSeconds: "refused",
  ingressOptions: "refused",
  labels: "refused",
  resources: "refused",
  suspend: "refused",
};

/** The group fields allowed at their CRD default only. */
const GROUP_DEFAULTS: Record<string, unknown> = { numOfHosts: 1, priority: 0 };

export const POD_METADATA_FIELDS: Record<string, Decision> = {
  annotations: "decided",
  labels: "decided",
  finalizers: "refused",
  name: "refused",
  namespace: "refused",
};

/** Every field of the CRD's pod spec. */
export const POD_SPEC_FIELDS: Record<string, Decision> = {
  containers: "decided",
  volumes: "decided",
  serviceAccountName: "decided",
  serviceAccount: "decided",
  imagePullSecrets: "decided",
  tolerations: "decided",
  nodeSelector: "decided",
  // Containers of their own: opened by podFields, then checked as containers.
  initContainers: "refused",
  ephemeralContainers: "refused",
  activeDeadlineSeconds: "refused",
  affinity: "refused",
  automountServiceAccountToken: "refused",
  dnsConfig: "refused",
  dnsPolicy: "refused",
  enableServiceLinks: "refused",
  hostAliases: "refused",
  hostIPC: "refused",
  hostNetwork: "refused",
  hostPID: "refused",
  hostUsers: "refused",
  hostname: "refused",
  hostnameOverride: "refused",
  nodeName: "refused",
  os: "refused",
  overhead: "refused",
  preemptionPolicy: "refused",
  priority: "refused",
  priorityClassName: "refused",
  readinessGates: "refused",
  resourceClaims: "refused",
  resources: "refused",
  restartPolicy: "refused",
  runtimeClassName: "refused",
  schedulerName: "refused",
  schedulingGates: "refused",
  schedulingGroup: "refused",
  securityContext: "refused",
  setHostnameAsFQDN: "refused",
  shareProcessNamespace: "refused",
  subdomain: "refused",
  terminationGracePeriodSeconds: "refused",
  topologySpreadConstraints: "refused",
};

/** Every field of the CRD's container. */
export const CONTAINER_FIELDS: Record<string, Decision> = {
  name: "decided",
  image: "decided",
  env: "decided",
  envFrom: "decided",
  ports: "decided",
  resources: "decided",
  volumeMounts: "decided",
  args: "refused",
  command: "refused",
  imagePullPolicy: "refused",
  lifecycle: "refused",
  livenessProbe: "refused",
  readinessProbe: "refused",
  resizePolicy: "refused",
  restartPolicy: "refused",
  restartPolicyRules: "refused",
  securityContext: "refused",
  startupProbe: "refused",
  stdin: "refused",
  stdinOnce: "refused",
  terminationMessagePath: "refused",
  terminationMessagePolicy: "refused",
  tty: "refused",
  volumeDevices: "refused",
  workingDir: "refused",
  // Of ephemeral containers only.
  targetContainerName: "refused",
};

/** The RayCluster spec fields Corral writes (suspend: a queued one's). */
const SPEC_FIELDS = new Set(
  ["rayVersion", "headGroupSpec", "workerGroupSpecs", "suspend"],
);

/**
 * The RayJob spec fields Corral writes (jobToResource); any other is
 * refused, as a cluster's: a newer operator's field may start pods.
 */
const JOB_SPEC_FIELDS = new Set([
  "entrypoint",
  "metadata",
  "runtimeEnvYAML",
  "jobId",
  "shutdownAfterJobFinishes",
  "ttlSecondsAfterFinished",
  "activeDeadlineSeconds",
  "entrypointNumCpus",
  "entrypointNumGpus",
  "entrypointResources",
  "submitterPodTemplate",
  "rayClusterSpec",
  "clusterSelector",
  "suspend",
]);

/**
 * The submitter pod fields "refused" above that Corral itself writes, each
 * allowed at Corral's value only: a submitter runs once (KubeRay's API
 * server writes restartPolicy Never too).
 */
const SUBMITTER_DEFAULTS: Record<string, unknown> = { restartPolicy: "Never" };

/**
 * Start parameters that decide who can reach the cluster's listeners
 * (Ray's dashboard serves the job API: code execution for whoever reaches
 * it). Without a grant of their own they are allowed on a service that
 * stays inside Kubernetes' network, and refused on a LoadBalancer.
 */
const EXPOSURE_PARAMS = [
  "dashboard-host",
  "dashboard-port",
  "ray-client-server-port",
  "node-ip-address",
];

/** Corral's own pod annotation keys, always allowed. */
const OWN_ANNOTATIONS = new Set<string>([
  ANNOTATION.computeTemplate,
  ANNOTATION.computeImage,
]);

/** One thing a rule does not allow, with where it is and why. */
export interface Refusal {
  /** The RayCluster field: `spec.workerGroupSpecs[0].template.spec...`. */
  path: string;
  /** The request field it comes from, when there is one. */
  field?: string;
  /** What may not be done: `use the service account "corral"`. */
  what: string;
  /** One word for metrics and audit. */
  reason: "image" | "host-path" | "workload";
}

/**
 * Everything in `resource` that `grants` does not allow, in the order of
 * the resource's fields; empty when it allows the whole workload. A
 * RayJob's refusals name its paths (`spec.rayClusterSpec.headGroupSpec...`,
 * `spec.submitterPodTemplate...`) and the job request's fields (`job.`);
 * a RayJob without a submitter pod gets the operator's default submitter,
 * which runs the image of the cluster's head, admitted with the cluster.
 */
export function workloadRefusals(
  resource: Workload,
  grants: WorkloadGrants,
  /**
   * The request field a RayCluster comes from: "cluster", or a service's
   * "service" (whose clusterSpec renders the same RayCluster). A RayJob's
   * is always "job".
   */
  subject = "cluster",
): Refusal[] {
  if (resource.kind === "RayCluster") {
    const walk = new Walk(grants, subject);
    walk.clusterSpec(resource.spec, "spec");
    return walk.refusals;
  }
  const walk = new Walk(grants, "job");
  const spec: Obj = isObj(resource.spec) ? resource.spec : {};
  for (const key of Object.keys(spec)) {
    if (!JOB_SPEC_FIELDS.has(key)) {
      walk.refuse(`spec.${key}`, undefined, `set the field "${key}"`);
    }
  }
  if (isObj(spec.rayClusterSpec)) {
    walk.clusterSpec(spec.rayClusterSpec, "spec.rayClusterSpec");
  }
  walk.submitter(spec.submitterPodTemplate, "spec.submitterPodTemplate");
  return walk.refusals;
}

type Obj = Record<string, unknown>;

function isObj(value: unknown): value is Obj {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function listOf(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

function text(value: unknown): string {
  return typeof value === "string" ? value : "";
}

/** Whether `value` matches one of `patterns` (`*` = any run of characters). */
export function matchesAny(
  patterns: readonly string[],
  value: string,
): boolean {
  return patterns.some((pattern) => globMatches(pattern, value));
}

/** `*` is any run of characters; everything else is itself; whole string. */
export function globMatches(pattern: string, value: string): boolean {
  const parts = pattern.split("*");
  if (parts.length === 1) return pattern === value;
  const first = parts[0];
  const last = parts[parts.length - 1];
  if (
    value.length < first.length + last.length || !value.startsWith(first) ||
    !value.endsWith(last)
  ) return false;
  // Greedy left to right over the middle parts: the leftmost place of each
  // part leaves the most room for the rest, so this finds a match if any.
  let at = first.length;
  const end = value.length - last.length;
  for (const part of parts.slice(1, -1)) {
    const found = value.indexOf(part, at);
    if (found === -1 || found + part.length > end) return false;
    at = found + part.length;
  }
  return true;
}

/** An absolute path with no `.`/`..` segments or doubled slashes. */
function cleanPath(path: string): boolean {
  return path.startsWith("/") &&
    path.split("/").slice(1).every((part, i, all) =>
      part !== "." && part !== ".." && (part !== "" || i === all.length - 1)
    );
}

/**
 * One walk over a workload against one rule's grants. `request` is the
 * request message the workload comes from (`cluster`, `job`, `service`):
 * the prefix of every request field a refusal names.
 */
class Walk {
  readonly refusals: Refusal[] = [];
  /** The request field of the group walked: `cluster.clusterSpec...`. */
  private requestGroup = "";
  /** Whether the group walked has the image of the cluster's version. */
  private versionImage = false;

  constructor(
    private readonly grants: WorkloadGrants,
    private readonly request: string,
  ) {}

  refuse(
    path: string,
    field: string | undefined,
    what: string,
    reason: Refusal["reason"] = "workload",
  ): void {
    this.refusals.push({ path, ...(field ? { field } : {}), what, reason });
  }

  /** The request field `suffix` of the group walked. */
  private field(suffix: string): string {
    return `${this.requestGroup}.${suffix}`;
  }

  /** A RayCluster spec at `path` (`spec`, a RayJob's `spec.rayClusterSpec`). */
  clusterSpec(spec: Obj, path: string): void {
    for (const key of Object.keys(spec)) {
      if (!SPEC_FIELDS.has(key)) {
        this.refuse(`${path}.${key}`, undefined, `set the field "${key}"`);
      }
    }
    this.group(spec.headGroupSpec, `${path}.headGroupSpec`, "head");
    listOf(spec.workerGroupSpecs).forEach((group, i) =>
      this.group(group, `${path}.workerGroupSpecs[${i}]`, i)
    );
  }

  /**
   * A RayJob's submitter pod template: walked as a group's pod template,
   * its request fields under `job.jobSubmitter`; the fields Corral writes
   * for it (SUBMITTER_DEFAULTS) are allowed at Corral's value only.
   */
  submitter(template: unknown, path: string): void {
    if (!isObj(template)) return;
    this.requestGroup = `${this.request}.jobSubmitter`;
    this.versionImage = false;
    for (const key of Object.keys(template)) {
      if (key !== "metadata" && key !== "spec") {
        this.refuse(`${path}.${key}`, undefined, `set "${key}"`);
      }
    }
    this.podMetadata(template.metadata, `${path}.metadata`);
    if (isObj(template.spec)) {
      this.podSpec(template.spec, `${path}.spec`, SUBMITTER_DEFAULTS);
    }
  }

  private group(group: unknown, path: string, which: "head" | number): void {
    if (!isObj(group)) return;
    this.requestGroup = which === "head"
      ? `${this.request}.clusterSpec.headGroupSpec`
      : `${this.request}.clusterSpec.workerGroupSpec[${which}]`;
    for (const [key, value] of Object.entries(group)) {
      const decided = GROUP_FIELDS[key] === "decided" &&
        (!(key in GROUP_DEFAULTS) || value === GROUP_DEFAULTS[key]);
      if (decided || matchesAny(this.grants.podFields, key)) continue;
      this.refuse(`${path}.${key}`, undefined, `set the field "${key}"`);
    }
    const serviceType = text(group.serviceType);
    if (
      serviceType !== "" && !matchesAny(this.grants.serviceTypes, serviceType)
    ) {
      this.refuse(
        `${path}.serviceType`,
        this.field("serviceType"),
        `use the service type "${serviceType}"`,
      );
    }
    this.startParams(group.rayStartParams, path, serviceType);
    const template = group.template;
    if (!isObj(template)) return;
    const metadata = isObj(template.metadata) ? template.metadata : {};
    const annotations = isObj(metadata.annotations) ? metadata.annotations : {};
    this.versionImage = annotations[ANNOTATION.computeImage] === "";
    for (const key of Object.keys(template)) {
      if (key !== "metadata" && key !== "spec") {
        this.refuse(`${path}.template.${key}`, undefined, `set "${key}"`);
      }
    }
    this.podMetadata(template.metadata, `${path}.template.metadata`);
    if (isObj(template.spec)) {
      this.podSpec(template.spec, `${path}.template.spec`);
    }
  }

  private startParams(params: unknown, path: string, serviceType: string) {
    if (!isObj(params)) return;
    const granted = this.grants.startParams;
    for (const [key, raw] of Object.entries(params)) {
      const value = text(raw);
      const patterns = granted[key] ?? granted["*"];
      const allowed = patterns !== undefined
        ? matchesAny(patterns, value)
        : !EXPOSURE_PARAMS.includes(key) || serviceType !== "LoadBalancer";
      if (!allowed) {
        this.refuse(
          `${path}.rayStartParams["${key}"]`,
          this.field(`engineStartParams["${key}"]`),
          `set the start parameter "${key}" to "${value}"${
            serviceType === "LoadBalancer" ? " on a LoadBalancer service" : ""
          }`,
        );
      }
    }
  }

  private podMetadata(metadata: unknown, path: string): void {
    if (!isObj(metadata)) return;
    for (const key of Object.keys(metadata)) {
      if (POD_METADATA_FIELDS[key] !== "decided") {
        this.refuse(`${path}.${key}`, undefined, `set the pod's "${key}"`);
      }
    }
    for (const kind of ["annotations", "labels"] as const) {
      const map = metadata[kind];
      if (!isObj(map)) continue;
      for (const key of Object.keys(map)) {
        if (kind === "annotations" && OWN_ANNOTATIONS.has(key)) continue;
        if (matchesAny(this.grants[kind], key)) continue;
        this.refuse(
          `${path}.${kind}["${key}"]`,
          this.field(`${kind}["${key}"]`),
          `set the pod ${kind === "labels" ? "label" : "annotation"} "${key}"`,
        );
      }
    }
  }

  /** A pod spec; `defaults` are refused fields allowed at the value given. */
  private podSpec(spec: Obj, path: string, defaults: Obj = {}): void {
    for (const key of Object.keys(spec)) {
      if (POD_SPEC_FIELDS[key] === "decided") continue;
      if (key in defaults && spec[key] === defaults[key]) continue;
      if (matchesAny(this.grants.podFields, key)) continue;
      this.refuse(`${path}.${key}`, undefined, `set the pod field "${key}"`);
    }
    for (const key of ["serviceAccountName", "serviceAccount"]) {
      const account = text(spec[key]);
      if (
        account === "" || account === "default" ||
        matchesAny(this.grants.serviceAccounts, account)
      ) continue;
      this.refuse(
        `${path}.${key}`,
        this.field("serviceAccount"),
        `use the service account "${account}"`,
      );
    }
    listOf(spec.imagePullSecrets).forEach((secret, i) => {
      const name = isObj(secret) ? text(secret.name) : "";
      if (matchesAny(this.grants.imagePullSecrets, name)) return;
      this.refuse(
        `${path}.imagePullSecrets[${i}]`,
        this.field("imagePullSecret"),
        `use the image pull secret "${name}"`,
      );
    });
    listOf(spec.tolerations).forEach((toleration, i) =>
      this.toleration(toleration, `${path}.tolerations[${i}]`)
    );
    if (isObj(spec.nodeSelector)) {
      for (const [key, value] of Object.entries(spec.nodeSelector)) {
        const entry = `${key}=${text(value)}`;
        if (matchesAny(this.grants.nodeSelectors, entry)) continue;
        this.refuse(
          `${path}.nodeSelector["${key}"]`,
          undefined,
          `select nodes by "${entry}"`,
        );
      }
    }
    listOf(spec.volumes).forEach((volume, i) =>
      this.volume(volume, `${path}.volumes[${i}]`, this.field(`volumes[${i}]`))
    );
    listOf(spec.containers).forEach((container, i) =>
      this.container(container, `${path}.containers[${i}]`)
    );
    for (const key of ["initContainers", "ephemeralContainers"]) {
      listOf(spec[key]).forEach((container, i) =>
        this.container(container, `${path}.${key}[${i}]`)
      );
    }
  }

  private toleration(toleration: unknown, path: string): void {
    const t = isObj(toleration) ? toleration : {};
    const key = text(t.key);
    const effect = text(t.effect);
    const allowed = this.grants.tolerations.some((grant) =>
      (key === "" ? grant.key === "*" : globMatches(grant.key, key)) &&
      (grant.effects === undefined ||
        (effect !== "" && matchesAny(grant.effects, effect)))
    );
    if (allowed) return;
    const template = this.field("computeTemplate");
    this.refuse(
      path,
      template,
      key === ""
        ? `tolerate every taint${effect ? ` of effect ${effect}` : ""}`
        : `tolerate the taint "${key}"${effect ? ` (${effect})` : ""}`,
    );
  }

  private volume(volume: unknown, path: string, field: string): void {
    const v = isObj(volume) ? volume : {};
    const kinds = Object.keys(v).filter((key) => key !== "name");
    const kind = kinds.length === 1 ? kinds[0] : "";
    if (kind === "hostPath" && isObj(v.hostPath)) {
      const hostPath = text(v.hostPath.path);
      const granted = this.grants.hostPaths;
      if (
        granted.includes("*") ||
        (cleanPath(hostPath) && matchesAny(granted, hostPath))
      ) return;
      this.refuse(
        `${path}.hostPath`,
        `${field}.${granted.length === 0 ? "volumeType" : "source"}`,
        granted.length === 0
          ? "mount HOST_PATH volumes"
          : `mount the host path "${hostPath}"`,
        "host-path",
      );
    } else if (
      kind === "persistentVolumeClaim" && isObj(v.persistentVolumeClaim)
    ) {
      const claim = text(v.persistentVolumeClaim.claimName);
      if (matchesAny(this.grants.claims, claim)) return;
      this.refuse(
        `${path}.persistentVolumeClaim`,
        `${field}.source`,
        `mount the persistent volume claim "${claim}"`,
      );
    } else if (
      !kinds.every((key) => matchesAny(this.grants.podFields, `volumes.${key}`))
    ) {
      this.refuse(path, field, `mount a volume of kind "${kinds.join(", ")}"`);
    }
  }

  private container(container: unknown, path: string): void {
    if (!isObj(container)) return;
    for (const key of Object.keys(container)) {
      if (CONTAINER_FIELDS[key] === "decided") continue;
      if (matchesAny(this.grants.containerFields, key)) continue;
      this.refuse(
        `${path}.${key}`,
        undefined,
        `set the container field "${key}"`,
      );
    }
    this.image(text(container.image), `${path}.image`);
    listOf(container.ports).forEach((port, i) => {
      if (
        !isObj(port) ||
        (port.hostPort === undefined && port.hostIP === undefined)
      ) return;
      if (matchesAny(this.grants.containerFields, "ports.hostPort")) return;
      this.refuse(
        `${path}.ports[${i}].hostPort`,
        undefined,
        "open a port on the node",
      );
    });
    listOf(container.env).forEach((env, i) => {
      const from = isObj(env) && isObj(env.valueFrom)
        ? env.valueFrom
        : undefined;
      if (from) this.reference(from, `${path}.env[${i}].valueFrom`);
    });
    listOf(container.envFrom).forEach((source, i) => {
      if (isObj(source)) this.reference(source, `${path}.envFrom[${i}]`);
    });
  }

  private image(image: string, path: string): void {
    const { images } = this.grants;
    if (images === undefined || matchesAny(images, image)) return;
    this.refuse(path, this.imageField(), `use the image "${image}"`, "image");
  }

  /**
   * The request field of the group's image: its `image`, or
   * `cluster.version` (`job.version`) when the group gave none (Corral's
   * annotation of the given image is then empty) and the version chose it.
   */
  private imageField(): string {
    return this.versionImage ? `${this.request}.version` : this.field("image");
  }

  /**
   * An env valueFrom or envFrom source: a field of the pod is fine; a Secret
   * or ConfigMap key needs the name in the rule's `secrets`.
   */
  private reference(source: Obj, path: string): void {
    for (const [kind, value] of Object.entries(source)) {
      if (
        kind === "fieldRef" || kind === "resourceFieldRef" || kind === "prefix"
      ) {
        continue;
      }
      const known = [
        "secretKeyRef",
        "configMapKeyRef",
        "secretRef",
        "configMapRef",
      ]
        .includes(kind);
      const name = isObj(value) ? text(value.name) : "";
      if (known && matchesAny(this.grants.secrets, name)) continue;
      this.refuse(
        `${path}.${kind}`,
        this.field("environment"),
        known
          ? `read the ${
            kind.startsWith("secret") ? "Secret" : "ConfigMap"
          } "${name}"`
          : `take a value from "${kind}"`,
      );
    }
  }
}

/** What an audit record says of the workload written (no env values). */
export interface WorkloadSummary {
  images: string[];
  serviceAccounts: string[];
  /** `hostPath:/data`, `persistentVolumeClaim:datasets`. */
  volumes: string[];
  /** `nvidia.com/gpu:NoSchedule`; `*` for a toleration of every key. */
  tolerations: string[];
  /** The head's service type, when one is set. */
  serviceType?: string;
  /** An update's field mask. */
  mask?: string[];
}

/** The summary of `resource` for the audit trail, each list sorted, once each. */
export function summarizeWorkload(
  resource: Workload,
  mask?: readonly string[],
): WorkloadSummary {
  const sets = {
    images: new Set<string>(),
    serviceAccounts: new Set<string>(),
    volumes: new Set<string>(),
    tolerations: new Set<string>(),
  };
  for (const spec of podSpecsOf(resource)) {
    const account = text(spec.serviceAccountName) || text(spec.serviceAccount);
    if (account !== "") sets.serviceAccounts.add(account);
    for (const key of ["containers", "initContainers", "ephemeralContainers"]) {
      for (const container of listOf(spec[key])) {
        if (isObj(container)) sets.images.add(text(container.image));
      }
    }
    for (const volume of listOf(spec.volumes)) {
      if (!isObj(volume)) continue;
      if (isObj(volume.hostPath)) {
        sets.volumes.add(`hostPath:${text(volume.hostPath.path)}`);
      } else if (isObj(volume.persistentVolumeClaim)) {
        sets.volumes.add(
          `persistentVolumeClaim:${
            text(volume.persistentVolumeClaim.claimName)
          }`,
        );
      } else {
        const kinds = Object.keys(volume).filter((key) => key !== "name");
        sets.volumes.add(kinds.join(","));
      }
    }
    for (const toleration of listOf(spec.tolerations)) {
      if (!isObj(toleration)) continue;
      const key = text(toleration.key) || "*";
      const effect = text(toleration.effect);
      sets.tolerations.add(effect ? `${key}:${effect}` : key);
    }
  }
  const sorted = (set: Set<string>) => [...set].sort();
  const cluster = resource.kind === "RayCluster"
    ? resource.spec
    : resource.spec.rayClusterSpec;
  const serviceType = text(cluster?.headGroupSpec?.serviceType);
  return {
    images: sorted(sets.images),
    serviceAccounts: sorted(sets.serviceAccounts),
    volumes: sorted(sets.volumes),
    tolerations: sorted(sets.tolerations),
    ...(serviceType ? { serviceType } : {}),
    ...(mask ? { mask: [...mask] } : {}),
  };
}

/** The pod specs of a workload: its groups', and a RayJob's submitter's. */
function podSpecsOf(resource: Workload): Obj[] {
  const cluster = resource.kind === "RayCluster"
    ? resource.spec
    : resource.spec.rayClusterSpec;
  const templates: unknown[] = [
    cluster?.headGroupSpec?.template,
    ...listOf(cluster?.workerGroupSpecs).map((group) =>
      isObj(group) ? group.template : undefined
    ),
  ];
  if (resource.kind === "RayJob") {
    templates.push(resource.spec.submitterPodTemplate);
  }
  return templates.map((template) =>
    isObj(template) && isObj(template.spec) ? template.spec : {}
  );
}
