/**
 * OpenID Connect ID tokens, as the Kubernetes API server's --oidc-* flags
 * take them: --oidc-issuer-url, --oidc-client-id, --oidc-ca-file,
 * --oidc-username-claim, --oidc-username-prefix, --oidc-groups-claim,
 * --oidc-groups-prefix. Verification is jose's (signature, iss, aud, exp,
 * nbf); this module adds discovery, the issuer's CA, and the claim mapping.
 *
 * Names are kept apart from other authenticators' as kube-apiserver keeps
 * them: without --oidc-username-prefix a username is prefixed with the
 * issuer URL and `#` ("https://dex.example.com#1234"), unless the claim is
 * `email` (an address names one person whoever issued it); `-` asks for no
 * prefix. Groups get --oidc-groups-prefix, none by default. A username or
 * group that, prefix included, begins `system:` is refused: those names are
 * the ones Corral and Kubernetes give, never an issuer.
 *
 * Outcomes:
 * - not a JWT, or a JWT whose `iss` is not exactly our issuer: "not mine"
 *   (undefined), so the next authenticator can try it;
 * - a JWT of our issuer that fails any check (signature, algorithm, key,
 *   audience, expiry, not-before, issued-at, username or groups claim):
 *   UNAUTHENTICATED;
 * - the issuer's discovery document or keys cannot be fetched (network, TLS
 *   not trusted, not 200, bad JSON, issuer mismatch): UNAVAILABLE. The token
 *   has not been shown bad, so the caller is told to try again, not that its
 *   credentials are wrong, and the operator sees a 503 rather than a flood
 *   of 401s.
 * The token is never put in a message or a log line.
 *
 * Clock leeway: 30 seconds on exp, nbf and iat. ID tokens live minutes to an
 * hour, and servers on NTP agree within well under a second; 30 s absorbs a
 * drifting node or a slow hop without stretching a token's life in any way
 * that matters. (go-oidc, under kube-apiserver, allows 5 minutes on nbf.)
 */

import {
  createRemoteJWKSet,
  customFetch,
  decodeJwt,
  errors,
  jwtVerify,
} from "jose";
import type { JWTPayload } from "jose";
import type { Logger } from "../../domain/log.ts";
import { AuthenticationError, RESERVED_PREFIX } from "./identity.ts";
import type { Authenticator, Identity } from "./identity.ts";

/** Asymmetric signature algorithms only: never `none`, never HMAC. */
export const OIDC_ALGORITHMS = [
  "RS256",
  "RS384",
  "RS512",
  "PS256",
  "PS384",
  "PS512",
  "ES256",
  "ES384",
  "ES512",
  "EdDSA",
  "Ed25519",
];

export const CLOCK_LEEWAY_SECONDS = 30;
/** The least time between two fetches of the keys for an unknown `kid`. */
export const JWKS_COOLDOWN_MS = 10_000;
/**
 * The key set is kept until a token names a `kid` it lacks, and then
 * replaced (at most once per cool-down), as go-oidc keeps it under
 * kube-apiserver. jose's default would also fetch it again every 10 minutes
 * and fail every token while the issuer is down at that moment, though the
 * keys in hand still verify them. A withdrawn key goes with the next
 * replacement, which the first token of the new key brings about.
 */
const JWKS_MAX_AGE_MS = Infinity;
/** Time limit of one fetch from the issuer. */
const FETCH_TIMEOUT_MS = 5_000;
/** The least time between two tries of a discovery that failed. */
const DISCOVERY_RETRY_MS = 10_000;

export interface OidcOptions {
  /** --oidc-issuer-url: https, compared exactly with `iss` and discovery. */
  issuerUrl: string;
  /** --oidc-client-id: the audience every token must carry. */
  clientId: string;
  /** --oidc-ca-file: PEM certificates that sign the issuer's TLS certificate. */
  caFile?: string;
  /** --oidc-username-claim; `sub` by default. */
  usernameClaim?: string;
  /**
   * --oidc-username-prefix; "" or absent: the issuer URL and `#`, or none
   * for the `email` claim; "-": none.
   */
  usernamePrefix?: string;
  /** --oidc-groups-claim; `groups` by default. */
  groupsClaim?: string;
  /** --oidc-groups-prefix; none by default. */
  groupsPrefix?: string;
  log: Logger;
  /**
   * The least time between two fetches of the keys for an unknown `kid`;
   * 10 s by default. Only tests change it.
   */
  keyRefetchCooldownMs?: number;
}

/** How the claims of a verified ID token make an identity. */
interface ClaimMapping {
  /** --oidc-username-claim */
  usernameClaim: string;
  /** --oidc-username-prefix */
  usernamePrefix: string;
  /** --oidc-groups-claim */
  groupsClaim: string;
  /** --oidc-groups-prefix */
  groupsPrefix: string;
}

/** A fetch from the issuer, through the client that trusts its CA file. */
type IssuerFetch = (url: string, init: RequestInit) => Promise<Response>;

type KeySet = ReturnType<typeof createRemoteJWKSet>;

/**
 * The OIDC authenticator. Reads caFile now (rejecting if it cannot);
 * discovery happens on the first token of our issuer, so start-up does not
 * wait for the issuer.
 */
export async function oidcAuthenticator(
  options: OidcOptions,
): Promise<Authenticator & { close(): void }> {
  const issuer = options.issuerUrl;
  if (!URL.canParse(issuer) || new URL(issuer).protocol !== "https:") {
    throw new Error(
      `Cannot use OIDC issuer "${issuer}": it is not an https URL`,
    );
  }
  const log = options.log.with({ authenticator: "oidc", issuer });
  const mapping = claimMapping(issuer, options);

  const client = options.caFile === undefined
    ? undefined
    : Deno.createHttpClient({
      caCerts: [await Deno.readTextFile(options.caFile)],
    });
  // Every request to the issuer (discovery and keys) goes through this client,
  // so the CA file is trusted for discovery and keys alike. Deno adds caCerts
  // to its root store rather than replacing it, where kube-apiserver trusts
  // the CA file alone: a public CA could also vouch for the issuer's host.
  const issuerFetch: IssuerFetch = (url, init) =>
    fetch(url, client ? { ...init, client } : init);
  const keys = new IssuerKeys(
    issuer,
    issuerFetch,
    log,
    options.keyRefetchCooldownMs ?? JWKS_COOLDOWN_MS,
  );

  return {
    name: "oidc",
    async authenticate(token: string): Promise<Identity | undefined> {
      if (issuerOf(token) !== issuer) return undefined;
      const payload = await verifyIdToken(
        token,
        await keys.keySet(),
        issuer,
        options.clientId,
      );
      return { ...identityOf(payload, mapping), expiresAt: expiryOf(payload) };
    },
    close() {
      client?.close();
    },
  };
}

/**
 * The options' claims and prefixes, with kube-apiserver's defaults: the
 * username prefix is `issuer#` unless the claim is `email`, and `-` is none.
 */
export function claimMapping(
  issuer: string,
  options: Partial<ClaimMapping>,
): ClaimMapping {
  const usernameClaim = options.usernameClaim || "sub";
  const given = options.usernamePrefix ?? "";
  const usernamePrefix = given === "-"
    ? ""
    : given !== ""
    ? given
    : usernameClaim === "email"
    ? ""
    : `${issuer}#`;
  return {
    usernameClaim,
    usernamePrefix,
    groupsClaim: options.groupsClaim || "groups",
    groupsPrefix: options.groupsPrefix ?? "",
  };
}

/**
 * The issuer's key set, from its discovery document, fetched on first need
 * and kept. A failed discovery is answered again (UNAVAILABLE) for
 * DISCOVERY_RETRY_MS before the next try; concurrent callers share one.
 */
class IssuerKeys {
  #keys: KeySet | undefined;
  #discovering: Promise<KeySet> | undefined;
  #lastDiscoveryFailure = -Infinity;
  #discoveryError: AuthenticationError | undefined;

  constructor(
    readonly issuer: string,
    readonly issuerFetch: IssuerFetch,
    readonly log: Logger,
    /** The least time between two fetches of the keys for an unknown `kid`. */
    readonly keyRefetchCooldownMs: number,
  ) {}

  keySet(): Promise<KeySet> {
    if (this.#keys) return Promise.resolve(this.#keys);
    if (
      this.#discoveryError &&
      Date.now() - this.#lastDiscoveryFailure < DISCOVERY_RETRY_MS
    ) return Promise.reject(this.#discoveryError);
    this.#discovering ??= discoverJwksUri(
      this.issuer,
      this.issuerFetch,
      this.log,
    ).then((jwksUri) => {
      this.#keys = createRemoteJWKSet(new URL(jwksUri), {
        [customFetch]: this.issuerFetch,
        cooldownDuration: this.keyRefetchCooldownMs,
        cacheMaxAge: JWKS_MAX_AGE_MS,
        timeoutDuration: FETCH_TIMEOUT_MS,
      });
      this.#discoveryError = undefined;
      return this.#keys;
    }, (error) => {
      this.#lastDiscoveryFailure = Date.now();
      this.#discoveryError = unavailable("discovery failed", error);
      this.log.warn("Failed OIDC discovery", { error: describe(error) });
      throw this.#discoveryError;
    }).finally(() => this.#discovering = undefined);
    return this.#discovering;
  }
}

/**
 * The jwks_uri of the issuer's discovery document, which must name the
 * issuer exactly and an https key set; throws a plain Error otherwise.
 */
async function discoverJwksUri(
  issuer: string,
  issuerFetch: IssuerFetch,
  log: Logger,
): Promise<string> {
  const url = `${issuer.replace(/\/$/, "")}/.well-known/openid-configuration`;
  const response = await issuerFetch(url, {
    redirect: "manual",
    signal: AbortSignal.timeout(FETCH_TIMEOUT_MS),
    headers: { accept: "application/json" },
  });
  if (response.status !== 200) {
    await response.body?.cancel();
    throw new Error(`discovery answered ${response.status}`);
  }
  const document = await response.json();
  if (document?.issuer !== issuer) {
    throw new Error(
      `discovery names the issuer "${document?.issuer}", not "${issuer}"`,
    );
  }
  const jwksUri = document.jwks_uri;
  if (
    typeof jwksUri !== "string" || !URL.canParse(jwksUri) ||
    new URL(jwksUri).protocol !== "https:"
  ) throw new Error("discovery has no https jwks_uri");
  log.info("Discovered OIDC issuer", { jwksUri });
  return jwksUri;
}

/** The unverified `iss` of a JWT; undefined for what is not a JWT. */
export function issuerOf(token: string): string | undefined {
  try {
    return decodeJwt(token).iss;
  } catch {
    return undefined; // not a JWT: not ours
  }
}

/**
 * The payload of an ID token that jose has verified against `keys` (signature,
 * algorithm, iss, aud, exp, nbf) and whose iat is not in the future; an
 * AuthenticationError otherwise.
 */
async function verifyIdToken(
  token: string,
  keys: KeySet,
  issuer: string,
  clientId: string,
): Promise<JWTPayload> {
  let payload: JWTPayload;
  try {
    ({ payload } = await jwtVerify(token, keys, {
      issuer,
      audience: clientId,
      algorithms: OIDC_ALGORITHMS,
      clockTolerance: CLOCK_LEEWAY_SECONDS,
      requiredClaims: ["exp", "iat"],
    }));
  } catch (error) {
    throw verificationFailure(error);
  }
  // jose checks iat only with maxTokenAge; a token from the future is not
  // valid yet whatever its nbf says.
  const now = Math.floor(Date.now() / 1000);
  if ((payload.iat as number) > now + CLOCK_LEEWAY_SECONDS) {
    throw invalid("the ID token was issued in the future");
  }
  return payload;
}

/**
 * The identity a verified token's claims name; an AuthenticationError for a
 * missing username, an unverified email as username, groups that are not
 * strings, or a name or group beginning `system:`.
 */
export function identityOf(
  payload: JWTPayload,
  mapping: ClaimMapping,
): Identity {
  const { usernameClaim, usernamePrefix, groupsClaim, groupsPrefix } = mapping;
  const username = payload[usernameClaim];
  if (typeof username !== "string" || username === "") {
    throw invalid(`the ID token has no "${usernameClaim}" claim`);
  }
  // As kube-apiserver: an email that the issuer says is unverified is not
  // a name to trust.
  if (usernameClaim === "email" && "email_verified" in payload) {
    if (payload.email_verified !== true) {
      throw invalid("the ID token's email is not verified");
    }
  }
  const user = usernamePrefix + username;
  const groups = groupsOf(payload[groupsClaim], groupsClaim).map((g) =>
    groupsPrefix + g
  );
  if (user.startsWith(RESERVED_PREFIX)) {
    throw invalid(
      `the ID token's username begins with "${RESERVED_PREFIX}", which is reserved`,
    );
  }
  if (groups.some((group) => group.startsWith(RESERVED_PREFIX))) {
    throw invalid(
      `the ID token's "${groupsClaim}" claim names a group beginning with "${RESERVED_PREFIX}", which is reserved`,
    );
  }
  return { user, groups, authenticator: "oidc" };
}

/**
 * When a verified token stops being accepted, in ms since the epoch: its
 * `exp` plus the clock leeway, the moment jose refuses it (a stream opened
 * with it ends then, as a fresh call would be refused).
 */
function expiryOf(payload: JWTPayload): number {
  return ((payload.exp as number) + CLOCK_LEEWAY_SECONDS) * 1000;
}

/** A string or an array of strings; absent is no groups. */
function groupsOf(claim: unknown, groupsClaim: string): string[] {
  if (claim === undefined || claim === null) return [];
  if (typeof claim === "string") return [claim];
  if (Array.isArray(claim) && claim.every((g) => typeof g === "string")) {
    return claim;
  }
  throw invalid(
    `the ID token's "${groupsClaim}" claim is not a list of strings`,
  );
}

function invalid(detail: string, cause?: unknown): AuthenticationError {
  return new AuthenticationError("invalid-token", `Unauthorized: ${detail}`, {
    authenticator: "oidc",
    cause,
  });
}

function unavailable(detail: string, cause: unknown): AuthenticationError {
  return new AuthenticationError(
    "unavailable",
    `Cannot authenticate: the OIDC issuer cannot be reached (${detail})`,
    { authenticator: "oidc", cause },
  );
}

/** jose's verdict as an AuthenticationError, in words of our own. */
function verificationFailure(error: unknown): AuthenticationError {
  if (error instanceof errors.JWTExpired) {
    return new AuthenticationError(
      "expired",
      "Unauthorized: the ID token has expired",
      { authenticator: "oidc", cause: error },
    );
  }
  if (error instanceof errors.JWTClaimValidationFailed) {
    return invalid(`the ID token's "${error.claim}" claim is not valid`, error);
  }
  if (error instanceof errors.JOSEAlgNotAllowed) {
    return invalid("the ID token's signing algorithm is not allowed", error);
  }
  if (
    error instanceof errors.JWKSNoMatchingKey ||
    error instanceof errors.JWKSMultipleMatchingKeys
  ) {
    return invalid("the ID token's key is not one of the issuer's", error);
  }
  if (error instanceof errors.JWSSignatureVerificationFailed) {
    return invalid("the ID token's signature is not valid", error);
  }
  if (
    error instanceof errors.JWSInvalid || error instanceof errors.JWTInvalid ||
    error instanceof errors.JOSENotSupported
  ) return invalid("the ID token is malformed", error);
  // Fetching the keys failed: timeout, network, TLS, status, JSON.
  return unavailable("keys could not be fetched", error);
}

/** The message with its causes: fetch says only "fetch failed" on its own. */
function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  return error.cause === undefined
    ? error.message
    : `${error.message}: ${describe(error.cause)}`;
}
