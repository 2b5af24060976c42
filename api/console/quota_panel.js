// @ts-check
/// <reference lib="dom" />
/**
 * The quotas that apply to the signed-in caller in a namespace
 * (GetQuotaUsage), shown where clusters are created: the clusters list and
 * the create form. Each limited dimension reads "used / limit" beside a
 * meter. Nothing is shown when no quota applies, nor when the quotas
 * cannot be read: a caller the policy does not let `get` quotas in the
 * namespace (403) has no use for an error about it, and the create itself
 * still says a refusal.
 *
 * A panel reads again when what the namespace's clusters ask for changes
 * (a create, a delete, a scale, as the watch brings them), not on every
 * change of state, and never has two reads of its own in flight.
 */
import { quotaUsage } from "./api_objects.js";
import { h } from "./html.js";
import { state } from "./state.js";

/** @typedef {import("./api.js").QuotaUsage} QuotaUsage */
/** @typedef {NonNullable<QuotaUsage["quotas"]>[number]} QuotaStatus */

/**
 * The dimensions in the order shown: the name `limited` gives, the field
 * of QuotaAmounts, and its label.
 * @type {[string, "clusters" | "workers" | "cpu" | "gpu" | "memoryGib", string][]}
 */
const DIMENSIONS = [
  ["clusters", "clusters", "Clusters"],
  ["workers", "workers", "Workers"],
  ["cpu", "cpu", "CPUs"],
  ["gpu", "gpu", "GPUs"],
  ["memory", "memoryGib", "Memory"],
];

/**
 * One namespace's panel, kept across redraws.
 * @typedef {object} QuotaPanel
 * @property {HTMLElement} element empty (hidden) while no quota applies
 * @property {string} namespace the namespace shown
 * @property {string | null} readFor the clusters' key last read for
 * @property {boolean} reading whether a read is in flight
 * @property {boolean} again whether to read once more when it ends
 */

/**
 * An empty panel; showQuotas() fills it.
 * @param {string} [id] the element's id
 * @returns {QuotaPanel}
 */
export function quotaPanel(id) {
  return {
    element: h("section", {
      class: "panel quota",
      id,
      hidden: true,
      "aria-live": "polite",
    }),
    namespace: "",
    readFor: null,
    reading: false,
    again: false,
  };
}

/**
 * Shows the quotas of `namespace`, reading them when the namespace or what
 * its clusters ask for changed since the last read, or when `force` (a
 * create was just refused: usage may have moved without the watch saying).
 * @param {QuotaPanel} panel
 * @param {string} namespace
 * @param {boolean} [force]
 */
export function showQuotas(panel, namespace, force = false) {
  const key = askedFor(namespace);
  if (namespace !== panel.namespace) {
    panel.namespace = namespace;
    panel.element.replaceChildren();
    panel.element.hidden = true;
  } else if (!force && key === panel.readFor) return;
  panel.readFor = key;
  if (!namespace) return;
  if (panel.reading) {
    panel.again = true;
    return;
  }
  readQuotas(panel);
}

/**
 * Reads and draws the panel's namespace; once more if it was asked to
 * meanwhile. An answer for a namespace no longer shown is dropped.
 * @param {QuotaPanel} panel
 */
async function readQuotas(panel) {
  panel.reading = true;
  const namespace = panel.namespace;
  /** @type {QuotaUsage | null} */
  let usage = null;
  try {
    usage = await quotaUsage(namespace);
  } catch {
    // Not allowed, not served, or Corral unreachable: nothing to show.
  }
  panel.reading = false;
  if (namespace === panel.namespace) drawQuotas(panel, usage);
  if (panel.again) {
    panel.again = false;
    if (panel.namespace) readQuotas(panel);
  }
}

/**
 * @param {QuotaPanel} panel
 * @param {QuotaUsage | null} usage
 */
function drawQuotas(panel, usage) {
  const quotas = (usage?.quotas ?? []).filter((q) => q.limited?.length);
  panel.element.hidden = quotas.length === 0;
  panel.element.replaceChildren(
    ...(quotas.length === 0 ? [] : [
      h("h2", {}, `Quota in ${panel.namespace}`),
      ...quotas.map(quotaBlock),
    ]),
  );
}

/**
 * One quota: its scope, then a row per dimension it limits, and one per
 * accelerator resource it names ("nvidia.com/mig-1g.10gb").
 * @param {QuotaStatus} quota
 */
function quotaBlock(quota) {
  const limited = new Set(quota.limited ?? []);
  const named = [...limited].filter((name) => name.includes("/"));
  return h(
    "div",
    { class: "quota-block", "data-scope": quota.scope },
    h("p", { class: "muted" }, quotaTitle(quota.scope)),
    DIMENSIONS.filter(([name]) => limited.has(name)).map((
      [name, key, label],
    ) =>
      quotaRow(
        name,
        label,
        Number(quota.used?.[key] ?? 0),
        Number(quota.limits?.[key] ?? 0),
      )
    ),
    named.map((name) =>
      quotaRow(
        name,
        name,
        Number(quota.used?.accelerators?.[name] ?? 0),
        Number(quota.limits?.accelerators?.[name] ?? 0),
      )
    ),
  );
}

/**
 * What a quota's scope says in words: the namespace's total, or a user's
 * own share.
 * @param {string} scope
 */
function quotaTitle(scope) {
  return /^user /.test(scope)
    ? `Your own clusters (${scope})`
    : `All clusters of ${scope}`;
}

/**
 * A dimension's row: its label, a meter and "used / limit".
 * @param {string} name
 * @param {string} label
 * @param {number} used
 * @param {number} limit
 */
function quotaRow(name, label, used, limit) {
  const text = name === "memory"
    ? `${memory(used)} / ${memory(limit)}`
    : `${amount(used)} / ${amount(limit)}`;
  return h(
    "div",
    {
      class: "quota-row",
      "data-dimension": name,
      "data-full": used >= limit ? "" : undefined,
    },
    h("span", {}, label),
    h("meter", {
      min: 0,
      max: Math.max(limit, 1e-9),
      value: Math.min(used, limit),
      low: limit * 0.75,
      high: limit * 0.9,
      optimum: 0,
      "aria-label": `${label}: ${text} used`,
    }),
    h("span", { class: "quota-numbers" }, text),
  );
}

/**
 * A count as people write it: whole, or with up to two decimals (half a
 * CPU is 0.5).
 * @param {number} value
 */
export function amount(value) {
  return String(Math.round(value * 100) / 100);
}

/**
 * An amount of memory given in GiB, in the unit that reads best: MiB
 * under 1 GiB, TiB from 1024 GiB.
 * @param {number} gib
 */
export function memory(gib) {
  if (gib > 0 && gib < 1) return `${amount(gib * 1024)} MiB`;
  if (gib >= 1024) return `${amount(gib / 1024)} TiB`;
  return `${amount(gib)} GiB`;
}

/**
 * What the namespace's clusters ask for, as the watch has them: their
 * names and specs (a state change moves no usage, and is not a reason to
 * read again).
 * @param {string} namespace
 */
function askedFor(namespace) {
  return JSON.stringify(
    [...state.clusters.values()]
      .filter((c) => c.namespace === namespace)
      .map((c) => [c.name, c.clusterSpec])
      .sort(([a], [b]) => String(a).localeCompare(String(b))),
  );
}

/**
 * The quota panels of several namespaces, by namespace, kept across
 * redraws (the clusters list shows one per namespace it lists).
 * @typedef {{ element: HTMLElement, panels: Map<string, QuotaPanel> }} QuotaPanels
 */

/** @returns {QuotaPanels} */
export function quotaPanels() {
  return { element: h("div", { id: "quotas" }), panels: new Map() };
}

/**
 * Shows the panels of `namespaces`, in that order; the others are dropped.
 * @param {QuotaPanels} list
 * @param {string[]} namespaces
 */
export function showQuotaPanels(list, namespaces) {
  for (const namespace of [...list.panels.keys()]) {
    if (!namespaces.includes(namespace)) list.panels.delete(namespace);
  }
  for (const namespace of namespaces) {
    let panel = list.panels.get(namespace);
    if (!panel) {
      panel = quotaPanel(`quota-${namespace}`);
      list.panels.set(namespace, panel);
    }
    showQuotas(panel, namespace);
  }
  const elements = namespaces.map((ns) => list.panels.get(ns)?.element);
  const current = [...list.element.children];
  if (
    elements.length !== current.length ||
    elements.some((e, i) => e !== current[i])
  ) {
    list.element.replaceChildren(
      .../** @type {HTMLElement[]} */ (elements),
    );
  }
}
