// @ts-check
/// <reference lib="dom" />
/**
 * A cluster page's "Access" panel, while the cluster is ready: "Open
 * dashboard" (a session cookie for that one cluster's proxy path, then the
 * dashboard through Corral in a new tab) and the cluster's addresses inside
 * Kubernetes, each with a copy button. The `ray://` address answers only
 * inside the Kubernetes cluster, and says so; beside it, the command that
 * forwards it to a laptop through Corral (`corral clusters connect`), and
 * what `ray.init` then takes. A caller the policy refuses `proxy`
 * is shown that refusal in place of the button and the proxied address,
 * for as long as the page is open: not a link that fails.
 */
import { ApiError, errorMessage } from "./api.js";
import { openDashboardSession } from "./api_session.js";
import { clusterKey } from "./format.js";
import { h, panel } from "./html.js";

/**
 * The refusals (403) of "Open dashboard", by cluster key: the panel is
 * drawn afresh on every change of the cluster, and must keep saying it.
 * @type {Map<string, string>}
 */
const refusals = new Map();

/** @typedef {import("./api.js").Cluster} Cluster */

/** The local port `corral clusters connect` listens on by default. */
const LOCAL_CLIENT_PORT = 10001;

/**
 * The command that forwards the cluster's Ray client port to this machine
 * through Corral (it needs `proxy`, as the dashboard does).
 * @param {Cluster} cluster
 */
function connectCommand(cluster) {
  return `corral clusters connect ${cluster.name} -n ${cluster.namespace}`;
}

/**
 * The panel; none while the cluster is not ready (it has no addresses).
 * @param {Cluster} cluster
 */
export function accessPanel(cluster) {
  if (!cluster.dashboardProxyUrl) return false;
  const refusal = refusals.get(clusterKey(cluster));
  const status = h(
    "p",
    { class: "error", id: "dashboard-error", role: "alert" },
    refusal ?? "",
  );
  const open = h("button", {
    type: "button",
    class: "primary",
    id: "open-dashboard",
    onclick: () => openDashboard(cluster, status),
  }, "Open dashboard");
  return panel(
    "access",
    "Access",
    refusal === undefined && h("p", {}, open),
    status,
    h(
      "dl",
      { class: "facts" },
      address(
        "Ray client (inside the Kubernetes cluster only)",
        "client-url",
        cluster.clientUrl ?? "",
      ),
      address(
        "Ray client from this machine",
        "connect-command",
        connectCommand(cluster),
        "connect command",
      ),
      address(
        "Then, in Python",
        "connect-init",
        `ray.init("ray://127.0.0.1:${LOCAL_CLIENT_PORT}")`,
        "ray.init call",
      ),
      address("Dashboard", "dashboard-url", cluster.dashboardUrl ?? ""),
      refusal === undefined && address(
        "Dashboard through Corral",
        "dashboard-proxy-url",
        new URL(cluster.dashboardProxyUrl, location.href).href,
      ),
    ),
  );
}

/**
 * Opens the session, then the dashboard in a new tab that cannot reach
 * this one (noopener): the dashboard's pages are served from Corral's own
 * origin, and must not script the console.
 * @param {Cluster} cluster
 * @param {HTMLElement} status
 */
async function openDashboard(cluster, status) {
  status.textContent = "";
  try {
    const { url } = await openDashboardSession(cluster.namespace, cluster.name);
    globalThis.open(url, "_blank", "noopener,noreferrer");
  } catch (error) {
    status.textContent = `Cannot open the dashboard: ${errorMessage(error)}`;
    if (error instanceof ApiError && error.status === 403) {
      refusals.set(clusterKey(cluster), status.textContent);
      // Drawn again: the refusal in place of the button.
      const drawn = accessPanel(cluster);
      if (drawn) status.closest("section")?.replaceWith(drawn);
    }
  }
}

/**
 * An address (or a command) and its copy button.
 * @param {string} label
 * @param {string} id
 * @param {string} value
 * @param {string} [what] what the copy button copies, for screen readers
 */
function address(label, id, value, what = `${label.toLowerCase()} address`) {
  const copy = h("button", {
    type: "button",
    class: "link",
    "aria-label": `Copy the ${what}`,
    onclick: async () => {
      await navigator.clipboard.writeText(value);
      copy.textContent = "Copied";
    },
  }, "Copy");
  return [
    h("dt", {}, label),
    h("dd", {}, h("code", { id }, value), " ", copy),
  ];
}
