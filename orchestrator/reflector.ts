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

/** Starts listing and watching; the reflector runs until stopped. */
export function startReflector<T extends Reflected>(
  options: ReflectorOptions<T>,
): Reflector {
  const reflector = new ListWatch(options);
  reflector.run();
  return reflector;
}

/** What one watch has seen so far. */
interface WatchProgress {
  /** The resourceVersion to resume from. */
  latest: string;
  /** Answered 410 Expired: list again. */
  expired: boolean;
}

class ListWatch<T extends Reflected> implements Reflector {
  readonly synced: Promise<void>;
  readonly #options: ReflectorOptions<T>;
  #markSynced!: () => void;
  #stopped = false;
  #running: Promise<void> = Promise.resolve();
  /** Aborted by stop(): a list in progress asks for no more pages. */
  readonly #stopping = new AbortController();
  /** Whether a list has succeeded: later ones ask for the latest version. */
  #listed = false;
  #current: AbortController | undefined;
  /** Ends the watch being followed at once (stop() cannot wait for it). */
  #endWatch: (() => void) | undefined;
  /** Ends the pause after a failure at once. */
  #wake: (() => void) | undefined;
  #lastInStep = -Infinity;
  #downSince: number | undefined = performance.now();

  constructor(options: ReflectorOptions<T>) {
    this.#options = options;
    this.synced = new Promise<void>((resolve) => this.#markSynced = resolve);
  }

  get lastInStep(): number {
    return this.#lastInStep;
  }

  get downSince(): number | undefined {
    return this.#downSince;
  }

  /** Lists, then follows watches, until stopped; after a failure, backs off. */
  run(): void {
    this.#running = this.#loop();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    this.#stopping.abort();
    // client-node's Watch does not always call back when aborted in the
    // middle of a stream: the watch being followed is ended here.
    this.#current?.abort();
    this.#endWatch?.();
    this.#wake?.();
    // A list in progress is aborted; it is not waited for long (its
    // answer goes nowhere once stopped).
    await Promise.race([
      this.#running,
      new Promise((r) => setTimeout(r, 1_000)),
    ]);
  }

  async #loop(): Promise<void> {
    const firstBackoff = this.#options.backoffMs ?? 1_000;
    let backoff = firstBackoff;
    let resourceVersion = "";
    while (!this.#stopped) {
      try {
        if (resourceVersion === "") {
          resourceVersion = await this.#relist();
          backoff = firstBackoff;
        }
        if (this.#stopped) break;
        resourceVersion = await this.#follow(resourceVersion);
        if (!this.#stopped) this.#options.onEvent?.("restart");
      } catch (error) {
        if (this.#stopped) break;
        this.#failed(error, backoff);
        resourceVersion = "";
        await this.#pause(backoff);
        backoff = Math.min(backoff * 2, MAX_BACKOFF_MS);
      }
    }
  }

  /** The list phase: the whole collection replaces the store. */
  async #relist(): Promise<string> {
    this.#options.onEvent?.("relist");
    const answer = await this.#options.list({
      resourceVersion: this.#listed ? "" : "0",
      signal: this.#stopping.signal,
    });
    this.#listed = true;
    this.#options.onChange({
      type: "replace",
      items: answer.items ?? [],
      resourceVersion: answer.metadata?.resourceVersion,
    });
    this.#lastInStep = performance.now();
    this.#markSynced();
    return answer.metadata?.resourceVersion ?? "";
  }

  /**
   * The watch phase: follows one watch; the resourceVersion to resume
   * from, "" to relist.
   */
  #follow(resourceVersion: string): Promise<string> {
    return new Promise((resolve, reject) => {
      this.#endWatch = () => resolve(resourceVersion);
      const progress = { latest: resourceVersion, expired: false };
      this.#options.watch.watch(
        this.#options.watchPath,
        this.#watchQuery(resourceVersion),
        (type: string, received: never) =>
          this.#received(type, received, progress),
        (error: unknown) => {
          this.#current = undefined;
          if (progress.expired || statusOf(error) === 410) resolve("");
          else if (error && !isTimeout(error)) reject(error);
          else resolve(progress.latest);
        },
      ).then((controller) => {
        this.#current = controller;
        if (this.#stopped) controller.abort();
        this.#downSince = undefined;
        this.#lastInStep = performance.now();
      }, reject);
    });
  }

  #watchQuery(resourceVersion: string): Record<string, string> {
    const [low, high] = WATCH_SECONDS;
    const query: Record<string, string> = {
      resourceVersion,
      allowWatchBookmarks: "true",
      timeoutSeconds: String(low + Math.floor(Math.random() * (high - low))),
    };
    const { labelSelector, fieldSelector } = this.#options;
    if (labelSelector) query.labelSelector = labelSelector;
    if (fieldSelector) query.fieldSelector = fieldSelector;
    return query;
  }

  /** One event of a watch, into the store. */
  #received(type: string, received: never, progress: WatchProgress): void {
    const object = received as T & { code?: number };
    if (type === "ERROR") {
      // 410 Expired: the resourceVersion is compacted away.
      progress.expired = true;
      if (object.code !== 410) {
        this.#options.log.warn("Watch answered an error", {
          resource: this.#options.resource,
          code: object.code,
        });
      }
      return;
    }
    progress.latest = object.metadata?.resourceVersion ?? progress.latest;
    this.#downSince = undefined;
    this.#lastInStep = performance.now();
    if (type === "ADDED" || type === "MODIFIED") {
      this.#options.onChange({ type: "upsert", item: object });
    } else if (type === "DELETED") {
      this.#options.onChange({ type: "delete", item: object });
    }
  }

  /** The backoff phase begins: the failure noted and logged. */
  #failed(error: unknown, backoff: number): void {
    this.#options.onEvent?.("failure");
    this.#downSince ??= performance.now();
    this.#options.log.warn(
      "Cache lost its watch; listing again after a pause",
      {
        resource: this.#options.resource,
        namespace: this.#options.namespace || undefined,
        retryInMs: backoff,
        error: error instanceof Error ? error.message : String(error),
      },
    );
  }

  /** Waits `ms`, or until stop() wakes it. */
  #pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.#wake = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.#wake = done;
    });
  }
}

function isTimeout(error: unknown): boolean {
  return error instanceof Error && error.name === "TimeoutError";
}

/** The HTTP status a failed list or watch answered, if it got that far. */
export function statusOf(error: unknown): number | undefined {
  const status = (error as { statusCode?: unknown } | null)?.statusCode;
  return typeof status === "number" ? status : undefined;
}
