/**
 * What the dispatcher writes of a call once it has ended: one structured
 * log line, and for a call that changed something or was refused for want
 * of credentials or rights, one audit entry. Neither carries a body: bodies
 * may hold secrets.
 */
import type { Message } from "../../domain/message_form.ts";
import { Code, ServiceError } from "../../domain/errors.ts";
import type { Logger } from "../../domain/log.ts";
import { asServiceError, describeCause } from "../errors.ts";
import type { AuditEntry } from "../auth/audit.ts";
import type { WorkloadSummary } from "../auth/workload_summary.ts";
import { AuthenticationError, type Identity } from "../auth/identity.ts";
import { AuthorizationError } from "../auth/authorization_error.ts";
import { nameOf, namespaceOf } from "./authorize.ts";
import type { Call } from "./call.ts";
import type { RpcRule } from "./rpcs.ts";

/**
 * The verbs whose calls the audit trail records whatever their outcome:
 * those that change something, and `proxy`, which reaches a cluster's
 * dashboard (job submission runs code there, and even a read of its jobs
 * is recorded, as every request of the dashboard proxy is).
 */
const MUTATING = new Set(["create", "update", "delete", "proxy"]);

/**
 * The audit entry of a call: one that mutates, or one refused for want of
 * credentials or rights; undefined for any other.
 */
export function auditEntry(
  call: Call,
  rule: RpcRule | undefined,
  identity: Identity | undefined,
  request: Message | undefined,
  error: ServiceError | undefined,
  workload?: WorkloadSummary,
  http?: HttpAudit,
): AuditEntry | undefined {
  const denied = error instanceof AuthenticationError ||
    error instanceof AuthorizationError;
  if (!denied && !(rule && MUTATING.has(rule.verb))) return undefined;
  const text = (value: string | undefined) =>
    value !== undefined && value !== "" ? value : undefined;
  return {
    requestId: call.requestId,
    ...(call.clientRequestId ? { clientRequestId: call.clientRequestId } : {}),
    user: identity?.user,
    groups: identity?.groups,
    authenticator: identity?.authenticator,
    verb: rule?.verb,
    resource: rule?.resource,
    namespace: text(namespaceOf(request)) ?? text(call.target?.namespace),
    name: text(nameOf(rule, request)) ?? text(call.target?.name),
    code: error?.code ?? Code.OK,
    ...(denied ? { reason: error.reason } : {}),
    transport: call.transport,
    sourceAddress: call.peer?.address,
    ...(workload ? { workload } : {}),
    ...(rule?.verb === "proxy" && !http ? { rpc: call.key } : {}),
    ...(http
      ? {
        method: http.method,
        path: http.path,
        status: http.status ?? 0,
        ...(http.via ? { via: http.via } : {}),
      }
      : {}),
  };
}

/** What an HTTP unit's audit record says of its request (units.ts). */
export interface HttpAudit {
  method: string;
  path: string;
  /** The status answered; 0 when none was. */
  status?: number;
  /** How the caller was known: "credentials" or "cookie". */
  via?: string;
}

/** One structured line per call. */
export function logCall(
  log: Logger,
  call: Call,
  request: Message | undefined,
  error: ServiceError | undefined,
  durationMs: number,
  kubernetesCalls: number,
  identity: Identity | undefined,
): void {
  // Every request passes here: at --log-level warn or above, an answered
  // one makes no fields only to drop them.
  if (!error && log.enabled?.("info") === false) return;
  const namespace = namespaceOf(request);
  const name = typeof request?.name === "string" ? request.name : "";
  const fields = {
    requestId: call.requestId,
    ...(call.clientRequestId ? { clientRequestId: call.clientRequestId } : {}),
    transport: call.transport,
    ...(identity ? { user: identity.user } : {}),
    rpc: call.key,
    ...(call.route ? { route: call.route } : {}),
    ...(namespace ? { namespace } : {}),
    ...(name ? { name } : {}),
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

/**
 * `stream`, telling `end` once when it ends: with nothing when it ran out,
 * with its error, or with CANCELLED when its consumer stopped it.
 */
export function endingWith(
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
