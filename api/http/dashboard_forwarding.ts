/**
 * One plain HTTP request through the dashboard proxy (dashboard_proxy.ts)
 * once the caller may make it: sent to the head service's dashboard the
 * way --cluster-access says, with the headers the dashboard may read and
 * X-Forwarded-* set by Corral (dashboard_headers.ts), its body counted
 * against the request limit and everything bounded by the time-out
 * (dashboard_limits.ts); its answer passed back with its headers
 * filtered, a Location under the dashboard's root rewritten under the
 * proxy path, and its body counted against the answer's limit. It stands
 * apart from the proxy's routes and checks: it knows nothing of clusters,
 * callers or sessions, only where the request goes (Upstream) and its
 * bounds. Failures are the API's errors: 413, 502 and 504
 * (dashboard_failures.ts).
 */
import { Code, ServiceError } from "../../domain/errors.ts";
import type { Logger } from "../../domain/log.ts";
import type { ClusterAccess } from "../../domain/dashboard_ports.ts";
import { HttpError } from "../errors.ts";
import {
  answerHeaders,
  rewriteLocation,
  upstreamHeaders,
} from "./dashboard_headers.ts";
import { bounded, contentLength } from "./dashboard_limits.ts";
import { dashboardFailure } from "./dashboard_failures.ts";
import type { HttpRequest } from "./http_request.ts";

/** What forwarding a request takes of the proxy's options. */
export interface ForwardOptions {
  /** How the head services are reached (--cluster-access). */
  clusterAccess: ClusterAccess;
  /** The whole exchange with the dashboard, its answer's body included. */
  timeoutMs: number;
  maxRequestBytes: number;
  maxResponseBytes: number;
  log: Logger;
}

/** Where a proxied request goes, and how its errors start. */
export interface Upstream {
  /** The head service's dashboard: "http://blue-head-svc.team-a:8265/". */
  base: string;
  /** The URL asked for under it. */
  upstream: string;
  /** The proxy path the dashboard's answers are rewritten under. */
  prefix: string;
  action: string;
}

/** The request sent to the head service, and its answer passed back. */
export async function forward(
  options: ForwardOptions,
  request: HttpRequest,
  at: Upstream,
): Promise<Response> {
  const { maxResponseBytes } = options;
  const answer = await send(options, request, at);
  const answerLength = contentLength(answer.headers);
  if (answerLength !== undefined && answerLength > maxResponseBytes) {
    await answer.body?.cancel();
    throw new HttpError(
      502,
      Code.UNAVAILABLE,
      `${at.action}: the dashboard's answer is larger than ${maxResponseBytes} bytes`,
    );
  }
  const headers = answerHeaders(
    answer.headers,
    (location) => rewriteLocation(location, at.upstream, at.base, at.prefix),
  );
  const body = answer.body
    ? bounded(answer.body, maxResponseBytes).stream
    : null;
  return new Response(body, { status: answer.status, headers });
}

/**
 * Sends the request, its body counted and everything bounded by the
 * time-out; its answer's head. Throws 413, 504 or 502 (unreachable).
 */
async function send(
  options: ForwardOptions,
  request: HttpRequest,
  at: Upstream,
): Promise<Response> {
  const { maxRequestBytes, timeoutMs } = options;
  const { action } = at;
  const length = contentLength(request.headers);
  if (length !== undefined && length > maxRequestBytes) {
    throw tooLarge(action, maxRequestBytes);
  }
  const timeout = AbortSignal.timeout(timeoutMs);
  const sent = request.body ? bounded(request.body, maxRequestBytes) : null;
  try {
    return await options.clusterAccess.fetch(at.upstream, {
      method: request.method,
      headers: upstreamHeaders(
        request.headers,
        forwarded(request, at.prefix),
      ),
      body: sent?.stream ?? null,
      signal: AbortSignal.any([timeout, request.signal]),
      ...(request.body ? { duplex: "half" } : {}),
    } as RequestInit);
  } catch (error) {
    if (sent?.exceeded()) throw tooLarge(action, maxRequestBytes);
    throw dashboardFailure(
      { action, upstream: at.upstream, timeoutMs, awaited: "answer" },
      error,
      timeout.aborted,
      options.log,
    );
  }
}

/** What the dashboard is told of the original request (X-Forwarded-*). */
export function forwarded(request: HttpRequest, prefix: string) {
  const url = new URL(request.url);
  return {
    for: forwardedFor(request),
    proto: url.protocol.replace(/:$/, ""),
    host: request.headers.get("host") ?? url.host,
    prefix,
  };
}

/** The client's address without its port, for X-Forwarded-For. */
function forwardedFor(request: HttpRequest): string | undefined {
  return request.peer?.address?.replace(/:\d+$/, "").replace(
    /^\[|\]$/g,
    "",
  );
}

function tooLarge(action: string, limit: number): ServiceError {
  return new HttpError(
    413,
    Code.RESOURCE_EXHAUSTED,
    `${action}: the request body is larger than ${limit} bytes`,
  );
}
