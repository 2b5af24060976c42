// @ts-check
/// <reference lib="dom" />
/**
 * The clusters view (#/clusters): every cluster the watch has, filtered by
 * namespace and by text, redrawn as the watch changes them, above them the
 * quotas that apply to the caller in the namespaces listed.
 */
import { age, clusterKey, stateBadge, workerCount } from "./format.js";
import { expiresIn } from "./expiry_panel.js";
import { quotaPanels, showQuotaPanels } from "./quota_panel.js";
import { h, showPage } from "./html.js";
import { lastNamespace, rememberNamespace } from "./session.js";
import { clusterNamespaces, state } from "./state.js";

/** @typedef {import("./api.js").Cluster} Cluster */

/**
 * What the list shows: the clusters of `ns` (all when empty) whose name,
 * user or version holds `text` (lower case).
 * @typedef {{ ns: string, text: string }} Filter
 */

/**
 * The view's parts that change as it is redrawn.
 * @typedef {object} ClustersPage
 * @property {Filter} filter
 * @property {HTMLSelectElement} namespaceSelect
 * @property {HTMLTableSectionElement} body
 * @property {HTMLParagraphElement} empty
 * @property {import("./quota_panel.js").QuotaPanels} quotas
 */

/**
 * With every namespace listed, the quotas of at most this many are shown:
 * a person in a team or two sees theirs, and an administrator who sees a
 * hundred namespaces chooses one rather than have the page ask for each.
 */
const QUOTA_NAMESPACES = 3;

/** @returns {import("./state.js").View} */
export function clustersView() {
  /** @type {ClustersPage} */
  const page = {
    filter: { ns: lastNamespace() ?? "", text: "" },
    namespaceSelect: h("select", {
      id: "ns-filter",
      onchange: () => {
        page.filter.ns = page.namespaceSelect.value;
        rememberNamespace(page.filter.ns);
        showClusters(page);
      },
    }),
    body: h("tbody"),
    empty: h("p", { class: "empty" }),
    quotas: quotaPanels(),
  };
  const search = h("input", {
    id: "text-filter",
    type: "search",
    placeholder: "name, user or version",
    oninput: () => {
      page.filter.text = search.value.trim().toLowerCase();
      showClusters(page);
    },
  });
  showPage(
    h("h1", {}, "Clusters"),
    h(
      "div",
      { class: "filters" },
      h(
        "div",
        {},
        h("label", { for: "ns-filter" }, "Namespace"),
        page.namespaceSelect,
      ),
      h("div", {}, h("label", { for: "text-filter" }, "Search"), search),
    ),
    page.quotas.element,
    clustersTable(page.body),
    page.empty,
  );
  showClusters(page);
  return { update: () => showClusters(page) };
}

/**
 * The table of clusters, around its body.
 * @param {HTMLTableSectionElement} body
 */
function clustersTable(body) {
  return h(
    "table",
    { id: "clusters" },
    h(
      "thead",
      {},
      h(
        "tr",
        {},
        [
          "Namespace",
          "Name",
          "State",
          "User",
          "Version",
          "Workers",
          "Age",
          "Expires",
        ]
          .map((t) =>
            h("th", {
              class: t === "Workers" ? "num" : t === "Expires" ? "expires" : "",
            }, t)
          ),
      ),
    ),
    body,
  );
}

/**
 * Redraws the list from the state: the namespaces to choose from, the rows
 * the filter lets through, and why there are none when there are none.
 * @param {ClustersPage} page
 */
function showClusters(page) {
  const { filter, namespaceSelect } = page;
  const namespaces = clusterNamespaces().sort();
  namespaceSelect.replaceChildren(
    h("option", { value: "" }, "All namespaces"),
    ...namespaces.map((ns) => h("option", { value: ns }, ns)),
  );
  namespaceSelect.value = namespaces.includes(filter.ns) ? filter.ns : "";
  showQuotaPanels(
    page.quotas,
    namespaceSelect.value
      ? [namespaceSelect.value]
      : namespaces.length <= QUOTA_NAMESPACES
      ? namespaces
      : [],
  );
  const shown = filtered(filter);
  page.body.replaceChildren(...shown.map(clusterRow));
  page.empty.textContent = !state.watch.synced
    ? "Loading…"
    : shown.length > 0
    ? ""
    : state.clusters.size > 0
    ? "No cluster matches the filter."
    : "No clusters yet: create one.";
}

/**
 * The clusters the filter lets through, by namespace and name.
 * @param {Filter} filter
 */
export function filtered(filter) {
  return [...state.clusters.values()]
    .filter((c) => !filter.ns || c.namespace === filter.ns)
    .filter((c) =>
      !filter.text ||
      [c.name, c.user, c.version].some((v) =>
        String(v ?? "").toLowerCase().includes(filter.text)
      )
    )
    .sort((a, b) => clusterKey(a).localeCompare(clusterKey(b)));
}

/** @param {Cluster} c */
function clusterRow(c) {
  return h(
    "tr",
    { "data-cluster": clusterKey(c) },
    h("td", {}, c.namespace),
    h("td", {}, h("a", { href: `#/clusters/${clusterKey(c)}` }, c.name)),
    h("td", {}, stateBadge(c.clusterState)),
    h("td", {}, c.user),
    h("td", {}, c.version || c.clusterSpec?.headGroupSpec?.image || ""),
    h("td", { class: "num" }, workerCount(c)),
    h("td", { title: c.createdAt ?? "" }, age(c.createdAt)),
    h(
      "td",
      { class: "expires", title: c.expiresAt ?? "" },
      c.expiresAt ? expiresIn(c.expiresAt) : "",
    ),
  );
}
