/**
 * What an audit record says of the workload written: its images, service
 * accounts, volumes and tolerations, never its env values.
 */
import { isObj, listOf, podSpecsOf, text, type Workload } from "./workload.ts";

/** What an audit record says of the workload written (no env values). */
export interface WorkloadSummary {
  images: string[];
  serviceAccounts: string[];
  /**
   * `hostPath:/data`, `persistentVolumeClaim:datasets`, `configMap:code`,
   * `secret:tls`; other kinds by name (`emptyDir`).
   */
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
      } else if (isObj(volume.configMap)) {
        sets.volumes.add(`configMap:${text(volume.configMap.name)}`);
      } else if (isObj(volume.secret)) {
        sets.volumes.add(`secret:${text(volume.secret.secretName)}`);
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
  // The autoscaler the operator adds runs an image of its own when given.
  const autoscaler = cluster?.autoscalerOptions;
  if (isObj(autoscaler) && text(autoscaler.image) !== "") {
    sets.images.add(text(autoscaler.image));
  }
  return {
    images: sorted(sets.images),
    serviceAccounts: sorted(sets.serviceAccounts),
    volumes: sorted(sets.volumes),
    tolerations: sorted(sets.tolerations),
    ...(serviceType ? { serviceType } : {}),
    ...(mask ? { mask: [...mask] } : {}),
  };
}
