// @ts-check
/// <reference lib="dom" />
/**
 * The panels of a cluster's page that only show it: about, service
 * endpoints, environment variables and events. Those that change it
 * (worker groups, delete) are cluster_view.js's.
 */
import { age } from "./format.js";
import { h, panel } from "./html.js";

/** @typedef {import("./api.js").Cluster} Cluster */

/** @param {Cluster} cluster */
export function aboutPanel(cluster) {
  const head = cluster.clusterSpec?.headGroupSpec;
  return panel(
    "about",
    "About",
    h(
      "dl",
      { class: "facts" },
      h("dt", {}, "Namespace"),
      h("dd", {}, cluster.namespace),
      h("dt", {}, "Owner"),
      h("dd", {}, cluster.user),
      h("dt", {}, "Runs"),
      h(
        "dd",
        {},
        cluster.version
          ? `version ${cluster.version}`
          : `image ${head?.image ?? ""}`,
      ),
      h("dt", {}, "Environment"),
      h("dd", {}, String(cluster.environment ?? "").toLowerCase()),
      // A queued cluster's Kueue queue (its label kueue.x-k8s.io/queue-name).
      ...(cluster.queue
        ? [h("dt", {}, "Queue"), h("dd", {}, cluster.queue)]
        : []),
      h("dt", {}, "Created"),
      h(
        "dd",
        { title: cluster.createdAt ?? "" },
        `${age(cluster.createdAt)} ago`,
      ),
      h("dt", {}, "Head node"),
      h(
        "dd",
        {},
        `compute template ${head?.computeTemplate ?? ""}`,
        head?.image ? `, image ${head.image}` : "",
        head?.serviceType ? `, reachable as ${head.serviceType}` : "",
      ),
    ),
  );
}

/**
 * The cluster's service endpoints; none when it has none.
 * @param {Cluster} cluster
 */
export function endpointsPanel(cluster) {
  return pairsPanel(
    "endpoints",
    "Service endpoints",
    cluster.serviceEndpoint,
    (name) => name,
  );
}

/**
 * The cluster's environment variables; none when it has none.
 * @param {Cluster} cluster
 */
export function envsPanel(cluster) {
  return pairsPanel(
    "envs",
    "Environment variables",
    cluster.envs,
    (name) => h("code", {}, name),
  );
}

/**
 * A panel of names and their values, the values as code; none when there
 * are none.
 * @param {string} id
 * @param {string} title
 * @param {Record<string, string> | undefined} pairs
 * @param {(name: string) => import("./html.js").Child} term how a name is shown
 */
function pairsPanel(id, title, pairs, term) {
  const entries = Object.entries(pairs ?? {});
  return entries.length > 0 &&
    panel(
      id,
      title,
      h(
        "dl",
        { class: "facts" },
        entries.flatMap(([k, v]) => [
          h("dt", {}, term(k)),
          h("dd", {}, h("code", {}, v)),
        ]),
      ),
    );
}

/**
 * The cluster's events, oldest first.
 * @param {Cluster} cluster
 */
export function eventsPanel(cluster) {
  const events = [...(cluster.events ?? [])].sort((a, b) =>
    String(a.lastTimestamp ?? a.createdAt).localeCompare(
      String(b.lastTimestamp ?? b.createdAt),
    )
  );
  return panel(
    "events",
    "Events",
    events.length === 0
      ? h("p", { class: "muted" }, "Nothing has happened yet.")
      : h(
        "ol",
        { class: "timeline", id: "timeline" },
        events.map((event) =>
          h(
            "li",
            { class: event.type === "Warning" ? "warning" : "" },
            h("span", { class: "reason" }, event.reason),
            " ",
            h(
              "span",
              { class: "muted" },
              `${age(event.lastTimestamp ?? event.createdAt)} ago`,
              event.count > 1 ? ` (×${event.count})` : "",
            ),
            h("div", {}, event.message),
          )
        ),
      ),
  );
}
