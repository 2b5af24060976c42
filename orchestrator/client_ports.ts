/**
 * The narrow port to client-node: the API methods the orchestrator really
 * calls, and where RayClusters live. Tests hand in fakes of these.
 */
import type {
  CoreV1Api,
  CustomObjectsApi,
  VersionApi,
} from "@kubernetes/client-node";

/** The CustomObjectsApi methods the orchestrator calls. */
export type CustomObjectsPort = Pick<
  CustomObjectsApi,
  | "createNamespacedCustomObject"
  | "getNamespacedCustomObject"
  | "listNamespacedCustomObject"
  | "listClusterCustomObject"
  | "deleteNamespacedCustomObject"
  | "replaceNamespacedCustomObject"
>;

/** The CoreV1Api methods the orchestrator calls. */
export type CoreV1Port = Pick<
  CoreV1Api,
  | "createNamespacedConfigMap"
  | "readNamespacedConfigMap"
  | "listNamespacedConfigMap"
  | "listConfigMapForAllNamespaces"
  | "replaceNamespacedConfigMap"
  | "deleteNamespacedConfigMap"
  | "listNamespacedEvent"
  | "listEventForAllNamespaces"
  | "listNamespacedPod"
  | "readNamespacedPodLog"
>;

/** The VersionApi method the readiness ping calls. */
export type VersionPort = Pick<VersionApi, "getCode">;

export interface KubernetesClients {
  customObjects: CustomObjectsPort;
  core: CoreV1Port;
  version: VersionPort;
}

/**
 * Where RayClusters live: settings, for operators that serve the resource
 * under another group or version (docs/design.md, "Kubernetes mapping").
 */
export interface RayClusterCoordinates {
  group: string;
  version: string;
  plural: string;
}
