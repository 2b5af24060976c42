/**
 * Fair use: a request rate and a number of open streams per caller, so
 * that a script in a loop cannot take the service (and the Kubernetes API
 * server behind it) from everyone else.
 *
 * - Rate: a token bucket per caller. Every call takes one token when it
 *   opens (a stream counts once, at open); a caller whose bucket is empty
 *   is answered RESOURCE_EXHAUSTED (HTTP 429) with a RetryInfo, which the
 *   HTTP port sends as Retry-After, in whole seconds rounded up.
 * - Streams: at most `maxStreams` server streams open per caller; the next
 *   is refused RESOURCE_EXHAUSTED naming the cap. No RetryInfo: when one of
 *   the caller's own streams ends is the caller's to know.
 *
 * A caller is its user name once authenticated. Anonymous callers (dev
 * mode without authentication, --allow-anonymous) have no identity to be
 * fair between and are not limited, unless --rate-limit-anonymous says to
 * count them by source address (failure_limit.ts's sourceOf: an IPv6 host
 * by its /64): one anonymous script would otherwise hold back every other
 * anonymous tool behind the same address, the console included. Limits hold per replica: N replicas
 * behind a load balancer let a caller make up to N times the rate.
 *
 * The policy file may give groups a rate of their own (`rateLimits:`, parsed
 * here by rateLimitsOf): the first entry naming one of the caller's groups
 * applies, else the --rate-limit default. Metrics label by the caller's
 * first group ("none" without one), never by user name: names are
 * unbounded and personal.
 *
 * The buckets are token_bucket.ts's, as FailureLimit's are; these are
 * keyed by caller and take the caller's own rate on each call, as a policy
 * reload may change it.
 */
import { Code, ServiceError } from "../../domain/errors.ts";
import type { Metrics } from "../metrics.ts";
import { sourceOf } from "./failure_limit.ts";
import type { Identity } from "./identity.ts";
import { TokenBuckets } from "./token_bucket.ts";
import {
  type ListSection,
  listSectionOf,
  type Problem,
  requiredNamesAt,
} from "./policy_section.ts";
import { namesCaller } from "./policy_scope.ts";

/** A rate: `perSecond` on average, `burst` in a row; perSecond 0: no limit. */
export interface RateLimitSettings {
  perSecond: number;
  burst: number;
}

/** A `rateLimits:` entry of the policy file: the rate of some groups. */
export interface GroupRateLimit {
  groups: string[];
  perSecond: number;
  burst: number;
}

/** The --rate-limit, --rate-limit-burst and --max-watches-per-user flags. */
export interface FairUseSettings {
  rate: RateLimitSettings;
  /** Open server streams per caller; 0: no cap. */
  maxStreams: number;
  /**
   * Whether anonymous callers are limited too, each source address as one
   * caller (--rate-limit-anonymous); they are not by default.
   */
  anonymous?: boolean;
}

/** Generous enough for any person and their tools, not for a loop. */
export const DEFAULT_RATE_LIMIT: RateLimitSettings = {
  perSecond: 50,
  burst: 100,
};

/** Open watch streams per caller by default. */
export const DEFAULT_MAX_STREAMS = 20;

export interface FairUseOptions {
  /** The policy's `rateLimits:` in force, read on every call. */
  groupLimits?: () => readonly GroupRateLimit[];
  metrics?: Metrics;
  /** A monotonic clock in ms, for the buckets. */
  now?: () => number;
}

/** What a call is, to fair use: who makes it, how, and for which method. */
export interface FairUseCall {
  identity: Identity;
  /** The peer's address, by which anonymous callers count. */
  address?: string;
  transport: string;
  /** The RPC's method name, for messages: "ListClusters". */
  method: string;
}

/** The rate and stream limits of every caller, on both transports. */
export class FairUse {
  readonly #settings: FairUseSettings;
  readonly #groupLimits: () => readonly GroupRateLimit[];
  readonly #metrics?: Metrics;
  readonly #buckets: TokenBuckets;
  /** Open streams by caller key. */
  readonly #streams = new Map<string, number>();

  constructor(settings: FairUseSettings, options: FairUseOptions = {}) {
    this.#settings = settings;
    this.#groupLimits = options.groupLimits ?? (() => []);
    this.#metrics = options.metrics;
    this.#buckets = new TokenBuckets(options.now);
  }

  /** The rate `identity` is held to: its groups' override, else the default. */
  rateOf(identity: Identity): RateLimitSettings {
    return this.#groupLimits().find((limit) => namesCaller(limit, identity)) ??
      this.#settings.rate;
  }

  /**
   * Counts a call against its caller's rate; throws RESOURCE_EXHAUSTED,
   * with the seconds to wait as RetryInfo, when the caller is over it.
   */
  admit(call: FairUseCall): void {
    if (this.#exempt(call)) return;
    const rate = this.rateOf(call.identity);
    const seconds = this.#buckets.take(callerKey(call), rate);
    if (seconds <= 0) return;
    this.#metrics?.rateLimited.inc({
      group: groupOf(call.identity),
      transport: call.transport,
    });
    const wait = Math.max(1, Math.ceil(seconds));
    throw new ServiceError(
      Code.RESOURCE_EXHAUSTED,
      `Cannot call ${call.method}: over the rate limit of ${rate.perSecond} requests per second (bursts of ${rate.burst}); try again in ${wait}s`,
      {
        details: [{
          "@type": "type.googleapis.com/google.rpc.RetryInfo",
          retryDelay: `${wait}s`,
        }],
      },
    );
  }

  /**
   * Counts a stream the call opens: throws RESOURCE_EXHAUSTED when its
   * caller has the most open already, else returns the function to call
   * once when the stream has ended (more calls do nothing).
   */
  openStream(call: FairUseCall): () => void {
    if (this.#exempt(call)) return () => {};
    const key = callerKey(call);
    const open = this.#streams.get(key) ?? 0;
    const cap = this.#settings.maxStreams;
    const group = groupOf(call.identity);
    if (cap > 0 && open >= cap) {
      this.#metrics?.streamLimited.inc({ group, transport: call.transport });
      throw new ServiceError(
        Code.RESOURCE_EXHAUSTED,
        `Cannot open ${call.method}: ${open} streams are open already, the most one caller may have (--max-watches-per-user ${cap}); end one first`,
      );
    }
    this.#streams.set(key, open + 1);
    this.#metrics?.openStreams.inc({ group });
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.#streams.get(key) ?? 1) - 1;
      if (left > 0) this.#streams.set(key, left);
      else this.#streams.delete(key);
      this.#metrics?.openStreams.dec({ group });
    };
  }

  /** Whether `call` is anonymous and anonymous callers are not limited. */
  #exempt(call: FairUseCall): boolean {
    return isAnonymous(call.identity) && !this.#settings.anonymous;
  }

  /** The streams `identity` has open (anonymous callers: by address). */
  streamsOf(identity: Identity, address?: string): number {
    return this.#streams.get(callerKey({ identity, address })) ?? 0;
  }
}

function isAnonymous(identity: Identity): boolean {
  return identity.authenticator === "anonymous";
}

/** The key a caller counts by: its user name, or an anonymous one's source. */
function callerKey(
  { identity, address }: Pick<FairUseCall, "identity" | "address">,
): string {
  // Anonymity is the authenticator's word, never a name's (issue 23).
  if (!isAnonymous(identity)) return `user:${identity.user}`;
  return address ? `source:${sourceOf(address)}` : "source:unknown";
}

/** The metrics label of a caller: its first group, or "none". */
export function groupOf(identity: Identity): string {
  return identity.groups[0] ?? "none";
}

/** The `rateLimits:` section, as policy_section.ts reads it. */
const RATE_LIMITS: ListSection<GroupRateLimit> = {
  name: "rateLimits",
  keys: new Set(["groups", "qps", "burst"]),
  list: "a list of {groups, qps, burst}",
  entry: "a mapping with groups and qps",
  read(entry, at, problem) {
    const groups = requiredNamesAt(
      entry,
      "groups",
      at,
      problem,
      "must be a non-empty list of group names",
    );
    const qps = entry.qps;
    if (typeof qps !== "number" || !(qps >= 0) || !Number.isFinite(qps)) {
      problem(`${at}.qps`, "must be a number of 0 or more (0: no limit)");
    }
    const burst = entry.burst ?? Math.max(1, Math.ceil(Number(qps) * 2));
    if (typeof burst !== "number" || !Number.isInteger(burst) || burst < 1) {
      problem(`${at}.burst`, "must be a whole number of 1 or more");
    }
    return {
      groups: groups ?? [],
      perSecond: Number(qps),
      burst: Number(burst),
    };
  },
};

/**
 * The `rateLimits:` section of a policy file: a list of
 * `{groups, qps, burst}`, burst defaulting to twice qps (at least 1). Each
 * problem is told to `problem` with its path, `rateLimits[1].qps`.
 */
export function rateLimitsOf(
  value: unknown,
  problem: Problem,
): GroupRateLimit[] {
  return listSectionOf(RATE_LIMITS, value, problem);
}
