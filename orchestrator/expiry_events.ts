/**
 * Corral's own Events on the objects expiry deletes, RayClusters, RayJobs
 * and RayServices (the expiry's ExpiringSoon and Expired), written as
 * client-go's recorder writes them: named <object>.<unix nanos in hex>,
 * source and reporting component "corral", so `kubectl describe` and
 * GetCluster's, GetRayJob's and GetRayService's events show them.
 */
import type { CoreV1Api, CoreV1Event } from "@kubernetes/client-node";
import type { KindObject } from "../domain/kinds.ts";
import { KubernetesCaller } from "./kubernetes_call.ts";

/** The CoreV1Api method the recorder calls. */
export type EventPort = Pick<CoreV1Api, "createNamespacedEvent">;

/** Normal or Warning, as Kubernetes' event types. */
export type ClusterEventType = "Normal" | "Warning";

/**
 * Records an Event about an object (involvedObject.kind: the object's
 * `kind`); throws the translated error.
 */
export interface ClusterEventRecorder {
  record(
    object: KindObject,
    type: ClusterEventType,
    reason: string,
    message: string,
  ): Promise<void>;
}

const COMPONENT = "corral";

/** Tells apart events recorded in one millisecond. */
let sequence = 0;

/** The recorder over client-node's CoreV1Api. */
export class KubernetesEventRecorder implements ClusterEventRecorder {
  readonly #events: EventPort;
  readonly #caller = new KubernetesCaller({ readAttempts: 1 });
  readonly #now: () => Date;

  constructor(events: EventPort, now: () => Date = () => new Date()) {
    this.#events = events;
    this.#now = now;
  }

  async record(
    object: KindObject,
    type: ClusterEventType,
    reason: string,
    message: string,
  ): Promise<void> {
    const { namespace = "", name = "", uid, resourceVersion } = object.metadata;
    const now = this.#now();
    sequence = (sequence + 1) % 1_000_000;
    const nanos = BigInt(now.getTime()) * 1_000_000n + BigInt(sequence);
    // Whole seconds, as metav1.Time on the wire.
    const time = new Date(Math.floor(now.getTime() / 1000) * 1000);
    const body: CoreV1Event = {
      apiVersion: "v1",
      kind: "Event",
      metadata: { name: `${name}.${nanos.toString(16)}`, namespace },
      involvedObject: {
        apiVersion: object.apiVersion,
        kind: object.kind,
        namespace,
        name,
        uid,
        resourceVersion,
      },
      reason,
      message,
      type,
      count: 1,
      firstTimestamp: time,
      lastTimestamp: time,
      source: { component: COMPONENT },
      reportingComponent: COMPONENT,
      reportingInstance: "",
    };
    await this.#caller.call(
      {
        action:
          `Cannot record event "${reason}" on ${object.kind} "${namespace}/${name}"`,
        verb: "create",
        noun: "event",
      },
      "events",
      (config) =>
        this.#events.createNamespacedEvent(
          { namespace, body },
          config,
        ),
    );
  }
}
