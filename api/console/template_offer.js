// @ts-check
/// <reference lib="dom" />
/**
 * The create form's offer to make a compute template, shown where the
 * namespace has none: a name and sizes, made in that namespace without
 * leaving the form, and then offered and chosen in every select.
 */
import { errorMessage } from "./api.js";
import { createObject, kinds } from "./api_objects.js";
import { h } from "./html.js";

/**
 * A number's input with its label, for the offer's sizes.
 * @param {string} label
 * @param {string} id
 * @param {number} value
 * @param {number} min
 */
function sizeInput(label, id, value, min) {
  const input = h("input", { id, type: "number", value, min });
  return { input, block: h("div", {}, h("label", { for: id }, label), input) };
}

/**
 * The offer, hidden until refreshTemplates (create_form.js) finds the
 * namespace without templates; `dataset.namespace` is the namespace it
 * makes one in. `made(template)` runs once the template exists.
 * @param {(template: import("./api.js").ComputeTemplate) => Promise<void>} made
 * @returns {HTMLElement}
 */
export function templateOffer(made) {
  const name = h("input", {
    id: "nt-name",
    value: "small",
    autocomplete: "off",
  });
  const cpu = sizeInput("CPUs", "nt-cpu", 1, 1);
  const memory = sizeInput("Memory (GiB)", "nt-memory", 1, 1);
  const gpu = sizeInput("GPUs", "nt-gpu", 0, 0);
  const error = h("p", { class: "error", id: "nt-error", role: "alert" });
  const create = h("button", {
    type: "button",
    id: "nt-create",
    "data-write": "",
    onclick: async () => {
      const namespace = String(offer.dataset.namespace);
      create.disabled = true;
      error.textContent = "";
      try {
        await made(
          await createObject(kinds.templates, namespace, {
            name: name.value.trim(),
            namespace,
            cpu: Number(cpu.input.value),
            memory: Number(memory.input.value),
            gpu: Number(gpu.input.value),
          }),
        );
      } catch (e) {
        error.textContent = errorMessage(e);
      } finally {
        create.disabled = false;
      }
    },
  }, "Create template");
  const offer = h(
    "section",
    { class: "panel offer", id: "template-offer", hidden: true },
    h(
      "p",
      {},
      "This namespace has no compute templates yet: a template sets the CPUs, memory and GPUs of each node. Make one here:",
    ),
    h(
      "div",
      { class: "grid" },
      h("div", {}, h("label", { for: "nt-name" }, "Template name"), name),
      cpu.block,
      memory.block,
      gpu.block,
    ),
    error,
    h("div", { class: "actions" }, create),
  );
  return offer;
}
