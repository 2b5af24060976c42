/**
 * WatchClusters, served from the cache: one feed of the cache's cluster
 * changes (Orchestrator.watchClusterChanges), fanned out to every watcher,
 * so a thousand watchers cost Kubernetes nothing more than none.
 *
 * - Each change is converted once (ConvertedClusters) and the same frozen
 *   message goes to every watcher that may see it.
 * - A new watch gets the clusters as they are (ADDED, from one shared
 *   snapshot), then a BOOKMARK, then the changes.
 * - Resource versions are Kubernetes' (etcd's revision, one counter for the
 *   RayClusters and the Events): a change carries the highest seen so far,
 *   so they never go down along a stream. The last `historySize` changes
 *   are kept; a watch resumed from a version they cover gets the changes
 *   after it, an older one is ABORTED (start afresh), as the Kubernetes API
 *   server's watch cache answers 410 Gone. Versions from another replica
 *   resume too, where its history covers them. A change that reaches the
 *   cache after a later one (the RayCluster and Event watches are separate
 *   streams) carries the later one's version, so a watch resumed from
 *   exactly that version misses it: its cluster's next change brings it.
 * - A watcher that falls more than `queueLimit` changes behind is ended
 *   with RESOURCE_EXHAUSTED rather than buffered without limit.
 * - A BOOKMARK every `heartbeatMs` tells quiet streams apart from dead ones
 *   (and keeps proxies from closing them).
 * - A watch the chain ends at its maximum duration (Finishable) sends a
 *   last BOOKMARK, its resume point, and ends cleanly.
 * - When Kubernetes' versions start again (an API server that lost its
 *   data, or had it restored: the cache's epoch, ports.ts), what was kept
 *   means nothing: open watches end ABORTED, the history starts over at
 *   the new versions, and resume points of an earlier epoch are ABORTED.
 *   A resume point carries its epoch after the first ("1234.1"), so that
 *   no version of one epoch is taken for the same number in another.
 */
import { keep } from "../../domain/kept.ts";
import { Code, ServiceError } from "../../domain/errors.ts";
import type { ClusterChange, Orchestrator } from "../../domain/ports.ts";
import type {
  Cluster,
  EventType,
  WatchClustersResponse,
} from "../../domain/types.ts";
import type { ConvertedClusters } from "./converted_clusters.ts";
import type { Finishable } from "./stream_lifetime.ts";

/** One answer of WatchClusters, as the handlers hand it to a transport. */
export type WatchEvent = WatchClustersResponse;
type WatchEventType = Exclude<EventType, "EVENT_TYPE_UNSPECIFIED">;

/** A resource version as a number; undefined for text that is none. */
function versionOf(text: string): bigint | undefined {
  return /^\d{1,30}$/.test(text) ? BigInt(text) : undefined;
}

/** Where a watch resumes: a version of one epoch. */
interface ResumePoint {
  version: bigint;
  epoch: number;
}

/** "1234" in the first epoch, "1234.2" in the third. */
function resumePointText({ version, epoch }: ResumePoint): string {
  return epoch === 0 ? String(version) : `${version}.${epoch}`;
}

/** The resume point a watch answer's resourceVersion gave; or undefined. */
function parseResumePoint(text: string): ResumePoint | undefined {
  const match = /^(\d{1,30})(?:\.(\d{1,9}))?$/.exec(text);
  if (match === null) return undefined;
  return { version: BigInt(match[1]), epoch: Number(match[2] ?? 0) };
}

export interface ClusterWatchOptions {
  /**
   * The cache's feed (Orchestrator.watchClusterChanges): tells a new
   * listener of every cluster held, at once, then of every change.
   */
  feed: (listener: (change: ClusterChange) => void) => () => void;
  /** Whether the cache is in step (a watch starts only then). */
  inStep: () => boolean;
  /**
   * Resolves once the cache is first in step: changes are kept for resuming
   * from then on (or from the first watch, without it).
   */
  synced?: Promise<void>;
  converted: ConvertedClusters;
  /** Changes kept to resume from; 4,096. */
  historySize?: number;
  /** Changes a watcher may fall behind by before it is ended; 1,000. */
  queueLimit?: number;
  /** The longest a stream goes without an answer; 10 s. */
  heartbeatMs?: number;
}

/** The tuning a deployment may change (the rest comes from the parts). */
export type WatchTuning = Pick<
  ClusterWatchOptions,
  "historySize" | "queueLimit" | "heartbeatMs"
>;

/**
 * The fan-out over `orchestrator`'s cache; undefined when it has none
 * (--cache off), and WatchClusters is then refused.
 */
export function watchFor(
  orchestrator: Orchestrator,
  converted: ConvertedClusters,
  tuning: WatchTuning = {},
): ClusterWatch | undefined {
  const feed = orchestrator.watchClusterChanges?.bind(orchestrator);
  if (!feed) return undefined;
  return new ClusterWatch({
    feed,
    inStep: () => orchestrator.cacheState?.().inStep ?? false,
    synced: orchestrator.synced,
    converted,
    ...tuning,
  });
}

export interface WatchRequest {
  /** The namespaces the watcher may see; undefined for all. */
  namespaces?: readonly string[];
  /** With all namespaces: those the watcher may not see (reserved ones). */
  hidden?: (namespace: string) => boolean;
  /** Only the cluster of this name. */
  name?: string;
  /** Resume after this version; "" or undefined starts with the state. */
  resourceVersion?: string;
}

/**
 * A change as kept and sent. Its message is made when first sent, not
 * before: while nobody watches, changes cost no conversion.
 */
class Entry {
  #cluster: (() => Cluster) | Cluster | undefined;
  #event: WatchEvent | undefined;

  constructor(
    readonly type: WatchEventType,
    /** The resourceVersion as a number, to compare. */
    readonly version: bigint,
    readonly namespace: string,
    readonly name: string,
    /** The cache's epoch the version is of. */
    readonly epoch: number,
    cluster?: () => Cluster,
    /**
     * Of the state a watch starts with: sent without a resourceVersion
     * (a client resumes from the BOOKMARK that follows the state).
     */
    readonly initial = false,
  ) {
    this.#cluster = cluster;
  }

  get cluster(): Cluster | undefined {
    if (typeof this.#cluster === "function") this.#cluster = this.#cluster();
    return this.#cluster;
  }

  /** The answer that sends this change. */
  get event(): WatchEvent {
    return this.#event ??= keep({
      type: this.type,
      ...(this.cluster ? { cluster: this.cluster } : {}),
      resourceVersion: this.initial ? "" : resumePointText(this),
    });
  }
}

export class ClusterWatch {
  readonly #options: Required<Omit<ClusterWatchOptions, "feed" | "synced">>;
  readonly #feed: ClusterWatchOptions["feed"];
  /**
   * The current clusters, sorted, while nothing changes: taken from the
   * cache when a watch starts, so that nothing is held per cluster here.
   */
  #snapshot: readonly Entry[] | undefined;
  readonly #history: Entry[] = [];
  /** Every change after this version is in #history; undefined: none yet. */
  #horizon: bigint | undefined;
  #revision = 0n;
  /** The cache's epoch the versions are of. */
  #epoch = 0;
  readonly #watchers = new Set<Watcher>();
  #heartbeat: ReturnType<typeof setInterval> | undefined;
  readonly #unsubscribe: () => void;

  constructor(options: ClusterWatchOptions) {
    this.#options = {
      inStep: options.inStep,
      converted: options.converted,
      historySize: options.historySize ?? 4_096,
      queueLimit: options.queueLimit ?? 1_000,
      heartbeatMs: options.heartbeatMs ?? 10_000,
    };
    this.#feed = options.feed;
    this.#unsubscribe = options.feed((change) => this.#apply(change));
    options.synced?.then(() => this.#startHistory());
  }

  /** How many watch streams are open. */
  get watchers(): number {
    return this.#watchers.size;
  }

  /**
   * A new watch: its answers, ended by the caller (return()) or by
   * close(). Throws UNAVAILABLE while the cache is not in step, ABORTED for
   * a resourceVersion too old, INVALID_ARGUMENT for one that is not a
   * version.
   */
  watch(request: WatchRequest): AsyncIterableIterator<WatchEvent> {
    let resume: ResumePoint | undefined;
    const given = request.resourceVersion ?? "";
    if (given !== "") {
      resume = parseResumePoint(given);
      if (resume === undefined) {
        throw new ServiceError(
          Code.INVALID_ARGUMENT,
          `Invalid resource_version "${
            given.slice(0, 64)
          }": not a resource version of a WatchClusters answer`,
          {
            details: [{
              "@type": "type.googleapis.com/google.rpc.BadRequest",
              fieldViolations: [{
                field: "resource_version",
                description: "not a resource version",
              }],
            }],
          },
        );
      }
    }
    if (!this.#options.inStep()) {
      throw new ServiceError(
        Code.UNAVAILABLE,
        "Cannot watch clusters: the cache is not in step with Kubernetes yet; try again shortly",
      );
    }
    this.#startHistory();
    const matches = matcher(request);
    let backlog: Backlog;
    if (resume === undefined) {
      // Shared by every watch started before the next change.
      backlog = {
        entries: this.#state(),
        then: bookmark(this.#revision, this.#epoch),
      };
    } else {
      if (resume.epoch !== this.#epoch) throw fromAnotherEpoch(given);
      if (resume.version < this.#horizon!) {
        throw new ServiceError(
          Code.ABORTED,
          `Cannot resume the watch from resource_version ${given}: it is too old (the oldest this server can resume from is ${this.#horizon}); watch again without a resource_version to start from the current state`,
        );
      }
      const from = resume.version;
      const first = this.#history.findIndex((entry) => entry.version > from);
      backlog = {
        entries: first < 0 ? [] : this.#history.slice(first),
      };
    }
    const watcher = new Watcher(
      backlog,
      matches,
      this.#options.queueLimit,
      () => bookmark(this.#revision, this.#epoch),
      () => {
        this.#watchers.delete(watcher);
        if (this.#watchers.size === 0) this.#stopHeartbeat();
      },
    );
    this.#watchers.add(watcher);
    this.#startHeartbeat();
    return watcher;
  }

  /** Ends every watch (cleanly: clients resume elsewhere) and the feed. */
  close(): void {
    this.#unsubscribe();
    for (const watcher of [...this.#watchers]) watcher.end();
    this.#stopHeartbeat();
  }

  #apply(change: ClusterChange): void {
    const given = versionOf(change.resourceVersion) ?? 0n;
    if (change.epoch !== this.#epoch) this.#newEpoch(change.epoch, given);
    if (given > this.#revision) this.#revision = given;
    // Until the cache is first in step nobody watches and nothing is kept:
    // the changes of its first lists cost nothing more here.
    if (this.#horizon === undefined) return;
    const { converted } = this.#options;
    const { cluster: resource, before } = change;
    const events = change.events;
    const shown = resource ?? before;
    if (shown === undefined) return;
    const entry = new Entry(
      resource ? (before ? "MODIFIED" : "ADDED") : "DELETED",
      this.#revision,
      change.namespace,
      change.name,
      this.#epoch,
      () => converted.of(shown, events),
    );
    this.#snapshot = undefined;
    this.#history.push(entry);
    if (this.#history.length > this.#options.historySize) {
      this.#horizon = this.#history.shift()!.version;
    }
    for (const watcher of this.#watchers) watcher.offer(entry);
  }

  /**
   * Kubernetes' versions started again: the history and the open watches
   * are of versions that mean nothing now.
   */
  #newEpoch(epoch: number, version: bigint): void {
    this.#epoch = epoch;
    this.#revision = version;
    this.#snapshot = undefined;
    this.#history.length = 0;
    if (this.#horizon !== undefined) this.#horizon = version;
    const error = new ServiceError(
      Code.ABORTED,
      "Watch ended: Kubernetes' resource versions started again (its data was lost or restored); watch again without a resource_version to start from the current state",
    );
    for (const watcher of [...this.#watchers]) watcher.fail(error);
  }

  /** Keeps changes from now on: resuming from now is possible. */
  #startHistory(): void {
    this.#horizon ??= this.#revision;
  }

  #state(): readonly Entry[] {
    if (this.#snapshot) return this.#snapshot;
    const { converted } = this.#options;
    const entries: Entry[] = [];
    // The feed tells a new listener of every cluster held, at once.
    this.#feed(({ cluster, events, namespace, name }) => {
      if (!cluster) return;
      entries.push(
        new Entry(
          "ADDED",
          this.#revision,
          namespace,
          name,
          this.#epoch,
          () => converted.of(cluster, events),
          true,
        ),
      );
    })();
    // In namespace then name order, as the feed tells them.
    this.#snapshot = entries;
    return this.#snapshot;
  }

  #startHeartbeat(): void {
    this.#heartbeat ??= setInterval(() => {
      const entry = bookmark(this.#revision, this.#epoch);
      for (const watcher of this.#watchers) watcher.offer(entry, true);
    }, this.#options.heartbeatMs);
  }

  #stopHeartbeat(): void {
    clearInterval(this.#heartbeat);
    this.#heartbeat = undefined;
  }
}

function bookmark(revision: bigint, epoch: number): Entry {
  return new Entry("BOOKMARK", revision, "", "", epoch);
}

/** A resume point of an epoch other than the current one. */
function fromAnotherEpoch(given: string): ServiceError {
  return new ServiceError(
    Code.ABORTED,
    `Cannot resume the watch from resource_version ${given}: it is from before Kubernetes' resource versions started again (its data was lost or restored), or from another server that saw them start again a different number of times; watch again without a resource_version to start from the current state`,
  );
}

function matcher(request: WatchRequest): (entry: Entry) => boolean {
  const namespaces = request.namespaces === undefined
    ? undefined
    : new Set(request.namespaces);
  const name = request.name || undefined;
  const { hidden } = request;
  return (entry) =>
    (namespaces === undefined || namespaces.has(entry.namespace)) &&
    (name === undefined || entry.name === name) &&
    (hidden === undefined || entry.namespace === "" ||
      !hidden(entry.namespace));
}

/** What a watch sends before the changes it is offered. */
interface Backlog {
  /** Kept entries, shared: only those the watcher matches are sent. */
  entries: readonly Entry[];
  /** Sent after them. */
  then?: Entry;
}

/**
 * One watch stream: its backlog (the initial state or the changes it
 * resumes with), then the changes queued as they come.
 */
class Watcher implements AsyncIterableIterator<WatchEvent>, Finishable {
  #backlog: Backlog | undefined;
  #next = 0;
  readonly #queue: Entry[] = [];
  readonly #matches: (entry: Entry) => boolean;
  readonly #limit: number;
  /** A BOOKMARK of the highest resource version the fan-out has seen. */
  readonly #bookmark: () => Entry;
  readonly #onEnd: () => void;
  #ended = false;
  #failure: ServiceError | undefined;
  #wake: (() => void) | undefined;

  constructor(
    backlog: Backlog,
    matches: (entry: Entry) => boolean,
    limit: number,
    bookmark: () => Entry,
    onEnd: () => void,
  ) {
    this.#backlog = backlog;
    this.#matches = matches;
    this.#limit = limit;
    this.#bookmark = bookmark;
    this.#onEnd = onEnd;
  }

  /** Queues a change this watcher may see (a bookmark: any watcher). */
  offer(entry: Entry, always = false): void {
    if (this.#ended || !(always || this.#matches(entry))) return;
    if (entry.type === "BOOKMARK") {
      // A heartbeat is only worth sending to a stream with nothing queued.
      if (this.#queue.length > 0 || this.#backlog) return;
    } else if (this.#queue.length >= this.#limit) {
      this.fail(
        new ServiceError(
          Code.RESOURCE_EXHAUSTED,
          `Watch ended: the client fell more than ${this.#limit} changes behind; watch again (resuming from the last resource_version it had)`,
        ),
      );
      return;
    }
    this.#queue.push(entry);
    this.#wake?.();
  }

  /** Ends the stream after what is queued. */
  end(): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#onEnd();
    this.#wake?.();
  }

  /**
   * Ends the stream cleanly after what is queued and a BOOKMARK of the
   * version reached, from which its client resumes: every change up to it
   * that this watcher may see has been queued (offer() runs as each change
   * arrives), and none after it will be.
   */
  finish(): void {
    if (this.#ended) return;
    this.#queue.push(this.#bookmark());
    this.end();
  }

  /** Ends the stream with `error`, what is queued dropped. */
  fail(error: ServiceError): void {
    if (this.#ended) return;
    this.#failure = error;
    this.#backlog = undefined;
    this.#queue.length = 0;
    this.end();
  }

  async next(): Promise<IteratorResult<WatchEvent>> {
    while (true) {
      const backlog = this.#backlog;
      if (backlog) {
        const { entries } = backlog;
        while (this.#next < entries.length) {
          const entry = entries[this.#next++];
          if (!this.#matches(entry)) continue;
          return { done: false, value: entry.event };
        }
        this.#backlog = undefined;
        if (backlog.then) return { done: false, value: backlog.then.event };
        continue;
      }
      if (this.#failure) throw this.#failure;
      const entry = this.#queue.shift();
      if (entry) return { done: false, value: entry.event };
      if (this.#ended) return { done: true, value: undefined };
      await new Promise<void>((resolve) => this.#wake = resolve);
      this.#wake = undefined;
    }
  }

  return(): Promise<IteratorResult<WatchEvent>> {
    this.#queue.length = 0;
    this.#backlog = undefined;
    this.end();
    return Promise.resolve({ done: true, value: undefined });
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<WatchEvent> {
    return this;
  }
}
