/**
 * The dashboard proxy's headers, both ways, and its paths. Pure.
 *
 * Towards the dashboard, and through the Kubernetes API server's service
 * proxy when --cluster-access says so, nothing goes that the API server or
 * a dashboard would act on as coming from someone other than Corral:
 * - the caller's credentials: Authorization, Cookie (all of it: the
 *   dashboard cannot have cookies of its own on Corral's origin, its
 *   Set-Cookie never reaches the browser) and every Proxy-* header;
 * - impersonation (Impersonate-User, -Group, -Uid, -Extra-*) and the API
 *   server's request-header authentication (X-Remote-User, -Group,
 *   -Extra-*): the API server would take them from Corral's own
 *   credentials, and act as whoever they name;
 * - Audit-ID, which the API server takes as the id of its audit record;
 * - hop-by-hop headers (RFC 9110, 7.6.1: Connection, those it lists,
 *   Keep-Alive, TE, Trailer, Transfer-Encoding, Upgrade);
 * - the client's own Forwarded, X-Forwarded-* and X-Real-IP: Corral sets
 *   X-Forwarded-For (the client's address as Corral's listener saw it),
 *   -Proto, -Host and -Prefix itself, which are true.
 * Accept-Encoding is identity: the answer's bytes are counted and passed on
 * as they come. Anything else (Accept, Content-Type, the WebSocket
 * handshake's Sec-WebSocket-*, conditional and range requests) is the
 * dashboard's to read.
 *
 * Back to the caller: no hop-by-hop headers; no Set-Cookie (the dashboard
 * would be setting cookies on Corral's origin) nor Service-Worker-Allowed
 * (which would let a script under the proxy path control pages outside it);
 * a Location the dashboard gives, under its own root, is rewritten under the
 * proxy path.
 */
import type { RequestHeaders } from "./http_request.ts";

const HOP_BY_HOP = [
  "connection",
  "keep-alive",
  "proxy-connection",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
];

/** Never passed on to the dashboard, besides hop-by-hop headers. */
const NOT_SENT = [
  "authorization",
  "cookie",
  "audit-id",
  "host",
  "content-length",
  "accept-encoding",
  "forwarded",
  "x-real-ip",
];

/**
 * Nor any header whose name starts with one of these: the API server's and
 * proxies' families, whose members grow (Impersonate-Extra-<key>).
 */
const NOT_SENT_PREFIXES = [
  "impersonate-",
  "x-remote-",
  "proxy-",
  "x-forwarded-",
];

/** Never passed back to the caller, besides hop-by-hop headers. */
const NOT_ANSWERED = ["set-cookie", "service-worker-allowed"];

/** The names of hop-by-hop headers of `headers`, those Connection lists too. */
function hopByHop(headers: RequestHeaders): Set<string> {
  const names = new Set(HOP_BY_HOP);
  for (const name of (headers.get("connection") ?? "").split(",")) {
    const trimmed = name.trim().toLowerCase();
    if (trimmed !== "") names.add(trimmed);
  }
  return names;
}

export interface Forwarded {
  /** The client's address, without its port. */
  for?: string;
  /** "http" or "https": how the client reached Corral. */
  proto: string;
  /** The Host the client asked for. */
  host: string;
  /** The proxy path, without its final "/": where the dashboard's "/" is. */
  prefix: string;
}

/** The headers sent to the dashboard for a request with `headers`. */
export function upstreamHeaders(
  headers: RequestHeaders,
  forwarded: Forwarded,
): Headers {
  const dropped = hopByHop(headers);
  for (const name of NOT_SENT) dropped.add(name);
  const sent = new Headers();
  for (const [name, value] of headers) {
    if (dropped.has(name)) continue;
    if (NOT_SENT_PREFIXES.some((prefix) => name.startsWith(prefix))) continue;
    sent.append(name, value);
  }
  sent.set("accept-encoding", "identity");
  if (forwarded.for) sent.set("x-forwarded-for", forwarded.for);
  sent.set("x-forwarded-proto", forwarded.proto);
  sent.set("x-forwarded-host", forwarded.host);
  sent.set("x-forwarded-prefix", forwarded.prefix);
  return sent;
}

/**
 * The headers of the dashboard's answer as the caller gets them, a Location
 * rewritten by `location`.
 */
export function answerHeaders(
  headers: Headers,
  location: (value: string) => string,
): Headers {
  const dropped = hopByHop(headers);
  for (const name of NOT_ANSWERED) dropped.add(name);
  const answered = new Headers();
  for (const [name, value] of headers) {
    if (dropped.has(name)) continue;
    answered.append(name, name === "location" ? location(value) : value);
  }
  return answered;
}

/**
 * A Location of the dashboard's, rewritten under the proxy path `prefix`
 * (without its final "/"). `upstream` is the URL the request went to and
 * `base` where the dashboard's "/" is (a URL without its final "/"): a
 * Location under `base` (the API server's service proxy gives those), or an
 * absolute path on the dashboard's own server, is moved under `prefix`; a
 * relative one stays as it is (the caller resolves it against the proxy
 * path); one to anywhere else stays too.
 */
export function rewriteLocation(
  value: string,
  upstream: string,
  base: string,
  prefix: string,
): string {
  let target: URL;
  try {
    target = new URL(value, upstream);
  } catch {
    return value;
  }
  const root = new URL(base);
  if (target.origin !== root.origin) return value;
  const relative = !/^[a-z][a-z0-9+.-]*:|^\/\//i.test(value) &&
    !value.startsWith("/");
  if (relative) return value;
  const basePath = root.pathname.replace(/\/$/, "");
  const path = basePath !== "" &&
      (target.pathname === basePath ||
        target.pathname.startsWith(`${basePath}/`))
    ? target.pathname.slice(basePath.length)
    : target.pathname;
  return `${prefix}${path === "" ? "/" : path}${target.search}${target.hash}`;
}

/**
 * The subpath of a request under the proxy path `prefix`, as it was sent
 * ("" or "/..."), or undefined when the path does not spell the prefix
 * literally or has a segment that decodes to ".", ".." or one with a "/"
 * or "\": such a path could leave the service's proxy path on the API
 * server (…/proxy/%2e%2e/…) once something decodes it.
 */
export function subpathOf(
  pathname: string,
  prefix: string,
): string | undefined {
  if (!pathname.startsWith(prefix)) return undefined;
  const rest = pathname.slice(prefix.length);
  if (rest !== "" && !rest.startsWith("/")) return undefined;
  for (const segment of rest.split("/")) {
    let decoded: string;
    try {
      decoded = decodeURIComponent(segment);
    } catch {
      return undefined;
    }
    if (
      decoded === "." || decoded === ".." || decoded.includes("/") ||
      decoded.includes("\\")
    ) return undefined;
  }
  return rest;
}
