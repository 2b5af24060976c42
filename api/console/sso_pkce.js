// @ts-check
/**
 * The parts of the console's single sign-on that need no page: the PKCE
 * verifier and its S256 challenge (RFC 7636), the `state` that ties the
 * issuer's redirect to this tab's request, the authorization request's
 * URL, what a redirect back brings (a code only with the state sent), and
 * when an ID token expires. sso.js runs the sign-in with them.
 */

/**
 * Bytes as base64url without padding.
 * @param {Uint8Array} bytes
 */
export function base64url(bytes) {
  return btoa(String.fromCharCode(...bytes)).replaceAll("+", "-")
    .replaceAll("/", "_").replace(/=+$/, "");
}

/**
 * A random value of `size` bytes, base64url: a verifier (32 bytes, 43
 * characters) or a state.
 * @param {number} size
 */
export function randomValue(size) {
  return base64url(crypto.getRandomValues(new Uint8Array(size)));
}

/**
 * The S256 challenge of `verifier`.
 * @param {string} verifier
 */
export async function challengeOf(verifier) {
  const digest = await crypto.subtle.digest(
    "SHA-256",
    new TextEncoder().encode(verifier),
  );
  return base64url(new Uint8Array(digest));
}

/**
 * The authorization request: the issuer's endpoint with the code flow's
 * parameters and the PKCE challenge.
 * @param {string} endpoint
 * @param {{ clientId: string, redirectUri: string, scopes: string[], state: string, challenge: string }} request
 */
export function authorizationUrl(endpoint, request) {
  const url = new URL(endpoint);
  const params = {
    response_type: "code",
    client_id: request.clientId,
    redirect_uri: request.redirectUri,
    scope: request.scopes.join(" "),
    state: request.state,
    code_challenge: request.challenge,
    code_challenge_method: "S256",
  };
  for (const [name, value] of Object.entries(params)) {
    url.searchParams.set(name, value);
  }
  return url.href;
}

/**
 * What the issuer's redirect back brings: its code when its state is the
 * one this tab sent (`expected`; undefined when the tab sent none, as
 * after a redirect it did not ask for), else why not.
 * @param {URLSearchParams} params
 * @param {string | undefined} expected
 * @returns {{ code: string } | { error: string }}
 */
export function callbackOf(params, expected) {
  if (!expected || params.get("state") !== expected) {
    return {
      error:
        "Sign-in refused: the issuer's answer is not for this tab's sign-in. Sign in again.",
    };
  }
  const error = params.get("error");
  const code = params.get("code");
  if (error || !code) {
    const description = params.get("error_description");
    return {
      error: `Sign-in failed at the issuer: ${error ?? "no code"}${
        description ? ` (${description})` : ""
      }`,
    };
  }
  return { code };
}

/**
 * When `jwt` expires, in milliseconds since the epoch (its payload's
 * `exp`); undefined when it says none or is no JWT.
 * @param {string} jwt
 */
export function expiryOf(jwt) {
  const payload = jwt.split(".")[1];
  if (!payload) return undefined;
  try {
    const exp = JSON.parse(
      atob(payload.replaceAll("-", "+").replaceAll("_", "/")),
    ).exp;
    return typeof exp === "number" ? exp * 1000 : undefined;
  } catch {
    return undefined;
  }
}
