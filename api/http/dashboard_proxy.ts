/**
 * A ready cluster's Ray dashboard through Corral: an authenticated reverse
 * proxy under
 *
 *   /apis/v1alpha2/namespaces/{namespace}/clusters/{name}/dashboard/...
 *
 * for every method and subpath, WebSocket upgrades included
 * (dashboard_tunnel.ts), and the browser session routes beside it:
 *
 *   POST   .../clusters/{name}/dashboard:session   a cookie for that path
 *   DELETE .../clusters/{name}/dashboard:session   signs out of it
 *
 * Each request: its key validated (code 3); the caller authenticated by its
 * own credentials (bearer token, client certificate), or, when it sends
 * none, by the dashboard cookie, whose session's credentials are
 * authenticated again (dashboard_sessions.ts); the policy verb `proxy` on
 * clusters in the namespace (never implied by "*"); the cluster ready (code 9
 * with its state otherwise); then the request goes to the head service's
 * port 8265 the way --cluster-access says (orchestrator/cluster_access.ts),
 * with no credentials of the caller's and no hop-by-hop headers
 * (dashboard_headers.ts), bounded in size and time (dashboard_limits.ts).
 * Every request, answered or refused, is audited: who, which cluster, the
 * method, the path and the status. Errors are the API's JSON errors.
 */
import { Code, ServiceError } from "../../domain/errors.ts";
import type { Logger } from "../../domain/log.ts";
import type { Orchestrator } from "../../domain/ports.ts";
import type { RayCluster } from "../../domain/resources.ts";
import { validateClusterKey } from "../../domain/validation.ts";
import {
  DASHBOARD_PORT,
  dashboardProxyPath,
  headServiceOf,
  isReady,
} from "../../domain/cluster_addresses.ts";
import type { ClusterAccess } from "../../orchestrator/cluster_access.ts";
import type { Access } from "../auth/access.ts";
import { type Credentials, credentialsOf } from "../auth/authenticate.ts";
import { type Caller, callerOf } from "../auth/caller.ts";
import {
  cookieValue,
  DASHBOARD_COOKIE,
  type DashboardSessions,
  setCookie,
} from "../auth/dashboard_sessions.ts";
import { AuthenticationError, type Identity } from "../auth/identity.ts";
import { checkOwner as checkOwnerOf } from "../auth/owners.ts";
import { AuthorizationError, type Rule } from "../auth/policy.ts";
import { asServiceError, HttpError } from "../errors.ts";
import { clientRequestIdOf, newRequestId } from "../request_id.ts";
import {
  answerHeaders,
  rewriteLocation,
  subpathOf,
  upstreamHeaders,
} from "./dashboard_headers.ts";
import { bounded, contentLength } from "./dashboard_limits.ts";
import { openTunnel } from "./dashboard_tunnel.ts";
import { isWebSocketUpgrade } from "./upgrade.ts";
import { errorResponse } from "./error_answers.ts";
import type { Endpoint, Params } from "./router.ts";
import type { HttpRequest } from "./http_request.ts";

export interface DashboardProxyOptions {
  orchestrator: Orchestrator;
  access: Access;
  /** How the head services are reached (--cluster-access). */
  clusterAccess: ClusterAccess;
  sessions: DashboardSessions;
  /** Namespaces served (--namespaces); empty: all. */
  namespaces: readonly string[];
  /** The whole exchange with the dashboard, its answer's body included. */
  timeoutMs: number;
  maxRequestBytes: number;
  maxResponseBytes: number;
  /**
   * The longest a WebSocket through the proxy stays open
   * (--watch-max-duration); 30 minutes.
   */
  tunnelMaxDurationMs?: number;
  /** Corral serves TLS: cookies are Secure. */
  secure: boolean;
  log: Logger;
}

/** A WebSocket's longest life when the options do not say. */
const DEFAULT_TUNNEL_MS = 30 * 60_000;

/** The methods proxied; HEAD is GET's (router.ts). */
const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"];

/** What one proxied request or session call did, for its audit record. */
interface Exchange {
  requestId: string;
  namespace: string;
  name: string;
  identity?: Identity;
  /** How the caller was known: its own credentials, or the cookie. */
  via?: "credentials" | "cookie";
  status?: number;
  error?: ServiceError;
}

/** A WebSocket open through the proxy, and who it was let through as. */
interface OpenTunnel {
  credentials: Credentials;
  exchange: Exchange;
  end(): void;
}

export class DashboardProxy {
  readonly #o: DashboardProxyOptions;
  readonly #tunnels = new Set<OpenTunnel>();

  constructor(options: DashboardProxyOptions) {
    this.#o = options;
    // A token or policy file changed: the WebSockets open are authorized
    // again, as the API's streams are, and those refused end.
    options.access.onChange?.(() => void this.#recheckTunnels());
  }

  /** WebSockets open through the proxy now. */
  get openTunnels(): number {
    return this.#tunnels.size;
  }

  /** The router's endpoints: the proxy, and the session routes. */
  endpoints(): Endpoint[] {
    const proxied = (parts: string[]) => clusterParams(parts, "dashboard");
    const session = (parts: string[]) =>
      parts.length === 7
        ? clusterParams(parts, "dashboard:session")
        : undefined;
    return [
      ...METHODS.map((method) => ({
        method,
        match: proxied,
        handle: (request: HttpRequest, params: Params) =>
          this.proxy(request, params),
      })),
      {
        method: "POST",
        match: session,
        handle: (request, params) => this.openSession(request, params),
      },
      {
        method: "DELETE",
        match: session,
        handle: (request, params) => this.endSession(request, params),
      },
    ];
  }

  /** Passes a request on to the cluster's dashboard, or refuses it. */
  async proxy(request: HttpRequest, params: Params): Promise<Response> {
    const exchange = this.#exchange(request, params);
    try {
      const prefix = dashboardProxyPath(params.namespace, params.name)
        .slice(0, -1);
      const url = new URL(request.url);
      const subpath = subpathOf(url.pathname, prefix);
      if (subpath === undefined) {
        throw new ServiceError(
          Code.INVALID_ARGUMENT,
          `${
            actionOf(exchange)
          }: the path may not have segments ".", ".." or an encoded "/" or "\\"`,
        );
      }
      const granted = await this.#authorize(request, exchange, true);
      const cluster = await this.#readyCluster(request, exchange);
      checkOwner(exchange, granted, cluster);
      if (subpath === "") {
        // The dashboard's pages link relative to its root: "dashboard/".
        exchange.status = 308;
        return new Response(null, {
          status: 308,
          headers: { location: `${prefix}/${url.search}` },
        });
      }
      if (isWebSocketUpgrade(request.headers)) {
        const tunnel = await this.#tunnel(request, cluster, {
          subpath,
          search: url.search,
          prefix,
          exchange,
          credentials: granted.credentials,
        });
        exchange.status = 101;
        return tunnel;
      }
      const response = await this.#forward(request, cluster, {
        subpath,
        search: url.search,
        prefix,
        exchange,
      });
      exchange.status = response.status;
      return response;
    } catch (thrown) {
      return this.#refuse(exchange, thrown);
    } finally {
      this.#audit(request, exchange);
    }
  }

  /**
   * POST .../dashboard:session: for a caller with its own credentials who
   * may proxy the cluster, a cookie for that cluster's proxy path. The
   * cluster need not be ready yet.
   */
  async openSession(request: HttpRequest, params: Params): Promise<Response> {
    const exchange = this.#exchange(request, params);
    try {
      const { credentials } = await this.#authorize(request, exchange, false);
      await request.body?.cancel();
      const path = dashboardProxyPath(exchange.namespace, exchange.name);
      const { value, expiresAt } = await this.#o.sessions.open({
        namespace: exchange.namespace,
        name: exchange.name,
        user: exchange.identity!.user,
        credentials,
      });
      const response = Response.json({
        url: path,
        expiresAt: new Date(expiresAt).toISOString(),
      });
      response.headers.set(
        "set-cookie",
        setCookie(value, {
          path,
          maxAgeSeconds: Math.floor(this.#o.sessions.ttlMs / 1000),
          secure: this.#o.secure,
        }),
      );
      response.headers.set("cache-control", "no-store");
      exchange.status = 200;
      return response;
    } catch (thrown) {
      return this.#refuse(exchange, thrown);
    } finally {
      this.#audit(request, exchange);
    }
  }

  /**
   * DELETE .../dashboard:session: ends the caller's sessions of the cluster
   * and clears the cookie. Needs the caller's own credentials, not `proxy`:
   * one may always sign out.
   */
  async endSession(request: HttpRequest, params: Params): Promise<Response> {
    const exchange = this.#exchange(request, params);
    try {
      validateClusterKey(exchange, actionOf(exchange));
      exchange.identity = await this.#o.access.authenticator.authenticate(
        this.#credentials(request),
        request.signal,
      );
      exchange.via = "credentials";
      await request.body?.cancel();
      const ended = this.#o.sessions.end(
        exchange.namespace,
        exchange.name,
        exchange.identity.user,
      );
      const response = Response.json({ ended });
      response.headers.set(
        "set-cookie",
        setCookie("", {
          path: dashboardProxyPath(exchange.namespace, exchange.name),
          maxAgeSeconds: 0,
          secure: this.#o.secure,
        }),
      );
      exchange.status = 200;
      return response;
    } catch (thrown) {
      return this.#refuse(exchange, thrown);
    } finally {
      this.#audit(request, exchange);
    }
  }

  #exchange(_request: HttpRequest, params: Params): Exchange {
    return {
      requestId: newRequestId(),
      namespace: params.namespace,
      name: params.name,
    };
  }

  /** The caller's own credentials: Authorization and client certificate. */
  #credentials(request: HttpRequest) {
    const peer = request.peer;
    return credentialsOf(
      request.headers.get("authorization"),
      peer?.certificate,
      peer?.address,
    );
  }

  /**
   * Validates the key, authenticates the caller (by the cookie too when
   * `cookie`) and checks it may `proxy` clusters in the namespace; the
   * credentials that decided, the caller and the rules that grant it.
   */
  async #authorize(
    request: HttpRequest,
    exchange: Exchange,
    cookie: boolean,
  ): Promise<Granted> {
    const action = actionOf(exchange);
    validateClusterKey(exchange, action);
    const served = this.#o.namespaces;
    if (served.length > 0 && !served.includes(exchange.namespace)) {
      throw new AuthorizationError(
        "no-rule",
        `${action}: namespace "${exchange.namespace}" is not served by this Corral`,
      );
    }
    let credentials = this.#credentials(request);
    const own = credentials.authorization != null ||
      credentials.certificate != null;
    const value = cookieValue(request.headers.get("cookie"), DASHBOARD_COOKIE);
    if (cookie && !own && value !== undefined) {
      const session = await this.#o.sessions.find(
        value,
        exchange.namespace,
        exchange.name,
        credentials.address,
      );
      if (!session) {
        throw new AuthenticationError(
          "invalid-token",
          `Unauthorized: the dashboard cookie is not valid for this cluster: it expired, was signed out of, is another cluster's, or was opened ${
            this.#o.sessions.shared
              ? "with a client certificate by another Corral replica"
              : "by another Corral replica or before a restart"
          }`,
        );
      }
      credentials = session.credentials;
      exchange.via = "cookie";
    } else {
      exchange.via = "credentials";
    }
    const identity = await this.#o.access.authenticator.authenticate(
      credentials,
      request.signal,
    );
    exchange.identity = identity;
    const caller = callerOf(identity, this.#o.access.policy);
    const rules = caller.authorize(
      action,
      "proxy",
      "clusters",
      exchange.namespace,
    );
    return { credentials, caller, rules };
  }

  /** The cluster, ready; FAILED_PRECONDITION with its state otherwise. */
  async #readyCluster(
    request: HttpRequest,
    exchange: Exchange,
  ): Promise<RayCluster> {
    const cluster = await this.#o.orchestrator.clusters.get(
      exchange.namespace,
      exchange.name,
      { signal: request.signal },
    );
    if (!isReady(cluster)) {
      const state = cluster.status?.state;
      throw new ServiceError(
        Code.FAILED_PRECONDITION,
        `${actionOf(exchange)}: the cluster is not ready: its state is ${
          state ? `"${state}"` : "not reported yet"
        }`,
      );
    }
    return cluster;
  }

  /** The request sent to the head service, and its answer passed back. */
  async #forward(
    request: HttpRequest,
    cluster: RayCluster,
    at: { subpath: string; search: string; prefix: string; exchange: Exchange },
  ): Promise<Response> {
    const action = actionOf(at.exchange);
    const { clusterAccess, maxResponseBytes } = this.#o;
    const base = clusterAccess.baseUrl({
      namespace: at.exchange.namespace,
      name: headServiceOf(cluster),
      port: DASHBOARD_PORT,
    });
    const upstream = `${base}${at.subpath}${at.search}`;
    const answer = await this.#send(request, upstream, at.prefix, action);
    const answerLength = contentLength(answer.headers);
    if (answerLength !== undefined && answerLength > maxResponseBytes) {
      await answer.body?.cancel();
      throw new HttpError(
        502,
        Code.UNAVAILABLE,
        `${action}: the dashboard's answer is larger than ${maxResponseBytes} bytes`,
      );
    }
    const headers = answerHeaders(
      answer.headers,
      (location) => rewriteLocation(location, upstream, base, at.prefix),
    );
    const body = answer.body
      ? bounded(answer.body, maxResponseBytes).stream
      : null;
    return new Response(body, { status: answer.status, headers });
  }

  /** A WebSocket upgrade, done with the dashboard; its tunnel's answer. */
  async #tunnel(
    request: HttpRequest,
    cluster: RayCluster,
    at: {
      subpath: string;
      search: string;
      prefix: string;
      exchange: Exchange;
      credentials: Credentials;
    },
  ): Promise<Response> {
    const { clusterAccess } = this.#o;
    const base = clusterAccess.baseUrl({
      namespace: at.exchange.namespace,
      name: headServiceOf(cluster),
      port: DASHBOARD_PORT,
    });
    const url = new URL(request.url);
    return await openTunnel({
      clusterAccess,
      upstream: `${base}${at.subpath}${at.search}`,
      headers: upstreamHeaders(request.headers, {
        for: forwardedFor(request),
        proto: url.protocol.replace(/:$/, ""),
        host: request.headers.get("host") ?? url.host,
        prefix: at.prefix,
      }),
      timeoutMs: this.#o.timeoutMs,
      maxDurationMs: this.#o.tunnelMaxDurationMs ?? DEFAULT_TUNNEL_MS,
      signal: request.signal,
      action: actionOf(at.exchange),
      log: this.#o.log,
      register: (end) => {
        const open = {
          credentials: at.credentials,
          exchange: at.exchange,
          end,
        };
        this.#tunnels.add(open);
        return () => this.#tunnels.delete(open);
      },
    });
  }

  /** Ends the open WebSockets whose callers may no longer proxy there. */
  async #recheckTunnels(): Promise<void> {
    const { authenticator, policy } = this.#o.access;
    for (const open of [...this.#tunnels]) {
      const { namespace, name } = open.exchange;
      try {
        const identity = await authenticator.authenticate(open.credentials);
        callerOf(identity, policy).authorize(
          actionOf(open.exchange),
          "proxy",
          "clusters",
          namespace,
        );
      } catch (error) {
        this.#o.log.info("Closed a dashboard WebSocket: access was withdrawn", {
          namespace,
          name,
          user: open.exchange.identity?.user,
          error: error instanceof Error ? error.message : String(error),
        });
        open.end();
      }
    }
  }

  /**
   * Sends the request, its body counted and everything bounded by the
   * time-out; its answer's head. Throws 413, 504 or 502 (unreachable).
   */
  async #send(
    request: HttpRequest,
    upstream: string,
    prefix: string,
    action: string,
  ): Promise<Response> {
    const { maxRequestBytes, timeoutMs } = this.#o;
    const length = contentLength(request.headers);
    if (length !== undefined && length > maxRequestBytes) {
      throw tooLarge(action, maxRequestBytes);
    }
    const timeout = AbortSignal.timeout(timeoutMs);
    const url = new URL(request.url);
    const sent = request.body ? bounded(request.body, maxRequestBytes) : null;
    try {
      return await this.#o.clusterAccess.fetch(upstream, {
        method: request.method,
        headers: upstreamHeaders(request.headers, {
          for: forwardedFor(request),
          proto: url.protocol.replace(/:$/, ""),
          host: request.headers.get("host") ?? url.host,
          prefix,
        }),
        body: sent?.stream ?? null,
        signal: AbortSignal.any([timeout, request.signal]),
        ...(request.body ? { duplex: "half" } : {}),
      } as RequestInit);
    } catch (error) {
      if (sent?.exceeded()) throw tooLarge(action, maxRequestBytes);
      if (timeout.aborted) {
        throw new HttpError(
          504,
          Code.DEADLINE_EXCEEDED,
          `${action}: the dashboard did not answer within ${timeoutMs} ms`,
        );
      }
      // The cause in the log only: it names addresses inside the cluster.
      this.#o.log.warn("Failed to reach a dashboard", {
        upstream,
        error: error instanceof Error ? error.message : String(error),
      });
      throw new HttpError(
        502,
        Code.UNAVAILABLE,
        `${action}: the dashboard cannot be reached`,
      );
    }
  }

  #refuse(exchange: Exchange, thrown: unknown): Response {
    const error = asServiceError(thrown);
    if (error.code === Code.INTERNAL) {
      this.#o.log.error("Failed to proxy a dashboard request", {
        namespace: exchange.namespace,
        name: exchange.name,
        error: String((thrown as Error)?.message ?? thrown),
      });
    }
    exchange.error = error;
    const response = errorResponse(error, { requestId: exchange.requestId });
    exchange.status = response.status;
    return response;
  }

  #audit(request: HttpRequest, exchange: Exchange): void {
    const { identity, error } = exchange;
    const reason = error instanceof AuthorizationError
      ? error.reason
      : error instanceof AuthenticationError
      ? error.reason
      : undefined;
    this.#o.access.audit.record({
      requestId: exchange.requestId,
      ...(clientRequestIdOf(request)
        ? { clientRequestId: clientRequestIdOf(request) }
        : {}),
      ...(identity
        ? {
          user: identity.user,
          groups: identity.groups,
          authenticator: identity.authenticator,
        }
        : {}),
      verb: "proxy",
      resource: "clusters",
      namespace: exchange.namespace,
      name: exchange.name,
      code: error?.code ?? Code.OK,
      ...(reason ? { reason } : {}),
      transport: "http",
      ...(request.peer?.address
        ? { sourceAddress: request.peer?.address }
        : {}),
      method: request.method,
      path: new URL(request.url).pathname,
      status: exchange.status ?? 0,
      ...(exchange.via ? { via: exchange.via } : {}),
    });
  }
}

/** Who was let through, by what. */
interface Granted {
  credentials: Credentials;
  caller: Caller;
  /** The rules that grant `proxy` here. */
  rules: Rule[];
}

/**
 * PERMISSION_DENIED when every rule granting `proxy` says `owners: only`,
 * the caller is not granted `admin` there, and the cluster is someone
 * else's: the dashboard runs code in the cluster, as changing it does.
 */
function checkOwner(
  exchange: Exchange,
  granted: Granted,
  cluster: RayCluster,
): void {
  const { caller, rules } = granted;
  checkOwnerOf(
    {
      caller,
      scope: { namespace: exchange.namespace, rules },
      action: actionOf(exchange),
    },
    cluster,
    { resource: "clusters", doing: "proxy to a cluster" },
  );
}

/**
 * `{namespace, name}` when `parts` is
 * apis/v1alpha2/namespaces/{namespace}/clusters/{name}/{last}[/...].
 */
function clusterParams(parts: string[], last: string): Params | undefined {
  return parts.length >= 7 && parts[0] === "apis" &&
      parts[1] === "v1alpha2" && parts[2] === "namespaces" &&
      parts[4] === "clusters" && parts[6] === last
    ? { namespace: parts[3], name: parts[5] }
    : undefined;
}

/** The client's address without its port, for X-Forwarded-For. */
function forwardedFor(request: HttpRequest): string | undefined {
  return request.peer?.address?.replace(/:\d+$/, "").replace(
    /^\[|\]$/g,
    "",
  );
}

/** `Cannot proxy to cluster "team-a/blue"`. */
function actionOf(exchange: { namespace: string; name: string }): string {
  return `Cannot proxy to cluster "${exchange.namespace}/${exchange.name}"`;
}

function tooLarge(action: string, limit: number): ServiceError {
  return new HttpError(
    413,
    Code.RESOURCE_EXHAUSTED,
    `${action}: the request body is larger than ${limit} bytes`,
  );
}
