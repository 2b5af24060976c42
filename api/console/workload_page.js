// @ts-check
/// <reference lib="dom" />
/**
 * A job's or a service's page (job_view.js, service_view.js): the way
 * back to its list, its name and badge, the About panel of its facts, the
 * panels its kind adds, and deleting it. Until its kind's objects have
 * come the page says "Loading…", then, when it is not among them, that
 * there is no such one. It is redrawn from the state as its kind's
 * follower (the jobs' watch, the services' poll) brings changes. What a
 * kind's page shows is its row of workloads.js and what the view adds:
 * its facts, its panels, and what deleting it deletes too.
 */
import { errorMessage } from "./api.js";
import { deleteObject } from "./api_objects.js";
import { h, panel, showPage } from "./html.js";

/** @typedef {import("./html.js").Child} Child */

/**
 * A fact of the About panel: its label, the id of its value and the
 * value; one whose value is "" or undefined is left out.
 * @typedef {[string, string, Child]} Fact
 */

/**
 * What a kind's page adds to its row of workloads.js.
 * @template T
 * @typedef {object} WorkloadPage
 * @property {(workload: T) => Fact[]} facts
 * @property {(workload: T) => Child[]} panels those after About
 * @property {string} [deleteNote] what deleting it deletes too
 */

/**
 * @template {{ name: string }} T
 * @param {import("./workloads.js").Workload<T>} workload
 * @param {WorkloadPage<T>} page
 * @param {string} namespace
 * @param {string} name
 * @param {() => void} onChange redraws the view (once per frame)
 * @returns {import("./state.js").View}
 */
export function workloadView(workload, page, namespace, name, onChange) {
  const banner = h("p", { class: "banner", role: "alert" });
  const back = h(
    "p",
    {},
    h("a", { href: `#/${workload.section}` }, `← ${workload.title}`),
  );
  const show = () => {
    const shown = workload.held().get(`${namespace}/${name}`);
    if (!shown) {
      showPage(
        back,
        h("h1", {}, name),
        h(
          "p",
          { class: "empty" },
          workload.synced()
            ? `There is no ${workload.noun} "${name}" in namespace "${namespace}".`
            : "Loading…",
        ),
      );
      return;
    }
    showPage(
      back,
      h("h1", {}, `${shown.name} `, workload.badge(shown)),
      banner,
      factsPanel(page.facts(shown)),
      ...page.panels(shown),
      deletePanel(workload, page.deleteNote, { namespace, name }, banner),
    );
  };
  show();
  return { update: show, close: workload.follow(onChange) };
}

/**
 * What the workload is and where it stands.
 * @param {Fact[]} facts
 */
function factsPanel(facts) {
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
 * Deleting the workload, which opens its list; a refusal is said in
 * `banner`.
 * @template T
 * @param {import("./workloads.js").Workload<T>} workload
 * @param {string | undefined} note what deleting it deletes too
 * @param {{ namespace: string, name: string }} which
 * @param {HTMLElement} banner
 */
function deletePanel(workload, note, which, banner) {
  return panel(
    "delete",
    "Delete",
    note && h("p", { class: "muted" }, note),
    h("button", {
      type: "button",
      id: `delete-${workload.noun}`,
      "data-write": "",
      onclick: async () => {
        try {
          await deleteObject(workload.kind, which.namespace, which.name);
          location.hash = `#/${workload.section}`;
        } catch (error) {
          banner.textContent = errorMessage(error);
        }
      },
    }, `Delete this ${workload.noun}`),
  );
}
