// @ts-check
/// <reference lib="dom" />
/**
 * The "New service" view (#/new-service): a form that becomes a
 * CreateRayService request: a name, Serve's config (YAML, with its
 * applications) and a cluster made from a compute template
 * (workload_form.js). The API's refusals are shown next to the fields
 * they name (its config's line included), and a created service opens its
 * page.
 */
import { field, h, sentForm } from "./html.js";
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

/** What a new form's config starts as: one application, to edit. */
const EXAMPLE_CONFIG = `applications:
  - name: app
    import_path: module.deployment
    route_prefix: /
`;

/**
 * The form's inputs: a workload's, and Serve's config.
 * @typedef {import("./workload_form.js").WorkloadInputs & { config: HTMLTextAreaElement }} ServiceForm
 */

/** @returns {import("./state.js").View} */
export function serviceCreateView() {
  const form = emptyForm();
  const element = sentForm(
    "service-form",
    { id: "submit-service", label: "Create service" },
    () => createWorkload(workloads.services, readService(form), form, element),
    form.banner,
    h("div", { class: "grid" }, identityFields("service", form)),
    field(
      "Serve config (YAML)",
      "service-config",
      form.config,
      "service.serveConfigV2",
    ),
    h("h2", {}, "Cluster"),
    ownClusterFields("service", form),
  );
  showWorkloadForm("New service", element, form, () => offerTemplates(form));
  return {};
}

/** @returns {ServiceForm} */
function emptyForm() {
  /** @type {ServiceForm} */
  const form = {
    ...workloadInputs("service"),
    config: h("textarea", { rows: 8, spellcheck: false }),
  };
  form.config.value = EXAMPLE_CONFIG;
  return form;
}

/**
 * The service the form describes, in the API's JSON: a head and one
 * group of workers on the chosen template.
 * @param {ServiceForm} form
 */
function readService(form) {
  return {
    ...readIdentity(form),
    serveConfigV2: form.config.value,
    ...readOwnCluster(form),
  };
}
