/**
 * Corral assembled in-process for tests, as main.ts assembles it: the
 * Kubernetes API stand-in, the client-node orchestrator, the handlers, the
 * HTTP gateway function and a gRPC server on 127.0.0.1:0. And one request
 * through either transport, answered alike.
 */
import type { JobSubmissionOptions } from "../api/service/job_submissions.ts";
import assert from "node:assert/strict";
import * as grpc from "@grpc/grpc-js";
import * as k8s from "@kubernetes/client-node";
import { type Access, openAccess } from "../api/auth/access.ts";
import type { FairUseSettings } from "../api/auth/rate_limit.ts";
import { createDispatcher } from "../api/service/dispatcher.ts";
import { httpStatus } from "../api/errors.ts";
import { createGateway, type Gateway } from "../api/http/gateway.ts";
import { type HttpServer, serveHttp } from "../api/http/server.ts";
import { createGrpcServer } from "../api/grpc/server.ts";
import { compileRoutes, type Route } from "../api/http/rules.ts";
import { silentLogger } from "../api/log.ts";
import type { Metrics } from "../api/metrics.ts";
import type { ApiSchema } from "../api/schema.ts";
import { createHandlers } from "../api/service/handlers.ts";
import {
  type ClusterWatch,
  type JobWatch,
  watchesOf,
  type WatchTuning,
} from "../api/service/kind_watch.ts";
import { ConvertedClusters } from "../api/service/converted_clusters.ts";
import { messageFromJson, messageToJson } from "../domain/codec.ts";
import type { Message } from "../domain/message_form.ts";
import type { FieldViolation } from "../domain/errors.ts";
import type { Logger } from "../domain/log.ts";
import type { KubernetesCallRecord, Orchestrator } from "../domain/ports.ts";
import { createKubernetesOrchestrator } from "../orchestrator/mod.ts";
import { kubeconfigFor, startStandin } from "../standin/mod.ts";
import { type GrpcCaller, grpcCaller } from "./api/grpc/client.ts";
import { schema } from "./schema.ts";

export { schema };

export interface Corral {
  schema: ApiSchema;
  /** What serves the calls; absent for a Corral in another process. */
  orchestrator?: Orchestrator;
  gateway: Gateway;
  grpc: GrpcCaller;
  /** The gRPC server's host:port, for a client of a test's own. */
  grpcAddress?: string;
  /** The stand-in's base URL, to look at what Corral wrote. */
  kubeUrl: string;
  /** WatchClusters' fan-out, with the cache. */
  watches?: ClusterWatch;
  /** WatchRayJobs' fan-out, with the cache. */
  jobWatches?: JobWatch;
  close(): Promise<void>;
}

/** Corral's gateway behind the HTTP listener on a free loopback port. */
export function listening(corral: Corral): Promise<HttpServer> {
  return serveHttp({
    hostname: "127.0.0.1",
    port: 0,
    handler: corral.gateway,
    log: silentLogger(),
  });
}

/** Binds a gRPC server to a free port of 127.0.0.1; the port. */
export function bindFreePort(server: grpc.Server): Promise<number> {
  return new Promise((resolve, reject) =>
    server.bindAsync(
      "127.0.0.1:0",
      grpc.ServerCredentials.createInsecure(),
      (error, bound) => error ? reject(error) : resolve(bound),
    )
  );
}

export async function startCorral(
  options: {
    log?: Logger;
    /** Served namespaces (createHandlers' `namespaces`); all by default. */
    namespaces?: readonly string[];
    /** Told of every Kubernetes call a request makes. */
    onKubernetesCall?: (record: KubernetesCallRecord) => void;
    /** Counts every request and Kubernetes call. */
    metrics?: Metrics;
    /** Who may call; every caller may do everything by default. */
    access?: Access;
    /**
     * The base URL of a stand-in another Corral started, to share what it
     * holds; that Corral closes it. A new stand-in by default.
     */
    kubeUrl?: string;
    /** CRD files the new stand-in serves (its --crd). */
    crds?: string[];
    /** The gateway speaks KubeRay's JSON (--kuberay-json), logging to `log`. */
    kuberayJson?: boolean;
    /**
     * Reads from the watch-backed cache (started, and in step before this
     * resolves); direct reads by default.
     */
    cache?: { staleAfterMs?: number; backoffMs?: number };
    /** The watches' tuning, with the cache (watch_fanout.ts). */
    watch?: WatchTuning;
    /** The longest a server stream lasts (--watch-max-duration); 30 min. */
    streamMaxDurationMs?: number;
    /** Each caller's rate and open streams, on the clock `fairUseNow`. */
    fairUse?: FairUseSettings;
    fairUseNow?: () => number;
    /** RayJobSubmissionService's dashboards; UNIMPLEMENTED without. */
    jobSubmissions?: Omit<JobSubmissionOptions, "orchestrator">;
  } = {},
): Promise<Corral> {
  const log = options.log ?? silentLogger();
  const standin = options.kubeUrl === undefined
    ? await startStandin({ hostname: "127.0.0.1", port: 0, crds: options.crds })
    : { url: options.kubeUrl, close: async () => {} };
  const kubeConfig = new k8s.KubeConfig();
  kubeConfig.loadFromString(kubeconfigFor(standin.url));
  const orchestrator = createKubernetesOrchestrator({
    kubeConfig,
    ...(options.cache
      ? {
        cache: { namespaces: options.namespaces ?? [], log, ...options.cache },
      }
      : {}),
  });
  orchestrator.start?.();
  await orchestrator.synced;
  const api = await schema();
  const converted = new ConvertedClusters();
  const { watches, jobWatches } = watchesOf(
    orchestrator,
    converted,
    options.watch,
  );
  const handlers = createHandlers({
    orchestrator,
    clusterApiVersion: "ray.io/v1",
    converted,
    watches,
    jobWatches,
    jobSubmissions: options.jobSubmissions,
  });
  const dispatcher = createDispatcher({
    schema: api,
    handlers,
    namespaces: options.namespaces,
    access: options.access ?? openAccess(),
    log,
    onKubernetesCall: options.onKubernetesCall,
    metrics: options.metrics,
    streamMaxDurationMs: options.streamMaxDurationMs,
    fairUse: options.fairUse,
    fairUseNow: options.fairUseNow,
  });
  const gateway = createGateway({
    schema: api,
    dispatcher,
    ...(options.kuberayJson ? { kuberayJson: { log } } : {}),
  });
  const server = createGrpcServer({ schema: api, dispatcher });
  const port = await bindFreePort(server);
  const client = grpcCaller(api, `127.0.0.1:${port}`);
  return {
    schema: api,
    orchestrator,
    gateway,
    grpc: client,
    grpcAddress: `127.0.0.1:${port}`,
    kubeUrl: standin.url,
    watches,
    jobWatches,
    async close() {
      watches?.close();
      jobWatches?.close();
      await orchestrator.close?.();
      client.close();
      await new Promise<void>((resolve) => server.tryShutdown(() => resolve()));
      await standin.close();
    },
  };
}

/** What one RPC answered, whichever transport carried it. */
export interface Outcome {
  code: number;
  message: string;
  details: unknown[];
  /** The result of a success, in JSON form. */
  result?: Record<string, unknown>;
}

function routeOf(corral: Corral, rpc: string): Route {
  return compileRoutes(corral.schema.services).find((r) => r.key === rpc)!;
}

/** How a test call presents itself. */
export interface CallOptions {
  /**
   * The Authorization header (HTTP) or metadata (gRPC) value, sent as it is;
   * none by default.
   */
  authorization?: string;
}

/** The HTTP request a user would send for the JSON request. */
export function httpRequest(
  route: Route,
  request: Record<string, unknown>,
  options: CallOptions = {},
): Request {
  const path = route.segments.map((s) =>
    "literal" in s
      ? s.literal
      : encodeURIComponent(String(request[s.variable] ?? ""))
  ).join("/");
  const headers = new Headers();
  if (options.authorization !== undefined) {
    headers.set("authorization", options.authorization);
  }
  const init: RequestInit = { method: route.verb, headers };
  const body = route.body === "*" ? request : request[route.body];
  if (body !== undefined) {
    init.body = JSON.stringify(body);
    headers.set("content-type", "application/json");
  }
  // Fields bound to neither path nor body go into the query string, as
  // grpc-gateway maps them (UpdateCluster's updateMask).
  const bound = new Set([
    route.body,
    ...route.segments.flatMap((s) => "variable" in s ? [s.variable] : []),
  ]);
  const query = new URLSearchParams();
  if (route.body !== "*") {
    for (const [key, value] of Object.entries(request)) {
      if (!bound.has(key) && value !== undefined) {
        query.set(key, String(value));
      }
    }
  }
  const search = query.size > 0 ? `?${query}` : "";
  return new Request(`http://corral.test/${path}${search}`, init);
}

/**
 * `rpc` with `request` (proto3 JSON) through the gateway function, as its
 * HTTP rule maps it; asserts that the HTTP status fits the code.
 */
export async function viaHttp(
  corral: Corral,
  rpc: string,
  request: Record<string, unknown>,
  options: CallOptions = {},
): Promise<Outcome> {
  const response = await corral.gateway(
    httpRequest(routeOf(corral, rpc), request, options),
  );
  const body = await response.json();
  if (response.status === 200) {
    return { code: 0, message: "", details: [], result: body };
  }
  // A quota's refusal is RESOURCE_EXHAUSTED answered 403, not 429
  // (api/service/quota_guard.ts).
  const quota = body.code === 8 && /: quota exceeded: /.test(body.message);
  assert.equal(
    response.status,
    quota ? 403 : httpStatus(body.code),
    "HTTP status of the code",
  );
  return {
    code: body.code,
    message: body.message,
    details: body.details ?? [],
  };
}

/** `rpc` with `request` (proto3 JSON) through the real gRPC client. */
export async function viaGrpc(
  corral: Corral,
  rpc: string,
  request: Record<string, unknown>,
  options: CallOptions = {},
): Promise<Outcome> {
  const route = routeOf(corral, rpc);
  const violations: FieldViolation[] = [];
  const message = messageFromJson(route.requestType, request, "", violations);
  assert.deepEqual(
    violations,
    [],
    "the case's request is valid JSON for the message",
  );
  const metadata = new grpc.Metadata();
  if (options.authorization !== undefined) {
    metadata.set("authorization", options.authorization);
  }
  const outcome = await corral.grpc.call(rpc, message, metadata);
  return {
    code: outcome.code,
    message: outcome.message,
    details: outcome.details,
    result: outcome.result
      ? messageToJson(route.responseType, outcome.result as Message) as Record<
        string,
        unknown
      >
      : undefined,
  };
}

/** Both transports, by name. */
export const TRANSPORTS = [["http", viaHttp], ["grpc", viaGrpc]] as const;
