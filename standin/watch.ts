/**
 * Watches: newline-delimited JSON events from a resourceVersion, replaying
 * the retained history, with selectors, bookmarks, `sendInitialEvents` and
 * `timeoutSeconds`.
 */

import {
  checkListOptions,
  parseResourceVersion,
  readSelection,
  type Selection,
  TOO_LARGE_RESOURCE_VERSION_WAIT_MS,
} from "./list_options.ts";
import type { State } from "./state.ts";
import {
  badRequest,
  expired,
  StatusError,
  tooLargeResourceVersion,
} from "./status.ts";
import { type StoreEvent, storeKey } from "./store.ts";
import {
  groupVersion,
  type KubeObject,
  type ResourceType,
  withTypeMeta,
} from "./types.ts";

/** The real server's default watch length is 30 to 60 minutes. */
const DEFAULT_WATCH_TIMEOUT_SECONDS = 1800;

const encoder = new TextEncoder();

/** A watch event's object for a BOOKMARK: only the resourceVersion. */
function bookmarkObject(
  resource: ResourceType,
  revision: number,
  annotations?: Record<string, string>,
): Record<string, unknown> {
  return {
    kind: resource.kind,
    apiVersion: groupVersion(resource),
    metadata: {
      resourceVersion: String(revision),
      ...(resource.custom ? {} : { creationTimestamp: null }),
      ...(annotations ? { annotations } : {}),
    },
  };
}

function readTimeoutSeconds(params: URLSearchParams): number {
  const value = params.get("timeoutSeconds") ?? "";
  if (value === "") return DEFAULT_WATCH_TIMEOUT_SECONDS;
  if (!/^\d+$/.test(value)) {
    throw badRequest(
      `timeoutSeconds: Invalid value: "${value}": must be a non-negative integer`,
    );
  }
  const seconds = Number(value);
  return seconds === 0 ? DEFAULT_WATCH_TIMEOUT_SECONDS : seconds;
}

/** A watch's parameters, checked. */
interface WatchOptions {
  selection: Selection;
  timeoutMs: number;
  /** allowWatchBookmarks=true. */
  bookmarks: boolean;
  /** sendInitialEvents as given: "true", "false" or null. */
  sendInitialEvents: string | null;
  /** The resourceVersion to start after; 0 when none (or "0"). */
  from: number;
  /** Whether the current objects come first as ADDED. */
  initial: boolean;
}

/** The parameters of a watch; throws the real server's 400 for a bad one. */
function readWatchOptions(
  resource: ResourceType,
  namespace: string | undefined,
  params: URLSearchParams,
): WatchOptions {
  const selection = readSelection(resource, namespace, params);
  checkListOptions(params, true);
  const timeoutMs = readTimeoutSeconds(params) * 1000;
  const bookmarks = params.get("allowWatchBookmarks") === "true";
  const sendInitialEvents = params.get("sendInitialEvents");
  const from = parseResourceVersion(params.get("resourceVersion") ?? "");
  const initial = sendInitialEvents === "true" ||
    (sendInitialEvents !== "false" && from === 0);
  return { selection, timeoutMs, bookmarks, sendInitialEvents, from, initial };
}

/** A watch event: its type and object. */
interface WatchEvent {
  type: "ADDED" | "MODIFIED" | "DELETED";
  object: KubeObject;
}

/**
 * What a change of the watched type is to a watch of `selection`: ADDED or
 * MODIFIED while the object matches (ADDED when it did not before), DELETED
 * when it is deleted or leaves the selection, nothing when it never
 * matched. A deletion shows the object's last state; an object leaving the
 * selection shows its last state that matched, at the new revision.
 */
function selectionEvent(
  resource: ResourceType,
  selection: Selection,
  event: StoreEvent,
): WatchEvent | undefined {
  const now = event.type !== "DELETED" && selection.matches(event.object);
  const before = event.previous !== undefined &&
    selection.matches(event.previous);
  if (now) {
    return {
      type: before ? "MODIFIED" : "ADDED",
      object: withTypeMeta(resource, event.object),
    };
  }
  if (!before) return undefined;
  const last = event.type === "DELETED" ? event.object : event.previous!;
  return {
    type: "DELETED",
    object: withTypeMeta(resource, {
      ...last,
      metadata: { ...last.metadata, resourceVersion: String(event.revision) },
    }),
  };
}

/**
 * A watch: newline-delimited JSON events on a streamed 200 answer, as the
 * watch cache serves them. Without a resourceVersion (or with "0") the
 * current objects come first as ADDED; with one, the retained changes after
 * it; then live changes until `timeoutSeconds`, the client leaving or
 * close(). Objects moving into or out of the selection arrive as ADDED and
 * DELETED. A too old resourceVersion gets one ERROR event (410 Expired).
 */
export function watch(
  state: State,
  resource: ResourceType,
  namespace: string | undefined,
  params: URLSearchParams,
): Response {
  const options = readWatchOptions(resource, namespace, params);
  const stream = new WatchStream(state, resource, namespace, options);
  return new Response(stream.body, {
    status: 200,
    headers: { "content-type": "application/json" },
  });
}

/**
 * One open watch: its body stream and what it holds (its registration in
 * `state.watches`, store subscription and timers), all let go by end().
 */
class WatchStream {
  readonly resource: ResourceType;
  readonly body: ReadableStream<Uint8Array>;
  #state: State;
  #namespace: string | undefined;
  #options: WatchOptions;
  #key: string;
  #controller!: ReadableStreamDefaultController<Uint8Array>;
  #ended = false;
  #cleanups: (() => void)[] = [];

  constructor(
    state: State,
    resource: ResourceType,
    namespace: string | undefined,
    options: WatchOptions,
  ) {
    this.#state = state;
    this.resource = resource;
    this.#namespace = namespace;
    this.#options = options;
    this.#key = storeKey(resource);
    this.body = new ReadableStream<Uint8Array>({
      start: (controller) => this.#start(controller),
      cancel: () => this.end(),
    });
  }

  /** Closes the stream and lets go of everything the watch holds; once. */
  end(): void {
    if (this.#ended) return;
    this.#ended = true;
    for (const cleanup of this.#cleanups) cleanup();
    this.#state.watches.delete(this);
    try {
      this.#controller.close();
    } catch {
      // already closed or cancelled by the client
    }
  }

  #start(controller: ReadableStreamDefaultController<Uint8Array>): void {
    this.#controller = controller;
    this.#state.watches.add(this);
    const timeout = setTimeout(() => this.end(), this.#options.timeoutMs);
    this.#cleanups.push(() => clearTimeout(timeout));
    const { initial, from } = this.#options;
    if (initial || from <= this.#state.store.revisionNumber) this.#begin();
    else this.#waitForRevision(from);
  }

  /** A resourceVersion the store has not reached yet: waits for it. */
  #waitForRevision(from: number): void {
    const store = this.#state.store;
    const waited = setTimeout(() => {
      stopWaiting();
      this.#fail(tooLargeResourceVersion(from, store.revisionNumber));
    }, TOO_LARGE_RESOURCE_VERSION_WAIT_MS);
    const stopWaiting = store.subscribe(() => {
      if (store.revisionNumber >= from) {
        stopWaiting();
        clearTimeout(waited);
        this.#begin();
      }
    });
    this.#cleanups.push(() => {
      stopWaiting();
      clearTimeout(waited);
    });
  }

  /** Sends the initial state or the history, then follows live changes. */
  #begin(): void {
    if (this.#ended) return;
    if (this.#options.initial) this.#sendInitialObjects();
    else if (!this.#replayChanges()) return;
    this.#cleanups.push(
      this.#state.store.subscribe((event) => this.#deliver(event)),
    );
    if (this.#options.bookmarks) this.#startBookmarks();
  }

  /**
   * The current objects as ADDED, ended by a bookmark annotated
   * initial-events-end when sendInitialEvents=true asked for it.
   */
  #sendInitialObjects(): void {
    const { store } = this.#state;
    for (const object of store.list(this.resource, this.#namespace)) {
      if (this.#options.selection.matches(object)) {
        this.#send("ADDED", withTypeMeta(this.resource, object));
      }
    }
    if (this.#options.sendInitialEvents === "true" && this.#options.bookmarks) {
      this.#send(
        "BOOKMARK",
        bookmarkObject(this.resource, store.revisionNumber, {
          "k8s.io/initial-events-end": "true",
        }),
      );
    }
  }

  /**
   * The retained changes after the resourceVersion; false, after one ERROR
   * event (410 Expired), when the history no longer reaches back to it.
   */
  #replayChanges(): boolean {
    const { store } = this.#state;
    const { from } = this.#options;
    // Without a resourceVersion and without initial events: from now on.
    const after = from === 0 ? store.revisionNumber : from;
    const changes = store.changesSince(this.resource, after);
    if (changes === undefined) {
      const oldest = store.oldestRevision(this.resource) ?? 0;
      this.#fail(expired(`too old resource version: ${from} (${oldest})`));
      return false;
    }
    for (const change of changes) this.#deliver(change);
    return true;
  }

  #startBookmarks(): void {
    const interval = setInterval(
      () =>
        this.#send(
          "BOOKMARK",
          bookmarkObject(this.resource, this.#state.store.revisionNumber),
        ),
      this.#state.bookmarkIntervalMs,
    );
    this.#cleanups.push(() => clearInterval(interval));
  }

  #deliver(event: StoreEvent): void {
    if (storeKey(event.resource) !== this.#key) return;
    const change = selectionEvent(
      this.resource,
      this.#options.selection,
      event,
    );
    if (change) this.#send(change.type, change.object);
  }

  #send(type: string, object: unknown): void {
    if (this.#ended) return;
    this.#controller.enqueue(
      encoder.encode(`${JSON.stringify({ type, object })}\n`),
    );
  }

  #fail(error: StatusError): void {
    this.#send("ERROR", error.toStatus());
    this.end();
  }
}
