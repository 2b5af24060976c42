/**
 * core/v1 Pods, stored like any kind, with the status subresource and the
 * `log` subresource (pod_logs.ts). The stand-in runs no kubelet: a pod's
 * containers run only as far as whoever writes the pod says (the
 * simulated operator's RayJob submitter), and what a container printed is
 * what that writer put in the pod's annotation SIMULATED_LOG_ANNOTATION.
 */

import { POD_LOG } from "./pod_logs.ts";
import type { KubeObject, ResourceType } from "./types.ts";

/** A new pod is Pending until its writer says otherwise, as with a kubelet. */
function preparePod(object: KubeObject): void {
  object.status = { phase: "Pending", qosClass: "BestEffort" };
}

export const POD: ResourceType = {
  group: "",
  version: "v1",
  kind: "Pod",
  plural: "pods",
  singular: "pod",
  namespaced: true,
  shortNames: ["po"],
  categories: ["all"],
  subresources: ["status"],
  prepareForCreate: preparePod,
  reads: { log: POD_LOG },
};
