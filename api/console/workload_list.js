// @ts-check
/// <reference lib="dom" />
/**
 * The list of jobs or of services (jobs_view.js, services_view.js): its
 * title, the link to the New form, a table of every one the caller may
 * see, by namespace and name, and under it "Loading…" until they have
 * come, or that there are none yet. It is redrawn from the state as its
 * kind's follower (the jobs' watch, the services' poll) brings changes.
 * Each row has the workload's namespace, its name (linked to its page)
 * and its badge; what else a kind's list shows is the view's: its
 * columns' headings, their cells, and what it says when there are none.
 */
import { age } from "./format.js";
import { h, showPage } from "./html.js";

/**
 * What a kind's list adds to its row of workloads.js.
 * @template T
 * @typedef {object} WorkloadList
 * @property {string[]} columns the headings after Namespace and Name, the
 *   badge's first
 * @property {(workload: T) => HTMLTableCellElement[]} cells a row's cells
 *   after the badge's
 * @property {string} none what the list says when there are none
 */

/**
 * @template {{ namespace: string, name: string }} T
 * @param {import("./workloads.js").Workload<T>} workload
 * @param {WorkloadList<T>} list
 * @param {() => void} onChange redraws the view (once per frame)
 * @returns {import("./state.js").View}
 */
export function workloadListView(workload, list, onChange) {
  const body = h("tbody");
  const empty = h("p", { class: "empty" });
  const create = `new-${workload.noun}`;
  showPage(
    h("h1", {}, workload.title),
    h(
      "p",
      {},
      h("a", { href: `#/${create}`, id: create }, `New ${workload.noun}`),
    ),
    h(
      "table",
      { id: workload.section },
      h(
        "thead",
        {},
        h(
          "tr",
          {},
          ["Namespace", "Name", ...list.columns].map((t) => h("th", {}, t)),
        ),
      ),
      body,
    ),
    empty,
  );
  const show = () => {
    const listed = [...workload.held().values()].sort((a, b) =>
      `${a.namespace}/${a.name}`.localeCompare(`${b.namespace}/${b.name}`)
    );
    body.replaceChildren(
      ...listed.map((shown) => workloadRow(workload, list, shown)),
    );
    empty.textContent = !workload.synced()
      ? "Loading…"
      : listed.length === 0
      ? list.none
      : "";
  };
  show();
  return { update: show, close: workload.follow(onChange) };
}

/**
 * A workload's row: its namespace, its name linked to its page, its badge,
 * then the list's cells.
 * @template {{ namespace: string, name: string }} T
 * @param {import("./workloads.js").Workload<T>} workload
 * @param {WorkloadList<T>} list
 * @param {T} shown
 */
function workloadRow(workload, list, shown) {
  const key = `${shown.namespace}/${shown.name}`;
  return h(
    "tr",
    { [`data-${workload.noun}`]: key },
    h("td", {}, shown.namespace),
    h("td", {}, h("a", { href: `#/${workload.section}/${key}` }, shown.name)),
    h("td", {}, workload.badge(shown)),
    ...list.cells(shown),
  );
}

/**
 * A cell of a time's age, the time itself in its title.
 * @param {string | null | undefined} timestamp
 */
export function ageCell(timestamp) {
  return h("td", { title: timestamp ?? "" }, age(timestamp));
}
