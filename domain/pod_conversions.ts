/**
 * The parts of a group's pod template that come from its pod settings and
 * its compute template's tolerations, written and read back as the KubeRay
 * API server v0.6.0 does (apiserver/pkg/util/cluster.go, model/converter.go):
 * `serviceAccountName`, `imagePullSecrets: [{name}]`, pod template labels and
 * annotations, and `tolerations`. A compute template keeps its tolerations
 * in its ConfigMap under the data key `tolerations`, a JSON array.
 */
import type { PodTemplateSpec } from "./resources.ts";
import { isReservedKey, type PodSettings } from "./pod_validation.ts";
import type { PodToleration } from "./types.ts";

/** The ConfigMap data key of a compute template's tolerations. */
export const TOLERATIONS_KEY = "tolerations";

/**
 * Adds a group's pod settings and tolerations to its pod template. The
 * annotations and labels the template already has are the service's own and
 * win over the caller's (validation refuses reserved keys before this).
 */
export function applyPodSettings(
  pod: PodTemplateSpec,
  group: PodSettings,
  tolerations: readonly PodToleration[],
): void {
  const metadata = pod.metadata ?? {};
  metadata.annotations = { ...group.annotations, ...metadata.annotations };
  const labels = { ...group.labels, ...metadata.labels };
  if (Object.keys(labels).length > 0) metadata.labels = labels;
  pod.metadata = metadata;
  if (group.serviceAccount !== "") {
    pod.spec.serviceAccountName = group.serviceAccount;
  }
  if (group.imagePullSecret !== "") {
    pod.spec.imagePullSecrets = [{ name: group.imagePullSecret }];
  }
  if (tolerations.length > 0) {
    pod.spec.tolerations = tolerations.map(podToleration);
  }
}

/** A core/v1 Toleration, its empty fields left out as Kubernetes does. */
export function podToleration(
  toleration: PodToleration,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const field of ["key", "operator", "value", "effect"] as const) {
    if (toleration[field] !== "") out[field] = toleration[field];
  }
  return out;
}

/**
 * A group's pod settings read back from its pod template: labels and
 * annotations without the service's own keys, the service account, and the
 * first image pull secret.
 */
export function podSettingsOf(
  pod: PodTemplateSpec | undefined,
): PodSettings {
  const secrets = pod?.spec?.imagePullSecrets;
  const account = pod?.spec?.serviceAccountName;
  const firstSecret = Array.isArray(secrets) ? secrets[0]?.name : undefined;
  return {
    serviceAccount: typeof account === "string" ? account : "",
    imagePullSecret: typeof firstSecret === "string" ? firstSecret : "",
    annotations: callersOwn(pod?.metadata?.annotations),
    labels: callersOwn(pod?.metadata?.labels),
  };
}

function callersOwn(
  map: Record<string, string> | undefined,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(map ?? {})) {
    if (!isReservedKey(key)) out[key] = String(value);
  }
  return out;
}

/** The ConfigMap data value of tolerations: KubeRay's JSON array. */
export function tolerationsToData(
  tolerations: readonly PodToleration[],
): string {
  // Go's encoding/json of KubeRay's generated struct: empty fields omitted.
  return JSON.stringify(tolerations.map(podToleration));
}

/**
 * Tolerations read from a ConfigMap's data value; a value that is not a
 * JSON array of objects reads as none, as the KubeRay API server reads it
 * (it logs and goes on).
 */
export function tolerationsFromData(
  text: string | undefined,
): PodToleration[] {
  if (text === undefined || text.trim() === "") return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return [];
  }
  if (!Array.isArray(parsed)) return [];
  return parsed.filter((item) => typeof item === "object" && item !== null)
    .map((item: Record<string, unknown>) => ({
      key: stringOf(item.key),
      operator: stringOf(item.operator),
      value: stringOf(item.value),
      effect: stringOf(item.effect),
    }));
}

function stringOf(value: unknown): string {
  return typeof value === "string" ? value : "";
}
