// @ts-check
/// <reference lib="dom" />
/**
 * A service's page (#/services/<namespace>/<name>), redrawn as the
 * services' poll finds it changed: its health and what the operator says,
 * its active and pending clusters (linked to their pages), its
 * applications with their deployments, its endpoints and events, its
 * Serve config (read only), and deleting it.
 */
import { endpointsPanel, eventsPanel } from "./cluster_panels.js";
import { serveBadge, serviceBadge, when } from "./format.js";
import { h, panel } from "./html.js";
import { runningApplications, serviceClusterLink } from "./services_view.js";
import { workloadView } from "./workload_page.js";
import { workloads } from "./workloads.js";

/** @typedef {import("./api.js").Service} Service */
/** @typedef {NonNullable<Service["rayServiceStatus"]>} ServiceStatus */

/**
 * @param {string} namespace
 * @param {string} name
 * @param {() => void} onChange redraws the view (once per frame)
 * @returns {import("./state.js").View}
 */
export function serviceView(namespace, name, onChange) {
  return workloadView(
    workloads.services,
    {
      facts: serviceFacts,
      panels: servicePanels,
      deleteNote: "Its clusters are deleted with it.",
    },
    namespace,
    name,
    onChange,
  );
}

/**
 * What the service is and where it stands.
 * @param {Service} service
 * @returns {import("./workload_page.js").Fact[]}
 */
function serviceFacts(service) {
  const status = service.rayServiceStatus;
  const { namespace } = service;
  return [
    ["Health", "service-health", serviceBadge(service)],
    ["Message", "service-message", status?.applicationMessage],
    [
      "Active cluster",
      "service-cluster",
      serviceClusterLink(namespace, status?.rayClusterName),
    ],
    ["Cluster state", "service-cluster-state", status?.rayClusterState],
    [
      "Pending cluster",
      "service-pending-cluster",
      serviceClusterLink(namespace, status?.pendingRayClusterName),
    ],
    ["Applications", "service-applications", runningApplications(service)],
    ["Serve endpoints", "service-endpoints", status?.numServeEndpoints],
    ["Namespace", "service-namespace", namespace],
    ["Owner", "service-user", service.user],
    ["Ray version", "service-version", service.version],
    ["Created", "service-created", when(service.createdAt)],
  ];
}

/**
 * The panels after About: its applications (and those of its pending
 * cluster), endpoints, events and Serve config.
 * @param {Service} service
 */
function servicePanels(service) {
  const status = service.rayServiceStatus;
  return [
    applicationsPanel(
      "applications",
      "Applications",
      status?.serveApplicationStatus ?? [],
    ),
    (status?.pendingServeApplicationStatus ?? []).length > 0 &&
    applicationsPanel(
      "pending-applications",
      "Applications of the pending cluster",
      status?.pendingServeApplicationStatus ?? [],
    ),
    // The cluster panels take anything with the fields they show.
    endpointsPanel(
      /** @type {any} */ ({ serviceEndpoint: status?.serviceEndpoint }),
    ),
    eventsPanel(/** @type {any} */ ({ events: status?.rayServiceEvents })),
    panel(
      "serve-config",
      "Serve config",
      h("pre", { id: "service-config" }, h("code", {}, service.serveConfigV2)),
    ),
  ];
}

/**
 * Applications with their statuses, each with its deployments.
 * @param {string} id
 * @param {string} title
 * @param {ServiceStatus["serveApplicationStatus"]} apps
 */
function applicationsPanel(id, title, apps) {
  return panel(
    id,
    title,
    apps.length === 0 ? h("p", { class: "muted" }, "None deployed yet.") : h(
      "table",
      { id: `${id}-table` },
      h(
        "thead",
        {},
        h(
          "tr",
          {},
          ["Application", "Status", "Deployments"].map((t) => h("th", {}, t)),
        ),
      ),
      h(
        "tbody",
        {},
        apps.map((app) =>
          h(
            "tr",
            { "data-application": app.name },
            h("td", {}, app.name),
            h("td", {}, serveBadge(app.status), " ", app.message),
            h(
              "td",
              {},
              h(
                "ul",
                { class: "deployments" },
                (app.serveDeploymentStatus ?? []).map((d) =>
                  h(
                    "li",
                    { "data-deployment": d.deploymentName },
                    `${d.deploymentName} `,
                    serveBadge(d.status),
                    d.message ? ` ${d.message}` : "",
                  )
                ),
              ),
            ),
          )
        ),
      ),
    ),
  );
}
