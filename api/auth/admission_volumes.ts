/**
 * Admission of a pod's volumes, kind by kind: host paths by the rule's
 * `hostPaths`, claims by its `claims`, a mounted Secret or ConfigMap by its
 * `secrets`, an emptyDir's or ephemeral volume's size by its bound
 * (admission_parts.ts), any other kind only where `podFields` opens it
 * (`volumes.<kind>`). It stands apart from the pod's other fields because
 * the kinds of volume grow with the operator, each with its own grant.
 */
import { isObj, type Obj, text } from "./workload.ts";
import { matchesAny } from "./workload_grants.ts";
import { sizedVolumeRefusals } from "./admission_parts.ts";
import type { WalkScope } from "./admission_walk.ts";

/** An absolute path with no `.`/`..` segments or doubled slashes. */
function cleanPath(path: string): boolean {
  return path.startsWith("/") &&
    path.split("/").slice(1).every((part, i, all) =>
      part !== "." && part !== ".." && (part !== "" || i === all.length - 1)
    );
}

/**
 * One volume of a pod at `path`; `field` is the request field it comes
 * from (`cluster.clusterSpec.headGroupSpec.volumes[0]`).
 */
export function admitVolume(
  walk: WalkScope,
  volume: unknown,
  path: string,
  field: string,
): void {
  const v = isObj(volume) ? volume : {};
  const kinds = Object.keys(v).filter((key) => key !== "name");
  const kind = kinds.length === 1 ? kinds[0] : "";
  if (kind === "hostPath" && isObj(v.hostPath)) {
    const hostPath = text(v.hostPath.path);
    const granted = walk.grants.hostPaths;
    if (
      granted.includes("*") ||
      (cleanPath(hostPath) && matchesAny(granted, hostPath))
    ) return;
    walk.refuse(
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
    if (matchesAny(walk.grants.claims, claim)) return;
    walk.refuse(
      `${path}.persistentVolumeClaim`,
      `${field}.source`,
      `mount the persistent volume claim "${claim}"`,
    );
  } else if (
    kinds.every((key) => matchesAny(walk.grants.podFields, `volumes.${key}`))
  ) {
    return;
  } else if (
    (kind === "configMap" || kind === "secret") && isObj(v[kind])
  ) {
    objectVolume(walk, kind, v[kind], path, field);
  } else if (
    (kind === "emptyDir" || kind === "ephemeral") && isObj(v[kind])
  ) {
    for (const refusal of sizedVolumeRefusals(kind, v[kind], walk.grants)) {
      walk.refuse(
        `${path}.${kind}${refusal.at}`,
        `${field}.storage`,
        refusal.what,
      );
    }
  } else {
    walk.refuse(path, field, `mount a volume of kind "${kinds.join(", ")}"`);
  }
}

/**
 * A ConfigMap or Secret mounted as a volume: one the rule's `secrets`
 * name, as for variables that read them.
 */
function objectVolume(
  walk: WalkScope,
  kind: "configMap" | "secret",
  source: Obj,
  path: string,
  field: string,
): void {
  const name = text(kind === "secret" ? source.secretName : source.name);
  if (matchesAny(walk.grants.secrets, name)) return;
  walk.refuse(
    `${path}.${kind}`,
    `${field}.source`,
    `mount the ${kind === "secret" ? "Secret" : "ConfigMap"} "${name}"`,
  );
}
