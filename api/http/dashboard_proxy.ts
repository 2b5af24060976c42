/**
 * A ready cluster's Ray dashboard through Corral: a reverse proxy under
 *
 *   /apis/v1alpha2/namespaces/{namespace}/clusters/{name}/dashboard/...
 *
 * for every method and subpath, WebSocket upgrades included
 * (dashboard_tunnel.ts), and the browser session routes beside it:
 *
 *   POST   .../clusters/{name}/dashboard:session   a cookie for that path
 *   DELETE .../clusters/{name}/dashboard:session   signs out of it
 *
 * and the Ray client port's tunnel (client_tunnel.ts):
 *
 *   GET    .../clusters/{name}/client                a WebSocket of bytes
 *
 * Each is an HTTP unit (units.ts; the paths, their matchers and the row
 * in dashboard_routes.ts): the chain authenticates the caller by
 * its own credentials (bearer token, client certificate), or, for the
 * proxy when it sends none, by the dashboard cookie, still signed in to
 * the cluster, whose session's credentials are authenticated again
 * (dashboard_sessions.ts, dashboard_session_calls.ts); checks the policy
 * verb `proxy` on clusters in the namespace (never implied by "*") and the
 * namespaces served; counts the call against the caller's rate, and a
 * WebSocket against its streams; audits every call (who, which cluster,
 * the method, the path and the status), counts and logs it. A WebSocket
 * lives under the streams' rules: ended when its caller's credentials
 * expire or its access is withdrawn, and at --watch-max-duration. Opening
 * a session and signing out take the same row, and the same cluster
 * checks as proxying (dashboard_session_calls.ts): one signs out only of
 * a cluster one may use.
 *
 * What is left here: the cluster ready (code 9 with its state otherwise),
 * its owner where the rule says `owners: only`, then the request to the
 * head service's port 8265 the way --cluster-access says
 * (domain/dashboard_ports.ts; a plain request is forwarded by
 * dashboard_forwarding.ts), with none of the caller's credentials nor
 * any header the API server or the dashboard would act on as another's
 * (dashboard_headers.ts), bounded in size and time (dashboard_limits.ts);
 * through the API server, refused at once while it does not answer
 * (dashboard_api_server.ts). Errors are the API's JSON errors.
 */
import { Code, ServiceError } from "../../domain/errors.ts";
import type { Logger } from "../../domain/log.ts";
import type { Orchestrator } from "../../domain/ports.ts";
import type { RayCluster } from "../../domain/resources.ts";
import {
  checkReady,
  DASHBOARD_PORT,
  dashboardProxyPath,
  headServiceOf,
} from "../../domain/cluster_addresses.ts";
import type {
  ApiServerAnswers,
  ClusterAccess,
} from "../../domain/dashboard_ports.ts";
import type { Credentials } from "../auth/authenticate.ts";
import {
  cookieValue,
  DASHBOARD_COOKIE,
  type DashboardSessions,
} from "../auth/dashboard_sessions.ts";
import { AuthenticationError } from "../auth/identity.ts";
import { checkOwner } from "../auth/owners.ts";
import type { KnownBy } from "../service/call.ts";
import { HttpAnswer } from "../service/dispatcher.ts";
import { subpathOf, upstreamHeaders } from "./dashboard_headers.ts";
import { forward, forwarded } from "./dashboard_forwarding.ts";
import {
  actionOf,
  CLUSTER_PATH,
  clusterParams,
  connectActionOf,
  METHODS,
  PROXY_RULE,
  SERVICE_PATH,
  serviceProxyParams,
  sessionParams,
} from "./dashboard_routes.ts";
import { apiServerAway, gatedByApiServer } from "./dashboard_api_server.ts";
import { openTunnel, TunnelLifetime } from "./dashboard_tunnel.ts";
import { clientTunnel } from "./client_tunnel.ts";
import {
  endSession,
  openSession,
  PROXY_OWNER,
  type SessionCallsOptions,
  signedInSession,
} from "./dashboard_session_calls.ts";
import { isWebSocketUpgrade } from "./upgrade.ts";
import type { HttpUnit, UnitContext } from "./units.ts";
import type { Params } from "./router.ts";
import type { HttpRequest } from "./http_request.ts";

export interface DashboardProxyOptions {
  orchestrator: Orchestrator;
  /** How the head services are reached (--cluster-access). */
  clusterAccess: ClusterAccess;
  sessions: DashboardSessions;
  /** The whole exchange with the dashboard, its answer's body included. */
  timeoutMs: number;
  maxRequestBytes: number;
  maxResponseBytes: number;
  /** Corral serves TLS: cookies are Secure. */
  secure: boolean;
  /**
   * Whether the Kubernetes API server answers (readiness): with
   * apiserver-proxy, a call while it does not fails at once
   * (dashboard_api_server.ts).
   */
  apiServer?: ApiServerAnswers;
  log: Logger;
}

/** How a service proxy path may name the dashboard's port. */
const DASHBOARD_PORT_NAMES = new Set([String(DASHBOARD_PORT), "dashboard"]);

export class DashboardProxy {
  readonly #o: DashboardProxyOptions;
  readonly #sessionCalls: SessionCallsOptions;

  constructor(options: DashboardProxyOptions) {
    const { clusterAccess, apiServer } = options;
    this.#o = clusterAccess.mode === "apiserver-proxy" && apiServer
      ? {
        ...options,
        clusterAccess: gatedByApiServer(clusterAccess, apiServer),
      }
      : options;
    this.#sessionCalls = {
      orchestrator: options.orchestrator,
      sessions: options.sessions,
      secure: options.secure,
    };
  }

  /** The proxy and the session routes, as units of the chain. */
  units(): HttpUnit[] {
    return [
      {
        key: "corral.Dashboard/Proxy",
        methods: METHODS,
        path: `${CLUSTER_PATH}/dashboard/{path=**}`,
        match: (parts) => clusterParams(parts, "dashboard"),
        rule: PROXY_RULE,
        action: actionOf,
        prepare: (request, params) => ({
          credentials: (own) => this.#knownBy(request, params, own),
          opensStream: isWebSocketUpgrade(request.headers),
        }),
        handle: (request, params, call) => this.proxy(request, params, call),
      },
      {
        key: "corral.Dashboard/ServiceProxy",
        methods: METHODS,
        path: `${SERVICE_PATH}/proxy/{path=**}`,
        match: serviceProxyParams,
        rule: PROXY_RULE,
        action: actionOf,
        // The caller's own credentials only: no dashboard cookie here.
        prepare: (request) => ({
          opensStream: isWebSocketUpgrade(request.headers),
        }),
        handle: (request, params, call) =>
          this.proxyService(request, params, call),
      },
      {
        key: "corral.Dashboard/ClientTunnel",
        methods: ["GET"],
        path: `${CLUSTER_PATH}/client`,
        match: (parts) =>
          parts.length === 7 ? clusterParams(parts, "client") : undefined,
        rule: PROXY_RULE,
        action: connectActionOf,
        // The caller's own credentials only: no dashboard cookie here.
        prepare: (request) => ({
          opensStream: isWebSocketUpgrade(request.headers),
        }),
        handle: (request, params, call) => this.client(request, params, call),
      },
      {
        key: "corral.Dashboard/OpenSession",
        methods: ["POST"],
        path: `${CLUSTER_PATH}/dashboard:session`,
        match: sessionParams,
        rule: PROXY_RULE,
        action: actionOf,
        handle: (request, params, call) =>
          openSession(this.#sessionCalls, request, params, call),
      },
      {
        key: "corral.Dashboard/EndSession",
        methods: ["DELETE"],
        path: `${CLUSTER_PATH}/dashboard:session`,
        match: sessionParams,
        rule: PROXY_RULE,
        action: actionOf,
        handle: (request, params, call) =>
          endSession(this.#sessionCalls, request, params, call),
      },
    ];
  }

  /** Passes a request on to the cluster's dashboard, or refuses it. */
  proxy(
    request: HttpRequest,
    params: Params,
    call: UnitContext,
  ): Promise<Response | HttpAnswer> {
    const prefix = dashboardProxyPath(params.namespace, params.name)
      .slice(0, -1);
    return this.#proxyUnder(prefix, request, params, call);
  }

  /**
   * KubeRay's service proxy (`/api/v1/namespaces/{ns}/services/{service}/proxy/...`,
   * which its API server passes on to the Kubernetes API server for its
   * dashboard) on the head service of one of Corral's clusters: the same
   * proxy to the same port as `proxy`, under the path it was asked by.
   * Only the dashboard's port is served.
   */
  proxyService(
    request: HttpRequest,
    params: Params,
    call: UnitContext,
  ): Promise<Response | HttpAnswer> {
    if (params.port !== "" && !DASHBOARD_PORT_NAMES.has(params.port)) {
      throw new ServiceError(
        Code.NOT_FOUND,
        `${call.action}: Corral proxies only the dashboard's port of a head service (${DASHBOARD_PORT} or "dashboard"), not "${params.port}"`,
      );
    }
    // The path as asked, up to ".../proxy": seven segments, as matched.
    const prefix = new URL(request.url).pathname.split("/").slice(0, 8)
      .join("/");
    return this.#proxyUnder(prefix, request, params, call);
  }

  /**
   * A WebSocket carrying a TCP connection to the cluster's Ray client port
   * (client_tunnel.ts), or 204 for a probe without the upgrade.
   */
  async client(
    request: HttpRequest,
    params: Params,
    call: UnitContext,
  ): Promise<Response | HttpAnswer> {
    this.#checkApiServer(call.action);
    const cluster = await this.#readyCluster(params, call);
    checkOwner(call, cluster, PROXY_OWNER);
    return await clientTunnel(this.#o, request, cluster, call.action);
  }

  async #proxyUnder(
    prefix: string,
    request: HttpRequest,
    params: Params,
    call: UnitContext,
  ): Promise<Response | HttpAnswer> {
    const url = new URL(request.url);
    const subpath = subpathOf(url.pathname, prefix);
    if (subpath === undefined) {
      throw new ServiceError(
        Code.INVALID_ARGUMENT,
        `${call.action}: the path may not have segments ".", ".." or an encoded "/" or "\\"`,
      );
    }
    this.#checkApiServer(call.action);
    const cluster = await this.#readyCluster(params, call);
    if (params.service && headServiceOf(cluster) !== params.service) {
      throw new ServiceError(
        Code.NOT_FOUND,
        `${call.action}: its head service is "${
          headServiceOf(cluster)
        }", not "${params.service}"`,
      );
    }
    checkOwner(call, cluster, PROXY_OWNER);
    if (subpath === "") {
      // The dashboard's pages link relative to its root: "dashboard/".
      return new Response(null, {
        status: 308,
        headers: { location: `${prefix}/${url.search}` },
      });
    }
    const base = this.#baseUrl(params, cluster);
    const at = {
      base,
      upstream: `${base}${subpath}${url.search}`,
      prefix,
      action: call.action,
    };
    if (isWebSocketUpgrade(request.headers)) {
      const lifetime = new TunnelLifetime();
      const response = await openTunnel({
        clusterAccess: this.#o.clusterAccess,
        upstream: at.upstream,
        headers: upstreamHeaders(request.headers, forwarded(request, prefix)),
        timeoutMs: this.#o.timeoutMs,
        signal: request.signal,
        action: call.action,
        log: this.#o.log,
        lifetime,
      });
      return new HttpAnswer(response, lifetime, 101);
    }
    return await forward(this.#o, request, at);
  }

  /**
   * Who the proxy's caller is taken to be: its own credentials when it
   * sends any, else the dashboard cookie's session's (refused when the
   * cookie is not valid for this cluster, or signed out of it).
   */
  async #knownBy(
    request: HttpRequest,
    params: Params,
    own: Credentials,
  ): Promise<KnownBy> {
    const value = cookieValue(request.headers.get("cookie"), DASHBOARD_COOKIE);
    if (own.authorization != null || own.certificate != null || !value) {
      return { credentials: own, via: "credentials" };
    }
    const { sessions } = this.#o;
    const session = await signedInSession(
      this.#sessionCalls,
      value,
      params,
      own.address,
      request.signal,
    );
    if (!session) {
      throw new AuthenticationError(
        "invalid-token",
        `Unauthorized: the dashboard cookie is not valid for this cluster: it expired, was signed out of, is another cluster's, or was opened ${
          sessions.shared
            ? "with a client certificate by another Corral replica"
            : "by another Corral replica or before a restart"
        }`,
      );
    }
    return { credentials: session.credentials, via: "cookie" };
  }

  /**
   * Through the API server (apiserver-proxy), UNAVAILABLE at once while it
   * does not answer (dashboard_api_server.ts).
   */
  #checkApiServer(action: string): void {
    const { clusterAccess, apiServer } = this.#o;
    if (clusterAccess.mode !== "apiserver-proxy" || !apiServer) return;
    const away = apiServerAway(apiServer);
    if (away) {
      throw new ServiceError(away.code, `${action}: ${away.message}`);
    }
  }

  /** The cluster, ready; FAILED_PRECONDITION with its state otherwise. */
  async #readyCluster(
    params: Params,
    call: UnitContext,
  ): Promise<RayCluster> {
    const cluster = await this.#o.orchestrator.clusters.get(
      params.namespace,
      params.name,
      call.kube,
    );
    checkReady(cluster, call.action);
    return cluster;
  }

  /** The head service's dashboard, as --cluster-access reaches it. */
  #baseUrl(params: Params, cluster: RayCluster): string {
    return this.#o.clusterAccess.baseUrl({
      namespace: params.namespace,
      name: headServiceOf(cluster),
      port: DASHBOARD_PORT,
    });
  }
}
