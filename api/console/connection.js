// @ts-check
/// <reference lib="dom" />
/**
 * Whether Corral answers, and what the page does while it does not: a
 * banner saying since when it is unreachable and that what is shown may
 * be stale, and every write action (submit, primary, danger and
 * `data-write` buttons) disabled until it answers again. The watch
 * (watch.js) and every call (api.js) report here; nothing else decides.
 * While unreachable, /healthz is asked every PROBE_MS, so the page knows
 * Corral is back even when the watch waits on a request that hangs.
 */
import { byId } from "./html.js";

/** The buttons that change something, or need Corral to answer at once. */
const WRITE_ACTIONS =
  "button[type=submit], button.primary, button.danger, [data-write]";

/** The message a call that cannot reach Corral fails with. */
export const UNREACHABLE =
  "Cannot reach Corral: it did not answer. Nothing was changed; try again once it is back";

/** How often a Corral gone is asked whether it is back. */
const PROBE_MS = 1_000;

/** When Corral stopped answering, or null while it answers. */
let since = /** @type {Date | null} */ (null);

/** The probe's timer, while Corral is unreachable. */
let probe = /** @type {ReturnType<typeof setInterval> | undefined} */ (
  undefined
);

/** Run when Corral answers again (onReachableAgain). */
const whenBack = /** @type {(() => void)[]} */ ([]);

/**
 * Runs `callback` each time Corral answers after being unreachable: the
 * watch starts afresh then, as a restarted Corral's versions are new.
 * @param {() => void} callback
 */
export function onReachableAgain(callback) {
  whenBack.push(callback);
}

/** Asks /healthz whether Corral is back; any answer means it is. */
async function askHealth() {
  try {
    const response = await fetch("/healthz", { cache: "no-store" });
    await response.body?.cancel();
    reportReachable();
  } catch {
    // Still gone: asked again in PROBE_MS.
  }
}

/**
 * Disables the write actions views draw while Corral is unreachable; made
 * on first need, so that the module loads where there is no DOM (tests).
 * @type {MutationObserver | undefined}
 */
let observer;

/** Whether Corral is known to be unreachable now. */
export function unreachable() {
  return since !== null;
}

/** Notes that Corral did not answer: shows the banner, disables writes. */
export function reportUnreachable() {
  if (since) return;
  since = new Date();
  const banner = byId("offline");
  banner.textContent =
    `Corral has been unreachable since ${since.toLocaleTimeString()}: what is shown may be stale, and changes are disabled until it answers again.`;
  banner.hidden = false;
  document.body.classList.add("offline");
  disableWrites();
  observer ??= new MutationObserver(() => disableWrites());
  observer.observe(byId("main"), { childList: true, subtree: true });
  probe = setInterval(askHealth, PROBE_MS);
}

/** Notes that Corral answered: hides the banner, enables writes again. */
export function reportReachable() {
  if (!since) return;
  since = null;
  clearInterval(probe);
  observer?.disconnect();
  byId("offline").hidden = true;
  document.body.classList.remove("offline");
  for (const element of document.querySelectorAll("[data-offline]")) {
    const button = /** @type {HTMLButtonElement} */ (element);
    delete button.dataset.offline;
    button.disabled = false;
  }
  for (const callback of whenBack) callback();
}

/**
 * Disables the page's write actions that are enabled, marking them so
 * that only those are enabled again (a delete button waiting for the
 * name stays disabled).
 */
function disableWrites() {
  for (const element of byId("main").querySelectorAll(WRITE_ACTIONS)) {
    const button = /** @type {HTMLButtonElement} */ (element);
    if (button.disabled) continue;
    button.disabled = true;
    button.dataset.offline = "";
  }
}
