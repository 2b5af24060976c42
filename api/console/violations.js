// @ts-check
/// <reference lib="dom" />
/**
 * The API's field violations, shown next to the fields they name: each
 * input carries its request field in data-field (or a pattern of them in
 * data-also), and its error paragraph is "<id>-error".
 */
import { ApiError, errorMessage } from "./api.js";

/**
 * Clears the form's errors: no field marked invalid, no message.
 * @param {HTMLFormElement} form
 */
export function clearViolations(form) {
  for (const element of form.querySelectorAll("[aria-invalid]")) {
    element.removeAttribute("aria-invalid");
  }
  for (const p of form.querySelectorAll(".error")) p.textContent = "";
}

/**
 * Puts the error's field violations next to the fields they name, the rest
 * (or the error's message) in the banner, and the focus on the first field
 * in error.
 * @param {HTMLFormElement} form
 * @param {unknown} error
 * @param {HTMLElement} banner
 */
export function showViolations(form, error, banner) {
  clearViolations(form);
  const violations = error instanceof ApiError ? error.violations : [];
  /** @type {string[]} */
  const unplaced = [];
  const inputs = /** @type {HTMLElement[]} */ ([
    ...form.querySelectorAll("[data-field]"),
  ]);
  for (const violation of violations) {
    const input = inputs.find((element) =>
      element.dataset.field === violation.field ||
      (element.dataset.also &&
        new RegExp(element.dataset.also).test(violation.field))
    );
    if (!input) {
      unplaced.push(`${violation.field}: ${violation.description}`);
      continue;
    }
    input.setAttribute("aria-invalid", "true");
    const p = /** @type {HTMLElement} */ (
      document.getElementById(`${input.id}-error`)
    );
    // One field may stand for several (the image is every group's): say
    // each thing once.
    const said = p.textContent ? p.textContent.split("; ") : [];
    if (!said.includes(violation.description)) said.push(violation.description);
    p.textContent = said.join("; ");
  }
  banner.textContent = violations.length && unplaced.length === 0
    ? ""
    : unplaced.length
    ? unplaced.join("; ")
    : errorMessage(error);
  /** @type {HTMLElement | null} */ (form.querySelector("[aria-invalid]"))
    ?.focus();
}
