/** Per-call options for client-node: cancellation, one connection pool. */
import { Observable } from "@kubernetes/client-node";
import type {
  ConfigurationOptions,
  RequestContext,
  ResponseContext,
} from "@kubernetes/client-node";

type Dispatcher = NonNullable<ReturnType<RequestContext["getDispatcher"]>>;

/**
 * Per-call options for client-node: the call's AbortSignal, and one
 * connection pool for all calls. client-node 2.0 builds a new undici Agent
 * for every request whose cluster has TLS options (a CA, client
 * certificates, or insecure-skip-tls-verify: every real cluster), so each
 * call would open a new connection and TLS session. Its middleware runs
 * after authentication has set that Agent, so it can swap in the first one,
 * shared. (The TLS options come from the kubeconfig loaded at start-up and
 * do not change between calls.)
 */
export function callOptionsFactory(): (
  signal: AbortSignal,
) => ConfigurationOptions {
  let shared: Dispatcher | undefined;
  return (signal) => ({
    middleware: [{
      pre: (context: RequestContext) => {
        context.setSignal(signal);
        const dispatcher = context.getDispatcher();
        if (dispatcher) {
          shared ??= dispatcher;
          if (dispatcher !== shared) context.setDispatcher(shared);
        }
        return new Observable(Promise.resolve(context));
      },
      post: (context: ResponseContext) =>
        new Observable(Promise.resolve(context)),
    }],
    middlewareMergeStrategy: "append",
  });
}
