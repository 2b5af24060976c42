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
 * - A watch that ends cleanly at its time limit resumes from the last
 *   resourceVersion seen (events and bookmarks advance it).
 * - A watch lost (its connection failed, the API server ended it before
 *   its time limit, or answered that its version is too large) is listed
 *   again, never resumed: an API server that went away may come back
 *   without its data, and only a list tells. From the loss until that list
 *   is in the reflector is `relisting`: what it holds may be gone.
 * - A watch silent for longer than `silenceLimitMs` (twice the API server's
 *   bookmark interval: a live watch gets a BOOKMARK at least that often) is
 *   ended and started again; the silence counts as time down, so a hung API
 *   server whose connection stays open makes the cache stale.
 * - Any failure of a list or a watch lists afresh after a backoff (1 s
 *   doubling to 30 s, reset by a successful list, cut short by retryNow())
 *   and replaces the store: objects deleted meanwhile disappear.
 * - Which version a list asks for follows client-go's reflector: "0" until
 *   a list has succeeded (any version, from the API server's watch cache);
 *   then the last version synced (by a list, an event or a bookmark), which
 *   the watch cache answers without a quorum read of etcd, exactly when the
 *   API server is weakest; "" (the latest, a quorum read) only once that
 *   version is gone: 410 Expired, or "Too large resource version" from an
 *   API server that restarted behind it. A list answered so is made again
 *   at once with "".
 * - A list answered at a version lower than the last one synced means the
 *   API server's versions started again (its data was lost, or restored
 *   from a backup): the change it makes is marked a reset (told by
 *   synced_versions.ts), and the store takes the list as it stands
 *   (store.ts). After a loss the API server's current version (a
 *   consistent read) is asked first and compared with the highest any
 *   reflector of the cache synced (version_line.ts): a reflector whose
 *   own resource changed little, and which the new API server has
 *   already passed, still tells. A reset one reflector finds makes the
 *   others list again too.
 */
import type { Logger } from "../domain/log.ts";
import {
  Backoff,
  realTimers,
  type ReflectorTimers,
  watchSilence,
} from "./reflector_timers.ts";
import { SyncedVersions } from "./synced_versions.ts";
import { VersionLine } from "./version_line.ts";
import {
  isTimeout,
  isTooLarge,
  isVersionGone,
  statusOf,
  type WatchStatus,
} from "./watch_status.ts";
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
   * `resourceVersion` is "0" for the first list, the last version synced
   * for a list after a failure, and "" (the latest, a consistent read)
   * once that version is gone (see above). `signal` aborts when the
   * reflector stops.
   */
  list: (
    from: { resourceVersion: string; signal: AbortSignal },
  ) => Promise<ListAnswer<T>>;
  /** The collection's path for the watch, e.g. /api/v1/namespaces/a/events. */
  watchPath: string;
  labelSelector?: string;
  fieldSelector?: string;
  watch: WatchTransport;
  /** Told of every change of the store. */
  onChange: (change: StoreChange<T>) => void;
  /** Told of each watch that ended or failed, and each list. */
  onEvent?: (event: "relist" | "restart" | "failure" | "reset") => void;
  log: Logger;
  /** First backoff after a failure; doubles up to 30 s. Default 1 s. */
  backoffMs?: number;
  /**
   * A watch that delivers nothing (no event, no bookmark) for longer than
   * this is ended and started again; none when unset.
   */
  silenceLimitMs?: number;
  /** The clock and timers; the real ones by default, a test's own in tests. */
  timers?: ReflectorTimers;
  /**
   * The versions shared with the cache's other reflectors; one of its own
   * when unset.
   */
  versions?: VersionLine;
  /**
   * The API server's current version: the resourceVersion of a consistent
   * read ("") of one object of the collection. Asked after a loss; none
   * asked when unset.
   */
  currentVersion?: (signal: AbortSignal) => Promise<string>;
}

export type StoreChange<T> =
  | {
    type: "replace";
    items: T[];
    resourceVersion?: string;
    /**
     * Set when the list's version is lower than the last one synced: the
     * API server lost its data or had it restored (an etcd restore), and
     * its versions started again; and on the list another reflector's
     * reset made. `count`: the resets the cache has seen (its versions'
     * epoch), this one included.
     */
    reset?: { count: number };
  }
  | { type: "upsert"; item: T }
  | { type: "delete"; item: T };

/** Watches last 5 to 10 minutes, spread as client-go spreads them. */
const WATCH_SECONDS = [300, 600] as const;

export interface Reflector {
  /** Resolves once the first list is in the store. */
  readonly synced: Promise<void>;
  /** When the store was last known to be in step (the timers' now()). */
  readonly lastInStep: number;
  /**
   * Since when (the timers' now()) the watch is down, undefined while up;
   * a silent watch is down since it last delivered something.
   */
  readonly downSince: number | undefined;
  /** Why the last list or watch failed, until the API server answers again. */
  readonly lastFailure?: string;
  /**
   * From the loss of its watch (or a reset another reflector found) until
   * its next list is in: what it holds may be gone from the API server.
   */
  readonly relisting: boolean;
  /**
   * Ends the pause after a failure at once, the backoff back to its first
   * value: the API server answers again. Nothing while not pausing.
   */
  retryNow(): void;
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
  /** Answered that its version is too large: list again, as a loss. */
  tooLarge: boolean;
  /** Answered another error: a failure. */
  failure?: Error;
}

/**
 * A watch that ends cleanly this long before its time limit was ended by
 * the API server (a restart, a watch cache started over): a loss.
 */
const EARLY_END_MARGIN_MS = 1_000;

class ListWatch<T extends Reflected> implements Reflector {
  readonly synced: Promise<void>;
  readonly #options: ReflectorOptions<T>;
  readonly #timers: ReflectorTimers;
  readonly #backoff: Backoff;
  #markSynced!: () => void;
  #stopped = false;
  #running: Promise<void> = Promise.resolve();
  /** Aborted by stop(): a list in progress asks for no more pages. */
  readonly #stopping = new AbortController();
  /** The versions shared with the cache's other reflectors. */
  readonly #line: VersionLine;
  /** Where this reflector's store is in them; what tells a reset. */
  readonly #versions: SyncedVersions;
  readonly #unfollowLine: () => void;
  #relisting = false;
  #current: AbortController | undefined;
  /**
   * Ends the watch being followed at once (stop() cannot wait for it),
   * resuming from `next` ("" lists again).
   */
  #endWatch: ((next: string) => void) | undefined;
  #lastInStep = -Infinity;
  #downSince: number | undefined;
  #lastFailure: string | undefined;

  constructor(options: ReflectorOptions<T>) {
    this.#options = options;
    this.#timers = options.timers ?? realTimers;
    this.#downSince = this.#timers.now();
    this.#backoff = new Backoff(this.#timers, options.backoffMs ?? 1_000);
    this.#line = options.versions ?? new VersionLine();
    this.#versions = new SyncedVersions(this.#line, options);
    this.#unfollowLine = this.#line.onStartAgain(() => this.#leftBehind());
    this.synced = new Promise<void>((resolve) => this.#markSynced = resolve);
  }

  get lastInStep(): number {
    return this.#lastInStep;
  }

  get lastFailure(): string | undefined {
    return this.#lastFailure;
  }

  get downSince(): number | undefined {
    return this.#downSince;
  }

  get relisting(): boolean {
    return this.#relisting;
  }

  /** Lists, then follows watches, until stopped; after a failure, backs off. */
  run(): void {
    this.#running = this.#loop();
  }

  retryNow(): void {
    this.#backoff.retryNow();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    this.#unfollowLine();
    this.#stopping.abort();
    // A watch on a hung API server need not call back when aborted: the
    // watch being followed is ended here.
    this.#current?.abort();
    this.#endWatch?.("");
    this.#backoff.wake();
    // A list in progress is aborted; it is not waited for long (its
    // answer goes nowhere once stopped).
    await Promise.race([
      this.#running,
      new Promise<void>((r) => this.#timers.setTimeout(r, 1_000)),
    ]);
  }

  async #loop(): Promise<void> {
    let resourceVersion = "";
    while (!this.#stopped) {
      try {
        if (resourceVersion === "") {
          resourceVersion = await this.#relist();
          this.#backoff.reset();
        }
        if (this.#stopped) break;
        resourceVersion = await this.#follow(resourceVersion);
        if (!this.#stopped) this.#options.onEvent?.("restart");
      } catch (error) {
        if (this.#stopped) break;
        const backoff = this.#backoff.next;
        this.#failed(error, backoff);
        resourceVersion = "";
        // Doubled before the pause: retryNow() during it sets it back.
        this.#backoff.double(backoff);
        await this.#backoff.pause(backoff);
      }
    }
  }

  /**
   * Another reflector found the versions started again: this one's store
   * is of the data before, whatever its own versions say. Its watch is
   * ended, or its pause, and it lists again (a list in progress is made
   * again: its answer may be of either side).
   */
  #leftBehind(): void {
    if (!this.#versions.leftBehind) return;
    this.#relisting = true;
    this.#current?.abort();
    this.#endWatch?.("");
    this.#backoff.wake();
  }

  /**
   * The list phase: the whole collection replaces the store. From the
   * version client-go's reflector would ask for, or "" once that is gone;
   * a list answered that it is gone is made again at once as a consistent
   * read. After a loss, the API server's current version is asked first
   * (SyncedVersions.check()). A list during which a reset was found is
   * made again, as of it.
   */
  async #relist(): Promise<string> {
    for (;;) {
      this.#options.onEvent?.("relist");
      const epoch = this.#line.epoch;
      // Listed before, and a reset was found since.
      const behind = this.#versions.behindAt(epoch);
      if (!behind && this.#versions.listed && this.#relisting) {
        await this.#versions.check(
          this.#options.currentVersion,
          this.#stopping.signal,
        );
        if (this.#line.epoch !== epoch) continue;
      }
      const answer = await this.#listFrom(this.#versions.listFrom(behind));
      if (this.#line.epoch !== epoch) continue;
      return this.#replace(answer, behind);
    }
  }

  /** One list from `from`; from "" when the API server says it is gone. */
  async #listFrom(from: string): Promise<ListAnswer<T>> {
    try {
      return await this.#options.list({
        resourceVersion: from,
        signal: this.#stopping.signal,
      });
    } catch (error) {
      if (from === "" || !isVersionGone(error)) throw error;
      this.#versions.markGone();
      this.#options.onEvent?.("relist");
      return await this.#options.list({
        resourceVersion: "",
        signal: this.#stopping.signal,
      });
    }
  }

  /**
   * A list's answer replaces the store: a reset when the reflector was
   * `behind` one found, or when the list went back from the last version
   * synced (SyncedVersions.listedAt()). Answers its version.
   */
  #replace(answer: ListAnswer<T>, behind: boolean): string {
    const resourceVersion = answer.metadata?.resourceVersion ?? "";
    const reset = this.#versions.listedAt(resourceVersion, behind);
    this.#relisting = false;
    this.#options.onChange({
      type: "replace",
      items: answer.items ?? [],
      resourceVersion: answer.metadata?.resourceVersion,
      ...(reset ? { reset } : {}),
    });
    this.#lastInStep = this.#timers.now();
    this.#markSynced();
    return resourceVersion;
  }

  /**
   * The watch phase: follows one watch; the resourceVersion to resume
   * from, "" to relist; fails when the watch is lost. A watch silent past
   * the limit is ended, and resumed from where it was.
   */
  #follow(resourceVersion: string): Promise<string> {
    return new Promise<string>((resolve, reject) => {
      const progress: WatchProgress = {
        latest: resourceVersion,
        expired: false,
        tooLarge: false,
      };
      const ending = new AbortController();
      // This watch's controller, once the API server answered; settled once
      // it ended. A watch's late callbacks (its stream closing after it was
      // ended as silent) come while the next one is followed: the handles
      // are cleared only while they are still this watch's.
      let controller: AbortController | undefined;
      let settled = false;
      const silence = watchSilence(
        this.#timers,
        this.#options.silenceLimitMs,
        () => {
          this.#wentSilent();
          ending.abort();
          controller?.abort();
          resolve(progress.latest);
        },
      );
      const endWatch = (next: string) => {
        // A watch the API server answers only now is ended with it.
        ending.abort();
        resolve(next);
      };
      const settle = <A>(to: (value: A) => void) => (value: A) => {
        if (settled) return;
        settled = true;
        silence.stop();
        if (this.#endWatch === endWatch) this.#endWatch = undefined;
        if (controller !== undefined && this.#current === controller) {
          this.#current = undefined;
        }
        to(value);
      };
      [resolve, reject] = [settle(resolve), settle(reject)];
      this.#endWatch = endWatch;
      const query = this.#watchQuery(resourceVersion);
      const endsAt = this.#timers.now() + Number(query.timeoutSeconds) * 1000;
      this.#options.watch.watch(
        this.#options.watchPath,
        query,
        (type: string, received: never) => {
          silence.heard();
          this.#received(type, received, progress);
        },
        (error: unknown) => {
          try {
            resolve(this.#watchEnded(error, progress, endsAt));
          } catch (lost) {
            reject(lost);
          }
        },
        ending.signal,
      ).then((answered) => {
        controller = answered;
        if (this.#stopped || ending.signal.aborted) answered.abort();
        else {
          if (!settled) this.#current = answered;
          this.#heardFrom();
        }
        silence.heard();
      }, (error) => statusOf(error) === 410 ? resolve("") : reject(error));
    }).then((next) => {
      if (next === "") this.#versions.markGone();
      return next;
    });
  }

  /**
   * Where to go on from a watch that ended with `error` (null: cleanly):
   * "" to list again after 410 Expired, or after "too large" (as a loss);
   * the last version seen after a clean end at its time limit. Throws,
   * the watch lost, when it failed, or ended cleanly before `endsAt` (the
   * API server ended it: it may come back without its data).
   */
  #watchEnded(error: unknown, progress: WatchProgress, endsAt: number): string {
    if (progress.expired || statusOf(error) === 410) return "";
    if (progress.tooLarge) {
      this.#relisting = true;
      return "";
    }
    if (progress.failure) throw progress.failure;
    if (error && !isTimeout(error)) throw error;
    if (!error && this.#timers.now() < endsAt - EARLY_END_MARGIN_MS) {
      throw new Error("the API server ended the watch before its time limit");
    }
    return progress.latest;
  }

  /** The watch said nothing for too long: down since it last did. */
  #wentSilent(): void {
    this.#downSince ??= this.#lastInStep;
    this.#options.log.warn("Cache watch went silent; starting it again", {
      resource: this.#options.resource,
      namespace: this.#options.namespace || undefined,
      silentForMs: this.#options.silenceLimitMs,
    });
  }

  /** The API server answered the watch: up, and in step. */
  #heardFrom(): void {
    this.#downSince = undefined;
    this.#lastFailure = undefined;
    this.#lastInStep = this.#timers.now();
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
    const object = received as T & WatchStatus;
    if (type === "ERROR") {
      this.#watchAnswered(object, progress);
      return;
    }
    // A watch of the data before another reflector's reset: its events
    // mean nothing now (it is being ended).
    if (this.#versions.stale) return;
    progress.latest = object.metadata?.resourceVersion ?? progress.latest;
    this.#versions.noteEvent(progress.latest);
    this.#heardFrom();
    if (type === "ADDED" || type === "MODIFIED") {
      this.#options.onChange({ type: "upsert", item: object });
    } else if (type === "DELETED") {
      this.#options.onChange({ type: "delete", item: object });
    }
  }

  /**
   * An ERROR event (a Status): 410 Expired (the resourceVersion is
   * compacted away), "too large" (the API server is behind the version:
   * it restarted, perhaps without its data), or another failure.
   */
  #watchAnswered(status: WatchStatus, progress: WatchProgress): void {
    if (status.code === 410) {
      progress.expired = true;
      return;
    }
    this.#options.log.warn("Watch answered an error", {
      resource: this.#options.resource,
      code: status.code,
      message: status.message,
    });
    if (isTooLarge(status.code, status.details?.causes)) {
      progress.tooLarge = true;
      return;
    }
    progress.failure = Object.assign(
      new Error(`the watch answered ${status.code}: ${status.message ?? ""}`),
      { statusCode: status.code },
    );
  }

  /** The backoff phase begins: the failure noted and logged. */
  #failed(error: unknown, backoff: number): void {
    this.#relisting = true;
    this.#options.onEvent?.("failure");
    this.#downSince ??= this.#timers.now();
    this.#lastFailure = error instanceof Error ? error.message : String(error);
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
}
