/**
 * Who a request is: the result of authentication, and the contract every
 * authenticator keeps. Names follow the Kubernetes API server's (user.Info,
 * system:anonymous, system:authenticated, system:unauthenticated).
 */

import { Code, type ErrorDetail, ServiceError } from "../../domain/errors.ts";

/** Which authenticator recognised the caller (a metrics and audit label). */
export type AuthenticatorName =
  | "token-file"
  | "oidc"
  | "token-review"
  | "client-certificate"
  | "anonymous";

export interface Identity {
  user: string;
  uid?: string;
  groups: string[];
  authenticator: AuthenticatorName;
  /**
   * When the credentials stop being valid, in ms since the epoch (an OIDC
   * token's `exp`, with the clock leeway); absent when they do not expire.
   * Open streams are ended then (stream_lifetime.ts).
   */
  expiresAt?: number;
}

/**
 * Looks at a bearer token. Three outcomes:
 * - `undefined`: "not mine", the next authenticator is tried;
 * - an Identity: recognised and valid;
 * - throws a ServiceError: recognised as its kind but invalid
 *   (UNAUTHENTICATED), or it cannot tell right now (UNAVAILABLE).
 * Each implementation documents which outcome it gives for what.
 */
export interface Authenticator {
  name: AuthenticatorName;
  authenticate(
    token: string,
    signal?: AbortSignal,
  ): Promise<Identity | undefined>;
  /** Stops timers and closes connections. */
  close?(): void;
}

/** The user of a request that has no credentials (anonymous mode). */
export const ANONYMOUS_USER = "system:anonymous";
/** The group of every request without credentials. */
export const UNAUTHENTICATED_GROUP = "system:unauthenticated";
/** The group the chain adds to every authenticated identity. */
export const AUTHENTICATED_GROUP = "system:authenticated";
/**
 * Names with this prefix are given by Corral and Kubernetes (the ones
 * above, service accounts'): the token file and OIDC may not claim them.
 */
export const RESERVED_PREFIX = "system:";

/** Short words for why authentication failed: a metrics and audit label. */
export type AuthenticationFailure =
  /** No Authorization header (and no client certificate). */
  | "no-credentials"
  /** An Authorization header that is not `Bearer <b64token>`. */
  | "malformed"
  /** No authenticator recognised the token. */
  | "unknown-token"
  /** An authenticator recognised the token, and it failed a check. */
  | "invalid-token"
  /** The token has expired. */
  | "expired"
  /** An authenticator could not decide (issuer or API server unreachable). */
  | "unavailable"
  /**
   * It failed, and its source address has failed too often lately
   * (failure_limit.ts): RESOURCE_EXHAUSTED with a RetryInfo.
   */
  | "throttled";

/** The failures whose code is not UNAUTHENTICATED. */
const CODES: Partial<Record<AuthenticationFailure, Code>> = {
  unavailable: Code.UNAVAILABLE,
  throttled: Code.RESOURCE_EXHAUSTED,
};

/**
 * A ServiceError (UNAUTHENTICATED, UNAVAILABLE, or RESOURCE_EXHAUSTED when
 * throttled) that also says, in one word, why, and which authenticator
 * decided. The message never contains the token.
 */
export class AuthenticationError extends ServiceError {
  readonly reason: AuthenticationFailure;
  readonly authenticator?: AuthenticatorName;

  constructor(
    reason: AuthenticationFailure,
    message: string,
    options: {
      authenticator?: AuthenticatorName;
      cause?: unknown;
      details?: ErrorDetail[];
    } = {},
  ) {
    super(CODES[reason] ?? Code.UNAUTHENTICATED, message, {
      cause: options.cause,
      details: options.details,
    });
    this.name = "AuthenticationError";
    this.reason = reason;
    this.authenticator = options.authenticator;
  }
}
