/**
 * List, then watch from the list's resourceVersion, and keep a store of the
 * objects in step: what Kubernetes controllers call a reflector.
 *
 * Written here rather than taken from client-node's ListWatch (2.0.1)
 * because that one falls short of what the cache needs: it does not ask for
 * bookmarks (so a quiet watch cannot advance its resourceVersion and ends in
 * 410 after compaction), it stops for good on any error other than 410 and
 * on a failed list (its caller must restart it, and it then resumes from a
 * resourceVersion a restarted API server may never have had, so the store
 * would never converge to the empty truth), its store cannot take the
 * answers of Corral's own writes, and its Watch does not notice a dropped
 * connection under Deno (watch_stream.ts says why and carries the stream).
 *
 * - A watch that ends cleanly resumes from the last resourceVersion seen
 *   (events and bookmarks advance it).
 * - 410 Expired, or any failure of a list or a watch, lists afresh after a
 *   backoff (1 s doubling to 30 s, reset by a successful list) and replaces
 *   the store: objects deleted meanwhile disappear.
 */
import type { Logger } from "../domain/log.ts";
import type { WatchTransport } from "./watch_stream.ts";

/** The metadata a reflected object must carry. */
export interface Reflected {
  metadata?: {
    name?: string;
    namespace?: string;
    resourceVersion?: string;
    uid?: string;
  };
}

export interface ListAnswer<T> {
  items: T[];
  metadata?: { resourceVersion?: string };
}

export interface ReflectorOptions<T extends Reflected> {
  /** What is reflected, for logs and metrics: "rayclusters". */
  resource: string;
  /** The namespace watched, or "" for every namespace. */
  namespace: string;
  /**
   * The whole collection with the selectors; its items and resourceVersion.
   * `resourceVersion` is "0" for the first list (any version: an API
   * server answers it from its watch cache, as client-go's informers
   * start) and "" for a list after a failure or 410 (the latest, a
   * consistent read). `signal` aborts when the reflector stops.
   */
  list: (
    from: { resourceVersion: "0" | ""; signal: AbortSignal },
  ) => Promise<ListAnswer<T>>;
  /** The collection's path for the watch, e.g. /api/v1/namespaces/a/events. */
  watchPath: string;
  labelSelector?: string;
  fieldSelector?: string;
  watch: WatchTransport;
  /** Told of every change of the store. */
  onChange: (change: StoreChange<T>) => void;
  /** Told of each watch that ended or failed, and each list. */
  onEvent?: (event: "relist" | "restart" | "failure") => void;
  log: Logger;
  /** First backoff after a failure; doubles up to 30 s. Default 1 s. */
  backoffMs?: number;
}

export type StoreChange<T> =
  | { type: "replace"; items: T[]; resourceVersion?: string }
  | { type: "upsert"; item: T }
  | { type: "delete"; item: T };

const MAX_BACKOFF_MS = 30_000;
/** Watches last 5 to 10 minutes, spread as client-go spreads them. */
const WATCH_SECONDS = [300, 600] as const;

export interface Reflector {
  /** Resolves once the first list is in the store. */
  readonly synced: Promise<void>;
  /** When the store was last known to be in step (performance.now()). */
  readonly lastInStep: number;
  /** Since when (performance.now()) the watch is down; undefined if up. */
  readonly downSince: number | undefined;
  stop(): Promise<void>;
}

export function startReflector<T extends Reflected>(
  options: ReflectorOptions<T>,
): Reflector {
  const { log } = options;
  let stopped = false;
  /** Aborted by stop(): a list in progress asks for no more pages. */
  const stopping = new AbortController();
  /** Whether a list has succeeded: later ones ask for the latest version. */
  let listed = false;
  let current: AbortController | undefined;
  /** Ends the watch being followed at once (stop() cannot wait for it). */
  let endWatch: (() => void) | undefined;
  let wake: (() => void) | undefined;
  let markSynced: () => void;
  const synced = new Promise<void>((resolve) => markSynced = resolve);
  let lastInStep = -Infinity;
  let downSince: number | undefined = performance.now();

  /** Follows one watch; the resourceVersion to resume from, "" to relist. */
  function follow(resourceVersion: string): Promise<string> {
    return new Promise((resolve, reject) => {
      endWatch = () => resolve(resourceVersion);
      let latest = resourceVersion;
      let expired = false;
      const [low, high] = WATCH_SECONDS;
      const query: Record<string, string> = {
        resourceVersion,
        allowWatchBookmarks: "true",
        timeoutSeconds: String(low + Math.floor(Math.random() * (high - low))),
      };
      if (options.labelSelector) query.labelSelector = options.labelSelector;
      if (options.fieldSelector) query.fieldSelector = options.fieldSelector;
      options.watch.watch(
        options.watchPath,
        query,
        (type: string, received: never) => {
          const object = received as T & { code?: number };
          if (type === "ERROR") {
            // 410 Expired: the resourceVersion is compacted away.
            expired = true;
            if (object.code !== 410) {
              log.warn("Watch answered an error", {
                resource: options.resource,
                code: object.code,
              });
            }
            return;
          }
          latest = object.metadata?.resourceVersion ?? latest;
          downSince = undefined;
          lastInStep = performance.now();
          if (type === "ADDED" || type === "MODIFIED") {
            options.onChange({ type: "upsert", item: object });
          } else if (type === "DELETED") {
            options.onChange({ type: "delete", item: object });
          }
        },
        (error: unknown) => {
          current = undefined;
          if (expired || statusOf(error) === 410) resolve("");
          else if (error && !isTimeout(error)) reject(error);
          else resolve(latest);
        },
      ).then((controller) => {
        current = controller;
        if (stopped) controller.abort();
        downSince = undefined;
        lastInStep = performance.now();
      }, reject);
    });
  }

  async function relist(): Promise<string> {
    options.onEvent?.("relist");
    const answer = await options.list({
      resourceVersion: listed ? "" : "0",
      signal: stopping.signal,
    });
    listed = true;
    options.onChange({
      type: "replace",
      items: answer.items ?? [],
      resourceVersion: answer.metadata?.resourceVersion,
    });
    lastInStep = performance.now();
    markSynced();
    return answer.metadata?.resourceVersion ?? "";
  }

  function pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        wake = undefined;
        resolve();
      }
      wake = done;
    });
  }

  async function run(): Promise<void> {
    const firstBackoff = options.backoffMs ?? 1_000;
    let backoff = firstBackoff;
    let resourceVersion = "";
    while (!stopped) {
      try {
        if (resourceVersion === "") {
          resourceVersion = await relist();
          backoff = firstBackoff;
        }
        if (stopped) break;
        resourceVersion = await follow(resourceVersion);
        if (!stopped) options.onEvent?.("restart");
      } catch (error) {
        if (stopped) break;
        options.onEvent?.("failure");
        downSince ??= performance.now();
        log.warn("Cache lost its watch; listing again after a pause", {
          resource: options.resource,
          namespace: options.namespace || undefined,
          retryInMs: backoff,
          error: error instanceof Error ? error.message : String(error),
        });
        resourceVersion = "";
        await pause(backoff);
        backoff = Math.min(backoff * 2, MAX_BACKOFF_MS);
      }
    }
  }

  const running = run();
  return {
    synced,
    get lastInStep() {
      return lastInStep;
    },
    get downSince() {
      return downSince;
    },
    async stop() {
      stopped = true;
      stopping.abort();
      // client-node's Watch does not always call back when aborted in the
      // middle of a stream: the watch being followed is ended here.
      current?.abort();
      endWatch?.();
      wake?.();
      // A list in progress is aborted; it is not waited for long (its
      // answer goes nowhere once stopped).
      await Promise.race([running, new Promise((r) => setTimeout(r, 1_000))]);
    },
  };
}

function isTimeout(error: unknown): boolean {
  return error instanceof Error && error.name === "TimeoutError";
}

/** The HTTP status a failed list or watch answered, if it got that far. */
export function statusOf(error: unknown): number | undefined {
  const status = (error as { statusCode?: unknown } | null)?.statusCode;
  return typeof status === "number" ? status : undefined;
}
