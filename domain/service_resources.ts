/**
 * The KubeRay RayService custom resource (ray.io/v1 rayservices), typed as
 * far as Corral touches it: its spec is a Serve config and a RayCluster's
 * spec (rayClusterConfig), its status as the v1.7.0 operator writes it
 * (rayservice_types.go). Plain JSON shapes, as resources.ts's.
 */
import {
  LABEL,
  MANAGED_BY,
  type ObjectMeta,
  type RayCluster,
  type RayClusterStatus,
} from "./resources.ts";

/** One Serve deployment's status, by deployment name in its application. */
export interface ServeDeploymentStatusResource {
  status?: string;
  message?: string;
}

/** One Serve application's status (AppStatus). */
export interface AppStatusResource {
  status?: string;
  message?: string;
  serveDeploymentStatuses?: Record<string, ServeDeploymentStatusResource>;
}

/** The status of the active or the pending cluster of a RayService. */
export interface RayServiceClusterStatus {
  applicationStatuses?: Record<string, AppStatusResource>;
  rayClusterName?: string;
  rayClusterStatus?: RayClusterStatus;
  [key: string]: unknown;
}

/** A metav1.Condition. */
export interface ConditionResource {
  type?: string;
  status?: string;
  reason?: string;
  message?: string;
  lastTransitionTime?: string;
}

/** RayServiceStatuses: what the operator reports of a RayService. */
export interface RayServiceStatuses {
  conditions?: ConditionResource[];
  serviceStatus?: string;
  activeServiceStatus?: RayServiceClusterStatus;
  pendingServiceStatus?: RayServiceClusterStatus;
  numServeEndpoints?: number;
  [key: string]: unknown;
}

export interface RayServiceResource {
  apiVersion: string;
  kind: "RayService";
  metadata: ObjectMeta;
  spec: {
    serveConfigV2?: string;
    rayClusterConfig: RayCluster["spec"];
    [key: string]: unknown;
  };
  status?: RayServiceStatuses;
}

/** The selector lists of services use: only those the API server manages. */
export const MANAGED_SERVICE_SELECTOR = `${LABEL.managedBy}=${MANAGED_BY}`;
/** The field selector of events about RayServices (of any service). */
export const SERVICE_EVENTS_SELECTOR = "involvedObject.kind=RayService";

export function isManagedService(service: RayServiceResource): boolean {
  return service.metadata.labels?.[LABEL.managedBy] === MANAGED_BY;
}
