// @ts-check
/// <reference lib="dom" />
/**
 * A service's page (#/services/<namespace>/<name>), redrawn as the
 * services' poll finds it changed: its health and what the operator says,
 * its active and pending clusters (linked to their pages), its
 * applications with their deployments, its endpoints and events, its
 * Serve config (read only), and deleting it.
 */
import { errorMessage } from "./api.js";
import { deleteObject, kinds } from "./api_objects.js";
import { endpointsPanel, eventsPanel } from "./cluster_panels.js";
import { serveBadge, serviceBadge, when } from "./format.js";
import { h, panel, showPage } from "./html.js";
import { pollServices } from "./services_poll.js";
import { runningApplications, serviceClusterLink } from "./services_view.js";
import { state } from "./state.js";

/** @typedef {import("./api.js").Service} Service */
/** @typedef {NonNullable<Service["rayServiceStatus"]>} ServiceStatus */

/**
 * @param {string} namespace
 * @param {string} name
 * @param {() => void} onChange redraws the view (once per frame)
 * @returns {import("./state.js").View}
 */
export function serviceView(namespace, name, onChange) {
  const banner = h("p", { class: "banner", role: "alert" });
  const back = h("p", {}, h("a", { href: "#/services" }, "← Services"));
  const show = () => {
    const service = state.services.get(`${namespace}/${name}`);
    if (!service) {
      showPage(
        back,
        h("h1", {}, name),
        h(
          "p",
          { class: "empty" },
          state.servicesSynced
            ? `There is no service "${name}" in namespace "${namespace}".`
            : "Loading…",
        ),
      );
      return;
    }
    const status = service.rayServiceStatus;
    showPage(
      back,
      h("h1", {}, `${service.name} `, serviceBadge(service)),
      banner,
      aboutService(service),
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
        h(
          "pre",
          { id: "service-config" },
          h("code", {}, service.serveConfigV2),
        ),
      ),
      deletePanel(namespace, name, banner),
    );
  };
  show();
  return { update: show, close: pollServices(onChange) };
}

/**
 * What the service is and where it stands.
 * @param {Service} service
 */
function aboutService(service) {
  const status = service.rayServiceStatus;
  const { namespace } = service;
  /** @type {[string, string, import("./html.js").Child][]} */
  const facts = [
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
  return panel(
    "about",
    "About",
    h(
      "dl",
      { class: "facts" },
      facts.filter(([, , value]) => value !== "" && value !== undefined)
        .flatMap(([label, id, value]) => [
          h("dt", {}, label),
          h("dd", { id }, value),
        ]),
    ),
  );
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

/**
 * Deleting the service, which takes its clusters with it.
 * @param {string} namespace
 * @param {string} name
 * @param {HTMLElement} banner where a refusal is said
 */
function deletePanel(namespace, name, banner) {
  return panel(
    "delete",
    "Delete",
    h("p", { class: "muted" }, "Its clusters are deleted with it."),
    h("button", {
      type: "button",
      id: "delete-service",
      "data-write": "",
      onclick: async () => {
        try {
          await deleteObject(kinds.services, namespace, name);
          location.hash = "#/services";
        } catch (error) {
          banner.textContent = errorMessage(error);
        }
      },
    }, "Delete this service"),
  );
}
