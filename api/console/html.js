// @ts-check
/// <reference lib="dom" />
/**
 * Building the page: elements (h), a page's panels, labelled form fields
 * and the forms the console sends, and putting a view on the page.
 */

/**
 * What an attribute can be given as: a listener for an `on…` name; for the
 * others, a value (true for an empty attribute; false, null or undefined
 * for none).
 * @typedef {string | number | boolean | null | undefined | ((event: Event) => void)} AttributeValue
 */

/**
 * What a child can be given as: a node, text, an array of them (flattened
 * once), or false, null or undefined for nothing.
 * @typedef {Node | string | number | boolean | null | undefined} Leaf
 * @typedef {Leaf | Leaf[]} Child
 */

/**
 * An element: h("a", {href: "#", class: "x", onclick}, "text", child).
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {Record<string, AttributeValue>} [attributes]
 * @param {Child[]} children
 * @returns {HTMLElementTagNameMap[K]}
 */
export function h(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === null || value === false) continue;
    if (typeof value === "function") {
      element.addEventListener(name.slice(2), value);
    } else if (name === "value") {
      /** @type {HTMLInputElement} */ (element).value = String(value);
    } else element.setAttribute(name, value === true ? "" : String(value));
  }
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === false) continue;
    element.append(child instanceof Node ? child : String(child));
  }
  return element;
}

/**
 * A page's panel: a section titled by its h2, `id` naming both.
 * @param {string} id
 * @param {string} title
 * @param {Child[]} children
 */
export function panel(id, title, ...children) {
  return h(
    "section",
    { class: "panel", "aria-labelledby": id },
    h("h2", { id }, title),
    ...children,
  );
}

/**
 * A form field: its label, the input (given `id`, and `fieldPath`, the
 * request field the API names in its violations) and the paragraph for
 * its error.
 * @param {string} label
 * @param {string} id
 * @param {HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement} input
 * @param {string} [fieldPath]
 */
export function field(label, id, input, fieldPath) {
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

/**
 * A form the console sends itself: `send` runs on submit, the form's
 * button (`submit`, under its content) disabled until it is done, so that
 * it is not sent twice. The
 * browser's own checks are off: the API's violations are shown next to
 * the fields they name instead (violations.js).
 * @param {string} id
 * @param {{ id: string, label: string }} submit the button's id and label
 * @param {(form: HTMLFormElement) => Promise<void>} send
 * @param {Child[]} children
 */
export function sentForm(id, submit, send, ...children) {
  const button = h(
    "button",
    { type: "submit", class: "primary", id: submit.id },
    submit.label,
  );
  const form = h(
    "form",
    {
      id,
      novalidate: true,
      onsubmit: async (event) => {
        event.preventDefault();
        button.disabled = true;
        try {
          await send(form);
        } finally {
          button.disabled = false;
          // Disabled, the button lost the focus: it has it back, unless
          // the send gave it to something else (the first field in error).
          if (document.activeElement === document.body) button.focus();
        }
      },
    },
    ...children,
    h("div", { class: "actions" }, button),
  );
  return form;
}

/**
 * The element of the page with this id, which the page always has.
 * @param {string} id
 * @returns {HTMLElement}
 */
export function byId(id) {
  const element = document.getElementById(id);
  if (!element) throw new Error(`The page has no element "${id}"`);
  return element;
}

/**
 * Shows a view: its nodes become the page's main content.
 * @param {Child[]} children
 */
export function showPage(...children) {
  byId("main").replaceChildren(
    ...children.flat().filter((child) =>
      child !== undefined && child !== null && child !== false
    ).map((child) => child instanceof Node ? child : String(child)),
  );
}
