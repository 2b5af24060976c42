/**
 * Admission of one pod template's metadata and spec: its fields
 * (POD_METADATA_FIELDS, POD_SPEC_FIELDS), labels and annotations, service
 * account, image pull secrets, tolerations and node selector, then each of
 * its volumes (admission_volumes.ts) and containers
 * (admission_containers.ts). It stands apart from the walk over the
 * cluster (admission.ts) because a group's template and a RayJob's
 * submitter are the same pod, judged the same way.
 */
import {
  OWN_ANNOTATIONS,
  POD_METADATA_FIELDS,
  POD_SPEC_FIELDS,
} from "./admission_fields.ts";
import { isObj, listOf, type Obj, text } from "./workload.ts";
import { globMatches, matchesAny } from "./workload_grants.ts";
import { admitVolume } from "./admission_volumes.ts";
import { admitContainer } from "./admission_containers.ts";
import type { WalkScope } from "./admission_walk.ts";

/** A pod's metadata: its own fields, labels and annotations the rule allows. */
export function admitPodMetadata(
  walk: WalkScope,
  metadata: unknown,
  path: string,
): void {
  if (!isObj(metadata)) return;
  for (const key of Object.keys(metadata)) {
    if (POD_METADATA_FIELDS[key] !== "decided") {
      walk.refuse(`${path}.${key}`, undefined, `set the pod's "${key}"`);
    }
  }
  for (const kind of ["annotations", "labels"] as const) {
    const map = metadata[kind];
    if (!isObj(map)) continue;
    for (const key of Object.keys(map)) {
      if (kind === "annotations" && OWN_ANNOTATIONS.has(key)) continue;
      if (matchesAny(walk.grants[kind], key)) continue;
      walk.refuse(
        `${path}.${kind}["${key}"]`,
        walk.field(`${kind}["${key}"]`),
        `set the pod ${kind === "labels" ? "label" : "annotation"} "${key}"`,
      );
    }
  }
}

/** A pod spec; `defaults` are refused fields allowed at the value given. */
export function admitPodSpec(
  walk: WalkScope,
  spec: Obj,
  path: string,
  defaults: Obj = {},
): void {
  for (const key of Object.keys(spec)) {
    if (POD_SPEC_FIELDS[key] === "decided") continue;
    if (key in defaults && spec[key] === defaults[key]) continue;
    if (matchesAny(walk.grants.podFields, key)) continue;
    walk.refuse(`${path}.${key}`, undefined, `set the pod field "${key}"`);
  }
  for (const key of ["serviceAccountName", "serviceAccount"]) {
    const account = text(spec[key]);
    if (
      account === "" || account === "default" ||
      matchesAny(walk.grants.serviceAccounts, account)
    ) continue;
    walk.refuse(
      `${path}.${key}`,
      walk.field("serviceAccount"),
      `use the service account "${account}"`,
    );
  }
  listOf(spec.imagePullSecrets).forEach((secret, i) => {
    const name = isObj(secret) ? text(secret.name) : "";
    if (matchesAny(walk.grants.imagePullSecrets, name)) return;
    walk.refuse(
      `${path}.imagePullSecrets[${i}]`,
      walk.field("imagePullSecret"),
      `use the image pull secret "${name}"`,
    );
  });
  listOf(spec.tolerations).forEach((toleration, i) =>
    admitToleration(walk, toleration, `${path}.tolerations[${i}]`)
  );
  if (isObj(spec.nodeSelector)) {
    for (const [key, value] of Object.entries(spec.nodeSelector)) {
      const entry = `${key}=${text(value)}`;
      if (matchesAny(walk.grants.nodeSelectors, entry)) continue;
      walk.refuse(
        `${path}.nodeSelector["${key}"]`,
        undefined,
        `select nodes by "${entry}"`,
      );
    }
  }
  listOf(spec.volumes).forEach((volume, i) =>
    admitVolume(
      walk,
      volume,
      `${path}.volumes[${i}]`,
      walk.field(`volumes[${i}]`),
    )
  );
  listOf(spec.containers).forEach((container, i) =>
    admitContainer(walk, container, `${path}.containers[${i}]`)
  );
  for (const key of ["initContainers", "ephemeralContainers"]) {
    listOf(spec[key]).forEach((container, i) =>
      admitContainer(walk, container, `${path}.${key}[${i}]`)
    );
  }
}

function admitToleration(
  walk: WalkScope,
  toleration: unknown,
  path: string,
): void {
  const t = isObj(toleration) ? toleration : {};
  const key = text(t.key);
  const effect = text(t.effect);
  const allowed = walk.grants.tolerations.some((grant) =>
    (key === "" ? grant.key === "*" : globMatches(grant.key, key)) &&
    (grant.effects === undefined ||
      (effect !== "" && matchesAny(grant.effects, effect)))
  );
  if (allowed) return;
  const template = walk.field("computeTemplate");
  walk.refuse(
    path,
    template,
    key === ""
      ? `tolerate every taint${effect ? ` of effect ${effect}` : ""}`
      : `tolerate the taint "${key}"${effect ? ` (${effect})` : ""}`,
  );
}
