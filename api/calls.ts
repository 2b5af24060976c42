/**
 * What both transports do around a handler: give the call a request id and a
 * logger, turn anything thrown into a ServiceError, and log one line per call.
 */
import { Code, ServiceError } from "../domain/errors.ts";
import type { Logger } from "../domain/log.ts";
import { asServiceError, describeCause } from "./errors.ts";
import type { Handlers } from "./service.ts";
import type { Message } from "../domain/codec.ts";

export type Transport = "http" | "grpc";

export interface Call {
  transport: Transport;
  requestId: string;
  /** "proto.ClusterService/CreateCluster" */
  key: string;
  /** The HTTP route template, for HTTP calls. */
  route?: string;
}

/** Runs the handler for `call.key`; resolves to its result or a ServiceError. */
export async function invoke(
  handlers: Handlers,
  log: Logger,
  call: Call,
  request: Message,
): Promise<{ result?: Message; error?: ServiceError }> {
  const started = performance.now();
  const callLog = log.with({ requestId: call.requestId });
  let outcome: { result?: Message; error?: ServiceError };
  const handler = handlers[call.key];
  try {
    if (!handler) {
      throw new ServiceError(
        Code.UNIMPLEMENTED,
        `Method ${call.key} is not implemented`,
      );
    }
    outcome = { result: await handler(request, { log: callLog }) };
  } catch (thrown) {
    outcome = { error: asServiceError(thrown) };
  }
  logCall(callLog, call, request, outcome.error, performance.now() - started);
  return outcome;
}

/** One structured line per call. No bodies: they may hold secrets. */
export function logCall(
  log: Logger,
  call: Call,
  request: Message | undefined,
  error: ServiceError | undefined,
  durationMs: number,
): void {
  const fields = {
    transport: call.transport,
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
    log.info("Handled request", {
      ...fields,
      error: error.message,
      ...(error.cause ? { cause: describeCause(error) } : {}),
    });
  }
}
