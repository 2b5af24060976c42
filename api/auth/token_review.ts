/**
 * Tokens that the Kubernetes API server knows (service account tokens, and
 * whatever its own authenticators take), asked with a TokenReview, the way
 * kube-apiserver's webhook token authenticator asks.
 *
 * Outcomes:
 * - status.authenticated true: the Identity of status.user;
 * - status.authenticated false: "not mine" (undefined), as kube-apiserver's
 *   webhook authenticator answers; the chain then refuses the token as
 *   unknown, so the caller gets the same 401 whichever authenticator was
 *   last;
 * - authenticated, but with no user name, or (when `audiences` are given)
 *   for none of them: UNAUTHENTICATED;
 * - the API call fails (network, time-out, 401/403 because Corral may not
 *   create TokenReviews, 429, 5xx): UNAVAILABLE, never a 5xx passed through
 *   to the caller. The cause is kept for the log, never sent.
 *
 * Positive answers are cached for a short time (10 s by default), keyed by
 * the SHA-256 of the token, so a dashboard polling every second costs one
 * review per ten seconds. A revoked token is so taken for at most that long.
 * Negative answers are not cached: a mistyped token is corrected at once.
 */

import { Observable } from "@kubernetes/client-node";
import type {
  AuthenticationV1Api,
  ConfigurationOptions,
  RequestContext,
  ResponseContext,
  V1TokenReview,
} from "@kubernetes/client-node";
import { createHash } from "node:crypto";
import type { Logger } from "../../domain/log.ts";
import { AuthenticationError } from "./identity.ts";
import type { Authenticator, Identity } from "./identity.ts";

/** The AuthenticationV1Api method this module calls. */
export type TokenReviewPort = Pick<AuthenticationV1Api, "createTokenReview">;

export const DEFAULT_CACHE_TTL_MS = 10_000;
const DEFAULT_CACHE_SIZE = 1_000;
const DEFAULT_TIMEOUT_MS = 5_000;

export interface TokenReviewOptions {
  api: TokenReviewPort;
  /** spec.audiences; the answer must name one of them. */
  audiences?: string[];
  /** How long a positive answer is reused; 10 s by default, 0 for never. */
  cacheTtlMs?: number;
  /** Most cached answers; the oldest goes first. 1000 by default. */
  cacheSize?: number;
  /** Time limit of one review; 5 s by default. */
  timeoutMs?: number;
  log: Logger;
  /** The clock, for tests. */
  now?: () => number;
  /**
   * The timer of a review's time limit: a signal that aborts once `ms` have
   * passed. AbortSignal.timeout by default; a test aborts its own instead,
   * so that "too late" is a step of the test and not the machine's speed.
   */
  timer?: (ms: number) => AbortSignal;
}

interface Cached {
  identity: Identity;
  expires: number;
}

export function tokenReviewAuthenticator(
  options: TokenReviewOptions,
): Authenticator {
  const ttl = options.cacheTtlMs ?? DEFAULT_CACHE_TTL_MS;
  const size = options.cacheSize ?? DEFAULT_CACHE_SIZE;
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const now = options.now ?? Date.now;
  const timer = options.timer ?? ((ms: number) => AbortSignal.timeout(ms));
  const log = options.log.with({ authenticator: "token-review" });
  // Insertion order is age order, so the first key is the oldest.
  const cache = new Map<string, Cached>();

  async function authenticate(
    token: string,
    signal?: AbortSignal,
  ): Promise<Identity | undefined> {
    const key = createHash("sha256").update(token).digest("hex");
    const hit = cache.get(key);
    if (hit && hit.expires > now()) return copy(hit.identity);
    if (hit) cache.delete(key);

    const review = await ask(token, signal);
    const status = review.status;
    if (!status?.authenticated) {
      if (status?.error) {
        log.debug("Reviewed a token: not authenticated", {
          error: status.error,
        });
      }
      return undefined;
    }
    const user = status.user;
    if (!user?.username) {
      throw refused("the Kubernetes API server names no user for the token");
    }
    const audiences = options.audiences;
    if (
      audiences?.length &&
      !status.audiences?.some((a) => audiences.includes(a))
    ) throw refused("the token is not for this service");
    const identity: Identity = {
      user: user.username,
      ...(user.uid ? { uid: user.uid } : {}),
      groups: user.groups ?? [],
      authenticator: "token-review",
    };
    if (ttl > 0) {
      cache.set(key, { identity: copy(identity), expires: now() + ttl });
      while (cache.size > size) cache.delete(cache.keys().next().value!);
    }
    return identity;
  }

  async function ask(
    token: string,
    callerSignal?: AbortSignal,
  ): Promise<V1TokenReview> {
    const timeout = timer(timeoutMs);
    const signal = callerSignal
      ? AbortSignal.any([timeout, callerSignal])
      : timeout;
    const body: V1TokenReview = {
      apiVersion: "authentication.k8s.io/v1",
      kind: "TokenReview",
      spec: {
        token,
        ...(options.audiences?.length ? { audiences: options.audiences } : {}),
      },
    };
    try {
      // The race ends the wait even if the call ignores its signal.
      return await Promise.race([
        options.api.createTokenReview({ body }, withSignal(signal)),
        aborted(signal),
      ]);
    } catch (error) {
      const detail = timeout.aborted
        ? "the Kubernetes API server did not answer in time"
        : callerSignal?.aborted
        ? "the request was cancelled"
        : "the Kubernetes API server did not review the token";
      // Only the status code: client-node's ApiException message dumps
      // headers, and the request body holds the token.
      log.warn("Failed to review a token", {
        error: detail,
        status: (error as { code?: unknown })?.code,
      });
      throw new AuthenticationError(
        "unavailable",
        `Cannot authenticate: ${detail}`,
        {
          authenticator: "token-review",
          cause: error,
        },
      );
    }
  }

  return { name: "token-review", authenticate, close: () => cache.clear() };
}

function refused(detail: string): AuthenticationError {
  return new AuthenticationError("invalid-token", `Unauthorized: ${detail}`, {
    authenticator: "token-review",
  });
}

function copy(identity: Identity): Identity {
  return { ...identity, groups: [...identity.groups] };
}

/** client-node call options that end the HTTP request with the signal. */
function withSignal(signal: AbortSignal): ConfigurationOptions {
  return {
    middleware: [{
      pre: (context: RequestContext) => {
        context.setSignal(signal);
        return new Observable(Promise.resolve(context));
      },
      post: (context: ResponseContext) =>
        new Observable(Promise.resolve(context)),
    }],
    middlewareMergeStrategy: "append",
  };
}

/** Rejects when the signal aborts; never resolves otherwise. */
function aborted(signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => {
    if (signal.aborted) return reject(signal.reason);
    signal.addEventListener("abort", () => reject(signal.reason), {
      once: true,
    });
  });
}
