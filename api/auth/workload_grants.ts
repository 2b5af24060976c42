/**
 * What a rule lets the pods of a workload carry (admission.ts decides with
 * them), and how their patterns match: `*` is any run of characters,
 * everything else is itself, over the whole string.
 */

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
  /**
   * The largest emptyDir `sizeLimit` and generic ephemeral volume request,
   * in bytes (`volumes.maxSize` in the policy file).
   */
  volumeMaxBytes: number;
  /** Whether a container may run privileged (`securityContext.privileged`). */
  privileged: boolean;
  /** Linux capabilities a container may add (`securityContext.capabilities`). */
  capabilities: string[];
  /** Values allowed for the start parameters that change exposure. */
  startParams: Record<string, string[]>;
  /**
   * Secrets and ConfigMaps usable by env valueFrom and envFrom, and
   * mountable as configMap and secret volumes.
   */
  secrets: string[];
  /** Pod spec fields listed "refused" below that this rule opens. */
  podFields: string[];
  containerFields: string[];
  /**
   * Extended resources a container may ask for beyond the policy's
   * accelerators (accelerators.ts), which quotas do not count.
   */
  extendedResources: string[];
}

/**
 * The bound of a volume's size when the rule gives none: 10 GiB of node
 * disk (emptyDir) or of a claim made with the pod (ephemeral).
 */
export const DEFAULT_VOLUME_MAX_BYTES = 10 * 2 ** 30;

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
    volumeMaxBytes: DEFAULT_VOLUME_MAX_BYTES,
    privileged: false,
    capabilities: [],
    startParams: {},
    secrets: [],
    podFields: [],
    containerFields: [],
    extendedResources: [],
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
    volumeMaxBytes: Number.POSITIVE_INFINITY,
    privileged: true,
    capabilities: ["*"],
    startParams: { "*": ["*"] },
    secrets: ["*"],
    podFields: ["*"],
    containerFields: ["*"],
    extendedResources: ["*"],
  };
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
