/**
 * The annotations a caller gives a cluster (KubeRay's Cluster.annotations)
 * and its head service (ClusterSpec.headServiceAnnotations): written on
 * the RayCluster (and, by the operator, its head service) as given, read
 * back without the service's own keys. Keys under the service's prefixes
 * (ray.io/, app.kubernetes.io/, kueue.x-k8s.io/), corral.dev/ and
 * kubectl.kubernetes.io/ are refused and not read back, but for KubeRay's
 * ray.io/enable-serve-service, which its API
 * server reads from there ("true" opens the head's serve ports).
 */
import type { FieldViolation } from "./errors.ts";
import { isQualifiedName, splitQualifiedName } from "./kubernetes_names.ts";
import {
  isReservedKey,
  MAX_ANNOTATIONS_BYTES,
  RESERVED_KEY_PREFIXES,
} from "./pod_validation.ts";

/** KubeRay's annotation opening the head's serve ports. */
export const ENABLE_SERVE_SERVICE = "ray.io/enable-serve-service";

/**
 * Prefixes of annotations the service and kubectl write on a RayCluster,
 * besides the pods' reserved ones: Corral's own, and kubectl's (its
 * last-applied copy of the object, which the cache trims).
 */
const OWN_PREFIXES = ["corral.dev", "kubectl.kubernetes.io"];

/** Whether a cluster annotation key is the service's (or kubectl's) own. */
function isOwnKey(key: string): boolean {
  if (key === ENABLE_SERVE_SERVICE) return false;
  return isReservedKey(key) ||
    OWN_PREFIXES.includes(splitQualifiedName(key).prefix ?? "");
}

/** The caller's annotations of a RayCluster: all but the service's own. */
export function clusterAnnotationsOf(
  annotations: Record<string, string> | undefined,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(annotations ?? {})) {
    if (!isOwnKey(key)) {
      Object.defineProperty(out, key, {
        value: String(value),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
  }
  return out;
}

/**
 * The violations of annotations at `path`: keys Kubernetes takes, not the
 * service's own (when `reserved`), within Kubernetes' size.
 */
export function annotationViolations(
  path: string,
  annotations: Record<string, string> | undefined,
  reserved: boolean,
): FieldViolation[] {
  const out: FieldViolation[] = [];
  let bytes = 0;
  const encoder = new TextEncoder();
  for (const [key, value] of Object.entries(annotations ?? {})) {
    const at = `${path}[${JSON.stringify(key)}]`;
    bytes += encoder.encode(key).length + encoder.encode(value).length;
    if (!isQualifiedName(key)) {
      out.push({
        field: at,
        description:
          "is not a valid annotation key: an optional DNS subdomain prefix and '/', then at most 63 letters, digits, '-', '_' and '.', starting and ending with a letter or digit",
      });
    } else if (reserved && isOwnKey(key)) {
      out.push({
        field: at,
        description: `is reserved: annotation keys under ${
          [...RESERVED_KEY_PREFIXES, ...OWN_PREFIXES].map((p) => `${p}/`).join(
            ", ",
          )
        } are the service's own (but ${ENABLE_SERVE_SERVICE})`,
      });
    }
  }
  if (bytes > MAX_ANNOTATIONS_BYTES) {
    out.push({
      field: path,
      description:
        `must total at most ${MAX_ANNOTATIONS_BYTES} bytes of keys and values, got ${bytes}`,
    });
  }
  return out;
}
