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

export interface StopperOptions {
  api: Pick<
    Api,
    "health" | "grpc" | "grpcHealth" | "watches" | "jobWatches"
  >;
  httpServer: Pick<HttpServer, "drain" | "inFlight" | "shutdown">;
  /** Closed last, in the reverse of their order. */
  closers: { close(): Promise<void> }[];
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
    await Promise.all([
      httpServer.shutdown(graceMs),
      shutdownGrpc(api.grpc, graceMs),
    ]);
    for (const closer of closers.reverse()) await closer.close();
    log.info("Stopped");
    Deno.exit(0);
  };
}
