/**
 * The options every Kubernetes call of a request is made with
 * (CallOptions): a signal that aborts them once the request has ended or
 * its caller went away, and the observer that counts them.
 */
import { Code, ServiceError } from "../../domain/errors.ts";
import type { CallOptions, KubernetesCallRecord } from "../../domain/ports.ts";

/**
 * Why a request's Kubernetes calls are cancelled once it has ended. Made
 * once: abort() without a reason makes a DOMException, and its stack, on
 * every request.
 */
const REQUEST_ENDED = new ServiceError(Code.CANCELLED, "The request ended");

/**
 * Aborts, with REQUEST_ENDED, once the request has ended. Its signal is
 * made when a Kubernetes call first asks for it: a read from the cache
 * makes none, and an AbortController aborted on every request was an
 * abort event made and dispatched for nobody.
 */
export class RequestEnd {
  #controller: AbortController | undefined;
  #ended = false;

  get signal(): AbortSignal {
    if (!this.#controller) {
      this.#controller = new AbortController();
      if (this.#ended) this.#controller.abort(REQUEST_ENDED);
    }
    return this.#controller.signal;
  }

  end(): void {
    this.#ended = true;
    this.#controller?.abort(REQUEST_ENDED);
  }
}

/**
 * The options of a request's Kubernetes calls: aborted by `signal` (the
 * caller's) or once `done`; each call's record `observe`d (cut short
 * because its request ended, it counts as cancelled) after `counted`.
 */
export function kubernetesOptions(
  { signal, done }: { signal?: AbortSignal; done: RequestEnd },
  counted: () => void,
  observe: (record: KubernetesCallRecord) => void,
): CallOptions {
  // Made when first asked for (a Kubernetes call asks): a read from the
  // cache makes none, and AbortSignal.any() is a few µs of its 50.
  let kubeSignal: AbortSignal | undefined;
  const signalOf = () =>
    kubeSignal ??= signal
      ? AbortSignal.any([signal, done.signal])
      : done.signal;
  return {
    get signal() {
      return signalOf();
    },
    observe: (observed: KubernetesCallRecord) => {
      counted();
      // A call cut short because its request ended (the client gave up,
      // its deadline passed, a sibling call failed) says nothing about
      // Kubernetes: counted as cancelled, and readiness ignores it.
      const record = observed.outcome !== "ok" && signalOf().aborted
        ? { ...observed, outcome: "CANCELLED" }
        : observed;
      observe(record);
    },
  };
}
