// @ts-check
/// <reference lib="dom" />
/**
 * What the console keeps in the browser's storage, and the one module that
 * touches it: the token (this tab only), the namespace last worked in (this
 * tab) and the owner last named on the create form (every tab). A single
 * sign-on keeps its refresh token and where to use it in this tab only
 * too, and the request on its way to the issuer (its state and PKCE
 * verifier) until the issuer sends the browser back: never in
 * localStorage, which outlives the tab.
 */

const TOKEN_KEY = "corral-token";
const REFRESH_KEY = "corral-refresh-token";
const SSO_CLIENT_KEY = "corral-sso-client";
const SSO_REQUEST_KEY = "corral-sso-request";
const NAMESPACE_KEY = "corral-ns";
const USER_KEY = "corral-user";

/** The token this tab signed in with, or null. */
export function token() {
  return sessionStorage.getItem(TOKEN_KEY);
}

/** @param {string} value */
export function setToken(value) {
  sessionStorage.setItem(TOKEN_KEY, value);
}

export function clearToken() {
  sessionStorage.removeItem(TOKEN_KEY);
  clearSsoRefresh();
}

/**
 * What a single sign-on keeps to renew the tab's ID token: the refresh
 * token, and the issuer's token endpoint and client id.
 * @typedef {{ refreshToken: string, tokenEndpoint: string, clientId: string }} SsoRefresh
 */

/** @returns {SsoRefresh | null} */
export function ssoRefresh() {
  const refreshToken = sessionStorage.getItem(REFRESH_KEY);
  const client = parsedItem(SSO_CLIENT_KEY);
  return refreshToken && client ? { refreshToken, ...client } : null;
}

/** @param {SsoRefresh} refresh */
export function setSsoRefresh({ refreshToken, tokenEndpoint, clientId }) {
  sessionStorage.setItem(REFRESH_KEY, refreshToken);
  sessionStorage.setItem(
    SSO_CLIENT_KEY,
    JSON.stringify({ tokenEndpoint, clientId }),
  );
}

/** Forgets what renews the tab's ID token: the single sign-on is over. */
export function clearSsoRefresh() {
  sessionStorage.removeItem(REFRESH_KEY);
  sessionStorage.removeItem(SSO_CLIENT_KEY);
}

/**
 * A sign-in on its way to the issuer: what the redirect back is checked
 * against and the code exchanged with.
 * @typedef {{ state: string, verifier: string, tokenEndpoint: string, clientId: string, redirectUri: string, returnTo: string }} SsoRequest
 */

/** @param {SsoRequest} request */
export function rememberSsoRequest(request) {
  sessionStorage.setItem(SSO_REQUEST_KEY, JSON.stringify(request));
}

/**
 * The sign-in on its way, forgotten as it is read: a redirect back is
 * taken once.
 * @returns {SsoRequest | null}
 */
export function takeSsoRequest() {
  const request = parsedItem(SSO_REQUEST_KEY);
  sessionStorage.removeItem(SSO_REQUEST_KEY);
  return request;
}

/**
 * A JSON item of this tab's storage, or null.
 * @param {string} key
 */
function parsedItem(key) {
  try {
    return JSON.parse(sessionStorage.getItem(key) ?? "null");
  } catch {
    return null;
  }
}

/** The namespace last chosen or created in, or null. */
export function lastNamespace() {
  return sessionStorage.getItem(NAMESPACE_KEY);
}

/** @param {string} namespace */
export function rememberNamespace(namespace) {
  sessionStorage.setItem(NAMESPACE_KEY, namespace);
}

/** The owner last given to a cluster, or null. */
export function lastUser() {
  return localStorage.getItem(USER_KEY);
}

/** @param {string} user */
export function rememberUser(user) {
  localStorage.setItem(USER_KEY, user);
}
