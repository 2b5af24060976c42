/**
 * A watch served from the cache, whatever the object watched: one feed of
 * the cache's changes of one kind of object (the clusters', the jobs':
 * kind_watch.ts), fanned out to every watcher, so a thousand watchers cost
 * Kubernetes nothing more than none.
 * What a kind brings is its feed (each change named by namespace and name,
 * with its object's message made on demand) and the answer that carries a
 * message (WatchKind); the rest is here, in parts beside it: a change as
 * kept and sent (watch_entry.ts), the history kept for resuming
 * (watch_history.ts) and one open stream (watch_stream.ts).
 *
 * - Each change is converted once and the same frozen answer goes to
 *   every watcher that may see it. The history keeps what makes a
 *   change's answer (the object as it was, with its events), not the
 *   answer: that goes, with the encodings the transports keep with it
 *   (domain/kept.ts), once every watcher it was queued for has sent it,
 *   and a watch resuming from the history has it made again. Answers and
 *   their encodings were most of the history's memory: kept, a change of
 *   bench/soak.ts's clusters and jobs cost some 7 KB, 58 MB for the
 *   4,096 of each; without them 2.7 KB, 22 MB.
 * - A new watch gets the objects as they are (ADDED, from one shared
 *   snapshot), then a BOOKMARK, then the changes.
 * - Resource versions are Kubernetes' (etcd's revision, one counter for
 *   every resource): a change carries the highest seen so far, so they
 *   never go down along a stream. The last `historySize` changes are kept;
 *   a watch resumed from a version they cover gets the changes after it,
 *   an older one is ABORTED (start afresh), as the Kubernetes API server's
 *   watch cache answers 410 Gone. Versions from another replica resume
 *   too, where its history covers them. A change that reaches the cache
 *   after a later one (an object's watch and its Events' are separate
 *   streams) carries the later one's version, so a watch resumed from
 *   exactly that version misses it: its object's next change brings it.
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
import { Code, ServiceError } from "../../domain/errors.ts";
import {
  Entry,
  parseResumePoint,
  type ResumePoint,
  resumePointText,
  type WatchEventType,
} from "./watch_entry.ts";
import { WatchHistory } from "./watch_history.ts";
import { type Backlog, Watcher } from "./watch_stream.ts";

/**
 * One change of a feed: of the object `namespace/name`, at a resource
 * version of an epoch. A change without `type` (and without a name) tells
 * only that a new epoch started.
 */
export interface FeedChange<I> {
  namespace: string;
  name: string;
  /** ADDED: it was not held before; DELETED: it is gone. */
  type?: Exclude<WatchEventType, "BOOKMARK">;
  /**
   * Takes the object as it is now (or, once gone, as it last was) with what
   * the answer shows of it (its events): called once, synchronously, if
   * the fan-out keeps the change. Answers what makes its message when it
   * is first sent, so that a change nobody watches costs no conversion.
   */
  capture?: () => () => I;
  resourceVersion: string;
  epoch: number;
}

/**
 * The cache's changes of one kind of object: tells a new listener of every
 * object held, at once (as ADDED changes, in namespace then name order),
 * then of every change as it is applied; answers the function that stops
 * it.
 */
export type Feed<I> = (listener: (change: FeedChange<I>) => void) => () => void;

/** What a watch of one kind of object says and sends. */
export interface WatchKind<I, M> {
  /** The objects in messages: "clusters". */
  noun: string;
  /** The RPC, in messages: "WatchClusters". */
  method: string;
  /** The answer of one change (no item in a BOOKMARK). */
  answer(type: WatchEventType, item: I | undefined, resourceVersion: string): M;
}

export interface FanoutOptions<I> {
  feed: Feed<I>;
  /** Whether the cache is in step (a watch starts only then). */
  inStep: () => boolean;
  /**
   * Resolves once the cache is first in step: changes are kept for resuming
   * from then on (or from the first watch, without it).
   */
  synced?: Promise<void>;
  /** Changes kept to resume from; 4,096. */
  historySize?: number;
  /** Changes a watcher may fall behind by before it is ended; 1,000. */
  queueLimit?: number;
  /** The longest a stream goes without an answer; 10 s. */
  heartbeatMs?: number;
}

/** The tuning a deployment may change (the rest comes from the parts). */
export type WatchTuning = Pick<
  FanoutOptions<unknown>,
  "historySize" | "queueLimit" | "heartbeatMs"
>;

export interface WatchRequest {
  /** The namespaces the watcher may see; undefined for all. */
  namespaces?: readonly string[];
  /** With all namespaces: those the watcher may not see (reserved ones). */
  hidden?: (namespace: string) => boolean;
  /** Only the object of this name. */
  name?: string;
  /** Resume after this version; "" or undefined starts with the state. */
  resourceVersion?: string;
}

/** A resource version as a number; undefined for text that is none. */
function versionOf(text: string): bigint | undefined {
  return /^\d{1,30}$/.test(text) ? BigInt(text) : undefined;
}

export class WatchFanout<I, M> {
  readonly #options: Required<
    Omit<FanoutOptions<I>, "feed" | "synced">
  >;
  readonly #kind: WatchKind<I, M>;
  readonly #feed: Feed<I>;
  /**
   * The current objects, sorted, while nothing changes: taken from the
   * cache when a watch starts, so that nothing is held per object here.
   */
  #snapshot: readonly Entry<M>[] | undefined;
  /** The changes kept to resume from. */
  readonly #history: WatchHistory<M>;
  #revision = 0n;
  /** The cache's epoch the versions are of. */
  #epoch = 0;
  readonly #watchers = new Set<Watcher<M>>();
  #heartbeat: ReturnType<typeof setInterval> | undefined;
  readonly #unsubscribe: () => void;

  constructor(kind: WatchKind<I, M>, options: FanoutOptions<I>) {
    this.#kind = kind;
    this.#options = {
      inStep: options.inStep,
      historySize: options.historySize ?? 4_096,
      queueLimit: options.queueLimit ?? 1_000,
      heartbeatMs: options.heartbeatMs ?? 10_000,
    };
    this.#history = new WatchHistory<M>(this.#options.historySize);
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
  watch(request: WatchRequest): AsyncIterableIterator<M> {
    const given = request.resourceVersion ?? "";
    const resume = given === "" ? undefined : this.#resumePoint(given);
    if (!this.#options.inStep()) {
      throw new ServiceError(
        Code.UNAVAILABLE,
        `Cannot watch ${this.#kind.noun}: the cache is not in step with Kubernetes yet; try again shortly`,
      );
    }
    this.#startHistory();
    const backlog = resume === undefined
      ? this.#stateBacklog()
      : this.#resumeBacklog(resume, given);
    const watcher = new Watcher<M>(
      backlog,
      matcher(request),
      this.#options.queueLimit,
      () => this.#bookmark(),
      () => {
        this.#watchers.delete(watcher);
        if (this.#watchers.size === 0) this.#stopHeartbeat();
      },
    );
    this.#watchers.add(watcher);
    this.#startHeartbeat();
    return watcher;
  }

  /**
   * Where a watch started now would resume from, as answers say it (a
   * Kubernetes list's resourceVersion): every change after it is kept
   * from now on, so a watch that follows a list read after this call
   * misses nothing (and may be told again of what the list had).
   */
  resumePoint(): string {
    this.#startHistory();
    return resumePointText({ version: this.#revision, epoch: this.#epoch });
  }

  /** Ends every watch (cleanly: clients resume elsewhere) and the feed. */
  close(): void {
    this.#unsubscribe();
    for (const watcher of [...this.#watchers]) watcher.end();
    this.#stopHeartbeat();
  }

  /** The resume point `given` names; INVALID_ARGUMENT when it names none. */
  #resumePoint(given: string): ResumePoint {
    const resume = parseResumePoint(given);
    if (resume !== undefined) return resume;
    throw new ServiceError(
      Code.INVALID_ARGUMENT,
      `Invalid resource_version "${
        given.slice(0, 64)
      }": not a resource version of a ${this.#kind.method} answer`,
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

  /** The objects as they are, then a BOOKMARK. */
  #stateBacklog(): Backlog<M> {
    // Shared by every watch started before the next change.
    return { entries: this.#state(), then: this.#bookmark() };
  }

  /** The changes after `resume`; ABORTED when they are not all kept. */
  #resumeBacklog(resume: ResumePoint, given: string): Backlog<M> {
    if (resume.epoch !== this.#epoch) throw fromAnotherEpoch(given);
    return { entries: this.#history.after(resume.version, given) };
  }

  #apply(change: FeedChange<I>): void {
    const given = versionOf(change.resourceVersion) ?? 0n;
    if (change.epoch !== this.#epoch) this.#newEpoch(change.epoch, given);
    if (given > this.#revision) this.#revision = given;
    // Until the cache is first in step nobody watches and nothing is kept:
    // the changes of its first lists cost nothing more here.
    if (!this.#history.started) return;
    const { type, capture } = change;
    if (type === undefined || capture === undefined) return;
    const entry = this.#entry(type, change.namespace, change.name, capture());
    this.#snapshot = undefined;
    this.#history.add(entry);
    for (const watcher of this.#watchers) watcher.offer(entry);
  }

  /** The entry of a change of `namespace/name` at the current version. */
  #entry(
    type: WatchEventType,
    namespace: string,
    name: string,
    item: (() => I) | undefined,
    initial = false,
  ): Entry<M> {
    const kind = this.#kind;
    return new Entry<M>(
      type,
      this.#revision,
      namespace,
      name,
      this.#epoch,
      (resourceVersion) => kind.answer(type, item?.(), resourceVersion),
      initial,
    );
  }

  /**
   * Kubernetes' versions started again: the history and the open watches
   * are of versions that mean nothing now.
   */
  #newEpoch(epoch: number, version: bigint): void {
    this.#epoch = epoch;
    this.#revision = version;
    this.#snapshot = undefined;
    this.#history.restart(version);
    const error = new ServiceError(
      Code.ABORTED,
      "Watch ended: Kubernetes' resource versions started again (its data was lost or restored); watch again without a resource_version to start from the current state",
    );
    for (const watcher of [...this.#watchers]) watcher.fail(error);
  }

  /** Keeps changes from now on: resuming from now is possible. */
  #startHistory(): void {
    this.#history.start(this.#revision);
  }

  #state(): readonly Entry<M>[] {
    if (this.#snapshot) return this.#snapshot;
    const entries: Entry<M>[] = [];
    // The feed tells a new listener of every object held, at once.
    this.#feed(({ type, capture, namespace, name }) => {
      if (type === undefined || type === "DELETED" || !capture) return;
      entries.push(this.#entry("ADDED", namespace, name, capture(), true));
    })();
    // In namespace then name order, as the feed tells them.
    this.#snapshot = entries;
    return this.#snapshot;
  }

  #bookmark(): Entry<M> {
    return this.#entry("BOOKMARK", "", "", undefined);
  }

  #startHeartbeat(): void {
    this.#heartbeat ??= setInterval(() => {
      const entry = this.#bookmark();
      for (const watcher of this.#watchers) watcher.offer(entry, true);
    }, this.#options.heartbeatMs);
  }

  #stopHeartbeat(): void {
    clearInterval(this.#heartbeat);
    this.#heartbeat = undefined;
  }
}

/** A resume point of an epoch other than the current one. */
function fromAnotherEpoch(given: string): ServiceError {
  return new ServiceError(
    Code.ABORTED,
    `Cannot resume the watch from resource_version ${given}: it is from before Kubernetes' resource versions started again (its data was lost or restored), or from another server that saw them start again a different number of times; watch again without a resource_version to start from the current state`,
  );
}

function matcher<M>(request: WatchRequest): (entry: Entry<M>) => boolean {
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
