/**
 * A core/v1 Event in the shape of events.k8s.io/v1, as the API server
 * converts between the two (they are one object stored once): the object
 * it is about as `regarding`, its message as `note`, the reporting
 * component as `reportingController`, and the core's first and last
 * timestamps, count and source under `deprecated*`. Its `eventTime`, which
 * the group requires, is the core's when set, else the first time the
 * event was seen (as a MicroTime), so clients that insist on it read every
 * event.
 */
import type { KubeEvent } from "../../domain/resources.ts";

/** The group's field selector names, and the core field each is. */
export const REGARDING_FIELDS: Record<string, string> = {
  "regarding.kind": "involvedObject.kind",
  "regarding.name": "involvedObject.name",
  "regarding.uid": "involvedObject.uid",
  "regarding.namespace": "involvedObject.namespace",
};

/** `event` as events.k8s.io/v1 has it. */
export function eventV1Of(event: KubeEvent): Record<string, unknown> {
  const core = event as KubeEvent & Record<string, unknown>;
  const eventTime = event.eventTime ??
    microTime(
      event.firstTimestamp ?? event.lastTimestamp ??
        event.metadata.creationTimestamp,
    );
  return omitUndefined({
    apiVersion: "events.k8s.io/v1",
    kind: "Event",
    metadata: event.metadata,
    eventTime,
    series: core.series,
    reportingController: core.reportingComponent ?? event.source?.component,
    reportingInstance: core.reportingInstance ?? event.source?.host,
    action: core.action,
    reason: event.reason,
    regarding: event.involvedObject,
    related: core.related,
    note: event.message,
    type: event.type,
    deprecatedSource: event.source,
    deprecatedFirstTimestamp: event.firstTimestamp,
    deprecatedLastTimestamp: event.lastTimestamp,
    deprecatedCount: event.count,
  });
}

/** An RFC 3339 time as a MicroTime (six decimals); undefined stays so. */
function microTime(time: string | undefined): string | undefined {
  if (time === undefined) return undefined;
  const date = new Date(time);
  if (Number.isNaN(date.getTime())) return time;
  return date.toISOString().replace(/\.(\d{3})Z$/, ".$1000Z");
}

function omitUndefined(
  record: Record<string, unknown>,
): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(record).filter(([, value]) => value !== undefined),
  );
}
