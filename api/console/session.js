// @ts-check
/// <reference lib="dom" />
/**
 * What the console keeps in the browser's storage, and the one module that
 * touches it: the token (this tab only), the namespace last worked in (this
 * tab) and the owner last named on the create form (every tab).
 */

const TOKEN_KEY = "corral-token";
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
