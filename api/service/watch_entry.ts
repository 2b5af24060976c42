/**
 * A change as a watch fan-out (watch_fanout.ts) keeps and sends it, and
 * the resume point its resourceVersion names. The history kept for
 * resuming (watch_history.ts) holds entries, each open stream
 * (watch_stream.ts) queues them, and the state a watch starts with and its
 * BOOKMARKs are entries too: it stands apart because all of them share it.
 * It is where a change's answer is made, once, when first sent, and let go
 * when the last stream that queued it has sent it (the history keeps what
 * makes the answer, not the answer).
 */
import { keep } from "../../domain/kept.ts";
import type { EventType } from "../../domain/types.ts";

export type WatchEventType = Exclude<EventType, "EVENT_TYPE_UNSPECIFIED">;

/** Where a watch resumes: a version of one epoch. */
export interface ResumePoint {
  version: bigint;
  epoch: number;
}

/** "1234" in the first epoch, "1234.2" in the third. */
export function resumePointText({ version, epoch }: ResumePoint): string {
  return epoch === 0 ? String(version) : `${version}.${epoch}`;
}

/** The resume point a watch answer's resourceVersion gave; or undefined. */
export function parseResumePoint(text: string): ResumePoint | undefined {
  const match = /^(\d{1,30})(?:\.(\d{1,9}))?$/.exec(text);
  if (match === null) return undefined;
  return { version: BigInt(match[1]), epoch: Number(match[2] ?? 0) };
}

/**
 * A change as kept and sent. Its answer is made when first sent, not
 * before: while nobody watches, changes cost no conversion. It is kept
 * while watchers have the change queued (they share it), and let go when
 * the last of them has sent it; an entry of the state a watch starts with
 * keeps it for as long as the state is shared.
 */
export class Entry<M> {
  #answer: M | undefined;
  /** The watchers that have this change queued and not sent it yet. */
  #queued = 0;

  constructor(
    readonly type: WatchEventType,
    /** The resourceVersion as a number, to compare. */
    readonly version: bigint,
    readonly namespace: string,
    readonly name: string,
    /** The cache's epoch the version is of. */
    readonly epoch: number,
    /** Makes the answer, given the resourceVersion to send. */
    readonly make: (resourceVersion: string) => M,
    /**
     * Of the state a watch starts with: sent without a resourceVersion
     * (a client resumes from the BOOKMARK that follows the state).
     */
    readonly initial = false,
  ) {}

  /** The answer that sends this change. */
  get event(): M {
    const answer = this.#answer ?? keep(
      this.make(this.initial ? "" : resumePointText(this)),
    );
    if (this.initial || this.#queued > 0) this.#answer = answer;
    return answer;
  }

  /** A watcher queued the change. */
  queued(): void {
    this.#queued++;
  }

  /** A watcher sent the change, or dropped it: the last lets the answer go. */
  dequeued(): void {
    if (--this.#queued === 0 && !this.initial) this.#answer = undefined;
  }
}
