/**
 * What both transports do around a handler: authenticate the caller before
 * anything else (the request is decoded only then), give the call a request
 * id, a logger, the caller and Kubernetes call options (cancellation,
 * observation), turn anything thrown into a ServiceError, count it in the
 * metrics, log one line per call, and write the audit trail.
 */
import type { Message } from "../../domain/codec.ts";
import { Code, ServiceError } from "../../domain/errors.ts";
import type { Logger } from "../../domain/log.ts";
import type { KubernetesCallRecord } from "../../domain/ports.ts";
import { asServiceError, describeCause } from "../errors.ts";
import type { Metrics } from "../metrics.ts";
import { type Handlers, MessageStream } from "./handlers.ts";
import type { Access } from "../auth/access.ts";
import { actionOf, mutates } from "../auth/actions.ts";
import { credentialsOf } from "../auth/authenticate.ts";
import { callerOf } from "../auth/caller.ts";
import { AuthenticationError, type Identity } from "../auth/identity.ts";
import { AuthorizationError } from "../auth/policy.ts";

export type Transport = "http" | "grpc";

export interface Call {
  transport: Transport;
  requestId: string;
  /** "proto.ClusterService/CreateCluster" */
  key: string;
  /** The HTTP route, "GET /apis/v1alpha2/clusters", for HTTP calls. */
  route?: string;
  /** Who is at the other end of the connection, as far as TLS tells. */
  peer?: Peer;
  /** The Authorization header (HTTP) or metadata (gRPC), if any. */
  authorization?: string;
  /**
   * The namespace and name the path names (HTTP), known before the request
   * is decoded: the audit trail says what a refused caller aimed at.
   */
  target?: { namespace?: string; name?: string };
}

/** The connection a call came on. */
export interface Peer {
  /** The client's IP and port, "10.0.0.7:51234" or "[fd00::7]:51234". */
  address?: string;
  /**
   * The client certificate's subject (CN and O), present only when the
   * certificate verified against --client-ca-file.
   */
  certificate?: { commonName?: string; organizations: string[] };
}

/** What the policy said of a call, as corral_authorization_decisions_total counts it. */
interface Decision {
  verb: string;
  resource: string;
  /** "allowed", or the reason of a denial. */
  decision: string;
}

export interface DispatcherOptions {
  handlers: Handlers;
  /** Who may call: authenticators, policy, audit trail. */
  access: Access;
  log: Logger;
  metrics?: Metrics;
  /** Told of every Kubernetes call any request makes (readiness). */
  onKubernetesCall?: (record: KubernetesCallRecord) => void;
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
  error?: ServiceError;
}

export interface Dispatcher {
  /**
   * Authenticates the caller, then decodes the request (`decode` throws a
   * ServiceError for a malformed one) and runs the handler for `call.key`.
   * `signal` aborts when the caller goes away or its deadline passes; the
   * Kubernetes calls are cancelled with it.
   */
  invoke(
    call: Call,
    decode: () => Message | Promise<Message>,
    signal?: AbortSignal,
  ): Promise<Outcome>;
  /** Logs and counts a call that failed before reaching a handler. */
  reject(call: Call, error: ServiceError, started: number): void;
  readonly log: Logger;
}

/**
 * Why a request's Kubernetes calls are cancelled once it has ended. Made
 * once: abort() without a reason makes a DOMException, and its stack, on
 * every request.
 */
const REQUEST_ENDED = new ServiceError(Code.CANCELLED, "The request ended");

export function createDispatcher(options: DispatcherOptions): Dispatcher {
  const { handlers, log, metrics, access } = options;

  async function authenticate(
    call: Call,
    signal?: AbortSignal,
  ): Promise<Identity> {
    try {
      const identity = await access.authenticator.authenticate(
        credentialsOf(call.authorization, call.peer?.certificate),
        signal,
      );
      metrics?.authentications.inc({
        authenticator: identity.authenticator,
        result: "success",
      });
      return identity;
    } catch (error) {
      metrics?.authentications.inc({
        authenticator: error instanceof AuthenticationError
          ? error.authenticator ?? "none"
          : "none",
        result: error instanceof AuthenticationError ? error.reason : "error",
      });
      throw error;
    }
  }

  /** Mutating calls, and calls refused for want of credentials or rights. */
  function audit(
    call: Call,
    identity: Identity | undefined,
    request: Message | undefined,
    error: ServiceError | undefined,
  ): void {
    const action = actionOf(call.key);
    const denied = error instanceof AuthenticationError ||
      error instanceof AuthorizationError;
    if (!denied && !(action && mutates(action))) return;
    const text = (value: unknown) =>
      typeof value === "string" && value !== "" ? value : undefined;
    const body = (request?.cluster ?? request?.computeTemplate) as
      | Message
      | undefined;
    access.audit.record({
      requestId: call.requestId,
      user: identity?.user,
      groups: identity?.groups,
      authenticator: identity?.authenticator,
      verb: action?.verb,
      resource: action?.resource,
      namespace: text(request?.namespace) ?? text(call.target?.namespace),
      name: text(request?.name) ?? text(body?.name) ?? text(call.target?.name),
      code: error?.code ?? Code.OK,
      ...(denied ? { reason: (error as AuthenticationError).reason } : {}),
      transport: call.transport,
      sourceAddress: call.peer?.address,
    });
  }

  function finish(
    call: Call,
    request: Message | undefined,
    error: ServiceError | undefined,
    started: number,
    kubernetesCalls: number,
    identity?: Identity,
  ): void {
    const seconds = (performance.now() - started) / 1000;
    const name = call.route ?? call.key;
    metrics?.requests.inc({
      transport: call.transport,
      rpc: name,
      code: String(error?.code ?? Code.OK),
    });
    metrics?.requestDuration.observe(
      { transport: call.transport, rpc: name },
      seconds,
    );
    logCall(
      log,
      call,
      request,
      error,
      seconds * 1000,
      kubernetesCalls,
      identity,
    );
  }

  return {
    log,
    async invoke(call, decode, signal) {
      const started = performance.now();
      const callLog = log.with({ requestId: call.requestId });
      let kubernetesCalls = 0;
      // Kubernetes calls end with the request: when one of two parallel
      // calls fails, the other must not go on retrying for nobody.
      const done = new AbortController();
      // Made when first asked for (a Kubernetes call asks): a read from
      // the cache makes no call, and AbortSignal.any() is a few µs of its
      // 50.
      let kubeSignal: AbortSignal | undefined;
      const kube = {
        get signal() {
          return kubeSignal ??= signal
            ? AbortSignal.any([signal, done.signal])
            : done.signal;
        },
        observe(observed: KubernetesCallRecord) {
          kubernetesCalls++;
          // A call cut short because its request ended (the client gave up,
          // its deadline passed, a sibling call failed) says nothing about
          // Kubernetes: counted as cancelled, and readiness ignores it.
          const record = observed.outcome !== "ok" && kube.signal.aborted
            ? { ...observed, outcome: "CANCELLED" }
            : observed;
          metrics?.kubernetesCalls.inc({
            verb: record.verb,
            resource: record.resource,
            outcome: record.outcome === "CANCELLED"
              ? "cancelled"
              : record.outcome,
          });
          metrics?.kubernetesDuration.observe(
            { verb: record.verb, resource: record.resource },
            record.seconds,
          );
          options.onKubernetesCall?.(record);
        },
      };
      // The HTTP listener counts its requests itself, from their headers
      // on: a body still arriving is a request in flight too.
      const counted = call.transport !== "http";
      if (counted) metrics?.inFlight.inc({ transport: call.transport });
      let outcome: Outcome;
      let identity: Identity | undefined;
      let request: Message | undefined;
      // The policy's last word on the call, counted once it has ended.
      let decision: Decision | undefined;
      try {
        // Before the handler, alone: the request's own signal is enough.
        identity = await authenticate(call, signal);
        request = await decode();
        const handler = handlers[call.key];
        if (!handler) {
          throw new ServiceError(
            Code.UNIMPLEMENTED,
            `Method ${call.key} is not implemented`,
          );
        }
        const caller = callerOf(identity, access.policy, {
          onDecision: (verb, resource, said) =>
            decision = { verb, resource, decision: said },
        });
        const answer = await handler(request, { log: callLog, kube, caller });
        outcome = answer instanceof MessageStream
          ? { stream: answer.messages }
          : { result: answer };
      } catch (thrown) {
        outcome = { error: asServiceError(thrown) };
      } finally {
        done.abort(REQUEST_ENDED);
        if (counted) metrics?.inFlight.dec({ transport: call.transport });
      }
      if (decision) {
        // One decision per call: one the namespace allowed and its workload
        // or user then refused counts as refused, for that reason.
        metrics?.authorizations.inc({
          ...decision,
          decision: outcome.error instanceof AuthorizationError
            ? outcome.error.reason
            : decision.decision,
        });
      }
      if (outcome.stream) {
        const stream = outcome.stream;
        const end = (error?: ServiceError) => {
          finish(call, request, error, started, kubernetesCalls, identity);
        };
        return { stream: endingWith(stream, end) };
      }
      finish(call, request, outcome.error, started, kubernetesCalls, identity);
      audit(call, identity, request, outcome.error);
      return outcome;
    },
    reject(call, error, started) {
      finish(call, undefined, error, started, 0);
    },
  };
}

/**
 * `stream`, telling `end` once when it ends: with nothing when it ran out,
 * with its error, or with CANCELLED when its consumer stopped it.
 */
function endingWith(
  stream: AsyncIterableIterator<Message>,
  end: (error?: ServiceError) => void,
): AsyncIterableIterator<Message> {
  let ended = false;
  const once = (error?: ServiceError) => {
    if (ended) return;
    ended = true;
    end(error);
  };
  return {
    async next() {
      try {
        const result = await stream.next();
        if (result.done) once();
        return result;
      } catch (thrown) {
        const error = asServiceError(thrown);
        once(error);
        throw error;
      }
    },
    async return() {
      once(new ServiceError(Code.CANCELLED, "The client ended the stream"));
      return await stream.return?.() ?? { done: true, value: undefined };
    },
    [Symbol.asyncIterator]() {
      return this;
    },
  };
}

/** One structured line per call. No bodies: they may hold secrets. */
function logCall(
  log: Logger,
  call: Call,
  request: Message | undefined,
  error: ServiceError | undefined,
  durationMs: number,
  kubernetesCalls: number,
  identity: Identity | undefined,
): void {
  const fields = {
    requestId: call.requestId,
    transport: call.transport,
    ...(identity ? { user: identity.user } : {}),
    rpc: call.key,
    ...(call.route ? { route: call.route } : {}),
    ...(typeof request?.namespace === "string" && request.namespace
      ? { namespace: request.namespace }
      : {}),
    ...(typeof request?.name === "string" && request.name
      ? { name: request.name }
      : {}),
    code: error?.code ?? Code.OK,
    durationMs: Math.round(durationMs * 10) / 10,
    kubernetesCalls,
  };
  if (!error) {
    log.info("Handled request", fields);
  } else if (error.code === Code.INTERNAL || error.code === Code.UNKNOWN) {
    log.error("Failed request", {
      ...fields,
      error: error.message,
      cause: describeCause(error),
    });
  } else {
    log.info("Handled request", { ...fields, error: error.message });
    // What Kubernetes said in full (addresses, registry names), which the
    // caller got only the helpful part of: for whoever debugs.
    if (error.cause) {
      log.debug("Cause of the refusal", {
        requestId: call.requestId,
        cause: describeCause(error),
      });
    }
  }
}
