/**
 * The tokens `corral login` keeps in a context, and the ID token a later
 * command sends: as kept while it has more than a minute left, else
 * refreshed first with the refresh token at the issuer's token endpoint,
 * and the new tokens written back to the config file (mode 0600). A sign-in
 * that cannot be refreshed is an error that says to run corral login.
 */
import { CliError, EXIT_API_ERROR } from "./errors.ts";
import {
  discoverIssuer,
  expiryOf,
  idTokenOf,
  type Issuer,
  issuerClient,
  OAuthError,
  postForm,
  type Tokens,
} from "./oidc.ts";

/** What a context keeps of a sign-in. */
export interface KeptSignIn {
  issuerUrl: string;
  clientId: string;
  /** PEM file of the CA of the issuer's certificate, when it needs one. */
  issuerCertificateAuthority?: string;
  idToken: string;
  refreshToken?: string;
}

/** How long before its expiry an ID token is refreshed. */
export const REFRESH_BEFORE_MS = 60_000;

/** The kept sign-in of `tokens`, from `issuer` for `clientId`. */
export function keptSignIn(
  issuer: { url: string; certificateAuthority?: string },
  clientId: string,
  tokens: Tokens,
  previous?: KeptSignIn,
): KeptSignIn {
  // An issuer that does not rotate refresh tokens answers none on refresh.
  const refreshToken = tokens.refresh_token ?? previous?.refreshToken;
  return {
    issuerUrl: issuer.url,
    clientId,
    ...(issuer.certificateAuthority
      ? { issuerCertificateAuthority: issuer.certificateAuthority }
      : {}),
    idToken: idTokenOf(tokens),
    ...(refreshToken ? { refreshToken } : {}),
  };
}

/**
 * The ID token to send for `signIn` of the context `contextName`: the kept
 * one while fresh, else a refreshed one, handed to `save` first.
 */
export async function currentIdToken(
  signIn: KeptSignIn,
  contextName: string,
  save: (refreshed: KeptSignIn) => Promise<void>,
  now: () => number = Date.now,
): Promise<string> {
  const expiry = expiryOf(signIn.idToken);
  if (expiry === undefined || expiry - now() > REFRESH_BEFORE_MS) {
    return signIn.idToken;
  }
  if (!signIn.refreshToken) throw signInAgain(contextName, "has expired");
  const http = await issuerClient(signIn.issuerCertificateAuthority);
  try {
    const issuer: Issuer = { url: signIn.issuerUrl, http };
    const metadata = await discoverIssuer(issuer);
    let tokens: Tokens;
    try {
      tokens = await postForm<Tokens>(issuer, metadata.token_endpoint, {
        grant_type: "refresh_token",
        refresh_token: signIn.refreshToken,
        client_id: signIn.clientId,
      });
    } catch (error) {
      if (!(error instanceof OAuthError)) throw error;
      throw signInAgain(
        contextName,
        `could not be refreshed (${error.message})`,
      );
    }
    const refreshed = keptSignIn(
      {
        url: signIn.issuerUrl,
        certificateAuthority: signIn.issuerCertificateAuthority,
      },
      signIn.clientId,
      tokens,
      signIn,
    );
    await save(refreshed);
    return refreshed.idToken;
  } finally {
    http?.close();
  }
}

function signInAgain(contextName: string, what: string): CliError {
  return new CliError(
    `the sign-in of context ${JSON.stringify(contextName)} ${what}`,
    EXIT_API_ERROR,
    ["  sign in again with: corral login"],
  );
}
