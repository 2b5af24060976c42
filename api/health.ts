/**
 * Liveness and readiness. Liveness: the process serves HTTP. Readiness: both
 * listeners are up, no shutdown has begun, and the Kubernetes API answered
 * within the last few seconds (an answer about a resource counts: a 404
 * shows it is there). A call that failed otherwise, for whatever reason,
 * makes Corral not ready: unavailability and time-outs, and failures on
 * Corral's side too (client-node refusing the configuration, a 401 for
 * Corral's own credentials), since every request would fail the same way.
 * Calls cancelled because their client gave up are ignored. When no
 * request has reached Kubernetes lately, a readiness check asks it for its
 * version. With a cache, it must also be in step: listed, and its watches
 * not down longer than --cache-stale-after.
 *
 * What the ping finds also tells a call that would only wait on the API
 * server (the dashboard proxy through its service proxy) not to: while
 * the last ping got no answer (unavailable, or not in time) and no call
 * has had one since, unanswered() says why, and asks again in the
 * background (at most once a second), so the API server's return is
 * noticed without waiting for the next readiness probe.
 */
import { Code, ServiceError } from "../domain/errors.ts";
import type { ApiServerAnswers } from "../domain/dashboard_ports.ts";
import type { CacheState, KubernetesCallRecord } from "../domain/ports.ts";

export interface HealthOptions {
  /** Asks Kubernetes for its version; resolves when it answered. */
  ping: (options: {
    signal: AbortSignal;
    observe: (record: KubernetesCallRecord) => void;
  }) => Promise<void>;
  /** The cache reads come from: not ready while it is not in step. */
  cache?: () => CacheState;
  /** How long an answer from Kubernetes keeps Corral ready; 5 s. */
  freshMs?: number;
  /** Time limit of the readiness ping; 2 s. */
  pingTimeoutMs?: number;
  now?: () => number;
}

export interface Readiness {
  ready: boolean;
  /** Why not, one reason per failed check. */
  reasons: string[];
}

/**
 * Outcomes that show Kubernetes answered, about the resource asked for.
 * Every other failure (UNAVAILABLE, DEADLINE_EXCEEDED, INTERNAL, UNKNOWN,
 * UNAUTHENTICATED...) means calls are not getting through.
 */
const ANSWERED = new Set([
  "ok",
  "NOT_FOUND",
  "ALREADY_EXISTS",
  "ABORTED",
  "INVALID_ARGUMENT",
  "FAILED_PRECONDITION",
  "OUT_OF_RANGE",
  "PERMISSION_DENIED",
]);

/** The least time between two pings unanswered() and recheck() ask for. */
const RECHECK_MS = 1_000;

/** How a ping that got no answer failed: the API server did not answer. */
const NO_ANSWER = new Set<Code>([Code.UNAVAILABLE, Code.DEADLINE_EXCEEDED]);

export class Health implements ApiServerAnswers {
  readonly listeners = { http: false, grpc: false };
  #shuttingDown = false;
  #lastAnswer = -Infinity;
  #lastFailure = "no call yet";
  /** Why the last ping got no answer, until something answers. */
  #unanswered: string | undefined;
  /** When the last ping started. */
  #lastPing = -Infinity;
  #probe?: Promise<void>;
  readonly #options: HealthOptions;
  readonly #now: () => number;
  /** Told when readiness changed (the gRPC health service). */
  onChange?: (ready: boolean) => void;
  /** What onChange was last told; the gRPC health service starts SERVING. */
  #reported = true;

  constructor(options: HealthOptions) {
    this.#options = options;
    this.#now = options.now ?? (() => performance.now());
  }

  /** Feeds every Kubernetes call's outcome into readiness. */
  readonly observe = (record: KubernetesCallRecord): void => {
    // A call its caller cancelled says nothing about Kubernetes.
    if (record.outcome === "CANCELLED") return;
    if (ANSWERED.has(record.outcome)) {
      this.#lastAnswer = this.#now();
      this.#unanswered = undefined;
      return;
    }
    this.#lastFailure = record.outcome === "UNAVAILABLE"
      ? "Kubernetes API unavailable (UNAVAILABLE)"
      : record.outcome === "DEADLINE_EXCEEDED"
      ? "Kubernetes API did not answer (DEADLINE_EXCEEDED)"
      : `Kubernetes API calls failing (${record.outcome})`;
    this.#lastAnswer = -Infinity;
  };

  get shuttingDown(): boolean {
    return this.#shuttingDown;
  }

  beginShutdown(): void {
    this.#shuttingDown = true;
    this.#reported = false;
    this.onChange?.(false);
  }

  async readiness(): Promise<Readiness> {
    const reasons: string[] = [];
    if (this.#shuttingDown) reasons.push("shutting down");
    for (const [name, up] of Object.entries(this.listeners)) {
      if (!up) reasons.push(`${name} listener is not up`);
    }
    const cache = this.#options.cache?.();
    if (cache && !cache.inStep) {
      reasons.push(cache.reason ?? "cache not in step");
    }
    const freshMs = this.#options.freshMs ?? 5_000;
    if (this.#now() - this.#lastAnswer > freshMs) {
      await this.#ping();
      if (this.#now() - this.#lastAnswer > freshMs) {
        reasons.push(this.#lastFailure);
      }
    }
    const ready = reasons.length === 0;
    // The gRPC health service follows each readiness check (the probes of
    // /readyz), Kubernetes' availability included.
    if (ready !== this.#reported) {
      this.#reported = ready;
      this.onChange?.(ready);
    }
    return { ready, reasons };
  }

  /**
   * Why the Kubernetes API is taken not to answer now: the last ping got
   * no answer and no call has had one since; undefined otherwise (nothing
   * known counts as answering). Asks it again, in the background, when it
   * does not.
   */
  unanswered(): string | undefined {
    if (this.#unanswered !== undefined) this.recheck();
    return this.#unanswered;
  }

  /**
   * Asks the Kubernetes API for its version, in the background, unless a
   * ping started within the last second: a call through it failed.
   */
  recheck(): void {
    if (this.#now() - this.#lastPing < RECHECK_MS) return;
    void this.#ping();
  }

  /** One ping at a time, however many checks wait for it. */
  #ping(): Promise<void> {
    if (this.#probe) return this.#probe;
    this.#lastPing = this.#now();
    const timeoutMs = this.#options.pingTimeoutMs ?? 2_000;
    const controller = new AbortController();
    const timer = setTimeout(
      () =>
        controller.abort(
          new ServiceError(
            Code.DEADLINE_EXCEEDED,
            `Kubernetes API did not answer within ${timeoutMs} ms`,
          ),
        ),
      timeoutMs,
    );
    this.#probe = this.#options.ping({
      signal: controller.signal,
      observe: this.observe,
    }).then(() => {
      this.#unanswered = undefined;
    }, (error) => {
      this.#lastFailure = error instanceof Error
        ? error.message
        : String(error);
      if (error instanceof ServiceError && NO_ANSWER.has(error.code)) {
        this.#unanswered = this.#lastFailure;
      }
    }).finally(() => {
      clearTimeout(timer);
      this.#probe = undefined;
    });
    return this.#probe;
  }
}

/** GET /healthz: the process serves. */
export function livenessPage(): Response {
  return Response.json({ status: "ok" });
}

/** GET /readyz: 200 when ready, else 503 with the reasons. */
export async function readinessPage(health: Health): Promise<Response> {
  const { ready, reasons } = await health.readiness();
  return ready
    ? Response.json({ status: "ready" })
    : Response.json({ status: "not ready", reasons }, { status: 503 });
}
