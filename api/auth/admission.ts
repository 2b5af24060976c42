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
 *
 * This file walks the RayCluster and RayJob specs: their own fields, each
 * group's fields and start parameters, the head service's annotations, the
 * autoscaler and the submitter. What a pod template carries is judged in
 * admission_pods.ts, with its volumes (admission_volumes.ts), containers
 * (admission_containers.ts) and variables' sources
 * (admission_env_sources.ts); admission_walk.ts is what they share.
 */
import { ANNOTATION } from "../../domain/resources.ts";
import {
  EXPOSURE_PARAMS,
  GROUP_DEFAULTS,
  GROUP_FIELDS,
  JOB_SPEC_FIELDS,
  SPEC_FIELDS,
  SUBMITTER_DEFAULTS,
} from "./admission_fields.ts";
import { isObj, listOf, type Obj, text, type Workload } from "./workload.ts";
import { DEFAULT_ACCELERATORS } from "./accelerators.ts";
import { matchesAny, type WorkloadGrants } from "./workload_grants.ts";
import {
  AUTOSCALER_FIELDS,
  securityContextRefusals,
} from "./admission_parts.ts";
import type { Refusal, WalkScope } from "./admission_walk.ts";
import { admitPodMetadata, admitPodSpec } from "./admission_pods.ts";
import { admitImage, admitResources } from "./admission_containers.ts";
import { admitEnvSource } from "./admission_env_sources.ts";

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

/**
 * One walk over a workload against one rule's grants. `request` is the
 * request message the workload comes from (`cluster`, `job`, `service`):
 * the prefix of every request field a refusal names. The checks of a pod
 * and its parts (admission_pods.ts and its neighbours) see it as their
 * WalkScope.
 */
class Walk implements WalkScope {
  readonly refusals: Refusal[] = [];
  /** The request field of the group walked: `cluster.clusterSpec...`. */
  private requestGroup = "";
  /** Whether the group walked has the image of the cluster's version. */
  private versionImage = false;
  /** The compute template of the group walked; "" for a submitter. */
  template = "";

  constructor(
    readonly grants: WorkloadGrants,
    private readonly request: string,
    readonly accelerators: readonly string[],
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
  field(suffix: string): string {
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
      admitImage(this, text(options.image), `${path}.image`, `${field}.image`);
    }
    if (isObj(options.resources)) {
      admitResources(this, options.resources, `${path}.resources`);
    }
    listOf(options.env).forEach((env, i) => {
      const from = isObj(env) && isObj(env.valueFrom)
        ? env.valueFrom
        : undefined;
      if (from) {
        admitEnvSource(
          this,
          from,
          `${path}.env[${i}].valueFrom`,
          `${field}.envs`,
        );
      }
    });
    listOf(options.envFrom).forEach((source, i) => {
      if (isObj(source)) {
        admitEnvSource(this, source, `${path}.envFrom[${i}]`, `${field}.envs`);
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
    admitPodMetadata(this, template.metadata, `${path}.metadata`);
    if (isObj(template.spec)) {
      admitPodSpec(this, template.spec, `${path}.spec`, SUBMITTER_DEFAULTS);
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
    admitPodMetadata(this, template.metadata, `${path}.template.metadata`);
    if (isObj(template.spec)) {
      admitPodSpec(this, template.spec, `${path}.template.spec`);
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

  /**
   * The request field of the group's image: its `image`, or
   * `cluster.version` (`job.version`) when the group gave none (Corral's
   * annotation of the given image is then empty) and the version chose it.
   */
  imageField(): string {
    return this.versionImage ? `${this.request}.version` : this.field("image");
  }
}
