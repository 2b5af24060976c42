/**
 * Every HTTP unit the HTTP port serves beside the RPCs' routes, in one
 * list: /whoami, /metrics when it needs credentials, the dashboard proxy
 * and its sessions (and KubeRay's service proxy), KubeRay's
 * Kubernetes-shaped routes and their Events, and what clients find those
 * routes by. api/mod.ts serves them; the tests that hold the policy
 * reference and the chain to every unit read the same list.
 */
import type { DashboardProxy } from "./http/dashboard_proxy.ts";
import { eventsUnits } from "./http/kube_events.ts";
import { discoveryUnits } from "./http/kube_discovery.ts";
import { openApiV3Units } from "./http/kube_openapi.ts";
import { rayObjectUnits } from "./http/ray_objects.ts";
import type { HttpUnit } from "./http/units.ts";
import type { Metrics } from "./metrics.ts";
import { metricsUnit } from "./metrics_unit.ts";
import type { ObjectWatches } from "./service/object_watch.ts";
import type { Service } from "./service/service.ts";
import { whoamiUnit } from "./whoami.ts";

export interface HttpUnitParts {
  service: Service;
  /** /metrics as a unit (--metrics-require-auth); absent: a page. */
  metrics?: Metrics;
  /** The dashboard proxy, when served. */
  dashboardProxy?: DashboardProxy;
  /** The Kubernetes-shaped routes' watches; none without a cache. */
  objectWatches?: ObjectWatches;
  maxBodyBytes: number;
}

export function httpUnits(parts: HttpUnitParts): HttpUnit[] {
  const { service } = parts;
  return [
    whoamiUnit(),
    ...(parts.metrics ? [metricsUnit(parts.metrics)] : []),
    ...(parts.dashboardProxy?.units() ?? []),
    // KubeRay's Kubernetes-shaped routes ("V2"), and the Events of them.
    ...rayObjectUnits({
      service,
      watches: parts.objectWatches,
      maxBodyBytes: parts.maxBodyBytes,
    }),
    ...eventsUnits(service),
    // What kubectl and other clients find those routes by.
    ...discoveryUnits(service.clusterApiVersion),
    ...openApiV3Units(service.clusterApiVersion),
  ];
}
