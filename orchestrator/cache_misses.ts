/**
 * What a get does when the cache does not hold the name: it asks
 * Kubernetes (the object may have been created through another replica a
 * moment ago, and the watch has not brought it yet), within three limits
 * that keep a client polling a missing name from passing its load to the
 * API server:
 *
 * - Concurrent misses of one name share one lookup. It runs without any
 *   one caller's signal (one caller going away fails nobody else); each
 *   caller waits for it under its own, and the Kubernetes call is reported
 *   to the first caller's observer only, since only one was made.
 * - A name Kubernetes answered 404 for is remembered for `rememberMs` (1 s):
 *   a get within that answers NOT_FOUND at once. The cache answers from
 *   its store first, so the watch showing the name ends this at once; the
 *   price is that a name created elsewhere may be reported missing for up
 *   to `rememberMs` when the watch has not shown it yet.
 * - Live lookups are limited to `qps` a second (a token bucket holding at
 *   most a second's worth, one LookupAllowance the lookups of every
 *   resource share); past it a miss answers NOT_FOUND at once, as the
 *   cache sees it. 0 makes no lookups at all.
 */
import type { CallOptions } from "../domain/ports.ts";
import { Code, ServiceError } from "../domain/errors.ts";

export interface MissOptions {
  /** Live lookups a second; 0: none. Default 20. */
  qps?: number;
  /** How long a 404 from Kubernetes is remembered; 1 s. */
  rememberMs?: number;
  /** The most names remembered; 10,000 (the oldest go first). */
  maxRemembered?: number;
  /** The clock, in ms; performance.now(). */
  now?: () => number;
}

/** Live lookups a second, as a token bucket; one for every resource. */
export class LookupAllowance {
  readonly #qps: number;
  readonly #now: () => number;
  #tokens: number;
  #refilledAt: number;

  constructor(options: Pick<MissOptions, "qps" | "now"> = {}) {
    this.#qps = options.qps ?? 20;
    this.#now = options.now ?? (() => performance.now());
    this.#tokens = this.#qps;
    this.#refilledAt = this.#now();
  }

  /** Takes one lookup from this second's allowance, if one is left. */
  take(): boolean {
    if (this.#qps <= 0) return false;
    const now = this.#now();
    const elapsed = Math.max(0, now - this.#refilledAt);
    this.#tokens = Math.min(
      this.#qps,
      this.#tokens + (elapsed * this.#qps) / 1_000,
    );
    this.#refilledAt = now;
    if (this.#tokens < 1) return false;
    this.#tokens -= 1;
    return true;
  }
}

/**
 * The lookups of one resource's misses (one instance per resource), within
 * `allowance` (their own when not given one to share).
 */
export class MissLookups<T> {
  readonly #inFlight = new Map<string, Promise<T>>();
  /** Names Kubernetes said do not exist -> until when, oldest first. */
  readonly #missing = new Map<string, number>();
  readonly #allowance: LookupAllowance;
  readonly #rememberMs: number;
  readonly #maxRemembered: number;
  readonly #now: () => number;

  constructor(
    options: MissOptions = {},
    allowance = new LookupAllowance(options),
  ) {
    this.#allowance = allowance;
    this.#rememberMs = options.rememberMs ?? 1_000;
    this.#maxRemembered = options.maxRemembered ?? 10_000;
    this.#now = options.now ?? (() => performance.now());
  }

  /**
   * The object `key` names, as `lookup` finds it in Kubernetes; fails
   * with NOT_FOUND ("`action`: not found", as a live lookup would) when the
   * name is remembered missing or the lookups of this second are spent,
   * and as `lookup` fails otherwise. `action` is the failed action's
   * words: `Cannot get cluster "team-a/blue"`.
   */
  async find(
    key: string,
    action: string,
    lookup: (call: CallOptions) => Promise<T>,
    call?: CallOptions,
  ): Promise<T> {
    let shared = this.#inFlight.get(key);
    if (shared === undefined) {
      if (this.#remembered(key) || !this.#allowance.take()) {
        throw new ServiceError(Code.NOT_FOUND, `${action}: not found`);
      }
      shared = this.#start(key, lookup, call);
    }
    return await waitFor(shared, call?.signal, action);
  }

  #start(
    key: string,
    lookup: (call: CallOptions) => Promise<T>,
    call: CallOptions | undefined,
  ): Promise<T> {
    const shared = lookup(call?.observe ? { observe: call.observe } : {})
      .catch((error: unknown) => {
        if (error instanceof ServiceError && error.code === Code.NOT_FOUND) {
          this.#remember(key);
        }
        throw error;
      })
      .finally(() => this.#inFlight.delete(key));
    // Callers that went away leave it unawaited: never an unhandled one.
    shared.catch(() => {});
    this.#inFlight.set(key, shared);
    return shared;
  }

  #remembered(key: string): boolean {
    const until = this.#missing.get(key);
    if (until === undefined) return false;
    if (this.#now() < until) return true;
    this.#missing.delete(key);
    return false;
  }

  #remember(key: string): void {
    const now = this.#now();
    this.#missing.delete(key);
    this.#missing.set(key, now + this.#rememberMs);
    for (const [oldest, until] of this.#missing) {
      if (this.#missing.size <= this.#maxRemembered && until > now) break;
      this.#missing.delete(oldest);
    }
  }
}

/**
 * `shared`, or the caller's abort: its reason when a ServiceError (a
 * deadline), CANCELLED otherwise, as the direct orchestrator fails.
 */
function waitFor<T>(
  shared: Promise<T>,
  signal: AbortSignal | undefined,
  action: string,
): Promise<T> {
  if (signal === undefined) return shared;
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => {
      const reason = signal.reason;
      if (reason instanceof ServiceError) return reject(reason);
      reject(
        new ServiceError(
          Code.CANCELLED,
          `${action}: the request was cancelled`,
          { cause: reason },
        ),
      );
    };
    if (signal.aborted) return onAbort();
    signal.addEventListener("abort", onAbort, { once: true });
    shared.then(resolve, reject).finally(() =>
      signal.removeEventListener("abort", onAbort)
    );
  });
}
