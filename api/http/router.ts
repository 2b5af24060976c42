/**
 * The router: the one place that decides which endpoint answers a request of
 * the HTTP port, and what the answer is when none does: 404 for a path
 * nothing serves, 405 with Allow for a path served with other methods, 400
 * for a path that does not decode. HEAD is GET without the body (RFC 9110,
 * 9.3.2): wherever GET is served, HEAD is, and Allow says so. Endpoints never
 * look at the method. Pure, like the gateway: `(HttpRequest) => Promise<Response>`.
 *
 * Two tables go through it: Corral's own pages (OpenAPI document, docs,
 * health, metrics) by exact path, and the gateway's routes compiled from the
 * http rules; a path no page has is the gateway's.
 */
import { Code, ServiceError } from "../../domain/errors.ts";
import { HttpError } from "../errors.ts";
import { errorResponse } from "./error_answers.ts";
import { decodePath, pathOf } from "./request_path.ts";
import type { Handler, HttpRequest } from "./http_request.ts";

export type { Handler, HttpRequest };
export type Params = Record<string, string>;

export interface Endpoint {
  method: string;
  /** The path variables when `parts` (the decoded path) is this endpoint's. */
  match(parts: string[]): Params | undefined;
  handle(request: HttpRequest, params: Params): Response | Promise<Response>;
  /**
   * The segments of the paths `match` may take, undefined where any one
   * is (a path variable): the router then tries it only on paths of that
   * shape. An endpoint without one is tried on every path.
   */
  shape?: readonly (string | undefined)[];
}

export interface Router {
  (request: HttpRequest): Promise<Response>;
  /**
   * The methods served at `pathname`, HEAD wherever GET is; none for a path
   * nothing serves. For the listener, which answers requests its parser or
   * `Request` refuse (TRACE, unknown methods) without calling the router.
   */
  allowed(pathname: string): string[];
}

export interface RouterOptions {
  endpoints: Endpoint[];
  /** Takes the requests of paths no endpoint has; without it they get 404. */
  fallback?: Handler | Router;
  /**
   * Answers a request the router refuses (with `allow`, the methods the
   * path serves, on a 405); by default the error answer alone.
   */
  refuse?: (
    request: HttpRequest,
    error: ServiceError,
    allow?: string,
  ) => Response;
}

/** What a path no endpoint takes is allowed: nothing (shared, frozen). */
const NONE_ALLOWED = Object.freeze({
  allowed: Object.freeze([]) as unknown as string[],
});

export function createRouter(options: RouterOptions): Router {
  const { endpoints, fallback } = options;
  const refuse = options.refuse ??
    ((_request, error, allow) => errorResponse(error, { allow }));

  type Match =
    | { endpoint: Endpoint; params: Params }
    | { allowed: string[] };

  const candidatesOf = endpointIndex(endpoints);

  function match(parts: string[], method: string): Match {
    const allowed: string[] = [];
    for (const endpoint of candidatesOf(parts)) {
      const params = endpoint.match(parts);
      if (!params) continue;
      if (endpoint.method === method) return { endpoint, params };
      allowed.push(endpoint.method);
    }
    if (allowed.length === 0) return NONE_ALLOWED;
    if (allowed.includes("GET")) {
      allowed.splice(allowed.indexOf("GET") + 1, 0, "HEAD");
    }
    return { allowed: [...new Set(allowed)] };
  }

  // Not async: the answer is the endpoint's or the fallback's own promise,
  // where an async function would wrap each in one more (every request
  // passes two routers).
  function router(request: HttpRequest): Promise<Response> {
    try {
      const parts = pathOf(request);
      const head = request.method === "HEAD";
      const found = parts
        ? match(parts, head ? "GET" : request.method)
        : undefined;
      if (found && "endpoint" in found) {
        const response = found.endpoint.handle(request, found.params);
        return head
          ? Promise.resolve(response).then(withoutBody)
          : Promise.resolve(response);
      }
      const allowed = found?.allowed ?? [];
      if (fallback && allowed.length === 0) return fallback(request);
      return refusal(request, found, allowed);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /** The answer to a path nothing serves, or not with the request's method. */
  async function refusal(
    request: HttpRequest,
    found: Match | undefined,
    allowed: string[],
  ): Promise<Response> {
    let allow: string | undefined;
    let error: ServiceError;
    if (!found) {
      error = new ServiceError(
        Code.INVALID_ARGUMENT,
        "Invalid request path: malformed percent-encoding",
      );
    } else if (allowed.length === 0) {
      error = new ServiceError(Code.NOT_FOUND, "Not Found");
    } else {
      error = new HttpError(405, Code.UNIMPLEMENTED, "Method Not Allowed");
      allow = allowed.join(", ");
    }
    if (request.body) await request.body.cancel();
    return refuse(request, error, allow);
  }

  router.allowed = (pathname: string): string[] => {
    const parts = decodePath(pathname);
    const found = parts ? match(parts, "") : undefined;
    const own = found && "allowed" in found ? found.allowed : [];
    if (own.length > 0 || !fallback || !("allowed" in fallback)) return own;
    return fallback.allowed(pathname);
  };
  return router;
}

/** A node of the endpoints' shapes, one segment deep per level. */
interface ShapeNode {
  literals: Map<string, ShapeNode>;
  variable?: ShapeNode;
  /** Indexes in the endpoints' list of those whose shape ends here. */
  ends: number[];
}

/**
 * The endpoints that may match a path, in their list's order (the first
 * whose method is the request's wins): those whose shape the path has,
 * found one segment at a time, and those without a shape. The gateway has
 * a hundred routes, and trying each in turn was a twentieth of a cached
 * GetCluster.
 */
function endpointIndex(
  endpoints: readonly Endpoint[],
): (parts: string[]) => Endpoint[] {
  const root: ShapeNode = { literals: new Map(), ends: [] };
  const anyPath: number[] = [];
  endpoints.forEach((endpoint, index) => {
    if (!endpoint.shape) return void anyPath.push(index);
    let node = root;
    for (const segment of endpoint.shape) {
      const children = node.literals;
      const next: ShapeNode = segment === undefined
        ? node.variable ??= { literals: new Map(), ends: [] }
        : children.get(segment) ??
          children.set(segment, { literals: new Map(), ends: [] })
            .get(segment)!;
      node = next;
    }
    node.ends.push(index);
  });
  const collect = (
    node: ShapeNode,
    parts: string[],
    at: number,
    into: number[],
  ) => {
    if (at === parts.length) return void into.push(...node.ends);
    const literal = node.literals.get(parts[at]);
    if (literal) collect(literal, parts, at + 1, into);
    if (node.variable) collect(node.variable, parts, at + 1, into);
  };
  return (parts) => {
    const found = [...anyPath];
    collect(root, parts, 0, found);
    if (found.length > 1) found.sort((a, b) => a - b);
    return found.map((index) => endpoints[index]);
  };
}

/** What GET answered, as HEAD answers it: status and headers, no body. */
async function withoutBody(response: Response): Promise<Response> {
  await response.body?.cancel();
  return new Response(null, {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
}

export type PageHandler = (
  request: HttpRequest,
) => Response | Promise<Response>;

export interface HttpAppOptions {
  /** Takes every path that is not a page. */
  gateway: Handler | Router;
  /** Handlers of GET (and so HEAD) requests by exact path, e.g. "/openapi.json". */
  pages?: Record<string, PageHandler>;
}

/** The HTTP port's handler: the pages, and the gateway for every other path. */
export function createHttpApp(options: HttpAppOptions): Router {
  return createRouter({
    endpoints: pageEndpoints(options.pages ?? {}),
    fallback: options.gateway,
  });
}

/** GET (and so HEAD) endpoints of `pages`, by exact path. */
export function pageEndpoints(
  pages: Record<string, PageHandler>,
): Endpoint[] {
  return Object.entries(pages).map(([path, page]) => ({
    method: "GET",
    ...exactPath(path),
    handle: (request) => page(request),
  }));
}

/**
 * The shape and matcher of one exact path ("/apis/v1alpha2/whoami"): a
 * page's, or an HTTP unit's.
 */
export function exactPath(
  path: string,
): Pick<Endpoint, "shape" | "match"> {
  const want = path.slice(1).split("/");
  return {
    shape: want,
    match: (parts) =>
      parts.length === want.length && parts.every((p, i) => p === want[i])
        ? {}
        : undefined,
  };
}
