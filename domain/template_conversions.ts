/**
 * A compute template and the ConfigMap that holds it, in the format of the
 * KubeRay API server, so templates either side wrote read back through the
 * other. Tolerations are kept as
 * pod_conversions.ts writes them.
 */
import {
  TOLERATIONS_KEY,
  tolerationsFromData,
  tolerationsToData,
} from "./pod_conversions.ts";
import {
  COMPUTE_TEMPLATE_CONFIG_TYPE,
  type ConfigMap,
  LABEL,
} from "./resources.ts";
import type { ComputeTemplate } from "./types.ts";

/** The compute-template ConfigMap, as the KubeRay API server writes it. */
export function computeTemplateToConfigMap(
  template: ComputeTemplate,
): ConfigMap {
  return {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: {
      name: template.name,
      namespace: template.namespace,
      labels: {
        [LABEL.configType]: COMPUTE_TEMPLATE_CONFIG_TYPE,
        [LABEL.computeTemplate]: template.name,
      },
    },
    data: {
      name: template.name,
      namespace: template.namespace,
      cpu: String(template.cpu),
      memory: String(template.memory),
      gpu: String(template.gpu),
      gpu_accelerator: template.gpuAccelerator,
      // KubeRay's later keys, written only when set so that a template
      // without them is stored as before.
      ...(template.memoryUnit !== ""
        ? { [MEMORY_UNIT_KEY]: template.memoryUnit }
        : {}),
      ...(Object.keys(template.extendedResources ?? {}).length > 0
        ? {
          [EXTENDED_RESOURCES_KEY]: JSON.stringify(template.extendedResources),
        }
        : {}),
      // Only when there are some, as KubeRay writes it.
      ...(template.tolerations.length > 0
        ? { [TOLERATIONS_KEY]: tolerationsToData(template.tolerations) }
        : {}),
    },
  };
}

/**
 * The compute template a ConfigMap holds. Name and namespace come from the
 * object's metadata (the data copies otherwise); a missing or non-decimal
 * number reads as 0, as in the KubeRay API server.
 */
export function computeTemplateFromConfigMap(
  configMap: ConfigMap,
): ComputeTemplate {
  const data = configMap.data ?? {};
  return {
    name: configMap.metadata?.name || data.name || "",
    namespace: configMap.metadata?.namespace || data.namespace || "",
    cpu: decimal(data.cpu),
    memory: decimal(data.memory),
    gpu: decimal(data.gpu),
    gpuAccelerator: data.gpu_accelerator ?? "",
    tolerations: tolerationsFromData(data[TOLERATIONS_KEY]),
    extendedResources: extendedResourcesFromData(data[EXTENDED_RESOURCES_KEY]),
    // KubeRay writes "Gi" when none was given: read back as none.
    memoryUnit: data[MEMORY_UNIT_KEY] === "Gi"
      ? ""
      : data[MEMORY_UNIT_KEY] ?? "",
  };
}

/** The ConfigMap data keys of KubeRay's later template fields. */
const EXTENDED_RESOURCES_KEY = "extended_resources";
const MEMORY_UNIT_KEY = "memory_unit";

/**
 * Extended resources from a ConfigMap's data value, KubeRay's JSON object
 * of a name to a count; entries that are not whole counts are left out,
 * and a value that is not such an object reads as none.
 */
function extendedResourcesFromData(
  text: string | undefined,
): Record<string, number> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text ?? "null");
  } catch {
    return {};
  }
  const out: Record<string, number> = {};
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    return out;
  }
  for (const [name, count] of Object.entries(parsed)) {
    if (Number.isInteger(count) && count >= 0 && count <= 0xffffffff) {
      Object.defineProperty(out, name, {
        value: count,
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
  }
  return out;
}

function decimal(value: string | undefined): number {
  const text = value?.trim() ?? "";
  if (!/^\d+$/.test(text)) return 0;
  const number = Number(text);
  return number <= 0xffffffff ? number : 0;
}
