/**
 * Following a watch stream for as long as the caller wants: when Corral ends
 * a stream (a shutdown, a watcher that fell behind), it is resumed from the
 * last resource version seen, or started afresh when Corral no longer
 * remembers that far back (code 10). Only an abort, or an error Corral
 * gives for the watch itself, ends it.
 */
import type { CorralClient, WatchResult } from "./client.ts";
import { Code } from "../domain/errors.ts";
import { ApiError } from "./errors.ts";

/** The watch route of a namespace's clusters, or of every namespace's. */
export function watchPath(namespace?: string): string {
  return namespace === undefined
    ? "/apis/v1alpha2/watch/clusters"
    : `/apis/v1alpha2/watch/namespaces/${
      encodeURIComponent(namespace)
    }/clusters`;
}

/** The pause before a stream Corral ended is resumed. */
const RESUME_DELAY_MS = 1_000;

/**
 * The results of the watch at `path` (which may carry a query already),
 * across as many streams as it takes, until `signal` aborts.
 */
export async function* follow(
  client: CorralClient,
  path: string,
  signal: AbortSignal,
): AsyncGenerator<WatchResult> {
  let resourceVersion = "";
  while (!signal.aborted) {
    const url = resourceVersion
      ? `${path}${path.includes("?") ? "&" : "?"}resourceVersion=${
        encodeURIComponent(resourceVersion)
      }`
      : path;
    try {
      for await (const result of client.watch(url, signal)) {
        if (result.resourceVersion) resourceVersion = result.resourceVersion;
        yield result;
      }
    } catch (error) {
      if (signal.aborted) return;
      if (!(error instanceof ApiError)) throw error;
      // Code 10: too far back to resume from; code 8: the watcher fell
      // behind, and may resume where it was.
      if (error.code === Code.ABORTED) resourceVersion = "";
      else if (error.code !== Code.RESOURCE_EXHAUSTED) throw error;
    }
    await delay(RESUME_DELAY_MS, signal);
  }
}

/** Resolves after `ms`, or at once when `signal` aborts. */
function delay(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
    function done() {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
  });
}
