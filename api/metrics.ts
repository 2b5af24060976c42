/**
 * Prometheus metrics on prom-client, in the text exposition format (0.0.4):
 * Corral's own, the process's (prom-client's default metrics) and the build.
 */
import {
  collectDefaultMetrics,
  Counter,
  Gauge,
  Histogram,
  Registry,
} from "prom-client";
import type { CacheState } from "../domain/ports.ts";
import type { Transport } from "./transport.ts";

const LATENCY_BUCKETS = [
  0.001,
  0.0025,
  0.005,
  0.01,
  0.025,
  0.05,
  0.1,
  0.25,
  0.5,
  1,
  2.5,
  5,
  10,
];

/**
 * prom-client's default metrics read from /proc/self, which Deno lets no one
 * read short of --allow-all (it would hand out /proc/self/mem and friends):
 * the collectors catch the NotCapable error and report 0, which a dashboard
 * would take for a fact. So they are left out; process_memory_bytes has the
 * resident set from Deno.memoryUsage() instead.
 */
const NEEDS_PROC_SELF = [
  "process_resident_memory_bytes", // /proc/self/status
  "process_virtual_memory_bytes", // /proc/self/status
  "process_heap_bytes", // /proc/self/status
  "process_open_fds", // /proc/self/fd
  "process_max_fds", // /proc/self/limits
];

export interface MetricsOptions {
  /** Corral's version, for corral_build_info. */
  version?: string;
  /** The state of the cache reads come from, when there is one. */
  cache?: () => CacheState;
  /** How many WatchClusters streams are open, when watching is served. */
  watchStreams?: () => number;
}

/** Corral's metrics, in a registry of their own. */
export class Metrics {
  readonly registry = new Registry();
  readonly requests = new Counter({
    name: "corral_requests_total",
    help: "Requests handled, by transport, route or RPC, and gRPC status code.",
    labelNames: ["transport", "rpc", "code"] as const,
    registers: [this.registry],
  });
  readonly requestDuration = new Histogram({
    name: "corral_request_duration_seconds",
    help: "Time to answer a request, by transport and route or RPC.",
    labelNames: ["transport", "rpc"] as const,
    buckets: LATENCY_BUCKETS,
    registers: [this.registry],
  });
  /**
   * Requests being handled now, by transport: counted here and read into
   * the gauge when /metrics is read, where a labelled gauge's inc() and
   * dec() would hash its labels twice a request.
   */
  readonly inFlight: Record<Transport, number> = { http: 0, grpc: 0 };
  readonly #inFlightGauge = new Gauge({
    name: "corral_requests_in_flight",
    help: "Requests being handled now, by transport.",
    labelNames: ["transport"] as const,
    registers: [this.registry],
    collect: () => {
      for (const [transport, count] of Object.entries(this.inFlight)) {
        this.#inFlightGauge.set({ transport }, count);
      }
    },
  });
  readonly kubernetesCalls = new Counter({
    name: "corral_kubernetes_requests_total",
    help:
      "Kubernetes API calls, by verb, resource and outcome (ok, cancelled when the request that caused it ended first, or the service code of the failure).",
    labelNames: ["verb", "resource", "outcome"] as const,
    registers: [this.registry],
  });
  readonly kubernetesDuration = new Histogram({
    name: "corral_kubernetes_request_duration_seconds",
    help: "Kubernetes API call latency, by verb and resource.",
    labelNames: ["verb", "resource"] as const,
    buckets: LATENCY_BUCKETS,
    registers: [this.registry],
  });

  readonly authentications = new Counter({
    name: "corral_authentication_attempts_total",
    help:
      "Authentication of API calls, by authenticator (none when no authenticator decided) and result (success or the reason of the failure).",
    labelNames: ["authenticator", "result"] as const,
    registers: [this.registry],
  });
  readonly authorizations = new Counter({
    name: "corral_authorization_decisions_total",
    help:
      "Authorization of API calls, by verb, resource and decision (allowed, or the reason of the denial).",
    labelNames: ["verb", "resource", "decision"] as const,
    registers: [this.registry],
  });

  // Fair use (api/auth/rate_limit.ts): by the caller's first group, never
  // by user name, which is unbounded and personal.
  readonly rateLimited = new Counter({
    name: "corral_rate_limited_total",
    help:
      "Calls refused for being over their caller's rate limit, by the caller's first group (none without one) and transport.",
    labelNames: ["group", "transport"] as const,
    registers: [this.registry],
  });
  readonly streamLimited = new Counter({
    name: "corral_stream_limited_total",
    help:
      "Streams refused because their caller had --max-watches-per-user open, by the caller's first group and transport.",
    labelNames: ["group", "transport"] as const,
    registers: [this.registry],
  });
  readonly openStreams = new Gauge({
    name: "corral_open_streams",
    help:
      "Server streams open, by the caller's first group (none without one).",
    labelNames: ["group"] as const,
    registers: [this.registry],
  });

  constructor(options: MetricsOptions = {}) {
    new Gauge({
      name: "process_memory_bytes",
      help:
        "Memory of the process, by kind (rss, heap_total, heap_used, external).",
      labelNames: ["kind"] as const,
      registers: [this.registry],
      collect() {
        const m = Deno.memoryUsage();
        this.set({ kind: "rss" }, m.rss);
        this.set({ kind: "heap_total" }, m.heapTotal);
        this.set({ kind: "heap_used" }, m.heapUsed);
        this.set({ kind: "external" }, m.external);
      },
    });
    new Gauge({
      name: "corral_build_info",
      help: "Corral's version and the runtime it runs on; always 1.",
      labelNames: ["version", "runtime"] as const,
      registers: [this.registry],
    }).set({
      version: options.version ?? "unknown",
      runtime: `deno ${Deno.version.deno}`,
    }, 1);
    if (options.cache) this.#cacheMetrics(options.cache);
    const watchStreams = options.watchStreams;
    if (watchStreams) {
      new Gauge({
        name: "corral_watch_streams",
        help: "WatchClusters streams open, on both transports.",
        registers: [this.registry],
        collect() {
          this.set(watchStreams());
        },
      });
    }
    collectDefaultMetrics({ register: this.registry });
    for (const name of NEEDS_PROC_SELF) this.registry.removeSingleMetric(name);
  }

  /** Gauges read from the cache's own counts at each scrape. */
  #cacheMetrics(state: () => CacheState): void {
    const gauge = (
      name: string,
      help: string,
      read: (state: CacheState) => Record<string, number>,
    ) =>
      new Gauge({
        name,
        help,
        labelNames: ["resource"] as const,
        registers: [this.registry],
        collect() {
          for (const [resource, value] of Object.entries(read(state()))) {
            this.set({ resource }, value);
          }
        },
      });
    gauge(
      "corral_cache_objects",
      "Objects the cache holds, by resource.",
      (s) => s.objects,
    );
    gauge(
      "corral_cache_last_in_step_timestamp_seconds",
      "When the cache was last known in step with Kubernetes (its last list or watch event), by resource; 0 before the first list.",
      (s) => mapValues(s.lastInStep, (ms) => ms / 1000),
    );
    // Counters in all but name: prom-client's Counter cannot be set from a
    // count kept elsewhere, so these are gauges with the _total suffix.
    gauge(
      "corral_cache_relists_total",
      "Lists the cache made (the first, and each after a failure or 410 Expired), by resource.",
      (s) => s.relists,
    );
    gauge(
      "corral_cache_watch_restarts_total",
      "Watches of the cache that ended or failed and were started again, by resource.",
      (s) => s.restarts,
    );
    new Gauge({
      name: "corral_cache_last_sync_age_seconds",
      help:
        'Seconds since each cache store was last known in step with Kubernetes (its last list, watch event or bookmark), by resource and namespace watched ("" for all); past --cache-stale-after while its watch is down or silent, reads go to Kubernetes.',
      labelNames: ["resource", "namespace"] as const,
      registers: [this.registry],
      collect() {
        this.reset();
        for (const age of state().syncAges) {
          this.set(
            { resource: age.resource, namespace: age.namespace },
            age.seconds,
          );
        }
      },
    });
    new Gauge({
      name: "corral_cache_in_step",
      help:
        "1 while reads are answered from the cache, 0 while they go to Kubernetes.",
      registers: [this.registry],
      collect() {
        this.set(state().inStep ? 1 : 0);
      },
    });
  }

  /** Every metric in the text format. */
  render(): Promise<string> {
    return this.registry.metrics();
  }
}

/** GET /metrics. */
export async function metricsPage(metrics: Metrics): Promise<Response> {
  return new Response(await metrics.render(), {
    headers: { "content-type": metrics.registry.contentType },
  });
}

function mapValues(
  record: Record<string, number>,
  change: (value: number) => number,
): Record<string, number> {
  return Object.fromEntries(
    Object.entries(record).map(([key, value]) => [key, change(value)]),
  );
}
