// @ts-check
/// <reference lib="dom" />
/**
 * Signing in and out, and who is signed in: the page's sign-in dialog,
 * where a person pastes the token their platform team gave them (checked
 * with Corral before the tab keeps it) or, where Corral names an OIDC
 * issuer, signs in with it ("Sign in with SSO", sso.js), and the header's
 * account line:
 * the user Corral takes the tab to be (whoami), and one button that reads
 * "Sign in" without a token and "Sign out" with one.
 */
import { byId } from "./html.js";
import { clearToken, setToken, token } from "./session.js";
import { errorMessage, onUnauthorized } from "./api.js";
import { checkToken, endDashboardSessions, whoAmI } from "./api_session.js";
import {
  beginSsoSignIn,
  finishSsoSignIn,
  ssoConfig,
  stopSsoRefresh,
} from "./sso.js";

/** The user Corral takes this tab to be, once known; else "". */
let signedInAs = "";

/**
 * Why the single sign-on this load came back from failed, which the
 * dialog says until a sign-in works; "" when it did not.
 */
let ssoFailure = "";

/** What anonymous callers are, when Corral lets them in. */
const ANONYMOUS = "system:anonymous";

function tokenInput() {
  return /** @type {HTMLInputElement} */ (byId("token"));
}

function dialog() {
  return /** @type {HTMLDialogElement} */ (byId("sign-in"));
}

/**
 * The user Corral takes this tab to be, when a person (not
 * system:anonymous) is signed in; "" until known.
 */
export function currentUser() {
  return signedInAs === ANONYMOUS ? "" : signedInAs;
}

/**
 * Who a new cluster's owner is when the person names none: who is signed
 * in; where Corral lets callers in without credentials (dev mode), what
 * it calls them, system:anonymous, since a cluster needs an owner and
 * Corral fills one in only for an authenticated caller. "" until known.
 */
export function defaultOwner() {
  return signedInAs;
}

/**
 * Asks for a token, saying `message` (why) when there is one, else why the
 * single sign-on this load came back from failed, if it did.
 * @param {string} [message]
 */
export function signIn(message = "") {
  byId("sign-in-error").textContent = message || ssoFailure;
  if (!dialog().open) dialog().showModal();
  tokenInput().focus();
}

/**
 * Shows who is signed in, and the account button as the tab's token
 * makes it: "Sign out" with one, "Sign in" without.
 */
function showAccount() {
  const who = byId("who");
  const user = currentUser();
  who.textContent = user ? `Signed in as ${user}` : "";
  who.hidden = !user;
  byId("account").textContent = token() ? "Sign out" : "Sign in";
}

/**
 * Asks Corral who this tab is and shows it; returns the user, "" when
 * Corral takes the tab for no one (or has not said, being unreachable).
 */
export async function refreshAccount() {
  try {
    signedInAs = (await whoAmI())?.user ?? "";
  } catch {
    // Unreachable: who was signed in still is.
  }
  showAccount();
  return currentUser();
}

/**
 * Checks the dialog's token with Corral: a token it accepts is kept and
 * `onSignedIn` runs; one it refuses keeps the dialog open, saying so.
 * @param {() => void} onSignedIn
 */
async function submitToken(onSignedIn) {
  const given = tokenInput().value.trim();
  if (!given) return;
  const submit = /** @type {HTMLButtonElement} */ (
    byId("sign-in-form").querySelector("button[type=submit]")
  );
  submit.disabled = true;
  try {
    const identity = await checkToken(given);
    if (!identity) {
      signIn(
        "Token not accepted: check that it is the whole token, as given to you.",
      );
      tokenInput().select();
      return;
    }
    // A single sign-on's renewal would replace the pasted token later.
    stopSsoRefresh();
    setToken(given);
    ssoFailure = "";
    signedInAs = identity.user;
    tokenInput().value = "";
    dialog().close();
    showAccount();
    onSignedIn();
  } catch (error) {
    signIn(errorMessage(error));
  } finally {
    submit.disabled = false;
  }
}

/**
 * Shows "Sign in with SSO" in the dialog when Corral names an issuer, and
 * has it send the tab there.
 */
async function offerSso() {
  const config = await ssoConfig();
  if (!config) return;
  const button = /** @type {HTMLButtonElement} */ (byId("sso"));
  byId("sso-offer").hidden = false;
  button.addEventListener("click", async () => {
    button.disabled = true;
    try {
      await beginSsoSignIn(config);
    } catch (error) {
      signIn(errorMessage(error));
      button.disabled = false;
    }
  });
}

/**
 * Ends a single sign-on the issuer sent this tab back from, before the
 * console's first call; resolves with why it failed, "" when it did not.
 */
export async function resumeSignIn() {
  ssoFailure = await finishSsoSignIn();
  return ssoFailure;
}

/**
 * Makes the dialog check and keep the token it is given, then run
 * `onSignedIn`; and the account button sign in or out.
 * @param {() => void} onSignedIn
 */
export function listenForSignIn(onSignedIn) {
  offerSso();
  onUnauthorized(() => signIn("Your token was not accepted: sign in again."));
  byId("sign-in-form").addEventListener("submit", (event) => {
    // The dialog stays open until Corral accepted the token.
    event.preventDefault();
    submitToken(onSignedIn);
  });
  byId("account").addEventListener("click", async () => {
    if (!token()) return signIn();
    // A renewal due meanwhile would sign the tab in again.
    stopSsoRefresh();
    // The dashboards' cookies end with the console's sign-in.
    await endDashboardSessions();
    clearToken();
    location.reload();
  });
  showAccount();
  // A client certificate, or anonymous access, may say who without a token.
  refreshAccount();
}
