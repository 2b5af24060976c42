/**
 * How the simulated operator follows RayClusters, as an informer does: a
 * list, then a watch from the list's resourceVersion (resumed from the last
 * one seen when the server ends it, a new list after 410 Gone), so a new
 * cluster is seen at once. After a failure it waits `retryIntervalMs` and
 * lists again, until `signal` aborts.
 */

import type { Logger } from "../../domain/log.ts";
import {
  type ApiClient,
  HttpStatusError,
  type ObservedCluster,
} from "./api_client.ts";

/** The calls the informer makes. */
export type InformerApi = Pick<
  ApiClient,
  "server" | "collection" | "listClusters" | "watchClusters"
>;

/** Told of what the informer sees (the operator's Scheduler). */
export interface ClusterHandler {
  /** Every cluster there is, as a list answered. */
  listed(clusters: ObservedCluster[]): void;
  /** A cluster added or modified. */
  observe(cluster: ObservedCluster): void;
  /** A cluster deleted, by uid. */
  release(uid: string): void;
}

export interface InformerOptions {
  retryIntervalMs: number;
  /** Ends the informer: aborts its watch and its retry pause. */
  signal: AbortSignal;
  log?: Logger;
}

/** Lists and watches until `options.signal` aborts. */
export async function runInformer(
  api: InformerApi,
  handler: ClusterHandler,
  options: InformerOptions,
): Promise<void> {
  const { signal, log } = options;
  let resourceVersion = "";
  while (!signal.aborted) {
    try {
      if (resourceVersion === "") resourceVersion = await relist(api, handler);
      if (signal.aborted) break;
      resourceVersion = await follow(api, handler, resourceVersion, signal);
    } catch (error) {
      if (signal.aborted) break;
      log?.error("Failed to watch clusters", {
        url: `${api.server}${api.collection}`,
        error: error instanceof Error ? error.message : String(error),
      });
      resourceVersion = "";
      await pause(options.retryIntervalMs, signal);
    }
  }
}

/** Lists clusters and hands them over; returns the list's revision. */
async function relist(
  api: InformerApi,
  handler: ClusterHandler,
): Promise<string> {
  const { items, resourceVersion } = await api.listClusters();
  handler.listed(items);
  return resourceVersion;
}

/**
 * Follows changes from `resourceVersion` until the server ends the
 * watch; returns the revision to resume from, or "" to list again.
 */
async function follow(
  api: InformerApi,
  handler: ClusterHandler,
  resourceVersion: string,
  signal: AbortSignal,
): Promise<string> {
  let latest = resourceVersion;
  for await (const event of api.watchClusters(resourceVersion, signal)) {
    if (event.type === "ERROR") {
      if (event.object.code === 410) return "";
      throw new HttpStatusError(event.object.code ?? 500, "Watching clusters");
    }
    latest = event.object.metadata?.resourceVersion ?? latest;
    if (event.type === "ADDED" || event.type === "MODIFIED") {
      handler.observe(event.object);
    } else if (event.type === "DELETED") {
      handler.release(event.object.metadata.uid);
    }
  }
  return latest;
}

/** Waits `ms`, or less if `signal` aborts. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done);
  });
}
