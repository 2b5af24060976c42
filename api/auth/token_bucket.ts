/**
 * Token buckets by key, the one limiter behind fair use (rate_limit.ts, a
 * bucket per caller) and the limit on failed authentications
 * (failure_limit.ts, a bucket per source address).
 *
 * A bucket holds at most `burst` tokens and gains `perSecond` a second; it
 * is brought up to date only when taken from, so an idle key costs
 * nothing. The rate is given on each take, not once: fair use reads the
 * caller's rate from a policy that a reload may change.
 *
 * At most `maxKeys` buckets are kept. The map is in last-used order, so
 * the first key is the one least lately used, whose bucket has had the
 * longest to fill and so loses least by going: one delete, not a scan of
 * every bucket, so a caller spraying keys costs no more per take.
 *
 * Time comes from the clock the owner passes (performance.now by default),
 * so a test moves it by hand and no answer depends on the machine's speed.
 */

/** A rate: `perSecond` on average, `burst` in a row; perSecond 0: no limit. */
export interface TokenRate {
  /** Tokens a bucket gains per second; 0 turns the limit off. */
  perSecond: number;
  /** The bucket's size: takes in a row before one has to wait. */
  burst: number;
}

/** The most keys whose buckets are kept at once, by default. */
export const DEFAULT_MAX_KEYS = 10_000;

interface Bucket {
  tokens: number;
  /** When `tokens` was last brought up to date, in ms of the clock. */
  at: number;
}

/** A bucket per key, each filled at the rate given when it is taken from. */
export class TokenBuckets {
  readonly #buckets = new Map<string, Bucket>();

  constructor(
    /** A monotonic clock in ms; performance.now by default. */
    readonly now: () => number = () => performance.now(),
    readonly maxKeys: number = DEFAULT_MAX_KEYS,
  ) {}

  /**
   * Takes a token from `key`'s bucket: 0 when there was one, else the
   * seconds until there is (nothing taken). perSecond 0 always answers 0
   * and keeps no bucket.
   */
  take(key: string, { perSecond, burst }: TokenRate): number {
    if (perSecond <= 0) return 0;
    const now = this.now();
    const bucket = this.#buckets.get(key) ?? { tokens: burst, at: now };
    bucket.tokens = Math.min(
      burst,
      bucket.tokens + (now - bucket.at) / 1000 * perSecond,
    );
    bucket.at = now;
    // Last used last: eviction takes the first key of the map.
    this.#buckets.delete(key);
    if (this.#buckets.size >= this.maxKeys) {
      this.#buckets.delete(this.#buckets.keys().next().value!);
    }
    this.#buckets.set(key, bucket);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return 0;
    }
    return (1 - bucket.tokens) / perSecond;
  }

  /** How many keys have a bucket (for tests). */
  get size(): number {
    return this.#buckets.size;
  }
}
