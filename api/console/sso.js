// @ts-check
/// <reference lib="dom" />
/**
 * "Sign in with SSO": the authorization code flow with PKCE in the browser
 * (sso_pkce.js), against the OIDC issuer Corral names at
 * /apis/v1alpha2/auth-config. The tab goes to the issuer and comes back to
 * the console's own address (`<origin>/console`, which the issuer must
 * allow as a redirect URI), where the code is exchanged, with the
 * verifier only this tab knows, for an ID token: the tab's token from
 * then on, as a pasted one is. Its refresh token renews it a minute
 * before it expires. All of it is kept in this tab (session.js), never in
 * localStorage; the issuer must let the console's origin call its
 * discovery and token endpoints (CORS).
 */
import { paths, send } from "./api.js";
import {
  clearSsoRefresh,
  rememberSsoRequest,
  setSsoRefresh,
  setToken,
  ssoRefresh,
  takeSsoRequest,
  token,
} from "./session.js";
import {
  authorizationUrl,
  callbackOf,
  challengeOf,
  expiryOf,
  randomValue,
} from "./sso_pkce.js";

/** @typedef {{ issuerUrl: string, clientId: string, scopes: string[] }} SsoConfig */

/** Where the issuer sends the browser back: the console. */
function redirectUri() {
  return `${location.origin}/console`;
}

/** How long before the ID token expires it is renewed. */
const REFRESH_BEFORE_MS = 60_000;

/**
 * Corral's issuer, or null when it has none (or does not say).
 * @returns {Promise<SsoConfig | null>}
 */
export async function ssoConfig() {
  try {
    const response = await send(paths.authConfig, {});
    if (!response.ok) {
      await response.body?.cancel();
      return null;
    }
    return (await response.json())?.oidc ?? null;
  } catch {
    return null;
  }
}

/**
 * The issuer's discovery document, checked to be of `issuerUrl`. Its
 * status is checked before its body is read: a refusal is rarely JSON.
 * @param {string} issuerUrl
 * @returns {Promise<{ authorization_endpoint: string, token_endpoint: string }>}
 */
async function discover(issuerUrl) {
  const unusable = new Error(
    `The issuer ${issuerUrl} cannot be used to sign in`,
  );
  const response = await fetch(
    `${issuerUrl.replace(/\/+$/, "")}/.well-known/openid-configuration`,
  );
  if (!response.ok) {
    await response.body?.cancel();
    throw unusable;
  }
  const metadata = await response.json().catch(() => ({}));
  if (
    metadata.issuer !== issuerUrl ||
    !metadata.authorization_endpoint || !metadata.token_endpoint
  ) {
    throw unusable;
  }
  return metadata;
}

/**
 * Sends the tab to the issuer to sign in; it comes back to the console,
 * where finishSsoSignIn() takes over.
 * @param {SsoConfig} config
 */
export async function beginSsoSignIn(config) {
  const metadata = await discover(config.issuerUrl);
  const verifier = randomValue(32);
  const state = randomValue(16);
  rememberSsoRequest({
    state,
    verifier,
    tokenEndpoint: metadata.token_endpoint,
    clientId: config.clientId,
    redirectUri: redirectUri(),
    returnTo: location.hash,
  });
  location.assign(authorizationUrl(metadata.authorization_endpoint, {
    clientId: config.clientId,
    redirectUri: redirectUri(),
    scopes: config.scopes,
    state,
    challenge: await challengeOf(verifier),
  }));
}

/**
 * Ends a sign-in the issuer sent the tab back from, if this load is one:
 * the code exchanged and the ID token kept. Resolves with what went wrong,
 * "" when nothing did (or this load is no redirect back); the address is
 * cleaned of the code either way.
 * @returns {Promise<string>}
 */
export async function finishSsoSignIn() {
  const params = new URLSearchParams(location.search);
  if (!params.has("state") && !params.has("code") && !params.has("error")) {
    scheduleRefresh();
    return "";
  }
  const request = takeSsoRequest();
  history.replaceState(
    null,
    "",
    `${location.pathname}${request?.returnTo ?? location.hash}`,
  );
  const answer = callbackOf(params, request?.state);
  if ("error" in answer || !request) {
    return "error" in answer ? answer.error : "";
  }
  try {
    keepTokens(
      request,
      await tokenRequest(request.tokenEndpoint, {
        grant_type: "authorization_code",
        code: answer.code,
        redirect_uri: request.redirectUri,
        client_id: request.clientId,
        code_verifier: request.verifier,
      }),
    );
    return "";
  } catch (error) {
    return `Sign-in failed at the issuer: ${
      error instanceof Error ? error.message : String(error)
    }`;
  }
}

/**
 * The token endpoint's answer to `form`; its refusal as an Error.
 * @param {string} endpoint
 * @param {Record<string, string>} form
 * @returns {Promise<{ id_token?: string, refresh_token?: string }>}
 */
async function tokenRequest(endpoint, form) {
  const response = await fetch(endpoint, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(form).toString(),
  });
  const json = await response.json().catch(() => ({}));
  if (!response.ok || json.error) {
    throw new Error(json.error ?? `HTTP ${response.status}`);
  }
  return json;
}

/**
 * Keeps the ID token as the tab's token, and what renews it.
 * @param {{ tokenEndpoint: string, clientId: string }} client
 * @param {{ id_token?: string, refresh_token?: string }} tokens
 */
function keepTokens(client, tokens) {
  if (!tokens.id_token) throw new Error("no ID token granted");
  setToken(tokens.id_token);
  const refreshToken = tokens.refresh_token ?? ssoRefresh()?.refreshToken;
  if (refreshToken) {
    setSsoRefresh({
      refreshToken,
      tokenEndpoint: client.tokenEndpoint,
      clientId: client.clientId,
    });
  }
  scheduleRefresh();
}

/** @type {ReturnType<typeof setTimeout> | undefined} */
let refreshTimer;

/**
 * Renews the tab's ID token a minute before it expires, when a single
 * sign-on left a refresh token; a refresh that fails leaves the token to
 * expire, and Corral's 401 then asks the person to sign in again. The
 * renewal keeps its token only while the tab still holds the one it was
 * scheduled for: a tab signed out, or given a pasted token, meanwhile
 * stays as it is.
 */
function scheduleRefresh() {
  clearTimeout(refreshTimer);
  const held = token();
  const refresh = ssoRefresh();
  const expiry = held ? expiryOf(held) : undefined;
  if (!held || !refresh || expiry === undefined) return;
  refreshTimer = setTimeout(
    async () => {
      if (token() !== held) return;
      try {
        const tokens = await tokenRequest(refresh.tokenEndpoint, {
          grant_type: "refresh_token",
          refresh_token: refresh.refreshToken,
          client_id: refresh.clientId,
        });
        if (token() === held) keepTokens(refresh, tokens);
      } catch {
        // The token expires; the next call's 401 asks for a sign-in.
      }
      // A token that lives less than two minutes is renewed halfway.
    },
    Math.max(
      0,
      expiry - Date.now() - REFRESH_BEFORE_MS,
      (expiry - Date.now()) / 2,
    ),
  );
}

/**
 * Ends the single sign-on's renewal: its timer, and the refresh token and
 * where it is used. Called on signing out and before a pasted token is
 * kept, which a renewal due later would otherwise replace.
 */
export function stopSsoRefresh() {
  clearTimeout(refreshTimer);
  refreshTimer = undefined;
  clearSsoRefresh();
}
