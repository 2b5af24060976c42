/**
 * Where a ready cluster is: its head service's addresses inside the
 * Kubernetes cluster, and the path of its dashboard through Corral. Pure:
 * the conversions fill a Cluster's addresses from it, the dashboard proxy
 * finds the head service with it.
 */
import { Code, ServiceError } from "./errors.ts";
import type { RayCluster } from "./resources.ts";

/** The Ray client server's port on the head service (KubeRay's default). */
export const CLIENT_PORT = 10001;
/** The Ray dashboard's port on the head service (KubeRay's default). */
export const DASHBOARD_PORT = 8265;

/** The state a cluster must be in to be reached. */
export const READY_STATE = "ready";

/**
 * The head service's name: the RayCluster's status.head.serviceName, which
 * the operator writes once it made the service, else "<name>-head-svc", the
 * name KubeRay gives it.
 */
export function headServiceOf(resource: RayCluster): string {
  const head = resource.status?.head;
  const named = typeof head === "object" && head !== null
    ? (head as Record<string, unknown>).serviceName
    : undefined;
  return typeof named === "string" && named !== ""
    ? named
    : `${resource.metadata?.name ?? ""}-head-svc`;
}

/** Whether the operator reports the cluster ready. */
export function isReady(resource: RayCluster): boolean {
  return resource.status?.state === READY_STATE;
}

/**
 * FAILED_PRECONDITION, `action` first and the cluster's state after, for a
 * cluster that is not ready: what its dashboard is asked for (a proxied
 * request, a job submission) waits for it.
 */
export function checkReady(resource: RayCluster, action: string): void {
  if (isReady(resource)) return;
  const state = resource.status?.state;
  throw new ServiceError(
    Code.FAILED_PRECONDITION,
    `${action}: the cluster is not ready: its state is ${
      state ? `"${state}"` : "not reported yet"
    }`,
  );
}

/**
 * The path of a cluster's dashboard through Corral, with its final "/" (the
 * dashboard's pages link relative to it).
 */
export function dashboardProxyPath(namespace: string, name: string): string {
  return `/apis/v1alpha2/namespaces/${namespace}/clusters/${name}/dashboard/`;
}

export interface ClusterAddresses {
  clientUrl: string;
  dashboardUrl: string;
  dashboardProxyUrl: string;
}

/** The addresses of a cluster that is not ready, or not one yet. */
export const NO_ADDRESSES: Readonly<ClusterAddresses> = Object.freeze({
  clientUrl: "",
  dashboardUrl: "",
  dashboardProxyUrl: "",
});

/** A ready cluster's addresses; all "" while it is not ready. */
export function clusterAddressesOf(resource: RayCluster): ClusterAddresses {
  if (!isReady(resource)) return { ...NO_ADDRESSES };
  const namespace = resource.metadata?.namespace ?? "";
  const host = `${headServiceOf(resource)}.${namespace}.svc`;
  return {
    clientUrl: `ray://${host}:${CLIENT_PORT}`,
    dashboardUrl: `http://${host}:${DASHBOARD_PORT}`,
    dashboardProxyUrl: dashboardProxyPath(
      namespace,
      resource.metadata?.name ?? "",
    ),
  };
}
