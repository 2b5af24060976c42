// @ts-check
/// <reference lib="dom" />
/**
 * Expiry in the console: a cluster page's "Expiry" panel (when Corral
 * deletes the cluster, counted down, the exact time on hover; Extend by
 * 1h, 4h, 8h or a typed duration, calling ExtendCluster), the create
 * form's optional "Lifetime" field (the request's `ttl`), and how long is
 * left as the clusters list shows it. A refusal (past the policy's
 * maximum, or no right to update) is said under the control.
 */
import { errorMessage } from "./api.js";
import { extendCluster } from "./api_objects.js";
import { field, h, panel } from "./html.js";

/** @typedef {import("./api.js").Cluster} Cluster */

/** The durations offered as one click each. */
const QUICK_EXTENDS = ["1h", "4h", "8h"];

/**
 * How long until `expiresAt`, as a person says it: "45m", "3h 12m",
 * "2d 4h"; "under a minute" at the end, "expired" after it.
 * @param {string} expiresAt
 * @param {number} [now]
 */
export function expiresIn(expiresAt, now = Date.now()) {
  const minutes = Math.floor((Date.parse(expiresAt) - now) / 60_000);
  if (Number.isNaN(minutes)) return "";
  if (minutes < 0) return "expired";
  if (minutes < 1) return "under a minute";
  if (minutes < 60) return `${minutes}m`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return `${hours}h ${minutes % 60}m`;
  return `${Math.floor(hours / 24)}d ${hours % 24}h`;
}

/**
 * A time as the browser's locale writes it, with the exact instant, for a
 * title: "26/11/2026, 23:12:00 (2026-11-26T23:12:00Z)".
 * @param {string} timestamp
 */
export function exactTime(timestamp) {
  return `${new Date(timestamp).toLocaleString()} (${timestamp})`;
}

/**
 * A cluster page's expiry panel, kept across the page's redraws so that
 * what is typed and the last refusal survive them.
 * @typedef {object} ExpiryPanel
 * @property {HTMLElement} element
 * @property {HTMLParagraphElement} when "Expires in …"
 * @property {HTMLInputElement} by the typed duration
 * @property {HTMLParagraphElement} error the last refusal
 * @property {HTMLElement} controls the extend buttons and field
 * @property {Cluster | null} cluster as last drawn
 */

/**
 * The panel of the cluster `namespace/name`. The countdown moves on as the
 * page is redrawn (console.js redraws every 30 s, as ages move on).
 * @param {string} namespace
 * @param {string} name
 * @returns {ExpiryPanel}
 */
export function expiryPanel(namespace, name) {
  const when = h("p", { id: "expires" });
  const by = h("input", {
    placeholder: "e.g. 2h30m",
    autocomplete: "off",
  });
  const error = h("p", { class: "error", id: "extend-error", role: "alert" });
  /** @type {ExpiryPanel} */
  const expiry = {
    element: h("section"),
    when,
    by,
    error,
    controls: h("div"),
    cluster: null,
  };
  /** @param {string} duration */
  const extend = (duration) => extendBy(expiry, namespace, name, duration);
  const block = field("Extend by", "extend-by", by);
  block.querySelector(".error")?.remove();
  expiry.controls = h(
    "div",
    {},
    h(
      "div",
      { class: "scale extend" },
      QUICK_EXTENDS.map((duration) =>
        h("button", {
          type: "button",
          id: `extend-${duration}`,
          "data-write": "",
          onclick: () => extend(duration),
        }, `+${duration}`)
      ),
    ),
    h(
      "form",
      {
        class: "scale extend",
        onsubmit: (event) => {
          event.preventDefault();
          extend(by.value.trim());
        },
      },
      block,
      h("button", { type: "submit", id: "extend" }, "Extend"),
    ),
    error,
  );
  expiry.element = panel("expiry", "Expiry", when, expiry.controls);
  by.setAttribute("aria-describedby", "extend-error");
  return expiry;
}

/**
 * The panel with the cluster as it now is.
 * @param {ExpiryPanel} expiry
 * @param {Cluster} cluster
 */
export function showExpiry(expiry, cluster) {
  expiry.cluster = cluster;
  drawWhen(expiry);
  return expiry.element;
}

/**
 * "Expires in 3h 12m", the exact time in its title; or that the cluster
 * does not expire, without the controls: extending a cluster that has no
 * expiry would give it one, counted from now, which no one asked for.
 * @param {ExpiryPanel} expiry
 */
function drawWhen(expiry) {
  const at = expiry.cluster?.expiresAt;
  expiry.controls.hidden = !at;
  if (!at) {
    expiry.when.textContent = "This cluster does not expire.";
    expiry.when.removeAttribute("title");
    return;
  }
  const left = expiresIn(at);
  expiry.when.textContent = left === "expired"
    ? "Expired: Corral deletes it shortly."
    : `Expires in ${left}`;
  expiry.when.title = exactTime(at);
}

/**
 * Calls ExtendCluster; the new time is drawn from its answer at once (the
 * watch brings it too), a refusal is said under the controls.
 * @param {ExpiryPanel} expiry
 * @param {string} namespace
 * @param {string} name
 * @param {string} by
 */
async function extendBy(expiry, namespace, name, by) {
  expiry.error.textContent = "";
  if (!by) {
    expiry.error.textContent =
      `Cannot extend cluster "${namespace}/${name}": say by how long, e.g. "4h"`;
    return;
  }
  const buttons = /** @type {HTMLButtonElement[]} */ ([
    ...expiry.element.querySelectorAll("button"),
  ]);
  for (const button of buttons) button.disabled = true;
  try {
    const cluster = await extendCluster(namespace, name, by);
    expiry.by.value = "";
    if (expiry.cluster) showExpiry(expiry, { ...expiry.cluster, ...cluster });
  } catch (error) {
    // The API's message names the cluster and, past it, the maximum.
    expiry.error.textContent = errorMessage(error);
  } finally {
    for (const button of buttons) button.disabled = false;
  }
}

/**
 * The create form's "Lifetime" field: the request's `ttl`, optional.
 * @returns {{ block: HTMLElement, input: HTMLInputElement }}
 */
export function lifetimeField() {
  const input = h("input", {
    placeholder: "e.g. 8h",
    autocomplete: "off",
  });
  const block = field("Lifetime", "ttl", input, "cluster.ttl");
  block.insertBefore(
    h(
      "p",
      { class: "hint", id: "ttl-hint" },
      "Optional: Corral deletes the cluster after this long. Empty: the namespace's default, if it has one.",
    ),
    block.lastElementChild,
  );
  return { block, input };
}

/**
 * What the Lifetime field adds to a CreateCluster request: its `ttl`, or
 * nothing when it is empty.
 * @param {HTMLInputElement} input
 * @returns {{ ttl?: string }}
 */
export function lifetimeOf(input) {
  const ttl = input.value.trim();
  return ttl ? { ttl } : {};
}
