// @ts-check
/// <reference lib="dom" />
/**
 * The services view (#/services): every service the caller may see, with
 * its health, its active and pending clusters and how many of its
 * applications run, redrawn as the services' poll (services_poll.js)
 * finds them changed.
 */
import { h } from "./html.js";
import { ageCell, workloadListView } from "./workload_list.js";
import { workloads } from "./workloads.js";

/** @typedef {import("./api.js").Service} Service */

/**
 * @param {() => void} onChange redraws the view (once per frame)
 * @returns {import("./state.js").View}
 */
export function servicesView(onChange) {
  return workloadListView(workloads.services, {
    columns: [
      "Health",
      "Active cluster",
      "Pending cluster",
      "Applications",
      "Age",
    ],
    cells: serviceCells,
    none: "No services yet: create one.",
  }, onChange);
}

/**
 * The link to a cluster of a service's namespace, when there is one.
 * @param {string} namespace
 * @param {string | undefined} name
 */
export function serviceClusterLink(namespace, name) {
  return name ? h("a", { href: `#/clusters/${namespace}/${name}` }, name) : "";
}

/**
 * "n/m RUNNING": of the applications the operator reports, how many run.
 * @param {Service} service
 */
export function runningApplications(service) {
  const apps = service.rayServiceStatus?.serveApplicationStatus ?? [];
  const running = apps.filter((app) => app.status === "RUNNING").length;
  return `${running}/${apps.length} RUNNING`;
}

/**
 * A service's cells after its health: its clusters, its applications that
 * run and its age.
 * @param {Service} service
 */
function serviceCells(service) {
  const status = service.rayServiceStatus;
  return [
    h("td", {}, serviceClusterLink(service.namespace, status?.rayClusterName)),
    h(
      "td",
      {},
      serviceClusterLink(service.namespace, status?.pendingRayClusterName),
    ),
    h("td", {}, runningApplications(service)),
    ageCell(service.createdAt),
  ];
}
