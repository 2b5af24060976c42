// @ts-check
/// <reference lib="dom" />
/**
 * The "New job" view (#/new-job): a form that becomes a CreateRayJob
 * request. The job runs on an existing cluster of its namespace (from the
 * clusters the console follows) or on a new one of its own, made from a
 * compute template (workload_form.js); the API's refusals are shown next
 * to the fields they name, and a created job opens its page.
 */
import { field, h, sentForm } from "./html.js";
import { state } from "./state.js";
import {
  createWorkload,
  identityFields,
  offerTemplates,
  ownClusterFields,
  readIdentity,
  readOwnCluster,
  showWorkloadForm,
  workloadInputs,
} from "./workload_form.js";
import { workloads } from "./workloads.js";

/**
 * The form's inputs: a workload's, and what only a job has.
 * @typedef {import("./workload_form.js").WorkloadInputs & JobInputs} JobForm
 */

/**
 * @typedef {object} JobInputs
 * @property {HTMLInputElement} entrypoint
 * @property {HTMLTextAreaElement} runtimeEnv
 * @property {HTMLInputElement} existing the choice of an existing cluster
 * @property {HTMLSelectElement} cluster
 * @property {HTMLInputElement} fresh the choice of a new cluster
 * @property {HTMLInputElement} shutdown
 * @property {HTMLInputElement} ttl
 * @property {HTMLInputElement} deadline
 */

/** @returns {import("./state.js").View} */
export function jobCreateView() {
  const form = emptyForm();
  const element = sentForm(
    "job-form",
    { id: "submit-job", label: "Submit job" },
    () => createWorkload(workloads.jobs, readJob(form), form, element),
    form.banner,
    h(
      "div",
      { class: "grid" },
      identityFields("job", form),
      field("Entrypoint", "job-entrypoint", form.entrypoint, "job.entrypoint"),
    ),
    field(
      "Runtime environment (YAML)",
      "job-runtime-env",
      form.runtimeEnv,
      "job.runtimeEnv",
    ),
    h("h2", {}, "Cluster"),
    h("label", {}, form.existing, " An existing cluster"),
    field("Cluster", "job-cluster", form.cluster, "job.clusterSelector"),
    h("label", {}, form.fresh, " A new cluster of its own"),
    ownClusterFields("job", form),
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
  );
  showWorkloadForm("New job", element, form, () => refreshChoices(form));
  return {};
}

/** @returns {JobForm} */
function emptyForm() {
  /** @type {JobForm} */
  const form = {
    ...workloadInputs("job"),
    entrypoint: h("input", { placeholder: "e.g. python train.py" }),
    runtimeEnv: h("textarea", { rows: 4, placeholder: "pip:\n  - numpy" }),
    existing: h("input", { type: "radio", name: "where", id: "job-existing" }),
    cluster: h("select", { "data-also": "^job\\.clusterSelector" }),
    fresh: h("input", { type: "radio", name: "where", id: "job-fresh" }),
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
  await offerTemplates(form);
}

/**
 * The job the form describes, in the API's JSON: on the existing cluster
 * chosen, or on one of its own.
 * @param {JobForm} form
 */
function readJob(form) {
  const where = form.existing.checked
    ? { clusterSelector: { "ray.io/cluster": form.cluster.value } }
    : readOwnCluster(form);
  return {
    ...readIdentity(form),
    entrypoint: form.entrypoint.value.trim(),
    runtimeEnv: form.runtimeEnv.value,
    shutdownAfterJobFinishes: form.shutdown.checked,
    ttlSecondsAfterFinished: Number(form.ttl.value),
    activeDeadlineSeconds: Number(form.deadline.value),
    ...where,
  };
}
