/**
 * Watches: newline-delimited JSON events from a resourceVersion, replaying
 * the retained history, with selectors, bookmarks, `sendInitialEvents` and
 * `timeoutSeconds`.
 */

import {
  checkListOptions,
  parseResourceVersion,
  readSelection,
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
import { groupVersion, type ResourceType, withTypeMeta } from "./types.ts";

/** The real server's default watch length is 30 to 60 minutes. */
const DEFAULT_WATCH_TIMEOUT_SECONDS = 1800;

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
  const selection = readSelection(resource, namespace, params);
  checkListOptions(params, true);
  const timeoutMs = readTimeoutSeconds(params) * 1000;
  const bookmarks = params.get("allowWatchBookmarks") === "true";
  const sendInitialEvents = params.get("sendInitialEvents");
  const resourceVersion = params.get("resourceVersion") ?? "";
  const from = parseResourceVersion(resourceVersion);
  const initial = sendInitialEvents === "true" ||
    (sendInitialEvents !== "false" && from === 0);
  const key = storeKey(resource);
  const encoder = new TextEncoder();

  let controller!: ReadableStreamDefaultController<Uint8Array>;
  let ended = false;
  const cleanups: (() => void)[] = [];
  const send = (type: string, object: unknown) => {
    if (!ended) {
      controller.enqueue(
        encoder.encode(`${JSON.stringify({ type, object })}\n`),
      );
    }
  };
  const registration = { resource, end };
  function end(): void {
    if (ended) return;
    ended = true;
    for (const cleanup of cleanups) cleanup();
    state.watches.delete(registration);
    try {
      controller.close();
    } catch {
      // already closed or cancelled by the client
    }
  }
  const fail = (error: StatusError) => {
    send("ERROR", error.toStatus());
    end();
  };
  const deliver = (event: StoreEvent) => {
    if (storeKey(event.resource) !== key) return;
    const now = event.type !== "DELETED" && selection.matches(event.object);
    const before = event.previous !== undefined &&
      selection.matches(event.previous);
    if (now) {
      send(before ? "MODIFIED" : "ADDED", withTypeMeta(resource, event.object));
    } else if (before) {
      // A deletion shows the object's last state; an object leaving the
      // selection shows its last state that matched, at the new revision.
      const last = event.type === "DELETED" ? event.object : event.previous!;
      send(
        "DELETED",
        withTypeMeta(resource, {
          ...last,
          metadata: {
            ...last.metadata,
            resourceVersion: String(event.revision),
          },
        }),
      );
    }
  };
  const begin = () => {
    if (ended) return;
    if (initial) {
      for (const object of state.store.list(resource, namespace)) {
        if (selection.matches(object)) {
          send("ADDED", withTypeMeta(resource, object));
        }
      }
      if (sendInitialEvents === "true" && bookmarks) {
        send(
          "BOOKMARK",
          bookmarkObject(resource, state.store.revisionNumber, {
            "k8s.io/initial-events-end": "true",
          }),
        );
      }
    } else {
      // Without a resourceVersion and without initial events: from now on.
      const after = from === 0 ? state.store.revisionNumber : from;
      const changes = state.store.changesSince(resource, after);
      if (changes === undefined) {
        const oldest = state.store.oldestRevision(resource) ?? 0;
        return fail(
          expired(`too old resource version: ${from} (${oldest})`),
        );
      }
      for (const change of changes) deliver(change);
    }
    cleanups.push(state.store.subscribe(deliver));
    if (bookmarks) {
      const interval = setInterval(
        () =>
          send(
            "BOOKMARK",
            bookmarkObject(resource, state.store.revisionNumber),
          ),
        state.bookmarkIntervalMs,
      );
      cleanups.push(() => clearInterval(interval));
    }
  };

  const body = new ReadableStream<Uint8Array>({
    start(streamController) {
      controller = streamController;
      state.watches.add(registration);
      const timeout = setTimeout(end, timeoutMs);
      cleanups.push(() => clearTimeout(timeout));
      if (initial || from <= state.store.revisionNumber) {
        begin();
        return;
      }
      // A resourceVersion the store has not reached yet: wait for it.
      const waited = setTimeout(() => {
        stopWaiting();
        fail(tooLargeResourceVersion(from, state.store.revisionNumber));
      }, TOO_LARGE_RESOURCE_VERSION_WAIT_MS);
      const stopWaiting = state.store.subscribe(() => {
        if (state.store.revisionNumber >= from) {
          stopWaiting();
          clearTimeout(waited);
          begin();
        }
      });
      cleanups.push(() => {
        stopWaiting();
        clearTimeout(waited);
      });
    },
    cancel() {
      end();
    },
  });
  return new Response(body, {
    status: 200,
    headers: { "content-type": "application/json" },
  });
}
