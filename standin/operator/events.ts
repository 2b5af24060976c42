/**
 * The operator's event recorder: Normal core/v1 Events on a RayCluster, as
 * client-go's recorder writes them for ray-operator (source
 * `raycluster-controller`).
 */

import type { Logger } from "../../domain/log.ts";
import { formatKubernetesTime } from "../../domain/timestamps.ts";
import type { ApiClient, ObservedCluster } from "./api_client.ts";

const COMPONENT = "raycluster-controller";

/**
 * The Event recording `reason` on `cluster` at `now`. `sequence` tells
 * apart the names of events recorded in one millisecond; `apiVersion` is
 * the cluster's when it does not say.
 */
function clusterEvent(
  cluster: ObservedCluster,
  reason: string,
  message: string,
  options: { now: Date; sequence: number; apiVersion: string },
): Record<string, unknown> {
  const { namespace, name, uid, resourceVersion } = cluster.metadata;
  const { now } = options;
  // client-go's recorder names events <object>.<unix nanos in hex>.
  const nanos = BigInt(now.getTime()) * 1_000_000n + BigInt(options.sequence);
  return {
    apiVersion: "v1",
    kind: "Event",
    metadata: { name: `${name}.${nanos.toString(16)}`, namespace },
    involvedObject: {
      apiVersion: cluster.apiVersion ?? options.apiVersion,
      kind: "RayCluster",
      namespace,
      name,
      uid,
      resourceVersion,
    },
    reason,
    message,
    type: "Normal",
    count: 1,
    firstTimestamp: formatKubernetesTime(now),
    lastTimestamp: formatKubernetesTime(now),
    source: { component: COMPONENT },
    reportingComponent: COMPONENT,
    reportingInstance: "",
  };
}

/** Writes Events through `api`; a refused write is logged, not thrown. */
export class EventRecorder {
  #api: ApiClient;
  #log?: Logger;
  #sequence = 0;

  constructor(api: ApiClient, log?: Logger) {
    this.#api = api;
    this.#log = log;
  }

  async record(
    cluster: ObservedCluster,
    reason: string,
    message: string,
  ): Promise<void> {
    const event = clusterEvent(cluster, reason, message, {
      now: new Date(),
      sequence: this.#sequence++,
      apiVersion: this.#api.apiVersion,
    });
    const { namespace, name } = cluster.metadata;
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
