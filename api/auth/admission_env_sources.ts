/**
 * Admission of where a variable takes its value: an env `valueFrom` or an
 * `envFrom` source, of a container or of the autoscaler. It stands apart
 * from the containers' checks because both containers and the autoscaler
 * (admission.ts) read their variables this way, and the rule's `secrets`
 * decide it as they decide a mounted Secret or ConfigMap.
 */
import { isObj, type Obj, text } from "./workload.ts";
import { matchesAny } from "./workload_grants.ts";
import type { WalkScope } from "./admission_walk.ts";

/** Sources of an env value or envFrom that read the pod itself: allowed. */
const POD_REFERENCES = new Set(["fieldRef", "resourceFieldRef", "prefix"]);

/** Sources that read a Secret or ConfigMap: allowed by a rule's `secrets`. */
const OBJECT_REFERENCES = new Set([
  "secretKeyRef",
  "configMapKeyRef",
  "secretRef",
  "configMapRef",
]);

/**
 * An env valueFrom or envFrom source: a field of the pod is fine; a Secret
 * or ConfigMap key needs the name in the rule's `secrets`.
 */
export function admitEnvSource(
  walk: WalkScope,
  source: Obj,
  path: string,
  field = walk.field("environment"),
): void {
  for (const [kind, value] of Object.entries(source)) {
    if (POD_REFERENCES.has(kind)) continue;
    const known = OBJECT_REFERENCES.has(kind);
    const name = isObj(value) ? text(value.name) : "";
    if (known && matchesAny(walk.grants.secrets, name)) continue;
    walk.refuse(
      `${path}.${kind}`,
      field,
      known
        ? `read the ${
          kind.startsWith("secret") ? "Secret" : "ConfigMap"
        } "${name}"`
        : `take a value from "${kind}"`,
    );
  }
}
