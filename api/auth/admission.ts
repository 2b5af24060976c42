/**
 * Admission of the workload Corral is about to write: the RayCluster after
 * its compute templates are merged (clusterToResource, updatedResource),
 * not the request's fields, so a field that reaches the pods by any road
 * (a template's tolerations, an update's merge) is decided the same way.
 *
 * Deny by default, field by field. Every field of a group's pod template
 * is listed in admission_fields.ts (POD_METADATA_FIELDS, POD_SPEC_FIELDS,
 * CONTAINER_FIELDS, GROUP_FIELDS): "decided" fields are checked against a rule's grants;
 * "refused" ones (and any field not listed, such as one a newer operator
 * adds) are refused unless a rule opens them by name (`podFields`,
 * `containerFields`). tests/api/auth/admission_fields_test.ts fails when
 * the RayCluster CRD has a pod-level field these lists do not name.
 *
 * One rule must allow the whole workload: the grants of several rules are
 * never combined (an image from one, a service account from another would
 * be allowed by no rule).
 */
import { ANNOTATION } from "../../domain/resources.ts";
import {
  CONTAINER_FIELDS,
  EXPOSURE_PARAMS,
  GROUP_DEFAULTS,
  GROUP_FIELDS,
  JOB_SPEC_FIELDS,
  OWN_ANNOTATIONS,
  POD_METADATA_FIELDS,
  POD_SPEC_FIELDS,
  SPEC_FIELDS,
  SUBMITTER_DEFAULTS,
} from "./admission_fields.ts";
import { isObj, listOf, type Obj, text, type Workload } from "./workload.ts";
import {
  DEFAULT_ACCELERATORS,
  isAccelerator,
  isExtendedResource,
  UNLISTED,
} from "./accelerators.ts";
import {
  globMatches,
  matchesAny,
  type WorkloadGrants,
} from "./workload_grants.ts";
import {
  AUTOSCALER_FIELDS,
  securityContextRefusals,
  sizedVolumeRefusals,
} from "./admission_parts.ts";

/** One thing a rule does not allow, with where it is and why. */
export interface Refusal {
  /** The RayCluster field: `spec.workerGroupSpecs[0].template.spec...`. */
  path: string;
  /** The request field it comes from, when there is one. */
  field?: string;
  /**
   * What may not be done: `use the service account "corral"`; of an
   * "extended-resource" refusal, what is wrong (a violation's description).
   */
  what: string;
  /**
   * One word for metrics and audit. "extended-resource": a resource
   * neither an accelerator nor allowed, refused as an invalid argument.
   */
  reason: "image" | "host-path" | "workload" | "extended-resource";
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
  /** The policy's accelerators (accelerators.ts): any pod may ask for them. */
  accelerators: readonly string[] = DEFAULT_ACCELERATORS,
): Refusal[] {
  if (resource.kind === "RayCluster") {
    const walk = new Walk(grants, subject, accelerators);
    walk.clusterSpec(resource.spec, "spec");
    return walk.refusals;
  }
  const walk = new Walk(grants, "job", accelerators);
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

/** An absolute path with no `.`/`..` segments or doubled slashes. */
function cleanPath(path: string): boolean {
  return path.startsWith("/") &&
    path.split("/").slice(1).every((part, i, all) =>
      part !== "." && part !== ".." && (part !== "" || i === all.length - 1)
    );
}

/** Sources of an env value or envFrom that read the pod itself: allowed. */
const POD_REFERENCES = new Set(["fieldRef", "resourceFieldRef", "prefix"]);

/** Sources that read a Secret or ConfigMap: allowed by a rule's `secrets`. */
const OBJECT_REFERENCES = new Set([
  "secretKeyRef",
  "configMapKeyRef",
  "secretRef",
  "configMapRef",
]);

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
  /** The compute template of the group walked; "" for a submitter. */
  private template = "";

  constructor(
    private readonly grants: WorkloadGrants,
    private readonly request: string,
    private readonly accelerators: readonly string[],
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
    this.headServiceAnnotations(spec.headServiceAnnotations, path);
    this.autoscaler(spec.autoscalerOptions, `${path}.autoscalerOptions`);
  }

  /** The head service's annotations: keys the rule's `annotations` allow. */
  private headServiceAnnotations(annotations: unknown, path: string): void {
    if (!isObj(annotations)) return;
    for (const key of Object.keys(annotations)) {
      if (matchesAny(this.grants.annotations, key)) continue;
      this.refuse(
        `${path}.headServiceAnnotations["${key}"]`,
        `${this.request}.clusterSpec.headServiceAnnotations["${key}"]`,
        `set the head service annotation "${key}"`,
      );
    }
  }

  /**
   * The autoscaler the operator runs in the head pod: its image under the
   * image rules, its resources and variables as a container's, its
   * security context as one (admission_parts.ts, AUTOSCALER_FIELDS).
   */
  private autoscaler(options: unknown, path: string): void {
    if (!isObj(options)) return;
    const field = `${this.request}.clusterSpec.autoscalerOptions`;
    this.requestGroup = `${this.request}.clusterSpec.headGroupSpec`;
    this.template = "";
    for (const key of Object.keys(options)) {
      if (AUTOSCALER_FIELDS.has(key)) continue;
      if (matchesAny(this.grants.podFields, `autoscalerOptions.${key}`)) {
        continue;
      }
      this.refuse(`${path}.${key}`, undefined, `set the autoscaler's "${key}"`);
    }
    if (options.image !== undefined) {
      this.image(text(options.image), `${path}.image`, `${field}.image`);
    }
    if (isObj(options.resources)) {
      this.resources(options.resources, `${path}.resources`);
    }
    listOf(options.env).forEach((env, i) => {
      const from = isObj(env) && isObj(env.valueFrom)
        ? env.valueFrom
        : undefined;
      if (from) {
        this.reference(from, `${path}.env[${i}].valueFrom`, `${field}.envs`);
      }
    });
    listOf(options.envFrom).forEach((source, i) => {
      if (isObj(source)) {
        this.reference(source, `${path}.envFrom[${i}]`, `${field}.envs`);
      }
    });
    for (
      const refusal of securityContextRefusals(
        options.securityContext,
        this.grants,
      )
    ) {
      this.refuse(
        `${path}.securityContext${refusal.at}`,
        undefined,
        refusal.what,
      );
    }
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
    this.template = "";
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
      this.refuse(
        `${path}.${key}`,
        // The one such field a request sets itself.
        key === "enableIngress" ? this.field(key) : undefined,
        `set the field "${key}"`,
      );
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
    this.template = text(annotations[ANNOTATION.computeTemplate]);
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
      kinds.every((key) => matchesAny(this.grants.podFields, `volumes.${key}`))
    ) {
      return;
    } else if (
      (kind === "configMap" || kind === "secret") && isObj(v[kind])
    ) {
      this.objectVolume(kind, v[kind], path, field);
    } else if (
      (kind === "emptyDir" || kind === "ephemeral") && isObj(v[kind])
    ) {
      for (const refusal of sizedVolumeRefusals(kind, v[kind], this.grants)) {
        this.refuse(
          `${path}.${kind}${refusal.at}`,
          `${field}.storage`,
          refusal.what,
        );
      }
    } else {
      this.refuse(path, field, `mount a volume of kind "${kinds.join(", ")}"`);
    }
  }

  /**
   * A ConfigMap or Secret mounted as a volume: one the rule's `secrets`
   * name, as for variables that read them.
   */
  private objectVolume(
    kind: "configMap" | "secret",
    source: Obj,
    path: string,
    field: string,
  ): void {
    const name = text(kind === "secret" ? source.secretName : source.name);
    if (matchesAny(this.grants.secrets, name)) return;
    this.refuse(
      `${path}.${kind}`,
      `${field}.source`,
      `mount the ${kind === "secret" ? "Secret" : "ConfigMap"} "${name}"`,
    );
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
    for (
      const refusal of securityContextRefusals(
        container.securityContext,
        this.grants,
      )
    ) {
      this.refuse(
        `${path}.securityContext${refusal.at}`,
        this.field(`securityContext${refusal.at}`),
        refusal.what,
      );
    }
    if (isObj(container.resources)) {
      this.resources(container.resources, `${path}.resources`);
    }
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

  /**
   * A container's extended resources: the policy's accelerators, and those
   * the rule allows by name (`extendedResources`); any other is refused,
   * naming the compute template that asks for it.
   */
  private resources(resources: Obj, path: string): void {
    const seen = new Set<string>();
    for (const kind of ["limits", "requests"]) {
      const figures = resources[kind];
      if (!isObj(figures)) continue;
      for (const name of Object.keys(figures)) {
        if (seen.has(name)) continue;
        seen.add(name);
        if (
          !isExtendedResource(name) || isAccelerator(name, this.accelerators) ||
          matchesAny(this.grants.extendedResources, name)
        ) continue;
        const template = this.template;
        const who = template === ""
          ? "the pod"
          : `compute template "${template}"`;
        this.refuse(
          `${path}.${kind}["${name}"]`,
          template === "" ? undefined : this.field("computeTemplate"),
          `${who} asks for "${name}", which is ${UNLISTED}`,
          "extended-resource",
        );
      }
    }
  }

  private image(image: string, path: string, field?: string): void {
    const { images } = this.grants;
    if (images === undefined || matchesAny(images, image)) return;
    this.refuse(
      path,
      field ?? this.imageField(),
      `use the image "${image}"`,
      "image",
    );
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
  private reference(
    source: Obj,
    path: string,
    field = this.field("environment"),
  ): void {
    for (const [kind, value] of Object.entries(source)) {
      if (POD_REFERENCES.has(kind)) continue;
      const known = OBJECT_REFERENCES.has(kind);
      const name = isObj(value) ? text(value.name) : "";
      if (known && matchesAny(this.grants.secrets, name)) continue;
      this.refuse(
        `${path}.${kind}`,
        field,
        known
          ? `read the ${
            kind.startsWith("secret") ? "Secret" : "ConfigMap"
          } "${name}"`
          : `take a value from "${kind}"`,
      );
    }
  }
}
