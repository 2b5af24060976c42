/**
 * What a browser may not do with Corral on someone else's behalf, checked
 * around the whole HTTP app before a request reaches a page or the
 * gateway:
 *
 * - **Host** (DNS rebinding defence): a request whose Host header is not one
 *   of `--allowed-hosts` gets 421 code 3. A page of attacker.example whose
 *   name the attacker points at Corral's address is same-origin with
 *   Corral in the browser's eyes, and could read every answer; its
 *   requests still say `Host: attacker.example`. The health probes are
 *   exempt: kubelet sends the pod's IP address as Host, and they tell
 *   nothing.
 * - **Origin** (cross-site request forgery): a POST, PUT, PATCH or DELETE
 *   whose Origin is neither Corral's own (the host and port of its Host
 *   header) nor one of `--cors-allowed-origins`, or that the browser marks
 *   `Sec-Fetch-Site: cross-site`, gets 403 code 7, as Go's
 *   CrossOriginProtection answers it. Clients that are not browsers send
 *   neither header and are not affected. Reads need no check: the
 *   same-origin policy keeps their answers from the page that asked. A
 *   WebSocket upgrade is checked as a write: the same-origin policy does
 *   not apply to WebSockets, so a page of another site could otherwise
 *   open one with the user's cookie and read what comes.
 * - **CORS** for the listed origins only: a preflight gets 204 with the
 *   methods the path serves, the headers a client of the API sends, and a
 *   Max-Age; every answer to such an origin carries
 *   Access-Control-Allow-Origin with that origin (never `*`) and Vary:
 *   Origin. Access-Control-Allow-Credentials is never sent: a listed
 *   origin's page sends its bearer token itself, and the browser's own
 *   credentials (client certificates) stay with Corral's own pages.
 *
 * Request bodies only as application/json are the gateway's check
 * (request_decoding.ts, contentTypeRefusal()), since only it knows which
 * paths are API routes.
 */
import { Code, ServiceError } from "../../domain/errors.ts";
import { HttpError } from "../errors.ts";
import { errorResponse } from "./error_answers.ts";
import { pathOf } from "./request_path.ts";
import type { Router } from "./router.ts";
import { isWebSocketUpgrade } from "./upgrade.ts";
import type { HttpRequest } from "./http_request.ts";

/** The browser settings, as settings.ts checks them. */
export interface BrowserSettings {
  /**
   * Host header values served (allowedHostPattern() forms); `["*"]` serves
   * any.
   */
  allowedHosts: readonly string[];
  /** Origins (scheme://host[:port]) that get CORS answers. */
  corsAllowedOrigins: readonly string[];
}

export interface BrowserGuardOptions extends BrowserSettings {
  /**
   * Corral serves TLS itself: its own origin is then https only. Without
   * it any scheme is, since a proxy in front may end TLS and hand Corral
   * plain HTTP for what the browser calls https.
   */
  secure?: boolean;
  /** Answers (and records) a refused request; by default the error alone. */
  refuse?: (request: HttpRequest, error: ServiceError) => Response;
}

/** Paths every Host may ask for: the probes, which kubelet sends by IP. */
const HOST_EXEMPT_PATHS: ReadonlySet<string> = new Set([
  "/healthz",
  "/readyz",
]);

/** Headers a page of a listed origin may send on an API request. */
const ALLOWED_HEADERS = "Authorization, Content-Type, X-Request-Id";
/** Headers of an answer a page of a listed origin may read. */
const EXPOSED_HEADERS = "X-Request-Id, Retry-After, WWW-Authenticate";
/** How long a browser may keep a preflight's answer, in seconds. */
const PREFLIGHT_MAX_AGE = "600";
const MUTATING = new Set(["POST", "PUT", "PATCH", "DELETE"]);

/** `app` with the browser checks around it, `allowed` passed through. */
export function guardBrowsers(
  app: Router,
  options: BrowserGuardOptions,
): Router {
  const hosts = options.allowedHosts.map(allowedHostPattern);
  const anyHost = hosts.some((pattern) => pattern.any);
  const listed = new Set(options.corsAllowedOrigins.map(corsOrigin));
  const secure = options.secure ?? false;
  const refuse = options.refuse ??
    ((_request: HttpRequest, error: ServiceError) => errorResponse(error));

  // Not async: the app's own promise is answered when no CORS header is to
  // be added, where an async function would wrap it in one more.
  function guarded(request: HttpRequest): Promise<Response> {
    const refusal =
      (!anyHost && !isProbe(request)
        ? hostRefusal(request.headers.get("host"), hosts)
        : undefined) ??
        (isPreflight(request) || MUTATING.has(request.method) ||
            isWebSocketUpgrade(request.headers)
          ? originRefusal(request, listed, secure)
          : undefined);
    if (refusal) return refused(request, refusal);
    const origin = request.headers.get("origin");
    const cors = origin !== null && listed.has(origin) ? origin : undefined;
    if (cors && isPreflight(request)) {
      const methods = app.allowed(new URL(request.url).pathname);
      if (methods.length > 0) {
        return Promise.resolve(preflightAnswer(cors, methods));
      }
    }
    if (listed.size === 0) return app(request);
    return app(request).then((response) => {
      response.headers.append("vary", "Origin");
      if (cors) {
        response.headers.set("access-control-allow-origin", cors);
        response.headers.set("access-control-expose-headers", EXPOSED_HEADERS);
      }
      return response;
    });
  }
  async function refused(
    request: HttpRequest,
    refusal: ServiceError,
  ): Promise<Response> {
    await request.body?.cancel();
    return refuse(request, refusal);
  }
  guarded.allowed = (pathname: string) => app.allowed(pathname);
  return guarded;
}

/** Whether `request` asks for a health probe, as the router decodes paths. */
function isProbe(request: HttpRequest): boolean {
  const parts = pathOf(request);
  return parts !== undefined && parts.length === 1 &&
    HOST_EXEMPT_PATHS.has(`/${parts[0]}`);
}

/** A CORS preflight: OPTIONS with Origin and the method it asks about. */
function isPreflight(request: HttpRequest): boolean {
  return request.method === "OPTIONS" &&
    request.headers.has("origin") &&
    request.headers.has("access-control-request-method");
}

/** The answer to a listed origin's preflight of a path serving `methods`. */
function preflightAnswer(origin: string, methods: string[]): Response {
  const response = new Response(null, { status: 204 });
  const headers = response.headers;
  headers.set("access-control-allow-origin", origin);
  headers.set("access-control-allow-methods", methods.join(", "));
  headers.set("access-control-allow-headers", ALLOWED_HEADERS);
  headers.set("access-control-max-age", PREFLIGHT_MAX_AGE);
  headers.set(
    "vary",
    "Origin, Access-Control-Request-Method, Access-Control-Request-Headers",
  );
  return response;
}

/** A host name or address and its port, as a Host header or pattern has them. */
interface Authority {
  /** Lower case; an IPv6 address in brackets, as URL.hostname has it. */
  hostname: string;
  port?: string;
}

const AUTHORITY = /^(\[[0-9a-f:.]+\]|[a-z0-9_.-]+)(?::(\d{1,5}))?$/i;

function authorityOf(text: string): Authority | undefined {
  const match = AUTHORITY.exec(text);
  if (!match) return undefined;
  return {
    hostname: match[1].toLowerCase(),
    ...(match[2] !== undefined ? { port: match[2] } : {}),
  };
}

/** One entry of --allowed-hosts. */
export interface HostPattern {
  /** `*`: any Host. */
  any?: true;
  /** `*.example.com`: any name ending in `.example.com`. */
  suffix?: string;
  /** A name or address; with a port, that port alone. */
  authority?: Authority;
}

/**
 * An --allowed-hosts entry: `*`, `*.example.com`, a host name or address
 * (`localhost`, `10.0.0.7`, `[::1]`), each with an optional `:port`; names
 * compare without regard to case. Throws, saying why, for anything else.
 */
export function allowedHostPattern(text: string): HostPattern {
  const entry = text.trim();
  if (entry === "*") return { any: true };
  if (entry.startsWith("*.")) {
    const rest = authorityOf(entry.slice(2));
    if (rest && !rest.port && !rest.hostname.startsWith("[")) {
      return { suffix: `.${rest.hostname}` };
    }
  } else {
    const authority = authorityOf(entry);
    if (authority && (authority.port === undefined || validPort(authority))) {
      return { authority };
    }
  }
  throw new Error(
    `has "${entry}", which is not a host name or address with an optional :port, "*.domain" or "*"`,
  );
}

function validPort(authority: Authority): boolean {
  const port = Number(authority.port);
  return port >= 1 && port <= 65535;
}

/**
 * A --cors-allowed-origins entry as browsers send Origin: scheme (http or
 * https), host and port, nothing else. `*` is refused: an answer readable
 * by every origin is what the list exists to avoid.
 */
export function corsOrigin(text: string): string {
  const entry = text.trim();
  let url: URL | undefined;
  try {
    url = new URL(entry);
  } catch {
    url = undefined;
  }
  // An origin and nothing else: no user, path, query or fragment (an
  // empty one included) in the href beyond the origin's own.
  if (
    !url || (url.protocol !== "http:" && url.protocol !== "https:") ||
    url.href !== `${url.origin}/`
  ) {
    throw new Error(
      `has "${entry}", which is not an origin: scheme://host[:port] with http or https and no path${
        entry === "*" ? " (any origin, *, is not allowed)" : ""
      }`,
    );
  }
  return url.origin;
}

/** Why a request for `host` is refused; undefined when one of `patterns` serves it. */
function hostRefusal(
  host: string | null,
  patterns: readonly HostPattern[],
): ServiceError | undefined {
  const authority = host === null ? undefined : authorityOf(host);
  if (authority && patterns.some((p) => matchesHost(p, authority))) {
    return undefined;
  }
  return new HttpError(
    421,
    Code.INVALID_ARGUMENT,
    host === null
      ? "Refused request: it has no Host header and --allowed-hosts is set"
      : `Refused request for host ${
        JSON.stringify(host.slice(0, 128))
      }: not one of Corral's allowed hosts (--allowed-hosts)`,
  );
}

function matchesHost(pattern: HostPattern, authority: Authority): boolean {
  if (pattern.any) return true;
  if (pattern.suffix) return authority.hostname.endsWith(pattern.suffix);
  const want = pattern.authority!;
  return want.hostname === authority.hostname &&
    (want.port === undefined || want.port === authority.port);
}

/**
 * Why a mutating request (or a preflight) is refused as cross-origin;
 * undefined when it is not a browser's, comes from Corral's own origin, or
 * from a listed one.
 */
function originRefusal(
  request: HttpRequest,
  listed: ReadonlySet<string>,
  secure: boolean,
): ServiceError | undefined {
  const origin = request.headers.get("origin");
  if (origin !== null && listed.has(origin)) return undefined;
  if (origin !== null && !isOwnOrigin(origin, request, secure)) {
    return new ServiceError(
      Code.PERMISSION_DENIED,
      `Refused cross-origin request from ${
        JSON.stringify(origin.slice(0, 128))
      }: not Corral's own origin nor one of --cors-allowed-origins`,
    );
  }
  if (request.headers.get("sec-fetch-site") === "cross-site") {
    return new ServiceError(
      Code.PERMISSION_DENIED,
      "Refused cross-site request: the browser sent it from another site (Sec-Fetch-Site: cross-site)",
    );
  }
  return undefined;
}

/**
 * Whether `origin` is the one Corral's pages have for this request: the
 * host and port its Host header names (a port left out is the scheme's
 * default, as browsers leave it out of both). "null" (a sandboxed frame,
 * a file) is no one's own.
 */
function isOwnOrigin(
  origin: string,
  request: HttpRequest,
  secure: boolean,
): boolean {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  if (url.protocol !== "https:" && (secure || url.protocol !== "http:")) {
    return false;
  }
  const host = request.headers.get("host");
  const authority = host === null ? undefined : authorityOf(host);
  if (!authority) return false;
  const defaultPort = url.protocol === "https:" ? "443" : "80";
  return url.hostname === authority.hostname &&
    (url.port || defaultPort) === (authority.port ?? defaultPort);
}
