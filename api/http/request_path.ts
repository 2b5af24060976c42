/**
 * Side channel: the decoded path of a request, worked out once.
 *
 * - What is kept: the percent-decoded segments of a request's path, or
 *   undefined when it does not decode.
 * - Keyed by: the request, in a WeakMap.
 * - Who writes and reads it: pathOf(), for the router (router.ts); a
 *   request goes through two routers, the pages' and then the gateway's,
 *   and the second finds the first's work here.
 * - Why not a field: a fetch `Request` (what tests and in-process callers
 *   hand the router) has no room of its own for it, and the routers pass
 *   on the very request they were given.
 */
import type { HttpRequest } from "./http_request.ts";

const paths = new WeakMap<HttpRequest, string[] | undefined>();

/**
 * The decoded segments of a request's path (undefined when it cannot be
 * decoded), worked out once per request.
 */
export function pathOf(request: HttpRequest): string[] | undefined {
  if (paths.has(request)) return paths.get(request);
  const parts = decodePath(pathnameOf(request.url));
  paths.set(request, parts);
  return parts;
}

/**
 * The path of a request's URL, which `Request` or the listener
 * (web_request.ts) has already made as the URL standard serializes it (dot
 * segments resolved, characters escaped): read from the string rather than
 * parsed again, on every request.
 */
function pathnameOf(url: string): string {
  const start = url.indexOf("/", url.indexOf("//") + 2);
  if (start < 0) return "/";
  let end = url.length;
  for (const mark of ["?", "#"]) {
    const at = url.indexOf(mark, start);
    if (at >= 0 && at < end) end = at;
  }
  return url.slice(start, end);
}

/** The segments of a path, percent-decoded; undefined when it cannot be. */
export function decodePath(pathname: string): string[] | undefined {
  const parts = pathname.slice(1).split("/");
  // Most paths have nothing to decode: decodeURIComponent() is most of
  // the cost of routing when called on every segment anyway.
  if (!pathname.includes("%")) return parts;
  try {
    return parts.map(decodeURIComponent);
  } catch {
    return undefined;
  }
}
