/**
 * client-node's typed objects back to the JSON shapes the domain works on,
 * and the bodies the orchestrator sends.
 */
import type { V1ConfigMap } from "@kubernetes/client-node";
import { formatTimestamp } from "../domain/timestamps.ts";
import type { KindResource } from "../domain/kinds.ts";
import type { ConfigMap, KubeEvent } from "../domain/resources.ts";

/**
 * client-node's typed models hold timestamps as Date; the domain works on
 * the JSON shapes, so objects go back to JSON with RFC 3339 timestamps
 * (second precision when that is all there is, as the API server writes).
 */
export function toJson<T>(value: unknown): T {
  return plain(value) as T;
}

/**
 * A deep copy as JSON would make it (undefined members dropped, Dates as
 * RFC 3339 strings), without the string in between: lists of events are
 * hot, and a stringify-and-parse round trip was most of their cost.
 */
export function plain(value: unknown): unknown {
  if (value instanceof Date) {
    return formatTimestamp(value);
  }
  if (Array.isArray(value)) {
    return value.map((item) => item === undefined ? null : plain(item));
  }
  if (value === null || typeof value !== "object") return value;
  const out: Record<string, unknown> = {};
  for (const [key, member] of Object.entries(value)) {
    if (member !== undefined && typeof member !== "function") {
      Object.defineProperty(out, key, {
        value: plain(member),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
  }
  return out;
}

/**
 * client-node's answer or a watch's object of `resource` as the domain's:
 * a custom object as it came; a core one as JSON (client-node's models hold
 * Dates) with the apiVersion and kind a list's items go without.
 */
export function objectOf<T>(resource: KindResource, value: unknown): T {
  if (resource.group !== "") return value as T;
  return {
    ...toJson<object>(value),
    apiVersion: resource.version,
    kind: resource.kind,
  } as T;
}

export function asEvent(value: unknown): KubeEvent {
  return { ...toJson<KubeEvent>(value), apiVersion: "v1", kind: "Event" };
}

/**
 * What a write sends: no server-set metadata but, for an update, the
 * resourceVersion it was read at (the update's precondition).
 */
export function configMapBody(
  configMap: ConfigMap,
  write: "create" | "update" = "create",
): V1ConfigMap {
  const { name, namespace, labels, annotations, resourceVersion } =
    configMap.metadata;
  return {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: {
      name,
      namespace,
      labels,
      annotations,
      ...(write === "update" ? { resourceVersion } : {}),
    },
    data: configMap.data,
  };
}
