/**
 * Compute templates named in a whole object's groups, as KubeRay's API
 * server applies them on its Kubernetes-shaped routes: a head or worker
 * group (of a RayCluster, a RayJob's own cluster or a RayService's) may
 * say `computeTemplate: NAME` beside its pod template, and the template's
 * resources are written into the pod: cpu and memory as every container's
 * requests and limits, GPUs and extended resources on the Ray container
 * (`ray-head`, `ray-worker`), its tolerations added to the pod's, and its
 * name in the pod's `ray.io/compute-template` annotation. The
 * `computeTemplate` key itself is no field of the CRDs: it is taken out.
 */
import type { FieldViolation } from "./errors.ts";
import { resourceQuantities } from "./conversions.ts";
import { podToleration } from "./pod_conversions.ts";
import { ANNOTATION } from "./resources.ts";
import { HEAD_CONTAINER, WORKER_CONTAINER } from "./env_conversions.ts";
import type { ComputeTemplate } from "./types.ts";
import { isPlainObject } from "./message_form.ts";

type Obj = Record<string, unknown>;

/** The Ray container of a group's pod, by its role. */
const RAY_CONTAINER = { head: HEAD_CONTAINER, worker: WORKER_CONTAINER };

/** A group of a cluster spec, where its path is, and its role. */
interface GroupAt {
  group: Obj;
  /** "spec.headGroupSpec", "spec.rayClusterSpec.workerGroupSpecs[1]" */
  path: string;
  role: "head" | "worker";
}

/** The groups of the cluster spec at `path` of an object. */
function groupsOf(spec: unknown, path: string): GroupAt[] {
  if (!isPlainObject(spec)) return [];
  const groups: GroupAt[] = [];
  if (isPlainObject(spec.headGroupSpec)) {
    groups.push({
      group: spec.headGroupSpec,
      path: `${path}.headGroupSpec`,
      role: "head",
    });
  }
  const workers = Array.isArray(spec.workerGroupSpecs)
    ? spec.workerGroupSpecs
    : [];
  workers.forEach((group, i) => {
    if (isPlainObject(group)) {
      groups.push({
        group,
        path: `${path}.workerGroupSpecs[${i}]`,
        role: "worker",
      });
    }
  });
  return groups;
}

/** The compute template names `object`'s groups give, distinct. */
export function namedTemplates(
  clusterSpec: unknown,
  specPath: string,
): string[] {
  const names = groupsOf(clusterSpec, specPath).map(({ group }) =>
    group.computeTemplate
  ).filter((name): name is string => typeof name === "string" && name !== "");
  return [...new Set(names)];
}

/**
 * The cluster spec with each group's named template applied (a copy; the
 * spec given is not changed), or the violations of names that are no
 * string or no template found.
 */
export function withTemplatesApplied(
  clusterSpec: unknown,
  specPath: string,
  templates: ReadonlyMap<string, ComputeTemplate>,
): { spec: unknown; violations: FieldViolation[] } {
  const named = groupsOf(clusterSpec, specPath).some(({ group }) =>
    "computeTemplate" in group
  );
  if (!named) return { spec: clusterSpec, violations: [] };
  const spec = structuredClone(clusterSpec);
  const violations: FieldViolation[] = [];
  for (const { group, path, role } of groupsOf(spec, specPath)) {
    if (!("computeTemplate" in group)) continue;
    const name = group.computeTemplate;
    delete group.computeTemplate;
    if (name === "" || name === null) continue;
    const template = typeof name === "string" ? templates.get(name) : undefined;
    if (template === undefined) {
      violations.push({
        field: `${path}.computeTemplate`,
        description: typeof name === "string"
          ? `names no compute template of the namespace: "${name}"`
          : "must be a string: the name of a compute template",
      });
      continue;
    }
    applyTemplate(group, template, role);
  }
  return { spec, violations };
}

/** Writes `template` into `group`'s pod template, as KubeRay does. */
function applyTemplate(
  group: Obj,
  template: ComputeTemplate,
  role: "head" | "worker",
): void {
  const pod = isPlainObject(group.template) ? group.template : {};
  group.template = pod;
  const metadata = isPlainObject(pod.metadata) ? pod.metadata : {};
  pod.metadata = metadata;
  metadata.annotations = {
    ...(isPlainObject(metadata.annotations) ? metadata.annotations : {}),
    [ANNOTATION.computeTemplate]: template.name,
  };
  const podSpec = isPlainObject(pod.spec) ? pod.spec : {};
  pod.spec = podSpec;
  const all = resourceQuantities(template);
  const basic = { cpu: all.cpu, memory: all.memory };
  const containers = Array.isArray(podSpec.containers)
    ? podSpec.containers
    : [];
  for (const container of containers) {
    if (!isPlainObject(container)) continue;
    const quantities = container.name === RAY_CONTAINER[role] ? all : basic;
    const resources = isPlainObject(container.resources)
      ? container.resources
      : {};
    container.resources = {
      ...resources,
      limits: {
        ...(isPlainObject(resources.limits) ? resources.limits : {}),
        ...quantities,
      },
      requests: {
        ...(isPlainObject(resources.requests) ? resources.requests : {}),
        ...quantities,
      },
    };
  }
  if (template.tolerations.length > 0) {
    podSpec.tolerations = [
      ...(Array.isArray(podSpec.tolerations) ? podSpec.tolerations : []),
      ...template.tolerations.map(podToleration),
    ];
  }
}
