/**
 * How the simulated operator follows a resource (RayClusters, RayJobs,
 * RayServices), as an informer does: a list, then a watch from the list's resourceVersion (resumed from the last
 * one seen when the server ends it, a new list after 410 Gone), so a new
 * object is seen at once. After a failure it waits `retryIntervalMs` and
 * lists again, until `signal` aborts.
 */

import type { Logger } from "../../domain/log.ts";
import {
  HttpStatusError,
  type ObservedCluster,
  type WatchedObject,
  type WatchEvent,
} from "./api_client.ts";

/** The calls the informer makes (an ApiClient's, for one resource). */
export interface InformerApi<T extends WatchedObject = ObservedCluster> {
  readonly server: string;
  readonly collection: string;
  listObjects(): Promise<{ items: T[]; resourceVersion: string }>;
  watchObjects(
    resourceVersion: string,
    signal: AbortSignal,
  ): AsyncGenerator<WatchEvent<T>>;
}

/** Told of what the informer sees (the operator's Scheduler, a queue). */
export interface ClusterHandler<T extends WatchedObject = ObservedCluster> {
  /** Every object there is, as a list answered. */
  listed(objects: T[]): void;
  /** An object added or modified. */
  observe(object: T): void;
  /** An object deleted, by uid; `object` is its last state. */
  release(uid: string, object?: T): void;
}

export interface InformerOptions {
  retryIntervalMs: number;
  /**
   * A resource the server may not serve (RayJobs on a stand-in without
   * them): a 404 is logged at debug level, and listed again later.
   */
  optional?: boolean;
  /** Ends the informer: aborts its watch and its retry pause. */
  signal: AbortSignal;
  log?: Logger;
}

/** Lists and watches until `options.signal` aborts. */
export async function runInformer<T extends WatchedObject>(
  api: InformerApi<T>,
  handler: ClusterHandler<T>,
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
      const notServed = error instanceof HttpStatusError &&
        error.status === 404;
      const report = options.optional && notServed ? log?.debug : log?.error;
      report?.call(log, "Failed to watch objects", {
        url: `${api.server}${api.collection}`,
        error: error instanceof Error ? error.message : String(error),
      });
      resourceVersion = "";
      await pause(options.retryIntervalMs, signal);
    }
  }
}

/** Lists clusters and hands them over; returns the list's revision. */
async function relist<T extends WatchedObject>(
  api: InformerApi<T>,
  handler: ClusterHandler<T>,
): Promise<string> {
  const { items, resourceVersion } = await api.listObjects();
  handler.listed(items);
  return resourceVersion;
}

/**
 * Follows changes from `resourceVersion` until the server ends the
 * watch; returns the revision to resume from, or "" to list again.
 */
async function follow<T extends WatchedObject>(
  api: InformerApi<T>,
  handler: ClusterHandler<T>,
  resourceVersion: string,
  signal: AbortSignal,
): Promise<string> {
  let latest = resourceVersion;
  for await (const event of api.watchObjects(resourceVersion, signal)) {
    if (event.type === "ERROR") {
      if (event.object.code === 410) return "";
      throw new HttpStatusError(
        event.object.code ?? 500,
        `Watching ${api.collection}`,
      );
    }
    latest = event.object.metadata?.resourceVersion ?? latest;
    if (event.type === "ADDED" || event.type === "MODIFIED") {
      handler.observe(event.object);
    } else if (event.type === "DELETED") {
      handler.release(event.object.metadata.uid, event.object);
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
