/**
 * The operator's event recorders: core/v1 Events on the objects a
 * controller reconciles, as client-go's recorder writes them for
 * ray-operator, one recorder per controller (source `raycluster-controller`,
 * `rayjob-controller`, `rayservice-controller`).
 */

import type { Logger } from "../../domain/log.ts";
import { formatKubernetesTime } from "../../domain/timestamps.ts";
import type { ApiClient, ObservedCluster } from "./api_client.ts";

/** Who records: the involved objects' kind and the controller's name. */
export interface EventSource {
  kind: string;
  component: string;
}

const RAY_CLUSTER_SOURCE: EventSource = {
  kind: "RayCluster",
  component: "raycluster-controller",
};

/** What an Event names of the object it is about. */
type Involved = Pick<ObservedCluster, "apiVersion" | "metadata">;

/** Normal or Warning, as the operator's Eventf calls say. */
export type EventType = "Normal" | "Warning";

/**
 * The Event recording `reason` on `object` at `now`. `sequence` tells
 * apart the names of events recorded in one millisecond; `apiVersion` is
 * the object's when it does not say.
 */
function objectEvent(
  object: Involved,
  reason: string,
  message: string,
  options: {
    now: Date;
    sequence: number;
    apiVersion: string;
    source: EventSource;
    type: EventType;
  },
): Record<string, unknown> {
  const { namespace, name, uid, resourceVersion } = object.metadata;
  const { now, source } = options;
  // client-go's recorder names events <object>.<unix nanos in hex>.
  const nanos = BigInt(now.getTime()) * 1_000_000n + BigInt(options.sequence);
  return {
    apiVersion: "v1",
    kind: "Event",
    metadata: { name: `${name}.${nanos.toString(16)}`, namespace },
    involvedObject: {
      apiVersion: object.apiVersion ?? options.apiVersion,
      kind: source.kind,
      namespace,
      name,
      uid,
      resourceVersion,
    },
    reason,
    message,
    type: options.type,
    count: 1,
    firstTimestamp: formatKubernetesTime(now),
    lastTimestamp: formatKubernetesTime(now),
    source: { component: source.component },
    reportingComponent: source.component,
    reportingInstance: "",
  };
}

/**
 * Tells apart events recorded in one millisecond, shared by the recorders
 * so that a job's and a service's events of one name never collide.
 */
let sequence = 0;

/** Writes Events through `api`; a refused write is logged, not thrown. */
export class EventRecorder {
  #api: ApiClient;
  #log?: Logger;
  #source: EventSource;

  constructor(
    api: ApiClient,
    log?: Logger,
    source: EventSource = RAY_CLUSTER_SOURCE,
  ) {
    this.#api = api;
    this.#log = log;
    this.#source = source;
  }

  async record(
    object: Involved,
    reason: string,
    message: string,
    type: EventType = "Normal",
  ): Promise<void> {
    const event = objectEvent(object, reason, message, {
      now: new Date(),
      sequence: sequence++,
      apiVersion: this.#api.apiVersion,
      source: this.#source,
      type,
    });
    const { namespace, name } = object.metadata;
    const status = await this.#api.createEvent(namespace, event);
    if (status !== 201) {
      this.#log?.error("Failed to record event", {
        namespace,
        name,
        reason,
        status,
      });
    }
  }
}
