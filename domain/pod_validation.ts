/**
 * Rules for what a group asks of its pods beyond size and image: the
 * service account, the image pull secret, pod labels and annotations, and
 * the tolerations of a compute template. Kubernetes' own rules for those
 * fields (apimachinery's validation of names, labels and annotations, and
 * core/v1's of tolerations), checked here so a bad value is refused with its
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
import type { PodToleration } from "./types.ts";

/**
 * Label and annotation key prefixes of the service's own: the labels and
 * annotations it writes itself, and those the operator reads.
 */
export const RESERVED_KEY_PREFIXES = ["ray.io", "app.kubernetes.io"] as const;

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
        RESERVED_KEY_PREFIXES.map((p) => `${p}/`).join(" and ")
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
