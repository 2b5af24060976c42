// @ts-check
/// <reference lib="dom" />
/**
 * The "New job" view (#/new-job): a form that becomes a CreateRayJob
 * request. The job runs on an existing cluster of its namespace (from the
 * clusters the console follows) or on a new one of its own, made from a
 * compute template; the API's refusals are shown next to the fields they
 * name, and a created job opens its page.
 */
import { createObject, kinds, listObjects } from "./api_objects.js";
import { field, h } from "./html.js";
import { showPage } from "./html.js";
import {
  lastNamespace,
  lastUser,
  rememberNamespace,
  rememberUser,
} from "./session.js";
import { state } from "./state.js";
import { showViolations } from "./violations.js";

/**
 * The form's inputs.
 * @typedef {object} JobForm
 * @property {HTMLParagraphElement} banner says what went wrong
 * @property {HTMLInputElement} name
 * @property {HTMLInputElement} namespace
 * @property {HTMLInputElement} user
 * @property {HTMLInputElement} entrypoint
 * @property {HTMLTextAreaElement} runtimeEnv
 * @property {HTMLInputElement} existing the choice of an existing cluster
 * @property {HTMLSelectElement} cluster
 * @property {HTMLInputElement} fresh the choice of a new cluster
 * @property {HTMLSelectElement} template
 * @property {HTMLInputElement} workers
 * @property {HTMLInputElement} version
 * @property {HTMLInputElement} shutdown
 * @property {HTMLInputElement} ttl
 * @property {HTMLInputElement} deadline
 */

/** @returns {import("./state.js").View} */
export function jobCreateView() {
  const form = emptyForm();
  const submit = h(
    "button",
    { type: "submit", class: "primary", id: "submit-job" },
    "Submit job",
  );
  const element = h(
    "form",
    {
      id: "job-form",
      novalidate: true,
      onsubmit: async (event) => {
        event.preventDefault();
        submit.disabled = true;
        await submitJob(form, element);
        submit.disabled = false;
      },
    },
    form.banner,
    h(
      "div",
      { class: "grid" },
      field("Name", "job-name", form.name, "job.name"),
      field("Namespace", "job-namespace", form.namespace, "job.namespace"),
      field("Owner (user)", "job-user", form.user, "job.user"),
      field("Entrypoint", "job-entrypoint", form.entrypoint, "job.entrypoint"),
    ),
    field(
      "Runtime environment (YAML)",
      "job-runtime-env",
      /** @type {any} */ (form.runtimeEnv),
      "job.runtimeEnv",
    ),
    h("h2", {}, "Cluster"),
    h("label", {}, form.existing, " An existing cluster"),
    field("Cluster", "job-cluster", form.cluster, "job.clusterSelector"),
    h("label", {}, form.fresh, " A new cluster of its own"),
    h(
      "div",
      { class: "grid" },
      field(
        "Compute template",
        "job-template",
        form.template,
        "job.clusterSpec.headGroupSpec.computeTemplate",
      ),
      field(
        "Workers",
        "job-workers",
        form.workers,
        "job.clusterSpec.workerGroupSpec[0].replicas",
      ),
      field("Ray version", "job-version", form.version, "job.version"),
    ),
    h("h2", {}, "When it ends"),
    h("label", {}, form.shutdown, " Delete its cluster after it finishes"),
    h(
      "div",
      { class: "grid" },
      field(
        "TTL (seconds)",
        "job-ttl",
        form.ttl,
        "job.ttlSecondsAfterFinished",
      ),
      field(
        "Deadline (seconds, 0 for none)",
        "job-deadline",
        form.deadline,
        "job.activeDeadlineSeconds",
      ),
    ),
    h("div", { class: "actions" }, submit),
  );
  showPage(h("h1", {}, "New job"), element);
  refreshChoices(form);
  form.name.focus();
  return {};
}

/** @returns {JobForm} */
function emptyForm() {
  const namespaces = [
    ...new Set([...state.clusters.values()].map((c) => c.namespace)),
  ];
  /** @type {JobForm} */
  const form = {
    banner: h("p", { class: "banner", role: "alert" }),
    name: h("input", { autocomplete: "off" }),
    namespace: h("input", {
      value: lastNamespace() || namespaces[0] || "default",
      onchange: () => refreshChoices(form),
    }),
    user: h("input", { value: lastUser() ?? "" }),
    entrypoint: h("input", { placeholder: "e.g. python train.py" }),
    runtimeEnv: h("textarea", { rows: 4, placeholder: "pip:\n  - numpy" }),
    existing: h("input", { type: "radio", name: "where", id: "job-existing" }),
    cluster: h("select", { "data-also": "^job\\.clusterSelector" }),
    fresh: h("input", { type: "radio", name: "where", id: "job-fresh" }),
    template: h("select", { "data-also": "^job\\.clusterSpec\\." }),
    workers: h("input", { type: "number", min: 0, value: 1 }),
    version: h("input", {
      placeholder: "e.g. 2.9.0",
      "data-also": "^job\\.clusterSpec\\..*image$",
    }),
    shutdown: h("input", { type: "checkbox", id: "job-shutdown" }),
    ttl: h("input", { type: "number", min: 0, value: 0 }),
    deadline: h("input", { type: "number", min: 0, value: 0 }),
  };
  return form;
}

/**
 * Offers the namespace's clusters and compute templates; the choice of
 * cluster starts at an existing one when the namespace has any.
 * @param {JobForm} form
 */
async function refreshChoices(form) {
  const ns = form.namespace.value.trim();
  const clusters = [...state.clusters.values()].filter((c) =>
    c.namespace === ns
  ).map((c) => c.name).sort();
  form.cluster.replaceChildren(
    h(
      "option",
      { value: "" },
      clusters.length ? "Choose…" : "No clusters in this namespace",
    ),
    ...clusters.map((n) => h("option", { value: n }, n)),
  );
  if (!form.existing.checked && !form.fresh.checked) {
    (clusters.length ? form.existing : form.fresh).checked = true;
  }
  /** @type {string[]} */
  let templates = [];
  try {
    templates = (await listObjects(kinds.templates, ns)).map((t) => t.name)
      .sort();
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
 * The job the form describes, in the API's JSON.
 * @param {JobForm} form
 */
function readJob(form) {
  const computeTemplate = form.template.value;
  const replicas = Number(form.workers.value);
  const where = form.existing.checked
    ? { clusterSelector: { "ray.io/cluster": form.cluster.value } }
    : {
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
  return {
    name: form.name.value.trim(),
    namespace: form.namespace.value.trim(),
    user: form.user.value.trim(),
    entrypoint: form.entrypoint.value.trim(),
    runtimeEnv: form.runtimeEnv.value,
    shutdownAfterJobFinishes: form.shutdown.checked,
    ttlSecondsAfterFinished: Number(form.ttl.value),
    activeDeadlineSeconds: Number(form.deadline.value),
    ...where,
  };
}

/**
 * Sends the form as a CreateRayJob request: on success remembers its
 * owner and namespace and opens the job's page; else shows what the API
 * found wrong, next to the fields it names.
 * @param {JobForm} form
 * @param {HTMLFormElement} element
 */
async function submitJob(form, element) {
  const job = readJob(form);
  try {
    const created = await createObject(kinds.jobs, job.namespace, job);
    rememberUser(job.user);
    rememberNamespace(job.namespace);
    location.hash = `#/jobs/${created.namespace}/${created.name}`;
  } catch (error) {
    showViolations(element, error, form.banner);
  }
}
