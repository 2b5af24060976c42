/**
 * GET /apis/v1alpha2/auth-config: what a client needs to sign a user in
 * (issue 38): the OIDC issuer whose ID tokens Corral accepts, the client id
 * they must be issued for, and the scopes to ask for. `corral login` and
 * the console's "Sign in with SSO" read it before they know who the user
 * is, so it is a page beside /version, answered without credentials, and
 * holds nothing secret: the client is a public one (no client secret; the
 * authorization code is protected by PKCE instead), and all of it is what
 * the issuer's own discovery document and any ID token already show.
 *
 * Without --oidc-issuer-url the answer is `{"oidc": null}`: Corral takes
 * other credentials (a token file, client certificates, TokenReview), and a
 * client says that single sign-on is not configured.
 */

/** The page's path. */
export const AUTH_CONFIG_PATH = "/apis/v1alpha2/auth-config";

/** What clients are told of the issuer (--oidc-*). */
export interface SignInSettings {
  issuerUrl: string;
  clientId: string;
  scopes: readonly string[];
}

/** The page's answer. */
export interface AuthConfig {
  oidc: {
    issuerUrl: string;
    clientId: string;
    scopes: string[];
  } | null;
}

/** The page, of `settings` or of no issuer. */
export function authConfigPage(
  settings: SignInSettings | undefined,
): () => Response {
  const answer: AuthConfig = {
    oidc: settings
      ? {
        issuerUrl: settings.issuerUrl,
        clientId: settings.clientId,
        scopes: [...settings.scopes],
      }
      : null,
  };
  const body = JSON.stringify(answer);
  // The same for every caller; a restart with other flags may change it.
  return () =>
    new Response(body, {
      headers: {
        "content-type": "application/json",
        "cache-control": "no-cache",
      },
    });
}
