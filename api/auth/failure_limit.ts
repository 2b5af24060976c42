/**
 * A limit on failed authentications per source address: a token bucket per
 * address, from which every failed authentication takes one token. While an
 * address's bucket is empty, its failures are answered RESOURCE_EXHAUSTED
 * (HTTP 429 with Retry-After) instead of UNAUTHENTICATED, so a client that
 * keeps presenting a bad or no token is told to back off, and the operator
 * sees code 8 in the audit trail and metrics.
 *
 * Only failures are counted, and only after the credentials were checked: a
 * caller whose credentials are good is never throttled, even from an address
 * (a NAT, a proxy) that others fail from. Guessing a token is not what this
 * stops (tokens of 32 characters and signed ID tokens do that); it keeps a
 * misconfigured client or a scanner from being an unbounded stream of 401s.
 *
 * An address is its IP without the port; an IPv6 address counts by its /64,
 * the block one host is usually given, so that a host cannot get a fresh
 * bucket by changing its address. At most MAX_SOURCES buckets are kept: the
 * one of the address that failed least lately goes first. The buckets are
 * token_bucket.ts's, as fair use's are, with one rate for every address.
 */
import { TokenBuckets } from "./token_bucket.ts";

/** How many failures an address may make: `perSecond`, bursts of `burst`. */
export interface FailureLimitSettings {
  /** Tokens a bucket gains per second; 0 turns the limit off. */
  perSecond: number;
  /** The bucket's size: failures in a row before throttling starts. */
  burst: number;
}

/** Corral's default: 10 failures a second, 20 in a row. */
export const DEFAULT_FAILURE_LIMIT: FailureLimitSettings = {
  perSecond: 10,
  burst: 20,
};

/** The most addresses whose buckets are kept at once. */
const MAX_SOURCES = 10_000;

/** The buckets of every address that failed lately (token_bucket.ts). */
export class FailureLimit {
  readonly #buckets: TokenBuckets;

  constructor(
    readonly settings: FailureLimitSettings,
    /** A monotonic clock in ms; performance.now by default. */
    readonly now: () => number = () => performance.now(),
    readonly maxSources: number = MAX_SOURCES,
  ) {
    this.#buckets = new TokenBuckets(now, maxSources);
  }

  /**
   * Counts a failure from `address`: 0 when its bucket had a token (answer
   * the failure as it is), else the seconds until it has one again.
   */
  fail(address: string): number {
    return this.#buckets.take(sourceOf(address), this.settings);
  }

  /** How many addresses have a bucket (for tests). */
  get size(): number {
    return this.#buckets.size;
  }
}

/**
 * The source an address counts as: "10.0.0.7:51234" -> "10.0.0.7",
 * "[fd00:1:2:3::7]:51234" and grpc-js' "fd00:1:2:3::7:51234" ->
 * "fd00:1:2:3::/64", "::ffff:10.0.0.7" -> "10.0.0.7". Both transports give
 * the port, so the last `:digits` is always one.
 */
export function sourceOf(address: string): string {
  let host = address.replace(/:\d+$/, "");
  if (host.startsWith("[")) host = host.slice(1, host.indexOf("]"));
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(host);
  if (mapped) return mapped[1];
  if (!host.includes(":")) return host;
  return `${ipv6Groups(host).slice(0, 4).join(":")}::/64`;
}

/** The eight groups of an IPv6 address, "::" expanded, without leading zeros. */
function ipv6Groups(host: string): string[] {
  const [head, tail] = host.toLowerCase().split("::", 2);
  const part = (text: string | undefined) =>
    text ? text.split(":").map((g) => g.replace(/^0+(?=.)/, "")) : [];
  const first = part(head);
  const last = part(tail);
  const zeros = Array(Math.max(0, 8 - first.length - last.length)).fill("0");
  return tail === undefined ? first : [...first, ...zeros, ...last];
}
