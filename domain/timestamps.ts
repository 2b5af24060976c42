/**
 * Timestamps as text. Two forms, one rule underneath (RFC 3339 in UTC):
 *
 * - `formatTimestamp`: the proto3 JSON form of google.protobuf.Timestamp as
 *   the service writes it, and what the orchestrator turns client-node's
 *   Dates back into: fractional seconds only when there are any
 *   (`2024-05-01T12:00:00Z`, `2024-05-01T12:00:00.250Z`).
 * - `formatKubernetesTime`: metav1.Time as the Kubernetes API server
 *   serializes it (creationTimestamp, Events' firstTimestamp): second
 *   precision, a fraction is dropped. Used by the stand-in and the
 *   simulated operator.
 *
 * Kubernetes' MicroTime (Events' `eventTime`, leases) is a third form, six
 * fractional digits always (`2024-05-01T12:00:04.500000Z`); nothing here
 * writes one, and the service only reads it (`parseKubernetesTime` reads
 * any RFC 3339 text).
 */

/** RFC 3339 in UTC, with fractional seconds only when there are any. */
export function formatTimestamp(date: Date): string {
  return date.toISOString().replace(".000Z", "Z");
}

/** RFC 3339 in UTC with second precision, as metav1.Time serializes. */
export function formatKubernetesTime(date: Date = new Date()): string {
  return formatTimestamp(new Date(Math.floor(date.getTime() / 1000) * 1000));
}

/**
 * A time of a Kubernetes object (metav1.Time, MicroTime, any RFC 3339
 * text); undefined when unset or unreadable.
 */
export function parseKubernetesTime(
  value: string | null | undefined,
): Date | undefined {
  // Go clients serialise unset times as null.
  if (value === undefined || value === null || value === "") return undefined;
  const time = new Date(value);
  return Number.isNaN(time.getTime()) ? undefined : time;
}
