// @ts-check
/// <reference lib="dom" />
/**
 * The services view (#/services): every service the caller may see, with
 * its health, its active and pending clusters and how many of its
 * applications run, redrawn as the services' poll (services_poll.js)
 * finds them changed.
 */
import { age, serviceBadge } from "./format.js";
import { h, showPage } from "./html.js";
import { pollServices } from "./services_poll.js";
import { state } from "./state.js";

/** @typedef {import("./api.js").Service} Service */

/**
 * @param {() => void} onChange redraws the view (once per frame)
 * @returns {import("./state.js").View}
 */
export function servicesView(onChange) {
  const body = h("tbody");
  const empty = h("p", { class: "empty" });
  const titles = [
    "Namespace",
    "Name",
    "Health",
    "Active cluster",
    "Pending cluster",
    "Applications",
    "Age",
  ];
  showPage(
    h("h1", {}, "Services"),
    h(
      "p",
      {},
      h("a", { href: "#/new-service", id: "new-service" }, "New service"),
    ),
    h(
      "table",
      { id: "services" },
      h("thead", {}, h("tr", {}, titles.map((t) => h("th", {}, t)))),
      body,
    ),
    empty,
  );
  const show = () => {
    const services = [...state.services.values()].sort((a, b) =>
      `${a.namespace}/${a.name}`.localeCompare(`${b.namespace}/${b.name}`)
    );
    body.replaceChildren(...services.map(serviceRow));
    empty.textContent = !state.servicesSynced
      ? "Loading…"
      : services.length === 0
      ? "No services yet: create one."
      : "";
  };
  show();
  return { update: show, close: pollServices(onChange) };
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

/** @param {Service} service */
function serviceRow(service) {
  const key = `${service.namespace}/${service.name}`;
  const status = service.rayServiceStatus;
  return h(
    "tr",
    { "data-service": key },
    h("td", {}, service.namespace),
    h("td", {}, h("a", { href: `#/services/${key}` }, service.name)),
    h("td", {}, serviceBadge(service)),
    h("td", {}, serviceClusterLink(service.namespace, status?.rayClusterName)),
    h(
      "td",
      {},
      serviceClusterLink(service.namespace, status?.pendingRayClusterName),
    ),
    h("td", {}, runningApplications(service)),
    h("td", { title: service.createdAt ?? "" }, age(service.createdAt)),
  );
}
