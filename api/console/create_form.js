// @ts-check
/// <reference lib="dom" />
/**
 * The parts of the create-cluster form (create_view.js): its fields, the
 * compute templates its selects offer, and its rows of worker groups and
 * environment variables, added and removed.
 */
import { kinds, listObjects } from "./api_objects.js";
import { field, h } from "./html.js";

/**
 * The form's inputs, and what its rows need.
 * @typedef {object} CreateForm
 * @property {HTMLParagraphElement} banner says what went wrong
 * @property {HTMLInputElement} name
 * @property {HTMLInputElement} namespace
 * @property {HTMLInputElement} user
 * @property {HTMLParagraphElement} userHint says who an empty owner is
 * @property {HTMLInputElement} version
 * @property {HTMLParagraphElement} versionHint says which version is the
 * newest Corral knows
 * @property {HTMLDataListElement} versions the versions Corral knows, offered
 * @property {HTMLInputElement} image
 * @property {HTMLInputElement} queue the Kueue queue; optional
 * @property {HTMLSelectElement} headTemplate
 * @property {HTMLSelectElement[]} templateSelects the head's and each group's
 * @property {HTMLElement} offer offers to make a template, in a namespace
 * without any (template_offer.js)
 * @property {HTMLDivElement} groups the worker groups' rows
 * @property {HTMLDivElement} envs the environment variables' rows
 * @property {number} groupsAdded numbers the next group's ids
 * @property {number} envsAdded numbers the next variable's ids
 */

/**
 * The cluster's own fields, each with the request field it fills.
 * @param {CreateForm} form
 */
export function clusterFields(form) {
  return h(
    "div",
    { class: "grid" },
    field("Name", "name", form.name, "cluster.name"),
    field("Namespace", "namespace", form.namespace, "cluster.namespace"),
    withHint(
      field("Owner (user)", "user", form.user, "cluster.user"),
      form.userHint,
    ),
    withHint(
      field("Ray version", "version", form.version, "cluster.version"),
      form.versionHint,
      form.versions,
    ),
    field(
      "Image",
      "image",
      form.image,
      "cluster.clusterSpec.headGroupSpec.image",
    ),
    field(
      "Head compute template",
      "head-template",
      form.headTemplate,
      "cluster.clusterSpec.headGroupSpec.computeTemplate",
    ),
    field("Queue (optional)", "queue", form.queue, "cluster.queue"),
  );
}

/**
 * A field's block with a hint under its input (above its error).
 * @param {HTMLElement} block what field() made
 * @param {HTMLElement[]} hints
 */
function withHint(block, ...hints) {
  for (const hint of hints) block.insertBefore(hint, block.lastElementChild);
  return block;
}

/**
 * Offers the namespace's compute templates, with their sizes, in every
 * template select, keeping each one's choice where the namespace has it.
 * A select without one starts on the namespace's only template, else its
 * smallest (templateToOffer), so that a name is all a first cluster needs;
 * the sizes say what each costs, and the person may choose another. A
 * namespace without templates shows the offer to make one. `made` is a
 * template just created, offered even before the list has it.
 * @param {CreateForm} form
 * @param {import("./api.js").ComputeTemplate} [made]
 */
export async function refreshTemplates(form, made) {
  const namespace = form.namespace.value.trim();
  const listed = await namespaceTemplates(namespace);
  const templates = made && !listed.some((t) => t.name === made.name)
    ? [...listed, made].sort((a, b) => a.name.localeCompare(b.name))
    : listed;
  const names = templates.map((t) => t.name);
  const offered = templateToOffer(templates)?.name ?? "";
  for (const select of form.templateSelects) {
    const chosen = select.value;
    select.replaceChildren(
      h(
        "option",
        { value: "" },
        names.length ? "Choose a template…" : "No templates in this namespace",
      ),
      ...templates.map((t) => h("option", { value: t.name }, templateLabel(t))),
    );
    select.value = names.includes(chosen) ? chosen : offered;
  }
  form.offer.hidden = names.length > 0;
  form.offer.dataset.namespace = namespace;
}

/**
 * The template a select starts on: the only one, else the smallest by
 * CPUs, then memory (in bytes, whatever its unit), then GPUs (the cheapest
 * to try Ray on); none in a namespace without templates.
 * @param {import("./api.js").ComputeTemplate[]} templates
 */
export function templateToOffer(templates) {
  return [...templates].sort((a, b) =>
    Number(a.cpu) - Number(b.cpu) || bytesOf(a) - bytesOf(b) ||
    Number(a.gpu ?? 0) - Number(b.gpu ?? 0) || a.name.localeCompare(b.name)
  )[0];
}

/**
 * Bytes in one of each memoryUnit a template may have (domain/
 * template_validation.ts's MEMORY_UNITS). The console, served to the
 * browser as its own files, cannot import domain/quantities.ts, which reads
 * every quantity as the CLI's templateToUse() does: these few are copied.
 * @type {Record<string, number>}
 */
const MEMORY_UNIT_BYTES = {
  Ki: 2 ** 10,
  Mi: 2 ** 20,
  Gi: 2 ** 30,
  Ti: 2 ** 40,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
};

/**
 * A template's memory in bytes: `memory` of `memoryUnit`, Gi when none.
 * @param {import("./api.js").ComputeTemplate} template
 */
function bytesOf(template) {
  const unit = MEMORY_UNIT_BYTES[template.memoryUnit || "Gi"] ?? 2 ** 30;
  return Number(template.memory ?? 0) * unit;
}

/**
 * Offers the Ray versions Corral knows and starts the Version field on
 * the newest, unless the person typed one; the hint says which it is.
 * @param {CreateForm} form
 * @param {string[]} versions newest first
 */
export function offerVersions(form, versions) {
  form.versions.replaceChildren(
    ...versions.map((version) => h("option", { value: version })),
  );
  const [newest] = versions;
  if (!newest) return;
  if (!form.version.dataset.typed) form.version.value = newest;
  form.versionHint.textContent =
    `The newest Ray Corral knows is ${newest}; its image is rayproject/ray:${newest}.`;
}

/**
 * A template as the selects offer it: its name and sizes, such as
 * "small: 1 CPU, 1 GiB" or "gpu: 4 CPU, 16 GiB, 1 GPU".
 * @param {import("./api.js").ComputeTemplate} template
 */
export function templateLabel(template) {
  const sizes = [`${template.cpu} CPU`, `${template.memory} GiB`];
  if (template.gpu) sizes.push(`${template.gpu} GPU`);
  return `${template.name}: ${sizes.join(", ")}`;
}

/**
 * A namespace's compute templates, sorted by name; none when they cannot
 * be had.
 * @param {string} namespace
 */
async function namespaceTemplates(namespace) {
  try {
    return (await listObjects(kinds.templates, namespace)).sort((a, b) =>
      a.name.localeCompare(b.name)
    );
  } catch {
    return [];
  }
}

/**
 * The rows a person adds to (worker groups, environment variables), each
 * under its heading and followed by the button that adds one: its title,
 * the form's element that holds them, the button's id and label, and what
 * it adds.
 * @type {[string, "groups" | "envs", string, string, (form: CreateForm) => void][]}
 */
const ADDED_ROWS = [
  ["Worker groups", "groups", "add-group", "Add worker group", addGroup],
  ["Environment variables", "envs", "add-env", "Add variable", addEnv],
];

/**
 * The worker groups' and environment variables' rows, with their
 * headings and Add buttons.
 * @param {CreateForm} form
 */
export function addedRows(form) {
  return ADDED_ROWS.flatMap(([title, rows, id, label, add]) => [
    h("h2", {}, title),
    form[rows],
    h("button", { type: "button", id, onclick: () => add(form) }, label),
  ]);
}

/**
 * Adds a worker group's row: its name, template and sizes.
 * @param {CreateForm} form
 */
export function addGroup(form) {
  const i = form.groupsAdded++;
  const at =
    `cluster.clusterSpec.workerGroupSpec[${form.groups.children.length}]`;
  const template = h("select", {});
  form.templateSelects.push(template);
  /**
   * A number's field.
   * @param {string} label
   * @param {string} id
   * @param {string} name the request's field
   * @param {number} value
   */
  const number = (label, id, name, value) =>
    field(
      label,
      `g${i}-${id}`,
      h("input", { type: "number", value, min: 0 }),
      `${at}.${name}`,
    );
  const row = h(
    "div",
    { class: "row", "data-row": "group" },
    field(
      "Group name",
      `g${i}-name`,
      h("input", { value: `workers${i ? `-${i}` : ""}` }),
      `${at}.groupName`,
    ),
    field(
      "Compute template",
      `g${i}-template`,
      template,
      `${at}.computeTemplate`,
    ),
    // Replicas, Min and Max share a row of their own, so that on a narrow
    // screen they wrap together and none shrinks to a sliver.
    h(
      "div",
      { class: "sizes" },
      number("Replicas", "replicas", "replicas", 1),
      number("Min", "min", "minReplicas", 0),
      number("Max", "max", "maxReplicas", 4),
    ),
    removeButton("Remove this worker group", () => {
      form.templateSelects.splice(form.templateSelects.indexOf(template), 1);
      row.remove();
      renumberGroups(form);
    }),
  );
  form.groups.append(row);
  refreshTemplates(form);
}

/**
 * Makes the groups' field paths follow their order in the request again.
 * @param {CreateForm} form
 */
function renumberGroups(form) {
  [...form.groups.children].forEach((row, index) => {
    for (const input of row.querySelectorAll("[data-field]")) {
      const element = /** @type {HTMLElement} */ (input);
      element.dataset.field = String(element.dataset.field).replace(
        /workerGroupSpec\[\d+\]/,
        `workerGroupSpec[${index}]`,
      );
    }
  });
}

/**
 * Adds an environment variable's row: its name, whose field path follows
 * what is typed (the API names a bad variable by its name), and value.
 * @param {CreateForm} form
 */
export function addEnv(form) {
  const i = form.envsAdded++;
  const nameInput = h("input", {
    oninput: () => {
      nameInput.dataset.field = `cluster.envs["${nameInput.value}"]`;
    },
  });
  const row = h(
    "div",
    { class: "row env", "data-row": "env" },
    field("Variable", `e${i}-name`, nameInput, `cluster.envs[""]`),
    field("Value", `e${i}-value`, h("input", {})),
    removeButton("Remove this variable", () => row.remove()),
  );
  form.envs.append(row);
}

/**
 * A row's button that removes it, under an empty label to line up.
 * @param {string} label
 * @param {() => void} remove
 */
function removeButton(label, remove) {
  return h(
    "div",
    {},
    h("label", {}, "\u00a0"),
    h("button", {
      type: "button",
      "aria-label": label,
      onclick: remove,
    }, "Remove"),
  );
}
