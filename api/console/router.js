// @ts-check
/// <reference lib="dom" />
/**
 * Which view the page shows, from the location's hash: #/clusters (the
 * default), #/clusters/<namespace>/<name>, #/create, #/templates, #/jobs,
 * #/jobs/<namespace>/<name>, #/new-job, #/services,
 * #/services/<namespace>/<name> and #/new-service; and redrawing it when
 * the clusters, jobs or services change. The view it replaces is closed first.
 */
import { clustersView } from "./clusters_view.js";
import { clusterView } from "./cluster_view.js";
import { createView } from "./create_view.js";
import { jobCreateView } from "./job_create_view.js";
import { jobView } from "./job_view.js";
import { jobsView } from "./jobs_view.js";
import { serviceCreateView } from "./service_create_view.js";
import { serviceView } from "./service_view.js";
import { servicesView } from "./services_view.js";
import { state } from "./state.js";
import { templatesView } from "./templates_view.js";

/** Shows the view the hash names, and marks its section as current. */
export function route() {
  const parts = location.hash.replace(/^#\/?/, "").split("/").map(
    decodeURIComponent,
  );
  const section = parts[0] || "clusters";
  for (const link of document.querySelectorAll("[data-nav]")) {
    if (/** @type {HTMLElement} */ (link).dataset.nav === section) {
      link.setAttribute("aria-current", "page");
    } else link.removeAttribute("aria-current");
  }
  state.view?.close?.();
  if (section === "clusters" && parts.length >= 3) {
    state.view = clusterView(parts[1], parts[2]);
  } else if (section === "create") state.view = createView();
  else if (section === "templates") state.view = templatesView();
  else if (section === "jobs" && parts.length >= 3) {
    state.view = jobView(parts[1], parts[2], redrawSoon);
  } else if (section === "jobs") state.view = jobsView(redrawSoon);
  else if (section === "new-job") state.view = jobCreateView();
  else if (section === "services" && parts.length >= 3) {
    state.view = serviceView(parts[1], parts[2], redrawSoon);
  } else if (section === "services") state.view = servicesView(redrawSoon);
  else if (section === "new-service") state.view = serviceCreateView();
  else state.view = clustersView();
}

/** Redraws the view now (its ages move on while nothing changes). */
export function redraw() {
  state.view?.update?.();
}

/** Redraws the view once per frame, however many changes came. */
export function redrawSoon() {
  if (state.redrawQueued) return;
  state.redrawQueued = true;
  requestAnimationFrame(() => {
    state.redrawQueued = false;
    redraw();
  });
}
