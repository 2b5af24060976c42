/**
 * Lists: pages of `limit` objects with continue tokens that carry their
 * snapshot revision (a consistent list; 410 Expired once that revision has
 * left the history), and `resourceVersionMatch=Exact`.
 */

import { isRecord, json } from "./json.ts";
import {
  checkListOptions,
  parseResourceVersion,
  readSelection,
  TOO_LARGE_RESOURCE_VERSION_WAIT_MS,
  waitForRevision,
} from "./list_options.ts";
import type { State } from "./state.ts";
import {
  badRequest,
  CONTINUE_EXPIRED,
  expired,
  LIST_EXPIRED,
  tooLargeResourceVersion,
} from "./status.ts";
import { keyOf } from "./store.ts";
import { groupVersion, type ResourceType, withTypeMeta } from "./types.ts";

/** A continue token as the etcd3 store encodes it (storage/continue.go). */
interface ContinueToken {
  /** The snapshot revision; -1 continues at the latest. */
  rv: number;
  /** The key to start from, relative to the list's key prefix. */
  start: string;
}

function base64UrlEncode(text: string): string {
  const bytes = new TextEncoder().encode(text);
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replaceAll("+", "-").replaceAll("/", "_").replace(
    /=+$/,
    "",
  );
}

function base64UrlDecode(text: string): string {
  if (!/^[A-Za-z0-9_-]*$/.test(text) || text.length % 4 === 1) {
    throw new Error("illegal base64 data");
  }
  const binary = atob(text.replaceAll("-", "+").replaceAll("_", "/"));
  return new TextDecoder("utf-8", { fatal: true }).decode(
    Uint8Array.from(binary, (c) => c.charCodeAt(0)),
  );
}

function encodeContinue(token: ContinueToken): string {
  return base64UrlEncode(
    JSON.stringify({ v: "meta.k8s.io/v1", rv: token.rv, start: token.start }),
  );
}

function decodeContinue(value: string): ContinueToken {
  const fail = (detail: string) =>
    badRequest(`invalid continue token: continue key is not valid: ${detail}`);
  let token: unknown;
  try {
    token = JSON.parse(base64UrlDecode(value));
  } catch (error) {
    throw fail(error instanceof Error ? error.message : String(error));
  }
  if (!isRecord(token) || token.v !== "meta.k8s.io/v1") {
    throw fail("server does not recognize this encoded version");
  }
  if (typeof token.rv !== "number" || token.rv === 0) {
    throw fail(
      "incorrect encoded start resourceVersion (version meta.k8s.io/v1)",
    );
  }
  if (typeof token.start !== "string" || token.start === "") {
    throw fail("encoded start key empty (version meta.k8s.io/v1)");
  }
  return { rv: token.rv, start: token.start };
}

/** Where the keys of a list start: continue tokens are relative to it. */
function keyPrefix(resource: ResourceType, namespace?: string): string {
  if (namespace !== undefined) return `${namespace}/`;
  return resource.namespaced ? "" : "/";
}

export async function list(
  state: State,
  resource: ResourceType,
  namespace: string | undefined,
  params: URLSearchParams,
): Promise<Response> {
  const selection = readSelection(resource, namespace, params);
  const limitParam = params.get("limit");
  const limit = limitParam === null || limitParam === ""
    ? 0
    : Number(limitParam);
  if (!Number.isInteger(limit) || limit < 0) {
    throw badRequest(`invalid limit: ${JSON.stringify(limitParam)}`);
  }
  const match = checkListOptions(params, false);
  const resourceVersion = params.get("resourceVersion") ?? "";
  const continueParam = params.get("continue") ?? "";
  const prefix = keyPrefix(resource, namespace);

  let snapshot: number | undefined;
  let start = "";
  if (continueParam !== "") {
    const token = decodeContinue(continueParam);
    if (resourceVersion !== "" && resourceVersion !== "0") {
      throw badRequest(
        "specifying resource version is not allowed when using continue",
      );
    }
    start = prefix + token.start;
    if (token.rv > 0) snapshot = token.rv;
  } else {
    const wanted = parseResourceVersion(resourceVersion);
    if (wanted > 0) {
      const reached = await waitForRevision(
        state,
        wanted,
        TOO_LARGE_RESOURCE_VERSION_WAIT_MS,
      );
      if (!reached) {
        throw tooLargeResourceVersion(wanted, state.store.revisionNumber);
      }
      if (match === "Exact") snapshot = wanted;
    }
  }

  const revision = snapshot ?? state.store.revisionNumber;
  const matching = state.store.select(resource, {
    namespace,
    revision: snapshot,
    from: start,
    keep: (o) => selection.matches(o),
  });
  if (matching === undefined) {
    if (continueParam === "") throw expired(LIST_EXPIRED);
    // The etcd3 store offers a token that continues at the latest revision.
    throw expired(
      CONTINUE_EXPIRED,
      encodeContinue({ rv: -1, start: start.slice(prefix.length) }),
    );
  }
  // The store's own objects, only read here: the answer is their text.
  const page = limit > 0 ? matching.slice(0, limit) : matching;
  const remaining = matching.length - page.length;
  const metadata: Record<string, unknown> = {
    resourceVersion: String(revision),
  };
  if (remaining > 0) {
    const last = keyOf(page[page.length - 1]);
    metadata.continue = encodeContinue({
      rv: revision,
      start: `${last.slice(prefix.length)}\u0000`,
    });
    // The etcd3 store counts what is left only when no selector filters.
    if (selection.everything) metadata.remainingItemCount = remaining;
  }
  return json({
    kind: `${resource.kind}List`,
    apiVersion: groupVersion(resource),
    metadata,
    // Items of built-in lists carry no apiVersion and kind; custom ones do.
    items: page.map((o) => {
      if (resource.custom) return withTypeMeta(resource, o);
      const { apiVersion: _a, kind: _k, ...rest } = o;
      return rest;
    }),
  });
}
