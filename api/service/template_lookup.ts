/**
 * The compute templates a cluster names, looked up for a create or an
 * update: a cluster's, a job's own cluster's, a service's cluster's. One
 * Kubernetes call (or cache read) for all of them; what is missing is the
 * caller's to refuse, in its own words.
 */
import { computeTemplateFromConfigMap } from "../../domain/template_conversions.ts";
import type { CallOptions, Orchestrator } from "../../domain/ports.ts";
import type { ComputeTemplate } from "../../domain/types.ts";

export interface TemplateLookup {
  /** The templates found, by name. */
  templates: Map<string, ComputeTemplate>;
  /** The names asked for that `namespace` does not have, in order. */
  missing: string[];
}

/** The templates `names` ("" and repeats ignored) of `namespace`. */
export async function lookUpTemplates(
  orchestrator: Orchestrator,
  namespace: string,
  names: readonly string[],
  kube: CallOptions,
): Promise<TemplateLookup> {
  const wanted = [...new Set(names.filter((name) => name !== ""))];
  const templates = new Map<string, ComputeTemplate>();
  if (wanted.length === 0) return { templates, missing: [] };
  const found = await orchestrator.templates.list(namespace, {
    ...kube,
    names: wanted,
  });
  for (const configMap of found) {
    const template = computeTemplateFromConfigMap(configMap);
    templates.set(template.name, template);
  }
  return { templates, missing: wanted.filter((name) => !templates.has(name)) };
}
