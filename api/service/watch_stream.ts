/**
 * One watch stream of a fan-out (watch_fanout.ts): what it sends first (its
 * backlog: the state it starts with, or the changes it resumes with), then
 * the changes queued for it as they come, ended with RESOURCE_EXHAUSTED
 * once it falls more than a limit behind. It stands apart from the
 * fan-out, which decides what each stream is offered and when: this is
 * how one stream queues, sends and ends (after what is queued, at its
 * maximum duration with a last BOOKMARK, or with an error).
 */
import { Code, ServiceError } from "../../domain/errors.ts";
import type { Finishable } from "./stream_lifetime.ts";
import type { Entry } from "./watch_entry.ts";

/** What a watch sends before the changes it is offered. */
export interface Backlog<M> {
  /** Kept entries, shared: only those the watcher matches are sent. */
  entries: readonly Entry<M>[];
  /** Sent after them. */
  then?: Entry<M>;
}

/**
 * One watch stream: its backlog (the initial state or the changes it
 * resumes with), then the changes queued as they come.
 */
export class Watcher<M> implements AsyncIterableIterator<M>, Finishable {
  #backlog: Backlog<M> | undefined;
  #next = 0;
  readonly #queue: Entry<M>[] = [];
  readonly #matches: (entry: Entry<M>) => boolean;
  readonly #limit: number;
  /** A BOOKMARK of the highest resource version the fan-out has seen. */
  readonly #bookmark: () => Entry<M>;
  readonly #onEnd: () => void;
  #ended = false;
  #failure: ServiceError | undefined;
  #wake: (() => void) | undefined;

  constructor(
    backlog: Backlog<M>,
    matches: (entry: Entry<M>) => boolean,
    limit: number,
    bookmark: () => Entry<M>,
    onEnd: () => void,
  ) {
    this.#backlog = backlog;
    this.#matches = matches;
    this.#limit = limit;
    this.#bookmark = bookmark;
    this.#onEnd = onEnd;
  }

  /** Queues a change this watcher may see (a bookmark: any watcher). */
  offer(entry: Entry<M>, always = false): void {
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
    this.#enqueue(entry);
  }

  #enqueue(entry: Entry<M>): void {
    entry.queued();
    this.#queue.push(entry);
    this.#wake?.();
  }

  /** Drops what is queued, unsent. */
  #dropQueued(): void {
    for (const entry of this.#queue) entry.dequeued();
    this.#queue.length = 0;
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
    this.#enqueue(this.#bookmark());
    this.end();
  }

  /** Ends the stream with `error`, what is queued dropped. */
  fail(error: ServiceError): void {
    if (this.#ended) return;
    this.#failure = error;
    this.#backlog = undefined;
    this.#dropQueued();
    this.end();
  }

  async next(): Promise<IteratorResult<M>> {
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
      if (entry) {
        const value = entry.event;
        entry.dequeued();
        return { done: false, value };
      }
      if (this.#ended) return { done: true, value: undefined };
      await new Promise<void>((resolve) => this.#wake = resolve);
      this.#wake = undefined;
    }
  }

  return(): Promise<IteratorResult<M>> {
    this.#dropQueued();
    this.#backlog = undefined;
    this.end();
    return Promise.resolve({ done: true, value: undefined });
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<M> {
    return this;
  }
}
