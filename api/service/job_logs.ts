/**
 * The handlers of a RayJob's log (GetRayJobLog, WatchRayJobLog): what its
 * submitter pod printed, read through the orchestrator's JobLogPort.
 *
 * The dispatcher has checked `get` on jobs in the namespace. Each handler
 * then validates tail_lines (code 3), reads the job (code 5 when there is
 * none) and applies `owners: only`: a teammate reads a job's spec and
 * status, but its log is what the owner's code printed (data, paths,
 * whatever it logs), kept to the owner as a submission's log is kept to
 * whoever may run jobs on the cluster. Only then is the log read: code 9
 * while the submitter has not started.
 */
import { Code, invalidArgument, ServiceError } from "../../domain/errors.ts";
import type { JobLogPort } from "../../domain/ports.ts";
import type {
  GetRayJobLogReply,
  GetRayJobLogRequest,
  WatchRayJobLogRequest,
  WatchRayJobLogResponse,
} from "../../domain/types.ts";
import { checkOwner } from "../auth/owners.ts";
import type { CallContext, NamespaceScope } from "./rpcs.ts";
import { readToChange, type Service } from "./service.ts";

type NamespaceCall = CallContext<NamespaceScope>;

export class JobLogHandlers {
  constructor(private readonly service: Service) {}

  async getRayJobLog(
    request: GetRayJobLogRequest,
    call: NamespaceCall,
  ): Promise<GetRayJobLogReply> {
    const logs = await this.#checked(request, call);
    const log = await logs.read(call.scope.namespace, request.name, {
      ...call.kube,
      ...tailOf(request),
    });
    return { log };
  }

  /**
   * The log as it grows: checks as GetRayJobLog does, then a
   * JobLogStream. The first read (of the submitter pod, and the answer of
   * its log) happens here, so that a submitter not started is the call's
   * error rather than the stream's.
   */
  async watchRayJobLog(
    request: WatchRayJobLogRequest,
    call: NamespaceCall,
  ): Promise<AsyncIterableIterator<WatchRayJobLogResponse>> {
    const logs = await this.#checked(request, call);
    // Not the call's signal: the dispatcher ends it once the stream is
    // returned, which would end the follow at once. Until then, a client
    // that goes away (or a deadline) ends the follow being set up.
    const stopped = new AbortController();
    const unlink = linked(call.kube.signal, stopped);
    try {
      const parts = await logs.follow(call.scope.namespace, request.name, {
        ...call.kube,
        signal: stopped.signal,
        ...tailOf(request),
      });
      return new JobLogStream(parts, stopped);
    } finally {
      unlink();
    }
  }

  /** The checks of the module's comment; the port the log is read from. */
  async #checked(
    request: GetRayJobLogRequest | WatchRayJobLogRequest,
    call: NamespaceCall,
  ): Promise<JobLogPort> {
    const { action, kube, scope } = call;
    if (request.tailLines < 0) {
      throw invalidArgument(action, [{
        field: "tail_lines",
        description: "must not be negative",
      }]);
    }
    const logs = this.service.orchestrator.jobLogs;
    if (!logs) {
      throw new ServiceError(
        Code.UNIMPLEMENTED,
        `${action}: this Corral reads no job logs`,
      );
    }
    const job = await readToChange(
      action,
      this.service.orchestrator.jobs.get(scope.namespace, request.name, kube),
    );
    checkOwner(call, job, { resource: "jobs", doing: "read the log of a job" });
    return logs;
  }
}

/**
 * Aborts `controller` when `signal` aborts, with its reason, until the
 * function answered is called.
 */
function linked(
  signal: AbortSignal | undefined,
  controller: AbortController,
): () => void {
  if (signal === undefined) return () => {};
  const abort = () => controller.abort(signal.reason);
  if (signal.aborted) abort();
  else signal.addEventListener("abort", abort, { once: true });
  return () => signal.removeEventListener("abort", abort);
}

/** tail_lines as the port takes it: unset (0) for the whole log. */
function tailOf(
  request: { tailLines: number },
): { tailLines?: number } {
  return request.tailLines > 0 ? { tailLines: request.tailLines } : {};
}

/**
 * The parts of a followed log as WatchRayJobLog's answers. Its own
 * signal, not the call's (the dispatcher ends that one when the handler
 * returns the stream): return() aborts the follow, so a client that goes
 * away leaves no request to the API server behind.
 */
export class JobLogStream
  implements AsyncIterableIterator<WatchRayJobLogResponse> {
  readonly #parts: AsyncIterator<string>;
  readonly #stopped: AbortController;

  constructor(parts: AsyncIterable<string>, stopped: AbortController) {
    this.#parts = parts[Symbol.asyncIterator]();
    this.#stopped = stopped;
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<WatchRayJobLogResponse> {
    return this;
  }

  async next(): Promise<IteratorResult<WatchRayJobLogResponse>> {
    const part = await this.#parts.next();
    return part.done
      ? { done: true, value: undefined }
      : { done: false, value: { log: part.value } };
  }

  async return(): Promise<IteratorResult<WatchRayJobLogResponse>> {
    this.#stopped.abort();
    await this.#parts.return?.();
    return { done: true, value: undefined };
  }
}
