/**
 * One Kubernetes call as the orchestrator makes it: time-limited, cancelled
 * with the caller, observed, retried when it is a read and the API is
 * unavailable, and its failure translated into a ServiceError
 * (translateKubernetesError), here and nowhere else.
 */
import type { ConfigurationOptions } from "@kubernetes/client-node";
import { Code, ServiceError } from "../domain/errors.ts";
import type { CallOptions, KubernetesCallRecord } from "../domain/ports.ts";
import { callOptionsFactory } from "./client_options.ts";
import {
  type KubernetesCall,
  KubernetesTimeoutError,
  translateKubernetesError,
} from "./errors.ts";

/** How the orchestrator calls: time limit per attempt, read attempts. */
export interface CallPolicy {
  timeoutMs?: number;
  readAttempts?: number;
  /** First retry delay; later ones grow threefold, with jitter. */
  retryDelayMs?: number;
}

const DEFAULT_TIMEOUT_MS = 10_000;
const DEFAULT_READ_ATTEMPTS = 3;
const DEFAULT_RETRY_DELAY_MS = 100;
/** A Retry-After longer than this is not waited for: the caller is told. */
const MAX_RETRY_WAIT_MS = 2_000;

/** What a client-node call is given (its signal) and answers. */
export type ClientCall<T> = (options: ConfigurationOptions) => Promise<T>;

export class KubernetesCaller {
  readonly #timeoutMs: number;
  readonly #readAttempts: number;
  readonly #retryDelayMs: number;
  readonly #callOptions = callOptionsFactory();

  constructor(policy: CallPolicy = {}) {
    this.#timeoutMs = policy.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.#readAttempts = Math.max(
      1,
      policy.readAttempts ?? DEFAULT_READ_ATTEMPTS,
    );
    this.#retryDelayMs = policy.retryDelayMs ?? DEFAULT_RETRY_DELAY_MS;
  }

  /**
   * One Kubernetes call: time-limited, cancelled with the caller, observed,
   * its failure translated. Reads (get, list) are retried while the API is
   * unavailable (network, 5xx, 429), a bounded number of times with a
   * growing delay; creates, deletes and updates never are, since a lost
   * answer does not say whether the write happened.
   */
  async call<T>(
    description: KubernetesCall,
    resource: string,
    run: ClientCall<T>,
    options: CallOptions = {},
  ): Promise<T> {
    const retryable = description.verb === "get" || description.verb === "list";
    for (let attempt = 1;; attempt++) {
      const started = performance.now();
      let outcome = "ok";
      try {
        return await this.#attempt(description, run, options.signal);
      } catch (error) {
        const failure = error as ServiceError;
        outcome = codeName(failure.code);
        const delay = retryWait(failure, attempt, this.#retryDelayMs);
        if (
          !retryable || attempt >= this.#readAttempts ||
          failure.code !== Code.UNAVAILABLE || delay === undefined ||
          options.signal?.aborted
        ) throw failure;
        observe(options, description, resource, outcome, started);
        outcome = "";
        await sleep(delay, options.signal).catch((reason) => {
          throw reason instanceof ServiceError ? reason : new ServiceError(
            Code.CANCELLED,
            `${description.action}: the request was cancelled`,
          );
        });
      } finally {
        if (outcome) observe(options, description, resource, outcome, started);
      }
    }
  }

  /** One attempt of a call, within the time limit; its failure translated. */
  async #attempt<T>(
    description: KubernetesCall,
    run: ClientCall<T>,
    callerSignal: AbortSignal | undefined,
  ): Promise<T> {
    const timeout = AbortSignal.timeout(this.#timeoutMs);
    const signal = callerSignal
      ? AbortSignal.any([timeout, callerSignal])
      : timeout;
    try {
      callerSignal?.throwIfAborted();
      return await run(this.#callOptions(signal));
    } catch (error) {
      if (callerSignal?.aborted) {
        throw callerSignal.reason instanceof ServiceError
          ? callerSignal.reason
          : new ServiceError(
            Code.CANCELLED,
            `${description.action}: the request was cancelled`,
            { cause: error },
          );
      }
      const failure = timeout.aborted
        ? Object.assign(new KubernetesTimeoutError(this.#timeoutMs), {
          cause: error,
        })
        : error;
      throw translateKubernetesError(failure, description);
    }
  }
}

/** "namespace/name", as messages quote an object. */
export function qualified(namespace: string, name: string): string {
  return `${namespace}/${name}`;
}

/** NOT_FOUND for the described call's object. */
export function notFound(description: KubernetesCall): ServiceError {
  return new ServiceError(Code.NOT_FOUND, `${description.action}: not found`);
}

const CODE_NAMES = new Map<number, string>(
  Object.entries(Code).map(([name, code]) => [code, name]),
);

function codeName(code: number | undefined): string {
  return CODE_NAMES.get(code ?? Code.UNKNOWN) ?? "UNKNOWN";
}

/**
 * How long to wait before retry `attempt` + 1: the Retry-After Kubernetes
 * asked for (RetryInfo), else a growing delay with jitter; undefined when
 * the wait would be too long to be worth it.
 */
function retryWait(
  error: ServiceError,
  attempt: number,
  baseMs: number,
): number | undefined {
  for (const detail of error.details ?? []) {
    if (detail["@type"] === "type.googleapis.com/google.rpc.RetryInfo") {
      const ms = parseFloat(detail.retryDelay) * 1000;
      return ms <= MAX_RETRY_WAIT_MS ? ms : undefined;
    }
  }
  const delay = baseMs * 3 ** (attempt - 1);
  return delay / 2 + Math.random() * delay / 2;
}

/** Resolves after `ms`, or rejects with the signal's reason when aborted. */
function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

function observe(
  options: CallOptions,
  description: KubernetesCall,
  resource: string,
  outcome: string,
  started: number,
): void {
  const record: KubernetesCallRecord = {
    verb: description.verb,
    resource,
    outcome,
    seconds: (performance.now() - started) / 1000,
  };
  options.observe?.(record);
}
