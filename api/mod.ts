/**
 * The API as main.ts wires it: the one service behind both transports, with
 * the pages the HTTP port serves beside it (docs, OpenAPI, health, metrics)
 * and gRPC health and reflection. Nothing here binds a port.
 */
import type * as grpc from "@grpc/grpc-js";
import type { Limits } from "../domain/limits.ts";
import type { Logger } from "../domain/log.ts";
import type { Access } from "./auth/access.ts";
import type { FairUseSettings } from "./auth/rate_limit.ts";
import type { Orchestrator } from "../domain/ports.ts";
import type { DashboardJobApi } from "../domain/dashboard_ports.ts";
import { docsPages, loadScalarBundle } from "./docs.ts";
import { consolePages, loadConsole } from "./console.ts";
import { createGrpcServer } from "./grpc/server.ts";
import {
  addHealthService,
  type HealthReporter,
  healthServiceDefinition,
} from "./grpc/health.ts";
import { addReflection } from "./grpc/reflection.ts";
import { Health, livenessPage, readinessPage } from "./health.ts";
import { type BrowserSettings, guardBrowsers } from "./http/browser_guard.ts";
import { gatewayEndpoints, refuseRequest } from "./http/gateway.ts";
import { createRouter, pageEndpoints, type Router } from "./http/router.ts";
import {
  DashboardProxy,
  type DashboardProxyOptions,
} from "./http/dashboard_proxy.ts";
import { compileRoutes } from "./http/rules.ts";
import { Metrics, metricsPage } from "./metrics.ts";
import { DEFAULT_ACCELERATORS } from "./auth/accelerators.ts";
import { registerManagedMetrics } from "./managed_metrics.ts";
import { openApiDocument } from "./openapi.ts";
import { type ApiSchema, loadApiSchema, loadKubeRaySchema } from "./schema.ts";
import { kuberayCodec } from "./grpc/kuberay_codec.ts";
import type { Service } from "./service/service.ts";
import { createDispatcher, type Dispatcher } from "./service/dispatcher.ts";
import { handlersOf } from "./service/handlers.ts";
import { serviceOf } from "./service/service.ts";
import { ObjectWatches } from "./service/object_watch.ts";
import {
  type ClusterWatch,
  type JobWatch,
  watchesOf,
  type WatchTuning,
} from "./service/kind_watch.ts";
import { ConvertedClusters } from "./service/converted_clusters.ts";
import {
  AUTH_CONFIG_PATH,
  authConfigPage,
  type SignInSettings,
} from "./auth_config.ts";
import { type HttpUnit, unitEndpoints } from "./http/units.ts";
import { httpUnits } from "./http_units.ts";
import { RAY_VERSIONS } from "../domain/ray_versions.ts";

export interface ApiOptions {
  orchestrator: Orchestrator;
  /** Who may call: authenticators, policy, audit trail. */
  access: Access;
  /**
   * The issuer clients sign users in with (--oidc-*), as
   * /apis/v1alpha2/auth-config tells them; none without OIDC.
   */
  signIn?: SignInSettings;
  /** /metrics answers only authenticated callers (--metrics-require-auth). */
  metricsRequireAuth?: boolean;
  /** apiVersion of the RayClusters written, e.g. "ray.io/v1". */
  clusterApiVersion: string;
  /** Namespaces served; empty serves every namespace. */
  namespaces: readonly string[];
  /**
   * A second gRPC server, for KubeRay's current numbering
   * (--kuberay-grpc-port): the same calls through the same chain.
   */
  kuberayGrpc?: boolean;
  /** HTTP speaks KubeRay's JSON dialect (--kuberay-json). */
  kuberayJson?: boolean;
  /**
   * What browsers may send (--allowed-hosts, --cors-allowed-origins), and
   * whether Corral serves TLS itself; any Host and no CORS origin by
   * default. Cross-origin writes are refused either way.
   */
  browsers?: BrowserSettings & { secure?: boolean };
  /** Largest HTTP body and gRPC message. */
  maxBodyBytes: number;
  /** Upper bounds of what a request may ask for (the --max-* flags). */
  limits?: Limits;
  /** A gRPC connection without calls for this long closes; 60 s. */
  idleTimeoutMs?: number;
  /** The watches' tuning (watch_fanout.ts has the defaults). */
  watch?: WatchTuning;
  /** The longest a server stream lasts (--watch-max-duration); 30 min. */
  streamMaxDurationMs?: number;
  /** Each caller's rate and open streams (rate_limit.ts); none when absent. */
  fairUse?: FairUseSettings;
  /** Corral's version, for corral_build_info. */
  version: string;
  log: Logger;
  /** The dashboard proxy; without it, no dashboard routes. */
  dashboardProxy?:
    & Omit<
      DashboardProxyOptions,
      "orchestrator" | "secure" | "apiServer" | "log"
    >
    & {
      /**
       * RayJobSubmissionService's way to the dashboards' job API, over
       * the same cluster access and bounds.
       */
      jobs: DashboardJobApi;
    };
}

export interface Api {
  /** Everything the HTTP port serves. */
  http: Router;
  /** The HTTP units among it (api/http_units.ts), as served. */
  httpUnits: readonly HttpUnit[];
  /** The gRPC server with every service added, not yet bound. */
  grpc: grpc.Server;
  /**
   * The gRPC server of KubeRay's current messages (proto/kuberay/), not
   * yet bound; only with `kuberayGrpc`.
   */
  kuberayGrpc?: grpc.Server;
  /** Readiness, shared by /readyz and gRPC health. */
  health: Health;
  /** gRPC health's own state, ended on shutdown. */
  grpcHealth: HealthReporter;
  /** The HTTP listener's requests in flight, for corral_requests_in_flight. */
  httpInFlight: (delta: 1 | -1) => void;
  /** WatchClusters' streams, ended on shutdown; none without a cache. */
  watches?: ClusterWatch;
  /** WatchRayJobs' streams, ended on shutdown; none without a cache. */
  jobWatches?: JobWatch;
  /**
   * The Kubernetes-shaped routes' watches (`?watch=1`), ended on
   * shutdown; none without a cache.
   */
  objectWatches?: ObjectWatches;
}

export async function createApi(options: ApiOptions): Promise<Api> {
  const { orchestrator, log } = options;
  const schema = await loadApiSchema();
  const converted = new ConvertedClusters();
  const { watches, jobWatches } = watchesOf(
    orchestrator,
    converted,
    options.watch,
  );
  const service = serviceOf({
    orchestrator,
    clusterApiVersion: options.clusterApiVersion,
    limits: options.limits,
    converted,
    watches,
    jobWatches,
  });
  const handlers = handlersOf(
    service,
    options.dashboardProxy ? { jobs: options.dashboardProxy.jobs } : undefined,
  );
  // The Kubernetes-shaped routes' watches: over the cache, as the RPCs'.
  const objectWatches = watches
    ? new ObjectWatches(orchestrator, options.clusterApiVersion, options.watch)
    : undefined;
  const cache = orchestrator.cacheState?.bind(orchestrator);
  const metrics = new Metrics({
    version: options.version,
    cache,
    ...(watches ? { watchStreams: () => watches.watchers } : {}),
  });
  if (orchestrator.managedObjects) {
    const { policy } = options.access;
    registerManagedMetrics(metrics.registry, {
      objects: orchestrator.managedObjects.bind(orchestrator),
      quotas: () => policy.quotas?.() ?? [],
      accelerators: () => policy.accelerators?.() ?? DEFAULT_ACCELERATORS,
    });
  }
  const health = new Health({ ping: (call) => orchestrator.ping(call), cache });
  const dispatcher = createDispatcher({
    schema,
    handlers,
    namespaces: options.namespaces,
    access: options.access,
    log,
    metrics,
    onKubernetesCall: health.observe,
    streamMaxDurationMs: options.streamMaxDurationMs,
    fairUse: options.fairUse,
  });
  const served = {
    schema,
    dispatcher,
    metrics,
    health,
    service,
    objectWatches,
  };
  const { grpc, grpcHealth } = grpcPort(options, served);
  const { router, units } = await httpPort(options, served);
  return {
    http: router,
    httpUnits: units,
    grpc,
    ...(options.kuberayGrpc
      ? { kuberayGrpc: await kuberayGrpcPort(options, served) }
      : {}),
    health,
    grpcHealth,
    httpInFlight: (delta: 1 | -1) => metrics.inFlight.http += delta,
    watches,
    jobWatches,
    objectWatches,
  };
}

/** What both ports serve: the API, its chain, its metrics and readiness. */
interface Served {
  schema: ApiSchema;
  dispatcher: Dispatcher;
  metrics: Metrics;
  health: Health;
  /** What the handlers act with, shared by the Kubernetes-shaped routes. */
  service: Service;
  objectWatches?: ObjectWatches;
}

/**
 * Everything the HTTP port serves, in one route table: the pages, the HTTP
 * units and the RPCs' routes, in that order, with one refusal path (404,
 * 405) counted and logged as a call is (refuseRequest); the browser checks
 * around it.
 */
async function httpPort(
  options: ApiOptions,
  { schema, dispatcher, metrics, health, service, objectWatches }: Served,
): Promise<{ router: Router; units: HttpUnit[] }> {
  const { log } = options;
  // Compiled once: the gateway routes with them, the document describes them.
  const routes = compileRoutes(schema.services);
  // What the HTTP port serves beside the RPCs, through the same chain.
  const units = httpUnits({
    service,
    ...(options.metricsRequireAuth ? { metrics } : {}),
    ...(options.dashboardProxy
      ? {
        dashboardProxy: new DashboardProxy({
          ...options.dashboardProxy,
          orchestrator: options.orchestrator,
          secure: options.browsers?.secure ?? false,
          apiServer: health,
          log,
        }),
      }
      : {}),
    ...(objectWatches ? { objectWatches } : {}),
    maxBodyBytes: options.maxBodyBytes,
  });
  const pages = {
    ...docsPages(openApiDocument(routes), await loadScalarBundle()),
    ...consolePages(
      await loadConsole(),
      options.signIn ? [new URL(options.signIn.issuerUrl).origin] : [],
    ),
    "/healthz": livenessPage,
    "/readyz": () => readinessPage(health),
    [AUTH_CONFIG_PATH]: authConfigPage(options.signIn),
    // As the Kubernetes API server's /version: what a client talks to, and
    // the Ray versions it knows (newest first), which clients offer.
    "/version": () =>
      Response.json({
        version: options.version,
        runtime: `deno ${Deno.version.deno}`,
        rayVersions: RAY_VERSIONS,
      }),
    ...(options.metricsRequireAuth
      ? {}
      : { "/metrics": () => metricsPage(metrics) }),
  };
  const app = createRouter({
    endpoints: [
      ...pageEndpoints(pages),
      ...unitEndpoints(dispatcher, units),
      ...gatewayEndpoints({
        schema,
        routes,
        dispatcher,
        maxBodyBytes: options.maxBodyBytes,
        ...(options.kuberayJson ? { kuberayJson: { log } } : {}),
      }),
    ],
    refuse: (request, error, allow) =>
      refuseRequest(dispatcher, request, error, allow),
  });
  const router = guardBrowsers(app, {
    allowedHosts: ["*"],
    corsAllowedOrigins: [],
    ...options.browsers,
    refuse: (request, error) => refuseRequest(dispatcher, request, error),
  });
  return { router, units };
}

/**
 * The second gRPC server: KubeRay's current services and messages, each
 * call read into the API's request and handed to the same dispatcher,
 * with the main server's limits; reflection describes KubeRay's services.
 */
async function kuberayGrpcPort(
  options: ApiOptions,
  { schema, dispatcher }: Served,
): Promise<grpc.Server> {
  const kuberay = await loadKubeRaySchema();
  const server = createGrpcServer({
    schema: kuberay,
    dispatcher,
    maxReceiveBytes: options.maxBodyBytes,
    idleTimeoutMs: options.idleTimeoutMs,
    codec: kuberayCodec(kuberay, schema),
  });
  // The API's root holds google.protobuf's descriptors, which KubeRay's
  // files do not import.
  addReflection(server, kuberay.services, schema.root);
  return server;
}

/** The gRPC server with the API, grpc.health.v1 and reflection added. */
function grpcPort(
  options: ApiOptions,
  { schema, dispatcher, health }: Served,
): { grpc: grpc.Server; grpcHealth: HealthReporter } {
  const grpc = createGrpcServer({
    schema,
    dispatcher,
    maxReceiveBytes: options.maxBodyBytes,
    idleTimeoutMs: options.idleTimeoutMs,
  });
  const grpcHealth = addHealthService(
    grpc,
    schema.services.map((s) => s.fullName.slice(1)),
    { refresh: () => health.readiness() },
  );
  health.onChange = (ready) =>
    grpcHealth.setAll(ready ? "SERVING" : "NOT_SERVING");
  addReflection(
    grpc,
    [...schema.services, healthServiceDefinition()],
    schema.root,
  );
  return { grpc, grpcHealth };
}
