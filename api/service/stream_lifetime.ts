/**
 * How long a server stream may go on: the chain (dispatcher.ts) wraps every
 * streaming handler's answers in a GuardedStream, so that every streaming
 * RPC, present and future, gets the same limits without its handler knowing:
 *
 * - When the token file or the policy file changes, the call is
 *   authenticated and authorized again, from its own credentials and
 *   request, as a fresh call would be. A stream whose caller lost the right
 *   ends with the error that fresh call would get: UNAUTHENTICATED (the
 *   token is gone) or PERMISSION_DENIED (the rule is gone, or a call across
 *   namespaces now covers fewer of them than when it started).
 * - Credentials that expire (an OIDC token's `exp`, Identity.expiresAt) are
 *   checked again when they do, and the stream ends with UNAUTHENTICATED.
 * - Every stream ends after its maximum duration (--watch-max-duration),
 *   jittered as the Kubernetes API server's --min-request-timeout so that
 *   streams opened together do not all reconnect together. The jitter is
 *   taken below the value (between half of it and all of it), so that the
 *   flag is a ceiling no stream outlives. The end is clean (OK): a stream
 *   that can (Finishable) first sends a resume point, so its client
 *   resumes where it stopped.
 *
 * A check that cannot decide (an OIDC issuer unreachable, UNAVAILABLE)
 * keeps the stream: the right has not been shown lost, and the next change
 * or the maximum duration checks again.
 */
import type { Message } from "../../domain/message_form.ts";
import { Code, ServiceError } from "../../domain/errors.ts";
import type { Logger } from "../../domain/log.ts";
import { asServiceError } from "../errors.ts";
import type { RequestAuthenticator } from "../auth/authenticate.ts";
import type { Credentials } from "../auth/authenticate.ts";
import { callerOf } from "../auth/caller.ts";
import { AuthorizationError } from "../auth/authorization_error.ts";
import type { Policy } from "../auth/policy.ts";
import { authorize } from "./authorize.ts";
import type { RpcRule, Scope } from "./rpcs.ts";

/**
 * A stream that can end cleanly on request: it sends what it has queued
 * and then a resume point (WatchClusters: a BOOKMARK with the last
 * resourceVersion), then ends.
 */
export interface Finishable {
  finish(): void;
}

function isFinishable(stream: object): stream is Finishable {
  return typeof (stream as Partial<Finishable>).finish === "function";
}

/** --watch-max-duration's default: 30 minutes. */
export const DEFAULT_STREAM_MAX_DURATION_MS = 30 * 60_000;

/**
 * A stream's own maximum duration: between half of `maxMs` and `maxMs`,
 * evenly. `random` returns a number in [0, 1), as Math.random.
 */
export function jitteredDuration(
  maxMs: number,
  random: () => number = Math.random,
): number {
  return maxMs / 2 + random() * (maxMs / 2);
}

/** The codes of a check that says the caller lost the right. */
const REVOKED: ReadonlySet<Code> = new Set([
  Code.UNAUTHENTICATED,
  Code.PERMISSION_DENIED,
]);

/** The shortest wait before checking expired credentials again. */
const EXPIRY_RECHECK_MS = 1_000;

export interface GuardOptions {
  /**
   * Authenticates and authorizes the call again. Throws the ServiceError a
   * fresh call would get; resolves to when the credentials expire (ms since
   * the epoch), or undefined when they do not.
   */
  authorizeAgain(): Promise<number | undefined>;
  /** When the credentials the stream started with expire; undefined: never. */
  expiresAt?: number;
  /**
   * Subscribes to changes of who may do what (the token and policy
   * files); returns the unsubscribe.
   */
  onAccessChange?: (listener: () => void) => () => void;
  /** The stream's own maximum duration (already jittered); none when absent. */
  maxDurationMs?: number;
  log: Logger;
  /** The clock and timers; the real ones by default, a test's own in tests. */
  timers?: StreamTimers;
}

/** Where a GuardedStream reads the time and sets its timers. */
export interface StreamTimers {
  /** Milliseconds since the epoch, as Date.now(): expiresAt's scale. */
  now(): number;
  /** Calls `fire` once, `ms` from now; the handle is for clearTimeout. */
  setTimeout(fire: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

/** Date.now() and the global timer functions. */
const realTimers: StreamTimers = {
  now: () => Date.now(),
  setTimeout: (fire, ms) => setTimeout(fire, ms),
  clearTimeout: (handle) =>
    clearTimeout(handle as ReturnType<typeof setTimeout>),
};

/** How the guard wants the stream to end. */
type Stop = { error: ServiceError } | { finish: true };

/**
 * The handler's stream, ended by the guard when the caller loses the
 * right (with the error) or the stream has lasted long enough (cleanly).
 * Its timers and subscription end with it, however it ends.
 */
export class GuardedStream<T> implements AsyncIterableIterator<T> {
  readonly #inner: AsyncIterableIterator<T>;
  readonly #options: GuardOptions;
  readonly #timers: StreamTimers;
  /**
   * The next() calls waiting on the handler's stream, each told if the
   * guard stops it. A promise of each call's own, not one for the
   * stream's life: a race against a promise that outlives it leaves a
   * reaction on that promise, holding the race's answer, for every call,
   * and a watch open for its whole --watch-max-duration held every answer
   * it had sent.
   */
  readonly #waiting = new Set<(stop: Stop) => void>();
  /** Set once the guard has decided how the stream ends. */
  #stopping: Stop | undefined;
  #done = false;
  #unsubscribe: (() => void) | undefined;
  #maxTimer: unknown;
  #expiryTimer: unknown;
  /** One check at a time; a change during one asks for another after it. */
  #checking: Promise<void> | undefined;
  #checkAgain = false;

  constructor(inner: AsyncIterableIterator<T>, options: GuardOptions) {
    this.#inner = inner;
    this.#options = options;
    this.#timers = options.timers ?? realTimers;
    this.#unsubscribe = options.onAccessChange?.(() => this.check());
    if (options.maxDurationMs !== undefined) {
      this.#maxTimer = this.#timers.setTimeout(
        () => this.#end({ finish: true }),
        options.maxDurationMs,
      );
    }
    this.#scheduleExpiry(options.expiresAt);
  }

  /**
   * Authenticates and authorizes the call again now; resolves once done
   * (the stream is then ending if the right was lost).
   */
  check(): Promise<void> {
    if (this.#stopping) return Promise.resolve();
    if (this.#checking) {
      this.#checkAgain = true;
      return this.#checking;
    }
    this.#checking = this.#checkNow().finally(() => {
      this.#checking = undefined;
      if (this.#checkAgain) {
        this.#checkAgain = false;
        void this.check();
      }
    });
    return this.#checking;
  }

  async #checkNow(): Promise<void> {
    try {
      const expiresAt = await this.#options.authorizeAgain();
      this.#scheduleExpiry(expiresAt);
    } catch (thrown) {
      const error = asServiceError(thrown);
      if (REVOKED.has(error.code)) {
        this.#end({ error });
        return;
      }
      this.#options.log.warn(
        "Kept a stream whose access could not be checked",
        {
          code: error.code,
          error: error.message,
        },
      );
    }
  }

  #scheduleExpiry(expiresAt: number | undefined): void {
    this.#timers.clearTimeout(this.#expiryTimer);
    this.#expiryTimer = undefined;
    if (expiresAt === undefined || this.#stopping) return;
    // Checked again rather than ended outright: the error is then the one
    // a fresh call gets, and credentials renewed in the meantime count.
    const wait = expiresAt - this.#timers.now();
    this.#expiryTimer = this.#timers.setTimeout(
      () => void this.check(),
      wait > 0 ? wait : EXPIRY_RECHECK_MS,
    );
  }

  #end(stop: Stop): void {
    if (this.#stopping) return;
    this.#stopping = stop;
    this.#release();
    if ("finish" in stop && isFinishable(this.#inner)) {
      // The stream ends itself, after its resume point.
      this.#inner.finish();
      return;
    }
    // Settled first, so that next() answers with the guard's ending rather
    // than with the end the handler's stream is about to give.
    for (const interrupt of this.#waiting) interrupt(stop);
    Promise.resolve(this.#inner.return?.()).catch(() => {});
  }

  /** Stops the timers and the subscription. */
  #release(): void {
    this.#timers.clearTimeout(this.#maxTimer);
    this.#timers.clearTimeout(this.#expiryTimer);
    this.#unsubscribe?.();
    this.#unsubscribe = undefined;
  }

  async next(): Promise<IteratorResult<T>> {
    if (this.#done) return { done: true, value: undefined };
    const stop = this.#stopping;
    if (stop && !("finish" in stop && isFinishable(this.#inner))) {
      return this.#ended(stop);
    }
    const pending = this.#inner.next();
    // Once the guard has stopped the stream, nobody awaits this answer.
    pending.catch(() => {});
    let interrupt!: (stop: Stop) => void;
    const interrupted = new Promise<Stop>((resolve) => interrupt = resolve);
    this.#waiting.add(interrupt);
    let result: IteratorResult<T> | Stop;
    try {
      result = await Promise.race([pending, interrupted]);
    } catch (error) {
      this.#done = true;
      this.#release();
      throw error;
    } finally {
      this.#waiting.delete(interrupt);
    }
    if ("error" in result || "finish" in result) return this.#ended(result);
    if (result.done) {
      this.#done = true;
      this.#release();
    }
    return result;
  }

  #ended(stop: Stop): IteratorResult<T> {
    this.#done = true;
    if ("error" in stop) throw stop.error;
    return { done: true, value: undefined };
  }

  async return(): Promise<IteratorResult<T>> {
    this.#done = true;
    this.#stopping ??= { finish: true };
    this.#release();
    return await this.#inner.return?.() ?? { done: true, value: undefined };
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<T> {
    return this;
  }
}

/** What a call was authorized with, to authorize it again. */
export interface StreamCall {
  credentials: Credentials;
  /** The unit's row; none for one any authenticated caller may use. */
  rule?: RpcRule;
  /** What was asked of the call when it started (Declaration.check). */
  check: "policy" | "authentication";
  request: Message;
  action: string;
  /** The namespaces this Corral serves (--namespaces). */
  served: readonly string[];
  /** Where the call was authorized to act when it started. */
  scope: Scope;
}

/**
 * Authenticates and authorizes `call` again, as a fresh call would be
 * (without counting it in the metrics: it is no new call): throws what
 * that call would get, or PERMISSION_DENIED when a call across namespaces
 * now covers fewer than it started with. Resolves to when the credentials
 * expire.
 */
export async function authorizeAgain(
  call: StreamCall,
  access: { authenticator: RequestAuthenticator; policy: Policy },
): Promise<number | undefined> {
  if (!call.rule) return await authenticateAgain(call, access);
  const identity = await access.authenticator.authenticate(call.credentials);
  const caller = callerOf(identity, access.policy);
  const scope = authorize(
    call.rule,
    call.request,
    caller,
    call.action,
    call.served,
  );
  const lost = lostNamespaces(call.scope, scope);
  if (lost !== undefined) {
    const { verb, resource } = call.rule;
    throw new AuthorizationError(
      "no-rule",
      `${call.action}: user "${identity.user}" may no longer ${verb} ${resource} in ${lost}`,
    );
  }
  return identity.expiresAt;
}

/**
 * Authenticates `call` again, for a unit any authenticated caller may use:
 * throws UNAUTHENTICATED once its credentials are gone. Resolves to when
 * they expire.
 */
export async function authenticateAgain(
  call: Pick<StreamCall, "credentials">,
  access: { authenticator: RequestAuthenticator },
): Promise<number | undefined> {
  const identity = await access.authenticator.authenticate(call.credentials);
  return identity.expiresAt;
}

/**
 * Where `before` reached and `after` does not, in words (`namespace
 * "team-b"`, `every namespace`); undefined when nothing was lost.
 */
export function lostNamespaces(
  before: Scope,
  after: Scope,
): string | undefined {
  if (before.kind !== "namespaces" || after.kind !== "namespaces") {
    return undefined; // one namespace: authorize() has decided
  }
  if (after.namespaces === undefined) return undefined;
  if (before.namespaces === undefined) return "every namespace";
  const now = new Set(after.namespaces);
  const lost = before.namespaces.filter((n) => !now.has(n));
  if (lost.length === 0) return undefined;
  return `${lost.length === 1 ? "namespace" : "namespaces"} ${
    lost.map((n) => `"${n}"`).join(", ")
  }`;
}
