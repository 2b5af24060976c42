// @ts-check
/// <reference lib="dom" />
/**
 * The compute templates view (#/templates): every namespace's templates,
 * each deleted with a second click, and a form that makes one.
 */
import { errorMessage } from "./api.js";
import {
  createObject,
  deleteObject,
  kinds,
  listObjects,
} from "./api_objects.js";
import { field, h, sentForm, showPage } from "./html.js";
import { lastNamespace } from "./session.js";
import { clearViolations, showViolations } from "./violations.js";

/** @typedef {import("./api.js").ComputeTemplate} ComputeTemplate */

/**
 * The view's parts that its list and form change.
 * @typedef {object} TemplatesPage
 * @property {HTMLParagraphElement} banner says what went wrong with the list
 * @property {HTMLTableSectionElement} body the list's rows
 */

/**
 * The form's inputs, by the template field each fills.
 * @typedef {object} TemplateInputs
 * @property {HTMLInputElement} name
 * @property {HTMLInputElement} namespace
 * @property {HTMLInputElement} cpu
 * @property {HTMLInputElement} memory
 * @property {HTMLInputElement} gpu
 * @property {HTMLInputElement} gpuAccelerator
 */

/** The labels of the fields whose label is not their capitalised name. */
const LABELS = /** @type {Record<string, string>} */ ({
  gpuAccelerator: "GPU accelerator",
  cpu: "CPU",
  memory: "Memory (GiB)",
  gpu: "GPU",
});

/** @returns {import("./state.js").View} */
export function templatesView() {
  /** @type {TemplatesPage} */
  const page = {
    banner: h("p", { class: "banner", role: "alert" }),
    body: h("tbody"),
  };
  showPage(
    h("h1", {}, "Compute templates"),
    h(
      "p",
      { class: "muted" },
      "The sizes clusters are made of: CPU, memory and GPUs per node.",
    ),
    page.banner,
    templatesTable(page.body),
    h("h2", {}, "New compute template"),
    templateForm(page),
  );
  loadTemplates(page);
  return {};
}

/**
 * The table of templates, around its body.
 * @param {HTMLTableSectionElement} body
 */
function templatesTable(body) {
  return h(
    "table",
    { id: "templates" },
    h(
      "thead",
      {},
      h(
        "tr",
        {},
        ["Namespace", "Name", "CPU", "Memory (GiB)", "GPU", ""].map((t) =>
          h("th", {}, t)
        ),
      ),
    ),
    body,
  );
}

/**
 * Lists every namespace's templates afresh.
 * @param {TemplatesPage} page
 */
async function loadTemplates(page) {
  try {
    const templates = await listObjects(kinds.templates);
    page.body.replaceChildren(...templates.map((t) => templateRow(page, t)));
    if (templates.length === 0) {
      page.body.replaceChildren(
        h(
          "tr",
          {},
          h(
            "td",
            { colspan: 6, class: "empty" },
            "No compute templates yet.",
          ),
        ),
      );
    }
  } catch (error) {
    page.banner.textContent = errorMessage(error);
  }
}

/**
 * A template's row; its Delete button asks once more before deleting.
 * @param {TemplatesPage} page
 * @param {ComputeTemplate} t
 */
function templateRow(page, t) {
  const remove = h("button", {
    type: "button",
    class: "danger",
    "aria-label": `Delete ${t.namespace}/${t.name}`,
    onclick: async () => {
      if (remove.dataset.armed !== "yes") {
        remove.dataset.armed = "yes";
        remove.textContent = "Really delete?";
        return;
      }
      try {
        await deleteObject(kinds.templates, t.namespace, t.name);
        page.banner.textContent = "";
        loadTemplates(page);
      } catch (error) {
        page.banner.textContent = errorMessage(error);
      }
    },
  }, "Delete");
  return h(
    "tr",
    { "data-template": `${t.namespace}/${t.name}` },
    h("td", {}, t.namespace),
    h("td", {}, t.name),
    h("td", {}, t.cpu),
    h("td", {}, t.memory),
    h("td", {}, t.gpu ? `${t.gpu} ${t.gpuAccelerator ?? ""}` : "—"),
    h("td", {}, remove),
  );
}

/**
 * The form that makes a template; the list shows it once made.
 * @param {TemplatesPage} page
 */
function templateForm(page) {
  /** @type {TemplateInputs} */
  const inputs = {
    name: h("input", { autocomplete: "off" }),
    namespace: h("input", { value: lastNamespace() || "default" }),
    cpu: h("input", { type: "number", min: 1, value: 2 }),
    memory: h("input", { type: "number", min: 1, value: 4 }),
    gpu: h("input", { type: "number", min: 0, value: 0 }),
    gpuAccelerator: h("input", { placeholder: "e.g. nvidia.com/gpu" }),
  };
  const banner = h("p", { class: "banner", role: "alert" });
  return sentForm(
    "template-form",
    { id: "create-template", label: "Create template" },
    async (form) => {
      const template = readTemplate(inputs);
      try {
        await createObject(kinds.templates, template.namespace, template);
        clearViolations(form);
        banner.textContent = "";
        inputs.name.value = "";
        loadTemplates(page);
      } catch (error) {
        showViolations(form, error, banner);
      }
    },
    banner,
    h(
      "div",
      { class: "grid" },
      ...Object.entries(inputs).map(([k, input]) =>
        field(
          LABELS[k] ?? k[0].toUpperCase() + k.slice(1),
          `t-${k}`,
          input,
          `computeTemplate.${k}`,
        )
      ),
    ),
  );
}

/**
 * The template the form describes.
 * @param {TemplateInputs} inputs
 */
function readTemplate(inputs) {
  const gpuAccelerator = inputs.gpuAccelerator.value.trim();
  return {
    name: inputs.name.value.trim(),
    namespace: inputs.namespace.value.trim(),
    cpu: Number(inputs.cpu.value),
    memory: Number(inputs.memory.value),
    gpu: Number(inputs.gpu.value),
    ...(gpuAccelerator ? { gpuAccelerator } : {}),
  };
}
