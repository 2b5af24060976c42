// @ts-check
/// <reference lib="dom" />
/**
 * The "New service" view (#/new-service): a form that becomes a
 * CreateRayService request: a name, Serve's config (YAML, with its
 * applications) and a cluster made from a compute template. The API's
 * refusals are shown next to the fields they name (its config's line
 * included), and a created service opens its page.
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

/** What a new form's config starts as: one application, to edit. */
const EXAMPLE_CONFIG = `applications:
  - name: app
    import_path: module.deployment
    route_prefix: /
`;

/**
 * The form's inputs.
 * @typedef {object} ServiceForm
 * @property {HTMLParagraphElement} banner says what went wrong
 * @property {HTMLInputElement} name
 * @property {HTMLInputElement} namespace
 * @property {HTMLInputElement} user
 * @property {HTMLTextAreaElement} config
 * @property {HTMLSelectElement} template
 * @property {HTMLInputElement} workers
 * @property {HTMLInputElement} version
 */

/** @returns {import("./state.js").View} */
export function serviceCreateView() {
  const form = emptyForm();
  const submit = h(
    "button",
    { type: "submit", class: "primary", id: "submit-service" },
    "Create service",
  );
  const element = h(
    "form",
    {
      id: "service-form",
      novalidate: true,
      onsubmit: async (event) => {
        event.preventDefault();
        submit.disabled = true;
        await submitService(form, element);
        submit.disabled = false;
      },
    },
    form.banner,
    h(
      "div",
      { class: "grid" },
      field("Name", "service-name", form.name, "service.name"),
      field(
        "Namespace",
        "service-namespace",
        form.namespace,
        "service.namespace",
      ),
      field("Owner (user)", "service-user", form.user, "service.user"),
    ),
    field(
      "Serve config (YAML)",
      "service-config",
      /** @type {any} */ (form.config),
      "service.serveConfigV2",
    ),
    h("h2", {}, "Cluster"),
    h(
      "div",
      { class: "grid" },
      field(
        "Compute template",
        "service-template",
        form.template,
        "service.clusterSpec.headGroupSpec.computeTemplate",
      ),
      field(
        "Workers",
        "service-workers",
        form.workers,
        "service.clusterSpec.workerGroupSpec[0].replicas",
      ),
      field("Ray version", "service-version", form.version, "service.version"),
    ),
    h("div", { class: "actions" }, submit),
  );
  showPage(h("h1", {}, "New service"), element);
  offerTemplates(form);
  form.name.focus();
  return {};
}

/** @returns {ServiceForm} */
function emptyForm() {
  /** @type {ServiceForm} */
  const form = {
    banner: h("p", { class: "banner", role: "alert" }),
    name: h("input", { autocomplete: "off" }),
    namespace: h("input", {
      value: lastNamespace() || clusterNamespaces()[0] || "default",
      onchange: () => offerTemplates(form),
    }),
    user: h("input", { value: lastUser() ?? "" }),
    config: h("textarea", { rows: 8, spellcheck: false }),
    template: h("select", { "data-also": "^service\\.clusterSpec\\." }),
    workers: h("input", { type: "number", min: 0, value: 1 }),
    version: h("input", {
      placeholder: "e.g. 2.9.0",
      "data-also": "^service\\.clusterSpec\\..*image$",
    }),
  };
  form.config.value = EXAMPLE_CONFIG;
  return form;
}

/**
 * Offers the namespace's compute templates, the first chosen.
 * @param {ServiceForm} form
 */
async function offerTemplates(form) {
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
 * The service the form describes, in the API's JSON: a head and one
 * group of workers on the chosen template.
 * @param {ServiceForm} form
 */
function readService(form) {
  const computeTemplate = form.template.value;
  const replicas = Number(form.workers.value);
  return {
    name: form.name.value.trim(),
    namespace: form.namespace.value.trim(),
    user: form.user.value.trim(),
    serveConfigV2: form.config.value,
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
 * Sends the form as a CreateRayService request: on success remembers its
 * owner and namespace and opens the service's page; else shows what the
 * API found wrong, next to the fields it names.
 * @param {ServiceForm} form
 * @param {HTMLFormElement} element
 */
async function submitService(form, element) {
  const service = readService(form);
  try {
    const created = await createObject(
      kinds.services,
      service.namespace,
      service,
    );
    rememberUser(service.user);
    rememberNamespace(service.namespace);
    location.hash = `#/services/${created.namespace}/${created.name}`;
  } catch (error) {
    showViolations(element, error, form.banner);
  }
}
