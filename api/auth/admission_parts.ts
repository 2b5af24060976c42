/**
 * Admission of the parts of a workload that KubeRay's current fields
 * write (admission.ts walks them): a container's security context, the
 * size of an emptyDir or of a generic ephemeral volume's claim, and the
 * fields of the autoscaler the operator runs beside the head. Each
 * function says what a rule's grants do not allow, as a Refusal's `what`
 * and where; admission.ts names the request fields.
 */
import { quantityValue } from "../../domain/quantities.ts";
import { isObj, listOf, type Obj, text } from "./workload.ts";
import { matchesAny, type WorkloadGrants } from "./workload_grants.ts";

/** One thing not allowed: its path under the part judged, and why. */
export interface PartRefusal {
  /** Below the part's own path: `.privileged`, `.capabilities.add[0]`. */
  at: string;
  what: string;
}

/** The fields of a security context that the grants decide. */
const DECIDED_SECURITY_FIELDS = new Set(["privileged", "capabilities"]);

/**
 * A container's security context: `privileged: true` only where the rule
 * allows it, each added capability one the rule names (dropping is always
 * fine); any other field only where the rule opens the whole context
 * (containerFields: securityContext), which allows everything in it.
 */
export function securityContextRefusals(
  context: unknown,
  grants: WorkloadGrants,
): PartRefusal[] {
  if (!isObj(context)) return [];
  if (matchesAny(grants.containerFields, "securityContext")) return [];
  const out: PartRefusal[] = [];
  for (const key of Object.keys(context)) {
    if (!DECIDED_SECURITY_FIELDS.has(key)) {
      out.push({ at: `.${key}`, what: `set the security context's "${key}"` });
    }
  }
  if (context.privileged === true && !grants.privileged) {
    out.push({ at: ".privileged", what: "run a privileged container" });
  }
  const capabilities = isObj(context.capabilities) ? context.capabilities : {};
  for (const key of Object.keys(capabilities)) {
    if (key !== "add" && key !== "drop") {
      out.push({ at: `.capabilities.${key}`, what: `set "${key}"` });
    }
  }
  listOf(capabilities.add).forEach((raw, i) => {
    const name = text(raw);
    if (matchesAny(grants.capabilities, name)) return;
    out.push({
      at: `.capabilities.add[${i}]`,
      what: `add the capability "${name}"`,
    });
  });
  return out;
}

/** The claim spec fields of an ephemeral volume that the grants decide. */
const CLAIM_SPEC_FIELDS = new Set([
  "accessModes",
  "resources",
  "storageClassName",
]);

/**
 * An emptyDir's size limit or a generic ephemeral volume's request within
 * the rule's bound (an emptyDir without a limit is the node's disk, as a
 * container's own files are). An emptyDir's other fields (`medium`: memory
 * counted nowhere) and an ephemeral claim's beyond its size, class and
 * access modes are refused: a rule opens them by `podFields`
 * (`volumes.emptyDir`, `volumes.ephemeral`).
 */
export function sizedVolumeRefusals(
  kind: "emptyDir" | "ephemeral",
  source: Obj,
  grants: WorkloadGrants,
): PartRefusal[] {
  const out: PartRefusal[] = [];
  let size: string | undefined;
  let at: string;
  if (kind === "emptyDir") {
    for (const key of Object.keys(source)) {
      if (key !== "sizeLimit") {
        out.push({ at: `.${key}`, what: `set the emptyDir's "${key}"` });
      }
    }
    size = source.sizeLimit === undefined ? undefined : text(source.sizeLimit);
    at = ".sizeLimit";
  } else {
    const template = isObj(source.volumeClaimTemplate)
      ? source.volumeClaimTemplate
      : {};
    const spec = isObj(template.spec) ? template.spec : {};
    for (const key of Object.keys(spec)) {
      if (!CLAIM_SPEC_FIELDS.has(key)) {
        out.push({
          at: `.volumeClaimTemplate.spec.${key}`,
          what: `set the ephemeral claim's "${key}"`,
        });
      }
    }
    const resources = isObj(spec.resources) ? spec.resources : {};
    const requests = isObj(resources.requests) ? resources.requests : {};
    size = text(requests.storage);
    at = ".volumeClaimTemplate.spec.resources.requests.storage";
  }
  if (size === undefined) return out;
  const bytes = quantityValue(size);
  if (bytes === undefined || bytes > grants.volumeMaxBytes) {
    out.push({
      at,
      what: `use a volume of ${size || "no size"}, more than the ${
        formatBytes(grants.volumeMaxBytes)
      } allowed`,
    });
  }
  return out;
}

/** "10Gi" for 10 GiB; bytes otherwise. */
function formatBytes(bytes: number): string {
  if (bytes === Number.POSITIVE_INFINITY) return "unbounded size";
  for (
    const [unit, scale] of [["Ti", 2 ** 40], ["Gi", 2 ** 30], [
      "Mi",
      2 ** 20,
    ]] as const
  ) {
    if (bytes >= scale && bytes % scale === 0) return `${bytes / scale}${unit}`;
  }
  return String(bytes);
}

/**
 * The fields of the operator's AutoscalerOptions that the walk decides:
 * its image by the image rules, its resources as a container's, its
 * variables' sources by the rule's secrets, its security context as a
 * container's; mounts name the head's volumes, which are admitted with
 * it. Any other field is refused unless a rule opens it by `podFields`
 * (`autoscalerOptions.<field>`).
 */
export const AUTOSCALER_FIELDS = new Set([
  "image",
  "imagePullPolicy",
  "idleTimeoutSeconds",
  "upscalingMode",
  "version",
  "resources",
  "env",
  "envFrom",
  "volumeMounts",
  "securityContext",
]);
