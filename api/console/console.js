// Corral's console: clusters and compute templates for people who do not
// know Kubernetes, through Corral's own HTTP API (so through its sign-in,
// authorization and TLS). No framework and no build step: the page, this
// script and its stylesheet are all it loads. The cluster list and a
// cluster's page follow WatchClusters (newline-delimited JSON over fetch,
// which, unlike EventSource, can send the token), so nothing polls.
"use strict";

const WATCH = "/apis/v1alpha2/watch/clusters";
const TOKEN_KEY = "corral-token";
const main = document.getElementById("main");
const live = document.getElementById("live");

/** What the watch says: clusters by "namespace/name", and how far it is. */
const clusters = new Map();
const watch = { resourceVersion: "", synced: false, controller: null };

// ---------------------------------------------------------------- the API

class ApiError extends Error {
  constructor(status, body) {
    super(body?.message ?? `HTTP ${status}`);
    this.status = status;
    this.code = body?.code;
    this.violations = (body?.details ?? []).flatMap((d) =>
      d.fieldViolations ?? []
    );
  }
}

function headers(json) {
  const result = {};
  const token = sessionStorage.getItem(TOKEN_KEY);
  if (token) result.authorization = `Bearer ${token}`;
  if (json) result["content-type"] = "application/json";
  return result;
}

/** One call; its JSON answer, or an ApiError. A 401 asks for a token. */
async function api(method, path, body) {
  const response = await fetch(path, {
    method,
    headers: headers(body !== undefined),
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  const json = text ? JSON.parse(text) : {};
  if (response.status === 401) {
    signIn("Your token was not accepted: sign in again.");
    throw new ApiError(401, json);
  }
  if (!response.ok) throw new ApiError(response.status, json);
  return json;
}

const path = {
  cluster: (ns, name) =>
    `/apis/v1alpha2/namespaces/${encodeURIComponent(ns)}/clusters/${
      encodeURIComponent(name)
    }`,
  clusters: (ns) =>
    `/apis/v1alpha2/namespaces/${encodeURIComponent(ns)}/clusters`,
  templates: (ns) =>
    ns === undefined
      ? "/apis/v1/compute_templates"
      : `/apis/v1/namespaces/${encodeURIComponent(ns)}/compute_templates`,
  template: (ns, name) =>
    `/apis/v1/namespaces/${encodeURIComponent(ns)}/compute_templates/${
      encodeURIComponent(name)
    }`,
};

// -------------------------------------------------------------- sign-in

const signInDialog = document.getElementById("sign-in");
const signInError = document.getElementById("sign-in-error");
const signOut = document.getElementById("sign-out");

function signIn(message = "") {
  signInError.textContent = message;
  if (!signInDialog.open) signInDialog.showModal();
  document.getElementById("token").focus();
}

document.getElementById("sign-in-form").addEventListener("submit", () => {
  const token = document.getElementById("token").value.trim();
  if (!token) return;
  sessionStorage.setItem(TOKEN_KEY, token);
  document.getElementById("token").value = "";
  signOut.hidden = false;
  restartWatch();
  route();
});

signOut.hidden = !sessionStorage.getItem(TOKEN_KEY);
signOut.addEventListener("click", () => {
  sessionStorage.removeItem(TOKEN_KEY);
  location.reload();
});

// ---------------------------------------------------------------- watch

function key(cluster) {
  return `${cluster.namespace}/${cluster.name}`;
}

function showLive(text) {
  live.textContent = text;
}

/** Follows WatchClusters for good: resumes where it was, or starts afresh. */
async function watchClusters() {
  let backoff = 500;
  for (;;) {
    const controller = new AbortController();
    watch.controller = controller;
    const fresh = watch.resourceVersion === "";
    const seen = new Set();
    try {
      const query = fresh
        ? ""
        : `?resourceVersion=${encodeURIComponent(watch.resourceVersion)}`;
      const response = await fetch(`${WATCH}${query}`, {
        headers: headers(false),
        signal: controller.signal,
      });
      if (response.status === 401) {
        showLive("Signed out");
        signIn();
        await new Promise((resolve) => watch.wake = resolve);
        continue;
      }
      if (response.status === 409) {
        watch.resourceVersion = ""; // too old: start afresh
        continue;
      }
      if (!response.ok) {
        const body = await response.json().catch(() => ({}));
        showLive(`Not live: ${body.message ?? `HTTP ${response.status}`}`);
        throw new Error("not watching");
      }
      showLive(fresh ? "Loading…" : "Live");
      backoff = 500;
      const reader = response.body.pipeThrough(new TextDecoderStream())
        .getReader();
      let buffered = "";
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffered += value;
        let at;
        while ((at = buffered.indexOf("\n")) >= 0) {
          const line = JSON.parse(buffered.slice(0, at));
          buffered = buffered.slice(at + 1);
          if (line.error) throw new Error(line.error.message);
          apply(line.result, fresh, seen);
        }
        changed();
      }
    } catch (error) {
      if (controller.signal.aborted) continue;
      if (!String(error.message).includes("not watching")) {
        showLive("Reconnecting…");
      }
    }
    await new Promise((resolve) => setTimeout(resolve, backoff));
    backoff = Math.min(backoff * 2, 10_000);
  }
}

function apply(result, fresh, seen) {
  const { type, cluster, resourceVersion } = result;
  if (type === "BOOKMARK") {
    if (fresh && !watch.synced) {
      // The state is in: what this watch did not send is gone.
      for (const k of [...clusters.keys()]) {
        if (!seen.has(k)) clusters.delete(k);
      }
    }
    watch.synced = true;
    watch.resourceVersion = resourceVersion;
    showLive("Live");
    return;
  }
  if (resourceVersion) watch.resourceVersion = resourceVersion;
  if (type === "DELETED") clusters.delete(key(cluster));
  else {
    clusters.set(key(cluster), cluster);
    seen.add(key(cluster));
  }
}

function restartWatch() {
  watch.resourceVersion = "";
  watch.synced = false;
  watch.controller?.abort();
  watch.wake?.();
}

let pending = false;
/** Redraws what shows clusters, once per frame however many changes came. */
function changed() {
  if (pending) return;
  pending = true;
  requestAnimationFrame(() => {
    pending = false;
    current?.update?.();
  });
}

// ------------------------------------------------------------- helpers

/** An element: h("a", {href: "#", class: "x", onclick}, "text", child). */
/** A page's panel: a section titled by its h2, `id` naming both. */
function panel(id, title, ...children) {
  return h(
    "section",
    { class: "panel", "aria-labelledby": id },
    h("h2", { id }, title),
    ...children,
  );
}

function h(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith("on")) element.addEventListener(name.slice(2), value);
    else if (name === "value") element.value = value;
    else element.setAttribute(name, value === true ? "" : String(value));
  }
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === false) continue;
    element.append(child instanceof Node ? child : String(child));
  }
  return element;
}

/** Age as kubectl prints it: 45s, 12m, 3h, 5d. */
function age(timestamp) {
  if (!timestamp) return "";
  const seconds = Math.max(0, (Date.now() - Date.parse(timestamp)) / 1000);
  if (seconds < 120) return `${Math.floor(seconds)}s`;
  if (seconds < 7200) return `${Math.floor(seconds / 60)}m`;
  if (seconds < 172800) return `${Math.floor(seconds / 3600)}h`;
  return `${Math.floor(seconds / 86400)}d`;
}

function stateBadge(state) {
  const text = state || "pending";
  const kind = text === "ready"
    ? "ready"
    : text === "failed"
    ? "failed"
    : text === "pending" || text === ""
    ? "pending"
    : "other";
  return h("span", { class: `state ${kind}` }, text);
}

function workers(cluster) {
  return (cluster.clusterSpec?.workerGroupSpec ?? [])
    .reduce((sum, group) => sum + (group.replicas ?? 0), 0);
}

function field(label, id, input, fieldPath) {
  input.id = id;
  if (fieldPath) input.dataset.field = fieldPath;
  input.setAttribute("aria-describedby", `${id}-error`);
  return h(
    "div",
    {},
    h("label", { for: id }, label),
    input,
    h("p", { class: "error", id: `${id}-error` }),
  );
}

/** Puts the API's field violations next to the fields they name. */
function showViolations(form, error, banner) {
  for (const element of form.querySelectorAll("[aria-invalid]")) {
    element.removeAttribute("aria-invalid");
  }
  for (const p of form.querySelectorAll(".error")) p.textContent = "";
  const unplaced = [];
  for (const violation of error.violations ?? []) {
    const input = [...form.querySelectorAll("[data-field]")].find((element) =>
      element.dataset.field === violation.field ||
      (element.dataset.also &&
        new RegExp(element.dataset.also).test(violation.field))
    );
    if (!input) {
      unplaced.push(`${violation.field}: ${violation.description}`);
      continue;
    }
    input.setAttribute("aria-invalid", "true");
    const p = document.getElementById(`${input.id}-error`);
    p.textContent = p.textContent
      ? `${p.textContent}; ${violation.description}`
      : violation.description;
  }
  banner.textContent = error.violations?.length && unplaced.length === 0
    ? ""
    : unplaced.length
    ? unplaced.join("; ")
    : error.message;
  form.querySelector("[aria-invalid]")?.focus();
}

// ---------------------------------------------------------------- views

let current = null;

function clustersView() {
  const filter = { ns: sessionStorage.getItem("corral-ns") ?? "", text: "" };
  const namespaceSelect = h("select", {
    id: "ns-filter",
    onchange: (e) => {
      filter.ns = e.target.value;
      sessionStorage.setItem("corral-ns", filter.ns);
      update();
    },
  });
  const search = h("input", {
    id: "text-filter",
    type: "search",
    placeholder: "name, user or version",
    oninput: (e) => {
      filter.text = e.target.value.trim().toLowerCase();
      update();
    },
  });
  const body = h("tbody");
  const empty = h("p", { class: "empty" });
  main.replaceChildren(
    h("h1", {}, "Clusters"),
    h(
      "div",
      { class: "filters" },
      h(
        "div",
        {},
        h("label", { for: "ns-filter" }, "Namespace"),
        namespaceSelect,
      ),
      h("div", {}, h("label", { for: "text-filter" }, "Search"), search),
    ),
    h(
      "table",
      { id: "clusters" },
      h(
        "thead",
        {},
        h(
          "tr",
          {},
          ["Namespace", "Name", "State", "User", "Version", "Workers", "Age"]
            .map((t) => h("th", { class: t === "Workers" ? "num" : "" }, t)),
        ),
      ),
      body,
    ),
    empty,
  );
  function update() {
    const namespaces = [
      ...new Set([...clusters.values()].map((c) => c.namespace)),
    ]
      .sort();
    namespaceSelect.replaceChildren(
      h("option", { value: "" }, "All namespaces"),
      ...namespaces.map((ns) => h("option", { value: ns }, ns)),
    );
    namespaceSelect.value = namespaces.includes(filter.ns) ? filter.ns : "";
    const shown = [...clusters.values()]
      .filter((c) => !filter.ns || c.namespace === filter.ns)
      .filter((c) =>
        !filter.text ||
        [c.name, c.user, c.version].some((v) =>
          String(v ?? "").toLowerCase().includes(filter.text)
        )
      )
      .sort((a, b) => key(a).localeCompare(key(b)));
    body.replaceChildren(...shown.map((c) =>
      h(
        "tr",
        { "data-cluster": key(c) },
        h("td", {}, c.namespace),
        h("td", {}, h("a", { href: `#/clusters/${key(c)}` }, c.name)),
        h("td", {}, stateBadge(c.clusterState)),
        h("td", {}, c.user),
        h("td", {}, c.version || c.clusterSpec?.headGroupSpec?.image || ""),
        h("td", { class: "num" }, workers(c)),
        h("td", { title: c.createdAt ?? "" }, age(c.createdAt)),
      )
    ));
    empty.textContent = !watch.synced
      ? "Loading…"
      : shown.length > 0
      ? ""
      : clusters.size > 0
      ? "No cluster matches the filter."
      : "No clusters yet: create one.";
  }
  update();
  return { update };
}

function clusterView(namespace, name) {
  const drafts = new Map();
  const banner = h("p", { class: "banner", role: "alert" });
  let deleting = false;
  function update() {
    const cluster = clusters.get(`${namespace}/${name}`);
    const focused = document.activeElement?.id;
    if (!cluster) {
      main.replaceChildren(
        h("h1", {}, `${namespace}/${name}`),
        h(
          "p",
          { class: "empty", id: "gone" },
          !watch.synced
            ? "Loading…"
            : deleting
            ? "The cluster was deleted."
            : "There is no such cluster (it may have been deleted).",
        ),
        h("p", {}, h("a", { href: "#/clusters" }, "Back to the clusters")),
      );
      return;
    }
    const head = cluster.clusterSpec?.headGroupSpec ?? {};
    const groups = cluster.clusterSpec?.workerGroupSpec ?? [];
    const events = [...(cluster.events ?? [])].sort((a, b) =>
      String(a.lastTimestamp ?? a.createdAt).localeCompare(
        String(b.lastTimestamp ?? b.createdAt),
      )
    );
    const endpoints = Object.entries(cluster.serviceEndpoint ?? {});
    const envs = Object.entries(cluster.envs ?? {});
    const confirm = h("input", {
      id: "delete-confirm",
      autocomplete: "off",
      value: drafts.get("delete") ?? "",
      oninput: (e) => {
        drafts.set("delete", e.target.value);
        deleteButton.disabled = e.target.value !== name;
      },
    });
    const deleteButton = h("button", {
      type: "button",
      class: "danger",
      id: "delete",
      disabled: (drafts.get("delete") ?? "") !== name,
      onclick: async () => {
        deleteButton.disabled = true;
        try {
          await api("DELETE", path.cluster(namespace, name));
          deleting = true;
          banner.textContent = "";
        } catch (error) {
          banner.textContent = error.message;
          deleteButton.disabled = false;
        }
      },
    }, "Delete cluster");
    main.replaceChildren(
      h("p", {}, h("a", { href: "#/clusters" }, "← Clusters")),
      h("h1", {}, `${cluster.name} `, stateBadge(cluster.clusterState)),
      banner,
      panel(
        "about",
        "About",
        h(
          "dl",
          { class: "facts" },
          h("dt", {}, "Namespace"),
          h("dd", {}, cluster.namespace),
          h("dt", {}, "Owner"),
          h("dd", {}, cluster.user),
          h("dt", {}, "Runs"),
          h(
            "dd",
            {},
            cluster.version
              ? `version ${cluster.version}`
              : `image ${head.image ?? ""}`,
          ),
          h("dt", {}, "Environment"),
          h("dd", {}, String(cluster.environment ?? "").toLowerCase()),
          h("dt", {}, "Created"),
          h(
            "dd",
            { title: cluster.createdAt ?? "" },
            `${age(cluster.createdAt)} ago`,
          ),
          h("dt", {}, "Head node"),
          h(
            "dd",
            {},
            `compute template ${head.computeTemplate ?? ""}`,
            head.image ? `, image ${head.image}` : "",
            head.serviceType ? `, reachable as ${head.serviceType}` : "",
          ),
        ),
      ),
      panel(
        "workers",
        "Worker groups",
        groups.length === 0
          ? h(
            "p",
            { class: "muted" },
            "No worker groups: the head node does all the work.",
          )
          : h(
            "table",
            {},
            h(
              "thead",
              {},
              h(
                "tr",
                {},
                ["Group", "Compute template", "Replicas", "Min", "Max", ""]
                  .map((t) => h("th", {}, t)),
              ),
            ),
            h(
              "tbody",
              {},
              groups.map((group, i) => scaleRow(cluster, groups, group, i)),
            ),
          ),
      ),
      endpoints.length > 0 &&
        panel(
          "endpoints",
          "Service endpoints",
          h(
            "dl",
            { class: "facts" },
            endpoints.flatMap((
              [k, v],
            ) => [h("dt", {}, k), h("dd", {}, h("code", {}, v))]),
          ),
        ),
      envs.length > 0 &&
        panel(
          "envs",
          "Environment variables",
          h(
            "dl",
            { class: "facts" },
            envs.flatMap((
              [k, v],
            ) => [
              h("dt", {}, h("code", {}, k)),
              h("dd", {}, h("code", {}, v)),
            ]),
          ),
        ),
      panel(
        "events",
        "Events",
        events.length === 0
          ? h("p", { class: "muted" }, "Nothing has happened yet.")
          : h(
            "ol",
            { class: "timeline", id: "timeline" },
            events.map((event) =>
              h(
                "li",
                { class: event.type === "Warning" ? "warning" : "" },
                h("span", { class: "reason" }, event.reason),
                " ",
                h(
                  "span",
                  { class: "muted" },
                  `${age(event.lastTimestamp ?? event.createdAt)} ago`,
                  event.count > 1 ? ` (×${event.count})` : "",
                ),
                h("div", {}, event.message),
              )
            ),
          ),
      ),
      panel(
        "danger",
        "Delete",
        h(
          "label",
          { for: "delete-confirm" },
          `Type the cluster's name (${name}) to delete it, with everything it runs.`,
        ),
        h("div", { class: "scale" }, confirm, deleteButton),
      ),
    );
    if (focused) document.getElementById(focused)?.focus();
  }

  /** A worker group's row, its replicas changed in place (UpdateCluster). */
  function scaleRow(cluster, groups, group, i) {
    const id = `replicas-${i}`;
    const input = h("input", {
      id,
      type: "number",
      min: group.minReplicas ?? 0,
      max: group.maxReplicas ?? undefined,
      value: drafts.get(id) ?? group.replicas ?? 0,
      "aria-label": `Replicas of ${group.groupName}`,
      "aria-describedby": `${id}-error`,
      oninput: (e) => drafts.set(id, e.target.value),
    });
    const error = h("p", { class: "error", id: `${id}-error` });
    const save = h("button", {
      type: "button",
      id: `scale-${i}`,
      onclick: async () => {
        save.disabled = true;
        error.textContent = "";
        const replicas = Number(input.value);
        const workerGroupSpec = groups.map((g, j) =>
          j === i ? { ...g, replicas } : g
        );
        try {
          await api(
            "PATCH",
            `${
              path.cluster(cluster.namespace, cluster.name)
            }?updateMask=clusterSpec.workerGroupSpec`,
            { clusterSpec: { workerGroupSpec }, etag: cluster.etag },
          );
          drafts.delete(id);
        } catch (e) {
          error.textContent = e.code === 10
            ? "The cluster changed meanwhile: check the numbers and save again."
            : (e.violations?.map((v) => v.description).join("; ") || e.message);
        } finally {
          save.disabled = false;
        }
      },
    }, "Scale");
    return h(
      "tr",
      { "data-group": group.groupName },
      h("td", {}, group.groupName),
      h("td", {}, group.computeTemplate),
      h("td", {}, h("div", { class: "scale" }, input, save), error),
      h("td", {}, group.minReplicas ?? 0),
      h("td", {}, group.maxReplicas ?? ""),
    );
  }
  update();
  return { update };
}

async function templateOptions(namespace) {
  try {
    const answer = await api("GET", path.templates(namespace));
    return (answer.computeTemplates ?? []).map((t) => t.name).sort();
  } catch {
    return [];
  }
}

function createView() {
  const banner = h("p", { class: "banner", role: "alert" });
  const namespaces = [
    ...new Set([...clusters.values()].map((c) => c.namespace)),
  ];
  const namespace = h("input", {
    list: "namespaces",
    value: sessionStorage.getItem("corral-ns") || namespaces[0] || "default",
    onchange: () => refreshTemplates(),
  });
  const name = h("input", { autocomplete: "off" });
  const user = h("input", { value: localStorage.getItem("corral-user") ?? "" });
  const version = h("input", { placeholder: "e.g. 2.9.0" });
  const image = h("input", {
    placeholder: "or an image, e.g. rayproject/ray:2.9.0",
    "data-also": "\\.image$",
  });
  const headTemplate = h("select", {});
  const templateSelects = [headTemplate];
  const groups = h("div", { class: "rows", id: "groups" });
  const envs = h("div", { class: "rows", id: "envs" });
  let groupCount = 0;
  let envCount = 0;

  async function refreshTemplates() {
    const names = await templateOptions(namespace.value.trim());
    for (const select of templateSelects) {
      const chosen = select.value;
      select.replaceChildren(
        h(
          "option",
          { value: "" },
          names.length ? "Choose…" : "No templates in this namespace",
        ),
        ...names.map((n) => h("option", { value: n }, n)),
      );
      select.value = names.includes(chosen) ? chosen : names[0] ?? "";
    }
  }

  function addGroup() {
    const i = groupCount++;
    const at = `cluster.clusterSpec.workerGroupSpec[${groups.children.length}]`;
    const template = h("select", {});
    templateSelects.push(template);
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
      field(
        "Replicas",
        `g${i}-replicas`,
        h("input", { type: "number", value: 1, min: 0 }),
        `${at}.replicas`,
      ),
      field(
        "Min",
        `g${i}-min`,
        h("input", { type: "number", value: 0, min: 0 }),
        `${at}.minReplicas`,
      ),
      field(
        "Max",
        `g${i}-max`,
        h("input", { type: "number", value: 4, min: 0 }),
        `${at}.maxReplicas`,
      ),
      h(
        "div",
        {},
        h("label", {}, "\u00a0"),
        h("button", {
          type: "button",
          "aria-label": "Remove this worker group",
          onclick: () => {
            templateSelects.splice(templateSelects.indexOf(template), 1);
            row.remove();
            renumber();
          },
        }, "Remove"),
      ),
    );
    groups.append(row);
    refreshTemplates();
  }

  /** Field paths follow the groups' order in the request. */
  function renumber() {
    [...groups.children].forEach((row, index) => {
      for (const input of row.querySelectorAll("[data-field]")) {
        input.dataset.field = input.dataset.field.replace(
          /workerGroupSpec\[\d+\]/,
          `workerGroupSpec[${index}]`,
        );
      }
    });
  }

  function addEnv() {
    const i = envCount++;
    const nameInput = h("input", {
      oninput: () =>
        nameInput.dataset.field = `cluster.envs["${nameInput.value}"]`,
    });
    const row = h(
      "div",
      { class: "row env", "data-row": "env" },
      field("Variable", `e${i}-name`, nameInput, `cluster.envs[""]`),
      field("Value", `e${i}-value`, h("input", {})),
      h(
        "div",
        {},
        h("label", {}, "\u00a0"),
        h("button", {
          type: "button",
          "aria-label": "Remove this variable",
          onclick: () => row.remove(),
        }, "Remove"),
      ),
    );
    envs.append(row);
  }

  const form = h(
    "form",
    {
      id: "create-form",
      novalidate: true,
      onsubmit: async (e) => {
        e.preventDefault();
        const ns = namespace.value.trim();
        const imageValue = image.value.trim();
        const cluster = {
          name: name.value.trim(),
          namespace: ns,
          user: user.value.trim(),
          version: version.value.trim(),
          clusterSpec: {
            headGroupSpec: {
              computeTemplate: headTemplate.value,
              ...(imageValue ? { image: imageValue } : {}),
            },
            workerGroupSpec: [...groups.children].map((row) => {
              const [groupName, computeTemplate, replicas, min, max] = row
                .querySelectorAll("input, select");
              return {
                groupName: groupName.value.trim(),
                computeTemplate: computeTemplate.value,
                replicas: Number(replicas.value),
                minReplicas: Number(min.value),
                maxReplicas: Number(max.value),
                ...(imageValue ? { image: imageValue } : {}),
              };
            }),
          },
          envs: Object.fromEntries(
            [...envs.children].map((row) =>
              [...row.querySelectorAll("input")].map((i) => i.value.trim())
            ).filter(([k]) => k),
          ),
        };
        submit.disabled = true;
        try {
          await api("POST", path.clusters(ns), cluster);
          localStorage.setItem("corral-user", cluster.user);
          sessionStorage.setItem("corral-ns", ns);
          location.hash = `#/clusters/${ns}/${cluster.name}`;
        } catch (error) {
          showViolations(form, error, banner);
        } finally {
          submit.disabled = false;
        }
      },
    },
    banner,
    h(
      "div",
      { class: "grid" },
      field("Name", "name", name, "cluster.name"),
      field("Namespace", "namespace", namespace, "cluster.namespace"),
      field("Owner (user)", "user", user, "cluster.user"),
      field("Version", "version", version, "cluster.version"),
      field("Image", "image", image, "cluster.clusterSpec.headGroupSpec.image"),
      field(
        "Head compute template",
        "head-template",
        headTemplate,
        "cluster.clusterSpec.headGroupSpec.computeTemplate",
      ),
    ),
    h(
      "datalist",
      { id: "namespaces" },
      namespaces.map((ns) => h("option", { value: ns })),
    ),
    h("h2", {}, "Worker groups"),
    groups,
    h(
      "button",
      { type: "button", id: "add-group", onclick: addGroup },
      "Add worker group",
    ),
    h("h2", {}, "Environment variables"),
    envs,
    h(
      "button",
      { type: "button", id: "add-env", onclick: addEnv },
      "Add variable",
    ),
    h("div", { class: "actions" }),
  );
  const submit = h(
    "button",
    { type: "submit", class: "primary", id: "create" },
    "Create cluster",
  );
  form.lastChild.append(submit);
  addGroup();
  main.replaceChildren(h("h1", {}, "Create a cluster"), form);
  name.focus();
  return {};
}

function templatesView() {
  const banner = h("p", { class: "banner", role: "alert" });
  const body = h("tbody");
  const list = h(
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
  async function load() {
    try {
      const answer = await api("GET", path.templates());
      const templates = answer.computeTemplates ?? [];
      body.replaceChildren(...templates.map((t) => {
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
              await api("DELETE", path.template(t.namespace, t.name));
              banner.textContent = "";
              load();
            } catch (error) {
              banner.textContent = error.message;
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
      }));
      if (templates.length === 0) {
        body.replaceChildren(
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
      banner.textContent = error.message;
    }
  }
  const inputs = {
    name: h("input", { autocomplete: "off" }),
    namespace: h("input", {
      value: sessionStorage.getItem("corral-ns") || "default",
    }),
    cpu: h("input", { type: "number", min: 1, value: 2 }),
    memory: h("input", { type: "number", min: 1, value: 4 }),
    gpu: h("input", { type: "number", min: 0, value: 0 }),
    gpuAccelerator: h("input", { placeholder: "e.g. nvidia.com/gpu" }),
  };
  const formBanner = h("p", { class: "banner", role: "alert" });
  const form = h(
    "form",
    {
      id: "template-form",
      novalidate: true,
      onsubmit: async (e) => {
        e.preventDefault();
        const ns = inputs.namespace.value.trim();
        const template = {
          name: inputs.name.value.trim(),
          namespace: ns,
          cpu: Number(inputs.cpu.value),
          memory: Number(inputs.memory.value),
          gpu: Number(inputs.gpu.value),
          ...(inputs.gpuAccelerator.value.trim()
            ? { gpuAccelerator: inputs.gpuAccelerator.value.trim() }
            : {}),
        };
        try {
          await api("POST", path.templates(ns), template);
          showViolations(form, { violations: [] }, formBanner);
          formBanner.textContent = "";
          inputs.name.value = "";
          load();
        } catch (error) {
          showViolations(form, error, formBanner);
        }
      },
    },
    formBanner,
    h(
      "div",
      { class: "grid" },
      ...Object.entries(inputs).map(([k, input]) =>
        field(
          {
            gpuAccelerator: "GPU accelerator",
            cpu: "CPU",
            memory: "Memory (GiB)",
            gpu: "GPU",
          }[k] ??
            k[0].toUpperCase() + k.slice(1),
          `t-${k}`,
          input,
          `computeTemplate.${k}`,
        )
      ),
    ),
    h(
      "div",
      { class: "actions" },
      h(
        "button",
        { type: "submit", class: "primary", id: "create-template" },
        "Create template",
      ),
    ),
  );
  main.replaceChildren(
    h("h1", {}, "Compute templates"),
    h(
      "p",
      { class: "muted" },
      "The sizes clusters are made of: CPU, memory and GPUs per node.",
    ),
    banner,
    list,
    h("h2", {}, "New compute template"),
    form,
  );
  load();
  return {};
}

// --------------------------------------------------------------- router

function route() {
  const parts = location.hash.replace(/^#\/?/, "").split("/").map(
    decodeURIComponent,
  );
  const section = parts[0] || "clusters";
  for (const link of document.querySelectorAll("[data-nav]")) {
    if (link.dataset.nav === section) link.setAttribute("aria-current", "page");
    else link.removeAttribute("aria-current");
  }
  if (section === "clusters" && parts.length >= 3) {
    current = clusterView(parts[1], parts[2]);
  } else if (section === "create") current = createView();
  else if (section === "templates") current = templatesView();
  else current = clustersView();
}

addEventListener("hashchange", route);
route();
watchClusters();
// Ages move on while nothing changes.
setInterval(() => current?.update?.(), 30_000);
