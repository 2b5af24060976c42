// @ts-check
/// <reference lib="dom" />
/**
 * The create-cluster view (#/create): a form (its parts are
 * create_form.js's) that becomes a CreateCluster request; the API's field
 * violations are shown next to the fields they name, and a created cluster
 * opens its page.
 */
import { ApiError, errorMessage } from "./api.js";
import { createObject, kinds } from "./api_objects.js";
import {
  addedRows,
  addGroup,
  clusterFields,
  offerVersions,
  refreshTemplates,
} from "./create_form.js";
import { clearViolations, showViolations } from "./violations.js";
import { lifetimeField, lifetimeOf } from "./expiry_panel.js";
import { quotaPanel, showQuotas } from "./quota_panel.js";
import { h, sentForm, showPage } from "./html.js";
import {
  lastNamespace,
  lastUser,
  rememberNamespace,
  rememberUser,
} from "./session.js";
import { clusterNamespaces } from "./state.js";
import { currentUser, defaultOwner, refreshAccount } from "./sign_in.js";
import { rayVersions } from "./api_session.js";
import { templateOffer } from "./template_offer.js";

/** @typedef {import("./create_form.js").CreateForm} CreateForm */

/**
 * What the view adds to the form of create_form.js: the Lifetime field,
 * the quotas of the chosen namespace, and where a refusal by quota (code
 * 8) is said, under the form beside those quotas.
 * @typedef {object} CreateExtras
 * @property {{ block: HTMLElement, input: HTMLInputElement }} lifetime
 * @property {import("./quota_panel.js").QuotaPanel} quota
 * @property {HTMLParagraphElement} refusal
 */

/** @returns {import("./state.js").View} */
export function createView() {
  const namespaces = clusterNamespaces();
  const form = emptyForm(namespaces);
  /** @type {CreateExtras} */
  const extras = {
    lifetime: lifetimeField(),
    quota: quotaPanel("create-quota"),
    refusal: h("p", { class: "error", id: "create-refusal", role: "alert" }),
  };
  const quotas = () => showQuotas(extras.quota, form.namespace.value.trim());
  form.namespace.addEventListener("change", quotas);
  const element = sentForm(
    "create-form",
    { id: "create", label: "Create cluster" },
    () => submitCluster(form, element, extras),
    form.banner,
    clusterFields(form),
    h("div", { class: "grid" }, extras.lifetime.block),
    form.offer,
    h(
      "datalist",
      { id: "namespaces" },
      namespaces.map((ns) => h("option", { value: ns })),
    ),
    addedRows(form),
    extras.quota.element,
    extras.refusal,
  );
  addGroup(form);
  quotas();
  showPage(h("h1", {}, "Create a cluster"), element);
  form.name.focus();
  refreshAccount().then(() => showOwner(form));
  rayVersions().then((versions) => offerVersions(form, versions));
  // The watch's changes (this person's other tabs, their team) move usage.
  return { update: quotas };
}

/**
 * Fills in the owner with who is signed in (in dev mode, Corral's name
 * for a caller without credentials: sign_in.js's defaultOwner), unless
 * the person typed one, and says that an empty owner is them; without a
 * known user the field is the person's to fill.
 * @param {CreateForm} form
 */
function showOwner(form) {
  const user = defaultOwner();
  if (!user) {
    form.userHint.textContent = "";
    return;
  }
  if (!form.user.dataset.typed) form.user.value = user;
  form.userHint.textContent = currentUser()
    ? `Optional: left empty, it is you (${user}).`
    : `Optional: left empty, it is ${user}, as Corral calls a caller without credentials.`;
}

/**
 * The form's inputs as a new form has them: the namespace last worked in
 * (else the first with clusters) and the owner last named.
 * @param {string[]} namespaces those with clusters
 * @returns {CreateForm}
 */
function emptyForm(namespaces) {
  const headTemplate = h("select", {});
  /** @type {CreateForm} */
  const form = {
    offer: templateOffer(async (template) => {
      // The list may not have it yet (Corral's cache follows the API
      // server): it is offered all the same.
      await refreshTemplates(form, template);
      // The person just made it for this form: it is their choice.
      for (const select of form.templateSelects) select.value = template.name;
    }),
    banner: h("p", { class: "banner", role: "alert" }),
    name: h("input", { autocomplete: "off" }),
    namespace: h("input", {
      list: "namespaces",
      value: lastNamespace() || namespaces[0] || "default",
      onchange: () => refreshTemplates(form),
    }),
    user: h("input", {
      value: currentUser() || lastUser() || "",
      oninput: () => form.user.dataset.typed = "true",
    }),
    userHint: h("p", { class: "hint", id: "user-hint" }),
    version: h("input", {
      placeholder: "e.g. 2.9.0",
      list: "ray-versions",
      autocomplete: "off",
      oninput: () => form.version.dataset.typed = "true",
    }),
    versionHint: h("p", { class: "hint", id: "version-hint" }),
    versions: h("datalist", { id: "ray-versions" }),
    image: h("input", {
      placeholder: "or an image, e.g. rayproject/ray:2.9.0",
      "data-also": "\\.image$",
    }),
    queue: h("input", { placeholder: "Kueue queue; the policy's by default" }),
    headTemplate,
    templateSelects: [headTemplate],
    groups: h("div", { class: "rows", id: "groups" }),
    envs: h("div", { class: "rows", id: "envs" }),
    groupsAdded: 0,
    envsAdded: 0,
  };
  return form;
}

/**
 * Sends the form as a CreateCluster request: on success remembers its
 * owner and namespace and opens the cluster's page; else shows what the
 * API found wrong.
 * @param {CreateForm} form
 * @param {HTMLFormElement} element
 * @param {CreateExtras} extras
 */
async function submitCluster(form, element, extras) {
  const cluster = {
    ...readCluster(form),
    ...lifetimeOf(extras.lifetime.input),
  };
  const ns = cluster.namespace;
  const unchosen = unchosenTemplates(form);
  if (unchosen.length) {
    const body = { code: 3, details: [{ fieldViolations: unchosen }] };
    showViolations(element, new ApiError(400, body), form.banner);
    return;
  }
  try {
    await createObject(kinds.clusters, ns, cluster);
    rememberUser(cluster.user);
    rememberNamespace(ns);
    location.hash = `#/clusters/${ns}/${cluster.name}`;
  } catch (error) {
    if (error instanceof ApiError && error.code === 8) {
      refusedByQuota(form, element, extras, error);
      return;
    }
    if (error instanceof ApiError) {
      error.violations = error.violations.map(onFormField);
    }
    showViolations(element, error, form.banner);
  }
}

/**
 * A create refused by a quota (code 8): its message, which names the
 * cluster, the quota, its usage and what the cluster asks for, is said
 * under the form beside the quotas, read afresh.
 * @param {CreateForm} form
 * @param {HTMLFormElement} element
 * @param {CreateExtras} extras
 * @param {ApiError} error
 */
function refusedByQuota(form, element, extras, error) {
  clearViolations(element);
  form.banner.textContent = "";
  extras.refusal.textContent = errorMessage(error);
  showQuotas(extras.quota, form.namespace.value.trim(), true);
  extras.refusal.scrollIntoView({ block: "nearest" });
}

/**
 * The template selects left on "Choose a template", as violations of
 * their fields: the console picks none, so the person is asked to.
 * @param {CreateForm} form
 * @returns {import("./api.js").FieldViolation[]}
 */
function unchosenTemplates(form) {
  return form.templateSelects.filter((select) => !select.value).map((
    select,
  ) => ({
    field: String(select.dataset.field),
    description:
      "choose a compute template: it sets each node's CPUs, memory and GPUs",
  }));
}

/**
 * A violation as the form shows it, under the field the person fills in
 * to mend it: the namespace's (named `namespace` by the API) under
 * Namespace; an image required for want of a version under Version (the
 * form's way to run Ray; the image is the other); replicas above Max
 * under Replicas (replicasAboveMax).
 * @param {import("./api.js").FieldViolation} violation
 * @returns {import("./api.js").FieldViolation}
 */
function onFormField(violation) {
  if (violation.field === "namespace") {
    return { ...violation, field: "cluster.namespace" };
  }
  if (
    /\.image$/.test(violation.field) &&
    /is required when cluster\.version is not set/.test(violation.description)
  ) {
    return {
      field: "cluster.version",
      description: "is required, unless an image is given",
    };
  }
  return replicasAboveMax(violation);
}

/**
 * The API says a group's max is less than its replicas; the number the
 * person means to start with is Replicas, so that is where it is said.
 * @param {import("./api.js").FieldViolation} violation
 */
function replicasAboveMax(violation) {
  const at = /^(.*workerGroupSpec\[\d+\])\.maxReplicas$/.exec(
    violation.field,
  );
  if (!at || !/less than replicas/.test(violation.description)) {
    return violation;
  }
  return {
    field: `${at[1]}.replicas`,
    description: "must not be more than Max",
  };
}

/**
 * The cluster the form describes; an image given is every group's.
 * @param {CreateForm} form
 */
function readCluster(form) {
  const imageValue = form.image.value.trim();
  const image = imageValue ? { image: imageValue } : {};
  return {
    name: form.name.value.trim(),
    namespace: form.namespace.value.trim(),
    // Corral knows who is signed in: an empty owner is them.
    user: form.user.value.trim() || defaultOwner(),
    version: form.version.value.trim(),
    ...(form.queue.value.trim() ? { queue: form.queue.value.trim() } : {}),
    clusterSpec: {
      headGroupSpec: { computeTemplate: form.headTemplate.value, ...image },
      workerGroupSpec: [...form.groups.children].map((row) => {
        const [groupName, computeTemplate, replicas, min, max] =
          /** @type {NodeListOf<HTMLInputElement>} */ (row
            .querySelectorAll("input, select"));
        return {
          groupName: groupName.value.trim(),
          computeTemplate: computeTemplate.value,
          replicas: Number(replicas.value),
          minReplicas: Number(min.value),
          maxReplicas: Number(max.value),
          ...image,
        };
      }),
    },
    envs: Object.fromEntries(
      [...form.envs.children].map((row) =>
        [...row.querySelectorAll("input")].map((i) => i.value.trim())
      ).filter(([k]) => k),
    ),
  };
}
