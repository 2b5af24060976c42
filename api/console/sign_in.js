// @ts-check
/// <reference lib="dom" />
/**
 * Signing in and out: the page's sign-in dialog, where a person pastes the
 * token their platform team gave them, and the sign-out button.
 */
import { byId } from "./html.js";
import { clearToken, setToken, token } from "./session.js";
import { endDashboardSessions } from "./api.js";

function tokenInput() {
  return /** @type {HTMLInputElement} */ (byId("token"));
}

/**
 * Asks for a token, saying `message` (why) when there is one.
 * @param {string} [message]
 */
export function signIn(message = "") {
  const dialog = /** @type {HTMLDialogElement} */ (byId("sign-in"));
  byId("sign-in-error").textContent = message;
  if (!dialog.open) dialog.showModal();
  tokenInput().focus();
}

/**
 * Makes the dialog keep the token it is given, then run `onSignedIn`;
 * and the sign-out button, shown while the tab holds a token, forget it.
 * @param {() => void} onSignedIn
 */
export function listenForSignIn(onSignedIn) {
  const signOut = byId("sign-out");
  byId("sign-in-form").addEventListener("submit", () => {
    const given = tokenInput().value.trim();
    if (!given) return;
    setToken(given);
    tokenInput().value = "";
    signOut.hidden = false;
    onSignedIn();
  });
  signOut.hidden = !token();
  signOut.addEventListener("click", async () => {
    // The dashboards' cookies end with the console's sign-in.
    await endDashboardSessions();
    clearToken();
    location.reload();
  });
}
