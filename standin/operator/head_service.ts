/**
 * A cluster's head Service, as KubeRay v1.7.0's BuildServiceForHeadPod
 * writes it (ray-operator/controllers/ray/common/service.go): named
 * `<cluster>-head-svc`, labelled and selecting by the head's default
 * labels, one port per head service port (sorted by name, appProtocol
 * tcp), headless when of type ClusterIP (clusterIP None,
 * publishNotReadyAddresses), owned by the cluster so that it goes with it.
 *
 * Dev mode only: the annotation SIMULATED_PORT_ANNOTATION gives the
 * 127.0.0.1 port of the cluster's simulated dashboard, which the
 * stand-in's service proxy and Corral's direct access in dev mode follow.
 */

import { SIMULATED_PORT_ANNOTATION } from "../services.ts";
import type { KubeResource, ObservedCluster } from "./api_client.ts";
import { headServicePorts, isNodePortService } from "./endpoints.ts";

export { SIMULATED_PORT_ANNOTATION };

/** The head Service's name: KubeRay's GenerateHeadServiceName. */
export function headServiceName(clusterName: string): string {
  return `${clusterName}-head-svc`;
}

/** The head Service's labels, which are also its selector. */
export function headServiceLabels(clusterName: string): Record<string, string> {
  return {
    "ray.io/cluster": clusterName,
    "ray.io/node-type": "head",
    "ray.io/identifier": `${clusterName}-head`.slice(0, 63),
    "app.kubernetes.io/name": "kuberay",
    "app.kubernetes.io/created-by": "kuberay-operator",
  };
}

/**
 * The head Service of `cluster` (as read, with its apiVersion and uid),
 * its NodePorts from `endpoints` when a NodePort service, its dashboard
 * served at 127.0.0.1:`dashboardPort`.
 */
export function headService(
  cluster: ObservedCluster & Partial<KubeResource>,
  apiVersion: string,
  endpoints: Record<string, string>,
  dashboardPort: number,
): Record<string, unknown> {
  const { name, namespace, uid } = cluster.metadata;
  const nodePort = isNodePortService(cluster);
  const ports = [...headServicePorts(cluster)].sort(([a], [b]) =>
    a < b ? -1 : a > b ? 1 : 0
  ).map(([portName, port]) => ({
    name: portName,
    protocol: "TCP",
    appProtocol: "tcp",
    port,
    targetPort: port,
    ...(nodePort ? { nodePort: Number(endpoints[portName]) } : {}),
  }));
  const type = cluster.spec?.headGroupSpec?.serviceType || "ClusterIP";
  const labels = headServiceLabels(name);
  return {
    apiVersion: "v1",
    kind: "Service",
    metadata: {
      name: headServiceName(name),
      namespace,
      labels,
      annotations: { [SIMULATED_PORT_ANNOTATION]: String(dashboardPort) },
      ownerReferences: [{
        apiVersion,
        kind: "RayCluster",
        name,
        uid,
        controller: true,
        blockOwnerDeletion: true,
      }],
    },
    spec: {
      selector: labels,
      ports,
      type,
      ...(type === "ClusterIP"
        ? { clusterIP: "None", publishNotReadyAddresses: true }
        : {}),
    },
  };
}
