// @ts-check
/// <reference lib="dom" />
/**
 * What the New job and New service forms (job_create_view.js,
 * service_create_view.js) have alike: the workload's name, namespace and
 * owner; a cluster of its own, made from a compute template (the
 * template, how many workers, the Ray version); and the create, after
 * which the created workload opens its page. Each form names its request
 * field ("job", "service"), which begins its inputs' ids and the field
 * paths the API's violations name.
 */
import { createObject, kinds, listObjects } from "./api_objects.js";
import { field, h, showPage } from "./html.js";
import {
  lastNamespace,
  lastUser,
  rememberNamespace,
  rememberUser,
} from "./session.js";
import { clusterNamespaces } from "./state.js";
import { showViolations } from "./violations.js";

/**
 * The inputs both forms have.
 * @typedef {object} WorkloadInputs
 * @property {HTMLParagraphElement} banner says what went wrong
 * @property {HTMLInputElement} name
 * @property {HTMLInputElement} namespace
 * @property {HTMLInputElement} user
 * @property {HTMLSelectElement} template
 * @property {HTMLInputElement} workers
 * @property {HTMLInputElement} version
 */

/**
 * The inputs as a new form has them: the namespace last worked in (else
 * the first with clusters) and the owner last named.
 * @param {string} request "job" or "service"
 * @returns {WorkloadInputs}
 */
export function workloadInputs(request) {
  return {
    banner: h("p", { class: "banner", role: "alert" }),
    name: h("input", { autocomplete: "off" }),
    namespace: h("input", {
      value: lastNamespace() || clusterNamespaces()[0] || "default",
    }),
    user: h("input", { value: lastUser() ?? "" }),
    template: h("select", { "data-also": `^${request}\\.clusterSpec\\.` }),
    workers: h("input", { type: "number", min: 0, value: 1 }),
    version: h("input", {
      placeholder: "e.g. 2.9.0",
      "data-also": `^${request}\\.clusterSpec\\..*image$`,
    }),
  };
}

/**
 * Shows a New job or New service form under its title, with the choices
 * of its namespace offered (again whenever the namespace changes), and
 * the focus on its name.
 * @param {string} title
 * @param {HTMLFormElement} element
 * @param {WorkloadInputs} form
 * @param {() => Promise<void>} offerChoices
 */
export function showWorkloadForm(title, element, form, offerChoices) {
  form.namespace.addEventListener("change", offerChoices);
  showPage(h("h1", {}, title), element);
  offerChoices();
  form.name.focus();
}

/**
 * The name, namespace and owner fields.
 * @param {string} request
 * @param {WorkloadInputs} form
 */
export function identityFields(request, form) {
  return [
    field("Name", `${request}-name`, form.name, `${request}.name`),
    field(
      "Namespace",
      `${request}-namespace`,
      form.namespace,
      `${request}.namespace`,
    ),
    field("Owner (user)", `${request}-user`, form.user, `${request}.user`),
  ];
}

/**
 * The fields of a cluster of its own, in a grid.
 * @param {string} request
 * @param {WorkloadInputs} form
 */
export function ownClusterFields(request, form) {
  const spec = `${request}.clusterSpec`;
  return h(
    "div",
    { class: "grid" },
    field(
      "Compute template",
      `${request}-template`,
      form.template,
      `${spec}.headGroupSpec.computeTemplate`,
    ),
    field(
      "Workers",
      `${request}-workers`,
      form.workers,
      `${spec}.workerGroupSpec[0].replicas`,
    ),
    field(
      "Ray version",
      `${request}-version`,
      form.version,
      `${request}.version`,
    ),
  );
}

/**
 * Offers the namespace's compute templates, the first chosen.
 * @param {WorkloadInputs} form
 */
export async function offerTemplates(form) {
  /** @type {string[]} */
  let templates = [];
  try {
    templates =
      (await listObjects(kinds.templates, form.namespace.value.trim()))
        .map((t) => t.name).sort();
  } catch {
    // None to offer; the API names the field when one is needed.
  }
  form.template.replaceChildren(
    h(
      "option",
      { value: "" },
      templates.length ? "Choose…" : "No templates in this namespace",
    ),
    ...templates.map((n) => h("option", { value: n }, n)),
  );
  form.template.value = templates[0] ?? "";
}

/**
 * The workload's name, namespace and owner, as the form says them.
 * @param {WorkloadInputs} form
 */
export function readIdentity(form) {
  return {
    name: form.name.value.trim(),
    namespace: form.namespace.value.trim(),
    user: form.user.value.trim(),
  };
}

/**
 * The cluster of its own the form describes, in the API's JSON: its Ray
 * version, a head and one group of workers (none for 0) on the chosen
 * template.
 * @param {WorkloadInputs} form
 */
export function readOwnCluster(form) {
  const computeTemplate = form.template.value;
  const replicas = Number(form.workers.value);
  return {
    version: form.version.value.trim(),
    clusterSpec: {
      headGroupSpec: { computeTemplate },
      workerGroupSpec: replicas > 0
        ? [{
          groupName: "workers",
          computeTemplate,
          replicas,
          minReplicas: 0,
          maxReplicas: replicas,
        }]
        : [],
    },
  };
}

/**
 * Creates the workload `draft` describes: on success remembers its owner
 * and namespace and opens its page; else shows what the API found wrong,
 * next to the fields it names.
 * @template {{ namespace: string, name: string }} T
 * @param {import("./workloads.js").Workload<T>} workload its kind
 * @param {import("./api.js").Draft<T> & { namespace: string, user: string }} draft
 * @param {WorkloadInputs} form
 * @param {HTMLFormElement} element
 */
export async function createWorkload(workload, draft, form, element) {
  try {
    const created = await createObject(workload.kind, draft.namespace, draft);
    rememberUser(draft.user);
    rememberNamespace(draft.namespace);
    location.hash =
      `#/${workload.section}/${created.namespace}/${created.name}`;
  } catch (error) {
    showViolations(element, error, form.banner);
  }
}
