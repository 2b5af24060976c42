/**
 * Pages of a list (Google AIP-158). A page token names the last object of
 * the page before (its namespace and name) and the list it came from, so
 * the next page starts after that object wherever it now sits: paging over
 * a list that changes meanwhile repeats nothing, and skips nothing that
 * existed throughout. Tokens are opaque to clients (base64url JSON); one
 * that does not parse, or belongs to another list, is INVALID_ARGUMENT.
 */
import { type FieldViolation, invalidArgument } from "./errors.ts";

/** page_size above this is taken as this (AIP-158 says to coerce). */
export const MAX_PAGE_SIZE = 1000;

export interface PageRequest {
  /** 0: everything from the token on (KubeRay's clients send none). */
  pageSize: number;
  pageToken: string;
  /** KubeRay's current name of pageSize (its clusters' and jobs' lists). */
  limit?: number;
  /** KubeRay's current name of pageToken. */
  continue?: string;
}

export interface Page<T> {
  items: T[];
  /** Empty on the last page. */
  nextPageToken: string;
}

interface Token {
  /** The list: resource and namespace ("" for all), e.g. "clusters/team-a". */
  list: string;
  /** The last object's namespace and name. */
  after: [string, string];
}

export type Keyed = { namespace: string; name: string };

/**
 * Checks `request` (before anything is listed) and gives what takes its
 * page of the list. `list` names the list (the token of one list is
 * refused by another); `action` starts the error.
 */
export function pageCursor(
  request: PageRequest,
  list: string,
  action: string,
): { page<T extends Keyed>(items: readonly T[]): Page<T> } {
  const violations: FieldViolation[] = [];
  const { pageSize, pageToken, sizeField, tokenField } = spelledOnce(
    request,
    violations,
  );
  if (pageSize < 0) {
    violations.push({ field: sizeField, description: "must not be negative" });
  }
  let after: [string, string] | undefined;
  if (pageToken !== "") {
    const token = decodeToken(pageToken);
    if (token === undefined) {
      violations.push({
        field: tokenField,
        description:
          "is not a page token of this API: pass the nextPageToken of the previous page, or none for the first",
      });
    } else if (token.list !== list) {
      violations.push({
        field: tokenField,
        description:
          "belongs to another list: a token is valid only with the request that gave it",
      });
    } else {
      after = token.after;
    }
  }
  if (violations.length > 0) throw invalidArgument(action, violations);
  const size = pageSize === 0 ? Infinity : Math.min(pageSize, MAX_PAGE_SIZE);
  return {
    page<T extends Keyed>(items: readonly T[]): Page<T> {
      // Everything asked for: the list itself (kept lists stay shared).
      if (after === undefined && size === Infinity && isSorted(items)) {
        return { items: items as T[], nextPageToken: "" };
      }
      const sorted = isSorted(items) ? items : [...items].sort(compare);
      const start = after === undefined ? 0 : firstAfter(sorted, after);
      const page = sorted.slice(start, start + size);
      const last = page.at(-1);
      return {
        items: page,
        nextPageToken: last !== undefined && start + page.length < sorted.length
          ? encodeToken({ list, after: [last.namespace, last.name] })
          : "",
      };
    },
  };
}

/**
 * The page size and token of `request`, each under either of its names
 * (Corral's and AIP-158's, or KubeRay's current `limit` and `continue`):
 * both names may be given only with the same value.
 */
function spelledOnce(
  request: PageRequest,
  violations: FieldViolation[],
): {
  pageSize: number;
  pageToken: string;
  sizeField: string;
  tokenField: string;
} {
  const pageSize = request.pageSize || request.limit || 0;
  const pageToken = request.pageToken || request.continue || "";
  const sizeField = request.pageSize ? "pageSize" : "limit";
  const tokenField = request.pageToken ? "pageToken" : "continue";
  if (request.limit && request.pageSize && request.limit !== request.pageSize) {
    violations.push({
      field: "limit",
      description: "and pageSize name the same thing: give one, or both alike",
    });
  }
  if (
    request.continue && request.pageToken &&
    request.continue !== request.pageToken
  ) {
    violations.push({
      field: "continue",
      description: "and pageToken name the same thing: give one, or both alike",
    });
  }
  return { pageSize, pageToken, sizeField, tokenField };
}

function compareKeys(a: [string, string], b: [string, string]): number {
  if (a[0] !== b[0]) return a[0] < b[0] ? -1 : 1;
  if (a[1] !== b[1]) return a[1] < b[1] ? -1 : 1;
  return 0;
}

function compare(a: Keyed, b: Keyed): number {
  return compareKeys([a.namespace, a.name], [b.namespace, b.name]);
}

function isSorted(items: readonly Keyed[]): boolean {
  for (let i = 1; i < items.length; i++) {
    if (compare(items[i - 1], items[i]) > 0) return false;
  }
  return true;
}

/** The index of the first item after `key` (binary search). */
function firstAfter(items: readonly Keyed[], key: [string, string]): number {
  let [low, high] = [0, items.length];
  while (low < high) {
    const middle = (low + high) >>> 1;
    const item = items[middle];
    if (compareKeys([item.namespace, item.name], key) <= 0) low = middle + 1;
    else high = middle;
  }
  return low;
}

function encodeToken(token: Token): string {
  const bytes = new TextEncoder().encode(
    JSON.stringify(["v1", token.list, ...token.after]),
  );
  return btoa(String.fromCharCode(...bytes)).replaceAll("+", "-")
    .replaceAll("/", "_").replace(/=+$/, "");
}

function decodeToken(text: string): Token | undefined {
  try {
    const binary = atob(text.replaceAll("-", "+").replaceAll("_", "/"));
    const json = JSON.parse(
      new TextDecoder("utf-8", { fatal: true }).decode(
        Uint8Array.from(binary, (c) => c.charCodeAt(0)),
      ),
    );
    if (
      !Array.isArray(json) || json.length !== 4 || json[0] !== "v1" ||
      !json.slice(1).every((part) => typeof part === "string")
    ) return undefined;
    return { list: json[1], after: [json[2], json[3]] };
  } catch {
    return undefined;
  }
}
