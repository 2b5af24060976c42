/**
 * Validation of a compute template to create: its name, its resources
 * within the upper bounds of limits.ts, its GPU's resource name and its
 * tolerations. Every violation is collected, then thrown once.
 */
import { computeTemplateAction } from "./actions.ts";
import { DEFAULT_LIMITS, LIMIT_FLAGS, type Limits } from "./limits.ts";
import {
  checkNamespace,
  computeTemplateNameProblems,
  extendedResourceNameProblems,
} from "./name_problems.ts";
import { tolerationViolations } from "./pod_validation.ts";
import type { ComputeTemplate } from "./types.ts";
import { checkLimit, checkMapSize, Violations } from "./violations.ts";
import { gibOf } from "./quantities.ts";

/** Memory units a template may give (Kubernetes' quantity suffixes). */
const MEMORY_UNITS = ["Ki", "Mi", "Gi", "Ti", "k", "M", "G", "T"];

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
  checkMemory(v, path, template, limits);
  checkLimit(v, `${path}.gpu`, template.gpu, limits, "maxTemplateGpu");
  if (template.gpuAccelerator !== "") {
    v.addAll(
      `${path}.gpuAccelerator`,
      extendedResourceNameProblems(template.gpuAccelerator),
    );
  }
  const extended = template.extendedResources ?? {};
  checkMapSize(v, `${path}.extendedResources`, extended, limits);
  for (const name of Object.keys(extended)) {
    v.addAll(
      `${path}.extendedResources[${JSON.stringify(name)}]`,
      extendedResourceNameProblems(name),
    );
    if (name === template.gpuAccelerator && template.gpu > 0) {
      v.add(
        `${path}.extendedResources[${JSON.stringify(name)}]`,
        "is the template's GPU resource: give its count in gpu",
      );
    }
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

/**
 * A template's memory within the limit, in GiB whatever its unit (a
 * template's memory was GiB before the unit came), and its unit one of
 * MEMORY_UNITS.
 */
function checkMemory(
  v: Violations,
  path: string,
  template: ComputeTemplate,
  limits: Limits,
): void {
  const unit = template.memoryUnit ?? "";
  if (unit !== "" && !MEMORY_UNITS.includes(unit)) {
    v.add(
      `${path}.memoryUnit`,
      `must be one of ${
        MEMORY_UNITS.map((u) => `"${u}"`).join(", ")
      } or empty (Gi)`,
    );
    return;
  }
  if (unit === "" || unit === "Gi") {
    checkLimit(
      v,
      `${path}.memory`,
      template.memory,
      limits,
      "maxTemplateMemory",
    );
  } else if (gibOf(`${template.memory}${unit}`) > limits.maxTemplateMemory) {
    v.add(
      `${path}.memory`,
      `must be at most ${limits.maxTemplateMemory} GiB (--${LIMIT_FLAGS.maxTemplateMemory})`,
    );
  }
}
