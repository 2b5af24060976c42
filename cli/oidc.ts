/**
 * The command line's side of an OIDC issuer (issue 38): what Corral says
 * of its issuer (GET /apis/v1alpha2/auth-config), the issuer's discovery
 * document, and its token endpoint as OAuth 2.0 answers it (RFC 6749
 * section 5: tokens, or `{error, error_description}`). The client is a
 * public one: it has no secret, and sends its client_id with each request.
 */
import { CliError, EXIT_API_ERROR, EXIT_USAGE } from "./errors.ts";

/** Corral's answer at /apis/v1alpha2/auth-config (api/auth_config.ts). */
export interface SignInConfig {
  issuerUrl: string;
  clientId: string;
  scopes: string[];
}

/** What the command line reads of the issuer's discovery document. */
export interface IssuerMetadata {
  issuer: string;
  token_endpoint: string;
  authorization_endpoint?: string;
  device_authorization_endpoint?: string;
}

/** The token endpoint's answer when it grants. */
export interface Tokens {
  id_token?: string;
  refresh_token?: string;
  access_token?: string;
  expires_in?: number;
}

/** The token endpoint's refusal: an OAuth error code and its words. */
export class OAuthError extends Error {
  constructor(readonly code: string, readonly description?: string) {
    super(description ? `${code}: ${description}` : code);
    this.name = "OAuthError";
  }
}

/** How the issuer is reached: with its CA, when it needs one. */
export interface Issuer {
  url: string;
  http?: Deno.HttpClient;
}

/**
 * An HTTP client trusting the PEM certificate authorities of `caFile`, or
 * none (the system's roots).
 */
export async function issuerClient(
  caFile: string | undefined,
): Promise<Deno.HttpClient | undefined> {
  if (!caFile) return undefined;
  let pem: string;
  try {
    pem = await Deno.readTextFile(caFile);
  } catch (error) {
    throw new CliError(
      `cannot read the issuer's certificate authority ${caFile}: ${
        (error as Error).message
      }`,
      EXIT_USAGE,
    );
  }
  return Deno.createHttpClient({ caCerts: [pem] });
}

/** The issuer's discovery document, checked to be of `issuer.url`. */
export async function discoverIssuer(issuer: Issuer): Promise<IssuerMetadata> {
  const url = `${
    issuer.url.replace(/\/+$/, "")
  }/.well-known/openid-configuration`;
  const response = await issuerFetch(issuer, url, { method: "GET" });
  if (!response.ok) {
    throw new CliError(
      `cannot discover the OIDC issuer ${issuer.url}: HTTP ${response.status} from ${url}`,
      EXIT_API_ERROR,
    );
  }
  const metadata = await response.json() as Partial<IssuerMetadata>;
  if (metadata.issuer !== issuer.url || !metadata.token_endpoint) {
    throw new CliError(
      `the OIDC issuer ${issuer.url} describes itself as ${
        JSON.stringify(metadata.issuer)
      }${metadata.token_endpoint ? "" : " with no token_endpoint"}`,
      EXIT_API_ERROR,
    );
  }
  return metadata as IssuerMetadata;
}

/**
 * POSTs `form` to `endpoint` as application/x-www-form-urlencoded; the
 * parsed JSON answer, or the OAuthError of a refusal.
 */
export async function postForm<T>(
  issuer: Issuer,
  endpoint: string,
  form: Record<string, string>,
): Promise<T> {
  const response = await issuerFetch(issuer, endpoint, {
    method: "POST",
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      accept: "application/json",
    },
    body: new URLSearchParams(form).toString(),
  });
  const text = await response.text();
  let body: Record<string, unknown> = {};
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON: reported below with the status
  }
  if (!response.ok || typeof body.error === "string") {
    if (typeof body.error === "string") {
      throw new OAuthError(
        body.error,
        typeof body.error_description === "string"
          ? body.error_description
          : undefined,
      );
    }
    throw new CliError(
      `the OIDC issuer answered HTTP ${response.status} at ${endpoint}${
        text ? `: ${text.slice(0, 200)}` : ""
      }`,
      EXIT_API_ERROR,
    );
  }
  return body as T;
}

/** fetch to the issuer; an UnreachableError-like CliError when none answers. */
async function issuerFetch(
  issuer: Issuer,
  url: string,
  init: RequestInit,
): Promise<Response> {
  try {
    return await fetch(url, { ...init, client: issuer.http });
  } catch (error) {
    let deepest = error as Error;
    while (deepest.cause instanceof Error) deepest = deepest.cause;
    throw new CliError(
      `cannot reach the OIDC issuer at ${url}: ${deepest.message}`,
      EXIT_API_ERROR,
      /certificate|UnknownIssuer/i.test(deepest.message)
        ? [
          "  pass --issuer-certificate-authority FILE to corral login with the CA that signed the issuer's certificate",
        ]
        : [],
    );
  }
}

/** The ID token of a grant, which a grant without `openid` lacks. */
export function idTokenOf(tokens: Tokens): string {
  if (typeof tokens.id_token !== "string" || tokens.id_token === "") {
    throw new CliError(
      "the OIDC issuer granted no ID token: the scopes must include openid",
      EXIT_API_ERROR,
    );
  }
  return tokens.id_token;
}

/**
 * When a JWT expires, in milliseconds since the epoch, from its payload's
 * `exp` (the signature is Corral's to check); undefined when it has none
 * or is no JWT.
 */
export function expiryOf(jwt: string): number | undefined {
  const payload = jwt.split(".")[1];
  if (!payload) return undefined;
  try {
    const text = atob(payload.replaceAll("-", "+").replaceAll("_", "/"));
    const exp = JSON.parse(text).exp;
    return typeof exp === "number" ? exp * 1000 : undefined;
  } catch {
    return undefined;
  }
}

/** Bytes as base64url without padding (RFC 7636 appendix A). */
export function base64url(bytes: Uint8Array): string {
  return btoa(String.fromCharCode(...bytes)).replaceAll("+", "-")
    .replaceAll("/", "_").replace(/=+$/, "");
}
