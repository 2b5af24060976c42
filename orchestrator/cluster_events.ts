/**
 * Events about RayClusters through CoreV1Api, selected on the server by
 * the involved object's kind (and name): one list call, whatever the
 * number of clusters.
 */
import type { CallOptions } from "../domain/ports.ts";
import {
  CLUSTER_EVENTS_SELECTOR,
  type KubeEvent,
} from "../domain/resources.ts";
import type { CoreV1Port } from "./client_ports.ts";
import type { KubernetesCall } from "./errors.ts";
import { asEvent } from "./json.ts";
import { type KubernetesCaller, qualified } from "./kubernetes_call.ts";

/**
 * Events whose involvedObject is a RayCluster, in `namespace` (all when
 * undefined), of the cluster `name` when given.
 */
export async function listClusterEvents(
  caller: KubernetesCaller,
  core: CoreV1Port,
  namespace?: string,
  name?: string,
  options?: CallOptions,
): Promise<KubeEvent[]> {
  const fieldSelector = [
    CLUSTER_EVENTS_SELECTOR,
    ...(name === undefined ? [] : [`involvedObject.name=${name}`]),
  ].join(",");
  const description: KubernetesCall = {
    action: name === undefined
      ? "Cannot list cluster events"
      : `Cannot list events of cluster "${qualified(namespace ?? "", name)}"`,
    verb: "list",
    noun: "event",
  };
  const list = await caller.call(
    description,
    "events",
    (config) =>
      namespace === undefined
        ? core.listEventForAllNamespaces({ fieldSelector }, config)
        : core.listNamespacedEvent({ namespace, fieldSelector }, config),
    options,
  );
  return list.items.map(asEvent);
}
