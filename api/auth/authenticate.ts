/**
 * The authentication chain: from a request's credentials (its Authorization
 * header value, and the verified client certificate if the TLS listener asked
 * for one) to an Identity, or an AuthenticationError for a 401.
 *
 * Order, as in kube-apiserver: the client certificate first (a subject with a
 * CN decides), then the bearer token through each authenticator in turn;
 * the first that recognises the token decides, by returning an Identity or
 * by throwing. A token none recognises is UNAUTHENTICATED ("unknown-token").
 * Every authenticated identity gets the group system:authenticated, as
 * kube-apiserver's AuthenticatedGroupAdder gives it.
 *
 * Anonymous mode (off unless asked for) gives a request WITHOUT credentials
 * the identity system:anonymous in group system:unauthenticated. A request
 * with a malformed header or a token that fails is still refused, as
 * kube-apiserver refuses it with --anonymous-auth: presenting credentials
 * and failing is never the same as presenting none.
 *
 * With a failure limit, a source address that fails too often has its
 * further failures answered RESOURCE_EXHAUSTED with a RetryInfo
 * (failure_limit.ts); its successes are never held back.
 */

import { Code, ServiceError } from "../../domain/errors.ts";
import type { PeerCertificateLike } from "./client_certificate.ts";
import { identityFromCertificate } from "./client_certificate.ts";
import {
  ANONYMOUS_USER,
  AUTHENTICATED_GROUP,
  AuthenticationError,
  UNAUTHENTICATED_GROUP,
} from "./identity.ts";
import type { Authenticator, Identity } from "./identity.ts";
import { FailureLimit, type FailureLimitSettings } from "./failure_limit.ts";

/** What a transport hands over from one request. */
export interface Credentials {
  /** The Authorization header (HTTP) or metadata (gRPC) value, if any. */
  authorization?: string | null;
  /** The peer certificate, only when the TLS layer verified it. */
  certificate?: PeerCertificateLike | null;
  /**
   * The client's address with its port, "10.0.0.7:51234": what failures
   * are limited by. Without one a failure is not limited.
   */
  address?: string;
}

/**
 * The credentials of a call: its Authorization header or metadata, and the
 * subject of a client certificate the TLS layer verified.
 */
export function credentialsOf(
  authorization: string | null | undefined,
  certificate?: { commonName?: string; organizations: string[] },
  address?: string,
): Credentials {
  return {
    authorization,
    ...(address ? { address } : {}),
    certificate: certificate
      ? {
        subject: { CN: certificate.commonName, O: certificate.organizations },
      }
      : null,
  };
}

export interface ChainOptions {
  /** Requests without credentials are system:anonymous (--anonymous-auth). */
  anonymous?: boolean;
  /** Failed authentications per source address; no limit by default. */
  failureLimit?: FailureLimitSettings;
}

export interface RequestAuthenticator {
  /** The caller's Identity; throws AuthenticationError (a ServiceError). */
  authenticate(
    credentials: Credentials,
    signal?: AbortSignal,
  ): Promise<Identity>;
  /** Closes every authenticator of the chain. */
  close(): Promise<void>;
}

/**
 * `Bearer <token>`: the scheme in any case, one space, then an RFC 6750
 * b64token and nothing else.
 */
const BEARER = /^bearer ([A-Za-z0-9\-._~+/]+=*)$/i;

/** The token of an Authorization header value; throws "malformed" otherwise. */
export function bearerToken(authorization: string): string {
  const match = BEARER.exec(authorization);
  if (!match) {
    // Never echo the header: it may be a token with one character wrong.
    throw new AuthenticationError(
      "malformed",
      'Unauthorized: the Authorization header is not "Bearer" and a token',
    );
  }
  return match[1];
}

/** The identity of a request without credentials, in anonymous mode. */
export function anonymousIdentity(): Identity {
  return {
    user: ANONYMOUS_USER,
    groups: [UNAUTHENTICATED_GROUP],
    authenticator: "anonymous",
  };
}

export function createAuthenticator(
  authenticators: Authenticator[],
  options: ChainOptions = {},
): RequestAuthenticator {
  const limit = options.failureLimit && new FailureLimit(options.failureLimit);
  async function decide(
    credentials: Credentials,
    signal?: AbortSignal,
  ): Promise<Identity> {
    const fromCertificate = identityFromCertificate(credentials.certificate);
    if (fromCertificate) return authenticated(fromCertificate);

    const header = credentials.authorization;
    // A scheme without a token is no credentials, as the Kubernetes API
    // server's bearer-token authenticator takes it: clients such as the
    // /docs page send "Bearer" when no token was typed.
    if (
      header === undefined || header === null || /^\s*bearer\s*$/i.test(header)
    ) {
      if (options.anonymous) return anonymousIdentity();
      throw new AuthenticationError(
        "no-credentials",
        "Unauthorized: the request has no bearer token",
      );
    }
    const token = bearerToken(header);
    for (const authenticator of authenticators) {
      signal?.throwIfAborted();
      let identity: Identity | undefined;
      try {
        identity = await authenticator.authenticate(token, signal);
      } catch (error) {
        throw failure(error, authenticator, signal);
      }
      if (identity) return authenticated(identity);
    }
    throw new AuthenticationError(
      "unknown-token",
      "Unauthorized: the token is not valid",
    );
  }

  return {
    async authenticate(credentials, signal) {
      try {
        return await decide(credentials, signal);
      } catch (error) {
        // Only the caller's own failures count: an authenticator that could
        // not decide (UNAVAILABLE) or a cancelled call is none.
        if (
          !limit || !credentials.address ||
          !(error instanceof AuthenticationError) ||
          error.code !== Code.UNAUTHENTICATED
        ) throw error;
        throw throttled(error, limit.fail(credentials.address));
      }
    },
    async close() {
      await Promise.all(authenticators.map((a) => a.close?.()));
    },
  };
}

/**
 * The failure as it is, or RESOURCE_EXHAUSTED when its address must wait
 * `seconds` first.
 */
function throttled(
  error: AuthenticationError,
  seconds: number,
): AuthenticationError {
  if (seconds <= 0) return error;
  const wait = Math.max(1, Math.ceil(seconds));
  return new AuthenticationError(
    "throttled",
    `Cannot authenticate: too many failed authentications from this address; try again in ${wait}s`,
    {
      authenticator: error.authenticator,
      cause: error,
      details: [{
        "@type": "type.googleapis.com/google.rpc.RetryInfo",
        retryDelay: `${wait}s`,
      }],
    },
  );
}

/** The identity with system:authenticated added and groups made unique. */
function authenticated(identity: Identity): Identity {
  return {
    ...identity,
    groups: [...new Set([...identity.groups, AUTHENTICATED_GROUP])],
  };
}

/** Any failure of an authenticator as an AuthenticationError. */
function failure(
  error: unknown,
  authenticator: Authenticator,
  signal: AbortSignal | undefined,
): ServiceError {
  if (error instanceof AuthenticationError) return error;
  if (signal?.aborted) {
    return new ServiceError(
      Code.CANCELLED,
      "Cannot authenticate: the request was cancelled",
      { cause: error },
    );
  }
  if (error instanceof ServiceError && error.code === Code.UNAUTHENTICATED) {
    return new AuthenticationError("invalid-token", error.message, {
      authenticator: authenticator.name,
      cause: error,
    });
  }
  // UNAVAILABLE, or a fault of the authenticator itself: the caller may try
  // again; the cause is logged by the transport, never sent.
  return new AuthenticationError(
    "unavailable",
    `Cannot authenticate: the ${authenticator.name} authenticator failed`,
    { authenticator: authenticator.name, cause: error },
  );
}
