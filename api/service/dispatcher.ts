/**
 * The one chain every call runs through, on both transports, the RPCs of
 * the proto and the HTTP units beside them alike (api/http/units.ts: the
 * dashboard proxy and its sessions, /whoami, /metrics under
 * authentication):
 *
 *   authenticate -> fair use -> decode -> authorize and validate the key
 *     -> handler -> audit -> metrics and the log line
 *
 * Authorization comes from the RPC's row in the policy table (rpcs.ts),
 * before any handler code runs: a handler never has to remember a check,
 * and an RPC without a row does not start. The request is decoded only
 * once the caller is authenticated. Each call gets a request id, a logger,
 * the caller, its scope and Kubernetes call options (cancellation,
 * observation); anything thrown becomes a ServiceError.
 */
import type { Message } from "../../domain/message_form.ts";
import { type Call, HttpAnswer, type KnownBy } from "./call.ts";
import { Code, ServiceError } from "../../domain/errors.ts";
import type { Logger } from "../../domain/log.ts";
import type { KubernetesCallRecord } from "../../domain/ports.ts";
import { kubernetesOptions, RequestEnd } from "./kubernetes_options.ts";
import { asServiceError, errorStatus } from "../errors.ts";
import type { Metrics } from "../metrics.ts";
import type { ApiSchema } from "../schema.ts";
import type { Access } from "../auth/access.ts";
import { type Credentials, credentialsOf } from "../auth/authenticate.ts";
import { callerOf } from "../auth/caller.ts";
import { AuthenticationError, type Identity } from "../auth/identity.ts";
import { AuthorizationError } from "../auth/authorization_error.ts";
import { FairUse, type FairUseSettings } from "../auth/rate_limit.ts";
import { actionOf, authenticatedOnly, authorize } from "./authorize.ts";
import type { WorkloadSummary } from "../auth/workload_summary.ts";
import { auditEntry, endingWith, logCall } from "./call_log.ts";
import {
  authenticateAgain,
  authorizeAgain,
  DEFAULT_STREAM_MAX_DURATION_MS,
  GuardedStream,
  jitteredDuration,
  type StreamCall,
} from "./stream_lifetime.ts";
import {
  type Declaration,
  declareRpcs,
  type Handlers,
  withBodyNamespace,
} from "./rpcs.ts";

export type { Call, Peer, Transport } from "./call.ts";
export { HttpAnswer } from "./call.ts";

/** What the policy said of a call, as corral_authorization_decisions_total counts it. */
interface Decision {
  verb: string;
  resource: string;
  /** "allowed", or the reason of a denial. */
  decision: string;
}

export interface DispatcherOptions {
  /** The API: every method of it must have a row in RPC_RULES and a handler. */
  schema: ApiSchema;
  handlers: Handlers;
  /** Who may call: authenticators, policy, audit trail. */
  access: Access;
  /**
   * The namespaces this Corral serves (a namespaced install); empty or
   * undefined serves every namespace. A request naming another namespace is
   * PERMISSION_DENIED before any Kubernetes call, and list-all lists each
   * served namespace (a namespaced Role forbids cluster-wide lists).
   */
  namespaces?: readonly string[];
  log: Logger;
  metrics?: Metrics;
  /** Told of every Kubernetes call any request makes (readiness). */
  onKubernetesCall?: (record: KubernetesCallRecord) => void;
  /**
   * The longest a server stream lasts (--watch-max-duration), jittered
   * below it (stream_lifetime.ts); 30 minutes by default.
   */
  streamMaxDurationMs?: number;
  /**
   * Each caller's rate and open streams (rate_limit.ts), with the policy's
   * `rateLimits:`; no limits when absent.
   */
  fairUse?: FairUseSettings;
  /** The fair-use buckets' clock in ms (tests); performance.now by default. */
  fairUseNow?: () => number;
}

export interface Outcome {
  /** A unary method's answer. */
  result?: Message;
  /**
   * A server-streaming method's answers. The call is logged and counted
   * when the stream ends: by its end, an error, or return() (the client
   * went away: CANCELLED).
   */
  stream?: AsyncIterableIterator<Message>;
  /**
   * An HTTP unit's answer (HttpAnswer). What it opened, if anything, the
   * chain follows to its end itself: the call is logged and counted then.
   */
  response?: Response;
  /** The status `response` answers with (HttpAnswer's). */
  status?: number;
  error?: ServiceError;
}

/** A call as it goes through the chain. */
interface Progress {
  started: number;
  identity?: Identity;
  request?: Message;
  declaration?: Declaration;
  /** The policy's last word on the call, counted once it has ended. */
  decision?: Decision;
  kubernetesCalls: number;
  /** What a create or update wrote, for its audit record. */
  workload?: WorkloadSummary;
  /** Ends the stream's count against its caller's cap (rate_limit.ts). */
  releaseStream?: () => void;
  /** How an HTTP unit's caller was known (Call.credentials), for the audit. */
  via?: string;
  /** An HTTP unit's answer status, for the audit. */
  status?: number;
}

/** What a transport hands its calls to. */
export interface Dispatcher {
  /**
   * Runs `call` through the chain: authenticates the caller, then decodes
   * the request (`decode` throws a ServiceError for a malformed one),
   * authorizes it from its row and runs its handler. `signal` aborts when
   * the caller goes away or its deadline passes; the Kubernetes calls are
   * cancelled with it.
   */
  invoke(
    call: Call,
    decode: () => Message | Promise<Message>,
    signal?: AbortSignal,
  ): Promise<Outcome>;
  /**
   * As invoke, for a unit that is no RPC of the API (api/http/units.ts):
   * the same chain, over the unit's own declaration.
   */
  serve(
    call: Call,
    declaration: Declaration,
    decode: () => Message | Promise<Message>,
    signal?: AbortSignal,
  ): Promise<Outcome>;
  /** Logs and counts a call that failed before reaching the chain. */
  reject(call: Call, error: ServiceError, started: number): void;
  readonly log: Logger;
}

export function createDispatcher(options: DispatcherOptions): Dispatcher {
  return new RpcDispatcher(options);
}

/** The chain, over the declarations of the API's RPCs. */
export class RpcDispatcher implements Dispatcher {
  readonly log: Logger;
  readonly #declarations: Map<string, Declaration>;
  readonly #access: Access;
  readonly #metrics?: Metrics;
  readonly #onKubernetesCall?: (record: KubernetesCallRecord) => void;
  readonly #streamMaxDurationMs: number;
  readonly #fairUse?: FairUse;
  /** Sorted, so a merged list-all comes in the order Kubernetes lists in. */
  readonly #served: readonly string[];

  /** Throws, naming the RPC, when a method of the schema has no row or handler. */
  constructor(options: DispatcherOptions) {
    this.log = options.log;
    this.#declarations = declareRpcs(options.schema, options.handlers);
    this.#access = options.access;
    this.#metrics = options.metrics;
    this.#onKubernetesCall = options.onKubernetesCall;
    this.#streamMaxDurationMs = options.streamMaxDurationMs ??
      DEFAULT_STREAM_MAX_DURATION_MS;
    this.#served = [...new Set(options.namespaces ?? [])].sort();
    if (options.fairUse) {
      const policy = options.access.policy;
      this.#fairUse = new FairUse(options.fairUse, {
        groupLimits: () => policy.rateLimits?.() ?? [],
        metrics: options.metrics,
        now: options.fairUseNow,
      });
    }
  }

  invoke(
    call: Call,
    decode: () => Message | Promise<Message>,
    signal?: AbortSignal,
  ): Promise<Outcome> {
    return this.serve(call, this.#declarations.get(call.key), decode, signal);
  }

  async serve(
    call: Call,
    declaration: Declaration | undefined,
    decode: () => Message | Promise<Message>,
    signal?: AbortSignal,
  ): Promise<Outcome> {
    const progress: Progress = {
      started: performance.now(),
      kubernetesCalls: 0,
      // Known before the caller is: a refusal's audit names its verb.
      declaration,
    };
    // Kubernetes calls end with the request: when one of two parallel
    // calls fails, the other must not go on retrying for nobody.
    const done = new RequestEnd();
    // The HTTP listener counts its requests itself, from their headers
    // on: a body still arriving is a request in flight too.
    const counted = call.transport !== "http";
    const inFlight = counted ? this.#metrics?.inFlight : undefined;
    if (inFlight) inFlight[call.transport]++;
    let outcome: Outcome;
    try {
      const answer = await this.#run(call, decode, progress, {
        signal,
        done,
      });
      outcome = answer instanceof HttpAnswer
        ? {
          response: answer.response,
          status: answer.status,
          stream: answer.lifetime,
        }
        : progress.declaration!.streaming
        ? { stream: answer as AsyncIterableIterator<Message> }
        : { result: answer as Message };
    } catch (thrown) {
      outcome = { error: asServiceError(thrown) };
    } finally {
      done.end();
      if (inFlight) inFlight[call.transport]--;
    }
    return this.#ended(call, progress, outcome);
  }

  reject(call: Call, error: ServiceError, started: number): void {
    this.#finish(call, { started, kubernetesCalls: 0 }, error);
  }

  /** The chain up to the handler's answer. */
  async #run(
    call: Call,
    decode: () => Message | Promise<Message>,
    progress: Progress,
    signals: { signal?: AbortSignal; done: RequestEnd },
  ): Promise<Message | AsyncIterableIterator<Message> | HttpAnswer> {
    const { declaration } = progress;
    // Before anything else, alone: the request's own signal is enough.
    const { identity, credentials } = await this.#authenticate(
      call,
      progress,
      signals.signal,
    );
    progress.identity = identity;
    // Before decoding: a caller over its rate costs no more than this.
    this.#limit(call, identity, declaration, progress);
    // KubeRay v0.6.0's job create names the namespace in the body only. A
    // request decoded at once (most reads: path variables alone) is not
    // waited for.
    const decoded = decode();
    const request = progress.request = withBodyNamespace(
      declaration?.rule,
      decoded instanceof Promise ? await decoded : decoded,
    );
    if (!declaration) {
      throw new ServiceError(
        Code.UNIMPLEMENTED,
        `Method ${call.key} is not implemented`,
      );
    }
    const caller = callerOf(identity, this.#access.policy, {
      onDecision: (verb, resource, decision) =>
        progress.decision = { verb, resource, decision },
    });
    const { rule } = declaration;
    const action = declaration.action?.(request) ??
      (rule ? actionOf(rule, request) : `Cannot serve ${call.key}`);
    const scope = declaration.check === "authentication" || !rule
      ? authenticatedOnly(rule, request, action)
      : authorize(rule, request, caller, action, this.#served);
    // Made when first asked for: most calls log nothing of their own.
    let log: Logger | undefined;
    const logOf = () => log ??= this.log.with({ requestId: call.requestId });
    const answer = await declaration.handle(request, {
      get log() {
        return logOf();
      },
      kube: kubernetesOptions(
        signals,
        () => progress.kubernetesCalls++,
        (record) => this.#observeKubernetesCall(record),
      ),
      caller,
      scope,
      action,
      wrote: (workload) => progress.workload = workload,
    });
    const stream = answer instanceof HttpAnswer
      ? answer.lifetime
      : declaration.streaming
      ? answer as AsyncIterableIterator<Message>
      : undefined;
    if (!stream) return answer;
    const guarded = this.#guarded(
      stream,
      {
        // Checked again without the address: a stream's own check is no
        // failed attempt of the caller's to limit.
        credentials: { ...credentials, address: undefined },
        rule,
        check: declaration.check ?? "policy",
        request,
        action,
        served: this.#served,
        scope,
      },
      identity,
      logOf(),
    );
    return answer instanceof HttpAnswer
      ? new HttpAnswer(
        answer.response,
        guarded as AsyncIterableIterator<never>,
        answer.status,
      )
      : guarded;
  }

  /**
   * Counts the call against its caller's rate, and a stream against its
   * cap (released when the call ends: #ended); throws RESOURCE_EXHAUSTED
   * when over either.
   */
  #limit(
    call: Call,
    identity: Identity,
    declaration: Declaration | undefined,
    progress: Progress,
  ): void {
    const fairUse = this.#fairUse;
    if (!fairUse) return;
    const counted = {
      identity,
      address: call.peer?.address,
      transport: call.transport,
      method: call.key.slice(call.key.lastIndexOf("/") + 1),
    };
    fairUse.admit(counted);
    if (declaration?.streaming || call.opensStream) {
      progress.releaseStream = fairUse.openStream(counted);
    }
  }

  /**
   * A handler's stream, ended when its caller loses the right or it has
   * lasted its maximum duration (stream_lifetime.ts): every streaming RPC
   * gets this from the chain.
   */
  #guarded<T>(
    stream: AsyncIterableIterator<T>,
    streamCall: StreamCall,
    identity: Identity,
    log: Logger,
  ): AsyncIterableIterator<T> {
    const access = this.#access;
    return new GuardedStream(stream, {
      authorizeAgain: () =>
        streamCall.check === "policy"
          ? authorizeAgain(streamCall, access)
          : authenticateAgain(streamCall, access),
      expiresAt: identity.expiresAt,
      onAccessChange: access.onChange?.bind(access),
      maxDurationMs: jitteredDuration(this.#streamMaxDurationMs),
      log,
    });
  }

  /**
   * The caller, from its own credentials or those the call names instead
   * (Call.credentials: the dashboard proxy's cookie).
   */
  async #authenticate(
    call: Call,
    progress: Progress,
    signal?: AbortSignal,
  ): Promise<{ identity: Identity; credentials: Credentials }> {
    const metrics = this.#metrics;
    try {
      const own = credentialsOf(
        call.authorization,
        call.peer?.certificate,
        call.peer?.address,
      );
      let known: KnownBy | undefined;
      if (call.credentials) {
        known = await call.credentials(own);
        progress.via = known.via;
      }
      const credentials = known?.credentials ?? own;
      const identity = await this.#access.authenticator.authenticate(
        credentials,
        signal,
      );
      metrics?.authentications.inc({
        authenticator: identity.authenticator,
        result: "success",
      });
      return { identity, credentials };
    } catch (error) {
      const failed = error instanceof AuthenticationError;
      metrics?.authentications.inc({
        authenticator: failed ? error.authenticator ?? "none" : "none",
        result: failed ? error.reason : "error",
      });
      throw error;
    }
  }

  #observeKubernetesCall(record: KubernetesCallRecord): void {
    this.#metrics?.kubernetesCalls.inc({
      verb: record.verb,
      resource: record.resource,
      outcome: record.outcome === "CANCELLED" ? "cancelled" : record.outcome,
    });
    this.#metrics?.kubernetesDuration.observe(
      { verb: record.verb, resource: record.resource },
      record.seconds,
    );
    this.#onKubernetesCall?.(record);
  }

  /** Counts the decision; a stream is logged when it ends, anything else now. */
  #ended(call: Call, progress: Progress, outcome: Outcome): Outcome {
    const { decision } = progress;
    if (decision) {
      // One decision per call: one the namespace allowed and its workload
      // or user then refused counts as refused, for that reason.
      this.#metrics?.authorizations.inc({
        ...decision,
        decision: outcome.error instanceof AuthorizationError
          ? outcome.error.reason
          : decision.decision,
      });
    }
    if (call.http) {
      progress.status = outcome.status ??
        (outcome.error ? errorStatus(outcome.error) : undefined);
    }
    if (outcome.stream) {
      // What an HTTP unit opened (a WebSocket) is audited as it opens.
      const opened = outcome.response !== undefined;
      if (opened) this.#audit(call, progress);
      // A stream ended because its caller lost the right is a refusal,
      // audited as a fresh call's would be.
      const end = (error?: ServiceError) => {
        progress.releaseStream?.();
        this.#finish(call, progress, error);
        if (error) this.#audit(call, progress, error);
      };
      const stream = endingWith(outcome.stream, end);
      if (!opened) return { stream };
      followToItsEnd(stream);
      return { response: outcome.response, status: outcome.status };
    }
    progress.releaseStream?.();
    this.#finish(call, progress, outcome.error);
    this.#audit(call, progress, outcome.error);
    return outcome;
  }

  #audit(call: Call, progress: Progress, error?: ServiceError): void {
    const entry = auditEntry(
      call,
      progress.declaration?.rule,
      progress.identity,
      progress.request,
      error,
      progress.workload,
      call.http && { ...call.http, status: progress.status, via: progress.via },
    );
    if (entry) this.#access.audit.record(entry);
  }

  #finish(call: Call, progress: Progress, error?: ServiceError): void {
    const seconds = (performance.now() - progress.started) / 1000;
    const name = call.route ?? call.key;
    this.#metrics?.requests.inc({
      transport: call.transport,
      rpc: name,
      code: String(error?.code ?? Code.OK),
    });
    this.#metrics?.requestDuration.observe(
      { transport: call.transport, rpc: name },
      seconds,
    );
    logCall(
      this.log,
      call,
      progress.request,
      error,
      seconds * 1000,
      progress.kubernetesCalls,
      progress.identity,
    );
  }
}

/**
 * Reads what an HTTP unit opened until it ends: nobody else does, and its
 * end is what logs and counts the call (endingWith).
 */
function followToItsEnd(lifetime: AsyncIterableIterator<unknown>): void {
  void (async () => {
    try {
      while (!(await lifetime.next()).done);
    } catch {
      // Its ending is told to the chain already.
    }
  })();
}
