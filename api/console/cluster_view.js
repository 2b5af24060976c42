// @ts-check
/// <reference lib="dom" />
/**
 * A cluster's page (#/clusters/<namespace>/<name>), redrawn as the watch
 * changes the cluster: what it is (cluster_panels.js), its worker groups,
 * scaled in place, and deleting it. What a person is typing survives the
 * redraws (the page's drafts), and so does the focus.
 */
import { ApiError, errorMessage } from "./api.js";
import { deleteObject, kinds, updateWorkerGroups } from "./api_objects.js";
import {
  aboutPanel,
  endpointsPanel,
  envsPanel,
  eventsPanel,
} from "./cluster_panels.js";
import { stateBadge } from "./format.js";
import { accessPanel } from "./cluster_access.js";
import { expiryPanel, showExpiry } from "./expiry_panel.js";
import { closeJobsPanel, jobsPanel } from "./cluster_jobs.js";
import { h, panel, showPage } from "./html.js";
import { state } from "./state.js";

/** @typedef {import("./api.js").Cluster} Cluster */

/**
 * The page's own state, kept across redraws.
 * @typedef {object} ClusterPage
 * @property {string} namespace
 * @property {string} name
 * @property {Map<string, string>} drafts what is typed in its inputs, by id
 * @property {HTMLParagraphElement} banner says what went wrong
 * @property {boolean} deleting whether this page deleted the cluster
 * @property {import("./cluster_jobs.js").JobsPanel | null} jobs the jobs
 *   panel, made once the cluster is first ready and kept from then on
 * @property {import("./expiry_panel.js").ExpiryPanel} expiry when the
 *   cluster expires, and extending it
 */

/**
 * @param {string} namespace
 * @param {string} name
 * @returns {import("./state.js").View}
 */
export function clusterView(namespace, name) {
  /** @type {ClusterPage} */
  const page = {
    namespace,
    name,
    drafts: new Map(),
    banner: h("p", { class: "banner", role: "alert" }),
    deleting: false,
    jobs: null,
    expiry: expiryPanel(namespace, name),
  };
  showCluster(page);
  return {
    update: () => showCluster(page),
    close: () => page.jobs && closeJobsPanel(page.jobs),
  };
}

/**
 * Draws the page from the state, the focus kept where it was.
 * @param {ClusterPage} page
 */
function showCluster(page) {
  const cluster = state.clusters.get(`${page.namespace}/${page.name}`);
  const focused = document.activeElement?.id;
  if (!cluster) {
    endJobs(page);
    showPage(...noCluster(page));
    return;
  }
  showPage(
    h("p", {}, h("a", { href: "#/clusters" }, "← Clusters")),
    h("h1", {}, `${cluster.name} `, stateBadge(cluster.clusterState)),
    page.banner,
    aboutPanel(cluster),
    showExpiry(page.expiry, cluster),
    accessPanel(cluster),
    clusterJobs(page, cluster),
    workersPanel(page, cluster),
    endpointsPanel(cluster),
    envsPanel(cluster),
    eventsPanel(cluster),
    deletePanel(page),
  );
  if (focused) document.getElementById(focused)?.focus();
}

/**
 * The jobs panel while the cluster is ready (its dashboard answers only
 * then); made the first time, the same one after.
 * @param {ClusterPage} page
 * @param {Cluster} cluster
 */
function clusterJobs(page, cluster) {
  if (!cluster.dashboardProxyUrl) {
    endJobs(page);
    return false;
  }
  page.jobs ??= jobsPanel(page.namespace, page.name);
  return page.jobs.element;
}

/**
 * Ends the jobs panel of a cluster that is gone or no longer ready: its
 * dashboard would answer no more reads.
 * @param {ClusterPage} page
 */
function endJobs(page) {
  if (!page.jobs) return;
  closeJobsPanel(page.jobs);
  page.jobs = null;
}

/**
 * The page while there is no such cluster: not loaded yet, deleted from
 * here, or gone.
 * @param {ClusterPage} page
 */
function noCluster(page) {
  return [
    h("h1", {}, `${page.namespace}/${page.name}`),
    h(
      "p",
      { class: "empty", id: "gone" },
      !state.watch.synced
        ? "Loading…"
        : page.deleting
        ? "The cluster was deleted."
        : "There is no such cluster (it may have been deleted).",
    ),
    h("p", {}, h("a", { href: "#/clusters" }, "Back to the clusters")),
  ];
}

/**
 * @param {ClusterPage} page
 * @param {Cluster} cluster
 */
function workersPanel(page, cluster) {
  const groups = cluster.clusterSpec?.workerGroupSpec ?? [];
  return panel(
    "workers",
    "Worker groups",
    groups.length === 0
      ? h(
        "p",
        { class: "muted" },
        "No worker groups: the head node does all the work.",
      )
      : h(
        "table",
        {},
        h(
          "thead",
          {},
          h(
            "tr",
            {},
            ["Group", "Compute template", "Replicas", "Min", "Max", ""]
              .map((t) => h("th", {}, t)),
          ),
        ),
        h("tbody", {}, groups.map((_, i) => scaleRow(page, cluster, i))),
      ),
  );
}

/**
 * The row of the cluster's `i`th worker group, its replicas changed in
 * place (UpdateCluster).
 * @param {ClusterPage} page
 * @param {Cluster} cluster
 * @param {number} i
 */
function scaleRow(page, cluster, i) {
  const groups = cluster.clusterSpec?.workerGroupSpec ?? [];
  const group = groups[i];
  const id = `replicas-${i}`;
  const input = h("input", {
    id,
    type: "number",
    min: group.minReplicas ?? 0,
    max: group.maxReplicas ?? undefined,
    value: page.drafts.get(id) ?? group.replicas ?? 0,
    "aria-label": `Replicas of ${group.groupName}`,
    "aria-describedby": `${id}-error`,
    oninput: () => {
      page.drafts.set(id, input.value);
    },
  });
  const error = h("p", { class: "error", id: `${id}-error` });
  // The bounds' own rules are said under them.
  const minError = h("p", { class: "error", id: `min-${i}-error` });
  const maxError = h("p", { class: "error", id: `max-${i}-error` });
  const save = h("button", {
    type: "button",
    id: `scale-${i}`,
    "data-write": "",
    onclick: async () => {
      save.disabled = true;
      for (const p of [error, minError, maxError]) p.textContent = "";
      const replicas = Number(input.value);
      try {
        await updateWorkerGroups(
          cluster,
          groups.map((g, j) => j === i ? { ...g, replicas } : g),
        );
        page.drafts.delete(id);
      } catch (e) {
        const said = scaleError(e);
        error.textContent = said.replicas;
        minError.textContent = said.minReplicas;
        maxError.textContent = said.maxReplicas;
      } finally {
        save.disabled = false;
      }
    },
  }, "Scale");
  return h(
    "tr",
    { "data-group": group.groupName },
    h("td", {}, group.groupName),
    h("td", {}, group.computeTemplate),
    h("td", {}, h("div", { class: "scale" }, input, save), error),
    h("td", {}, group.minReplicas ?? 0, minError),
    h("td", {}, group.maxReplicas ?? "", maxError),
  );
}

/**
 * What a failed scaling says, by the column it is said under: that the
 * cluster changed meanwhile (Aborted, 10), the API's message, or what is
 * wrong with the number under Replicas; a rule of Min or Max (such as
 * "must not be less than replicas (5)", Max's) under that bound.
 * @param {unknown} error
 * @returns {{ replicas: string, minReplicas: string, maxReplicas: string }}
 */
function scaleError(error) {
  const said = { replicas: "", minReplicas: "", maxReplicas: "" };
  if (!(error instanceof ApiError)) {
    said.replicas = errorMessage(error);
  } else if (error.code === 10) {
    said.replicas =
      "The cluster changed meanwhile: check the numbers and save again.";
  } else {
    for (const violation of error.violations) {
      const bound = /\.(minReplicas|maxReplicas)$/.exec(violation.field);
      const key = bound
        ? /** @type {"minReplicas" | "maxReplicas"} */ (
          bound[1]
        )
        : "replicas";
      said[key] = [said[key], violation.description].filter(Boolean).join(
        "; ",
      );
    }
    if (!error.violations.length) said.replicas = error.message;
  }
  return said;
}

/**
 * Deleting the cluster, once its name is typed.
 * @param {ClusterPage} page
 */
function deletePanel(page) {
  const confirm = h("input", {
    id: "delete-confirm",
    autocomplete: "off",
    value: page.drafts.get("delete") ?? "",
    oninput: () => {
      page.drafts.set("delete", confirm.value);
      deleteButton.disabled = confirm.value !== page.name;
    },
  });
  const deleteButton = h("button", {
    type: "button",
    class: "danger",
    id: "delete",
    disabled: (page.drafts.get("delete") ?? "") !== page.name,
    onclick: async () => {
      deleteButton.disabled = true;
      try {
        await deleteObject(kinds.clusters, page.namespace, page.name);
        page.deleting = true;
        page.banner.textContent = "";
      } catch (error) {
        page.banner.textContent = errorMessage(error);
        deleteButton.disabled = false;
      }
    },
  }, "Delete cluster");
  return panel(
    "danger",
    "Delete",
    h(
      "label",
      { for: "delete-confirm" },
      `Type the cluster's name (${page.name}) to delete it, with everything it runs.`,
    ),
    h("div", { class: "scale" }, confirm, deleteButton),
  );
}
