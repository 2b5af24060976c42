/**
 * How Corral stops on a signal: not ready at once, serving on for the delay
 * (each answer saying Connection: close) so that load balancers stop sending
 * before the listeners close (a connection accepted as a listener closes is
 * reset), then what the listeners accepted finishes within the grace period,
 * and what runs in the background stops last.
 */
import type { Logger } from "../domain/log.ts";
import { shutdownGrpc } from "./grpc/listener.ts";
import type { HttpServer } from "./http/server.ts";
import type { Api } from "./mod.ts";

/** Something that runs in the background, closed when Corral stops. */
export interface Closer {
  /** What the log calls it when it does not close in time. */
  name: string;
  close(): Promise<void>;
}

/** `closer` under `name`, for the log of a stop. */
export function named(
  name: string,
  closer: { close(): Promise<void> },
): Closer {
  return { name, close: () => closer.close() };
}

export interface StopperOptions {
  api: Pick<
    Api,
    | "health"
    | "grpc"
    | "grpcHealth"
    | "kuberayGrpc"
    | "watches"
    | "jobWatches"
    | "objectWatches"
  >;
  httpServer: Pick<HttpServer, "drain" | "inFlight" | "shutdown">;
  /**
   * Closed last, in the reverse of their order, together within the grace
   * period: one that takes longer is left, and Corral exits with status 1.
   */
  closers: Closer[];
  delayMs: number;
  graceMs: number;
  log: Logger;
}

/** The signal handler: stops once, then exits the process. */
export function stopper(options: StopperOptions): (signal: string) => void {
  const { api, httpServer, closers, delayMs, graceMs, log } = options;
  let stopping = false;
  return async (signal) => {
    // `deno task` forwards the terminal's signal to a child that got it
    // already: a second signal changes nothing.
    if (stopping) return;
    stopping = true;
    log.info("Stopping", { signal, delayMs, graceMs });
    api.health.beginShutdown();
    httpServer.drain();
    if (delayMs > 0) await new Promise((r) => setTimeout(r, delayMs));
    log.info("Closing listeners", { inFlight: httpServer.inFlight });
    // Streams would hold the listeners open: health Watch streams, and
    // cluster and job watches (ended cleanly, so that clients resume
    // elsewhere).
    api.grpcHealth.shutdown();
    api.watches?.close();
    api.jobWatches?.close();
    api.objectWatches?.close();
    await Promise.all([
      httpServer.shutdown(graceMs),
      shutdownGrpc(api.grpc, graceMs),
      ...(api.kuberayGrpc ? [shutdownGrpc(api.kuberayGrpc, graceMs)] : []),
    ]);
    const pending = await closeWithin(
      [...closers].reverse(),
      graceMs,
      (name, error) =>
        log.warn("Failed to close", { part: name, error: String(error) }),
    );
    if (pending !== undefined) {
      // A call that never settles (a Kubernetes request the client library
      // lost, say) must not keep a stopped replica alive until it is killed.
      log.error("Stopped without closing everything", {
        notClosed: pending,
        graceMs,
      });
      Deno.exit(1);
    }
    log.info("Stopped");
    Deno.exit(0);
  };
}

/**
 * Closes `closers` one after another, all within `withinMs`: undefined
 * when every one closed (or failed to, which `onFailure` is told: the
 * next is closed all the same), else the name of the one still closing
 * when the time ran out.
 */
export async function closeWithin(
  closers: readonly Closer[],
  withinMs: number,
  onFailure: (name: string, error: unknown) => void = () => {},
): Promise<string | undefined> {
  let current: string | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const closing = (async () => {
    for (const closer of closers) {
      current = closer.name;
      await closer.close().catch((error) => onFailure(closer.name, error));
    }
    current = undefined;
  })();
  const timedOut = new Promise<"timed out">((resolve) => {
    timer = setTimeout(() => resolve("timed out"), withinMs);
  });
  const outcome = await Promise.race([closing, timedOut]);
  clearTimeout(timer);
  return outcome === "timed out" ? current : undefined;
}
