/**
 * client-node's typed objects back to the JSON shapes the domain works on,
 * and the bodies the orchestrator sends.
 */
import type { V1ConfigMap } from "@kubernetes/client-node";
import { formatTimestamp } from "../domain/timestamps.ts";
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

export function asConfigMap(value: unknown): ConfigMap {
  const configMap = toJson<ConfigMap>(value);
  return { ...configMap, apiVersion: "v1", kind: "ConfigMap" };
}

export function asEvent(value: unknown): KubeEvent {
  return { ...toJson<KubeEvent>(value), apiVersion: "v1", kind: "Event" };
}

/** What a create sends: no server-set metadata. */
export function configMapBody(configMap: ConfigMap): V1ConfigMap {
  const { name, namespace, labels, annotations } = configMap.metadata;
  return {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name, namespace, labels, annotations },
    data: configMap.data,
  };
}
