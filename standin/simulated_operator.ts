/**
 * A simulated KubeRay operator for dev mode. It polls RayClusters through the
 * Kubernetes REST API (plain fetch, nothing stand-in specific, so it behaves
 * the same against any server speaking that API) and, `delayMs` after it
 * first sees a cluster without a state, does what the real operator's first
 * reconcile visibly does:
 *
 * - records Normal Events on the cluster, as the operator's event recorder
 *   writes them (`CreatedService`, `CreatedHeadPod`, `CreatedWorkerPod`,
 *   source `raycluster-controller`);
 * - sets `status.state` to `ready` and fills `status.endpoints` from the head
 *   service ports (ray-operator updateEndpoints): NodePort numbers when
 *   `spec.headGroupSpec.serviceType` is NodePort, else the head container's
 *   ports, keyed by port name.
 *
 * Events are written before the status, so a client that sees `ready` also
 * sees the events. The status write is a JSON patch that first tests
 * metadata.uid, so a namesake created in between is never touched.
 *
 * It follows RayClusters as an informer does: a list, then a watch from the
 * list's resourceVersion (resumed from the last one seen when the server
 * ends it, a new list after 410 Gone), so a new cluster is seen at once.
 * After a failure it waits `retryIntervalMs` and lists again. The watch
 * request, the retry timer and every delay are owned here; stop() aborts
 * and clears them and waits for requests in flight, so nothing outlives it.
 */

import type { Logger } from "../domain/log.ts";
import { formatKubernetesTime } from "../domain/timestamps.ts";

export interface SimulatedOperatorOptions {
  /** Base URL of the Kubernetes API, e.g. the stand-in's. */
  server: string;
  /** Delay between first seeing a cluster and making it ready. */
  delayMs: number;
  /** How long to wait before listing again after a failure; 1 s. */
  retryIntervalMs?: number;
  /** RayCluster coordinates; default ray.io, v1, rayclusters. */
  group?: string;
  version?: string;
  plural?: string;
  logger?: Logger;
  /**
   * Told, synchronously, of each step the operator takes, so a test can wait
   * for the step that proves something happened (or did not) instead of
   * sleeping.
   */
  onActivity?: (activity: OperatorActivity) => void;
}

/** A step of the simulated operator, about one cluster. */
export interface OperatorActivity {
  /**
   * observed: first seen, in a list or a watch event (and its delay
   * started, unless it already has a state); reconciling: its delay ran
   * out; reconciled: the reconcile ended, `outcome` telling how.
   */
  type: "observed" | "reconciling" | "reconciled";
  namespace: string;
  name: string;
  uid: string;
  /**
   * For reconciled: ready (status written), skipped (gone, replaced by a
   * namesake, or given a state meanwhile) or failed (status write refused).
   */
  outcome?: "ready" | "skipped" | "failed";
}

export interface SimulatedOperator {
  /** Stops watching, cancels pending work and waits for requests in flight. */
  stop(): Promise<void>;
}

/** What the simulated operator reads of a RayCluster. */
interface ObservedCluster {
  apiVersion?: string;
  metadata: {
    name: string;
    namespace: string;
    uid: string;
    resourceVersion?: string;
    generation?: number;
  };
  spec?: {
    headGroupSpec?: {
      serviceType?: string;
      template?: {
        spec?: {
          containers?: {
            ports?: { name?: string; containerPort?: number }[];
          }[];
        };
      };
    };
    workerGroupSpecs?: {
      groupName?: string;
      replicas?: number;
      minReplicas?: number;
      maxReplicas?: number;
    }[];
  };
  status?: { state?: string; endpoints?: Record<string, string> };
}

/**
 * Head ports when the head container declares none. The names and numbers
 * are those every head container Corral writes declares (the KubeRay API
 * server's set, domain/conversions.ts HEAD_PORTS), not the real operator's
 * own defaults (gcs-server, client, ...): a cluster written by another
 * client then shows the same endpoint keys as one Corral wrote. Kept here,
 * not imported, so the simulated operator reads only the Kubernetes API.
 */
const DEFAULT_HEAD_PORTS: Record<string, number> = {
  dashboard: 8265,
  head: 10001,
  metrics: 8080,
  redis: 6379,
};
const NODE_PORT_MIN = 30000;
const NODE_PORT_MAX = 32767;
const COMPONENT = "raycluster-controller";
/** Bounds the Events written per cluster, whatever its replica counts. */
const MAX_WORKER_POD_EVENTS = 10;

/**
 * The head service's named ports, as the operator builds them from the head
 * container: its named ports, plus the metrics port the operator always
 * adds; the defaults when the container declares none.
 */
function headServicePorts(
  cluster: ObservedCluster,
): Map<string, number> {
  const container = cluster.spec?.headGroupSpec?.template?.spec?.containers
    ?.[0];
  const declared = (container?.ports ?? []).filter((p) =>
    p.name && typeof p.containerPort === "number"
  );
  if (declared.length === 0) return new Map(Object.entries(DEFAULT_HEAD_PORTS));
  const ports = new Map(declared.map((p) => [p.name!, p.containerPort!]));
  if (!ports.has("metrics")) ports.set("metrics", DEFAULT_HEAD_PORTS.metrics);
  return ports;
}

function randomSuffix(): string {
  const alphabet = "bcdfghjklmnpqrstvwxz2456789";
  const bytes = crypto.getRandomValues(new Uint8Array(5));
  return [...bytes].map((b) => alphabet[b % alphabet.length]).join("");
}

/** A failure answered by the API server, with its HTTP status. */
class HttpStatusError extends Error {
  constructor(readonly status: number, what: string) {
    super(`${what} answered HTTP ${status}`);
    this.name = "HttpStatusError";
  }
}

/** Splits a byte stream into lines of text. */
async function* lines(
  body: ReadableStream<Uint8Array>,
): AsyncGenerator<string> {
  let buffer = "";
  for await (const chunk of body.pipeThrough(new TextDecoderStream())) {
    buffer += chunk;
    let newline: number;
    while ((newline = buffer.indexOf("\n")) >= 0) {
      const line = buffer.slice(0, newline).trim();
      buffer = buffer.slice(newline + 1);
      if (line !== "") yield line;
    }
  }
  if (buffer.trim() !== "") yield buffer.trim();
}

/** Starts at once: the first list happens immediately. */
export function startSimulatedOperator(
  options: SimulatedOperatorOptions,
): SimulatedOperator {
  const server = options.server.replace(/\/+$/, "");
  const group = options.group ?? "ray.io";
  const version = options.version ?? "v1";
  const plural = options.plural ?? "rayclusters";
  const retryIntervalMs = options.retryIntervalMs ?? 1000;
  const log = options.logger;
  const collection = `/apis/${group}/${version}/${plural}`;

  let stopped = false;
  const aborter = new AbortController();
  /** Clusters seen, by uid: their pending timer and allocated NodePorts. */
  const seen = new Map<
    string,
    { timer?: ReturnType<typeof setTimeout>; nodePorts: number[] }
  >();
  const usedNodePorts = new Set<number>();
  const inFlight = new Set<Promise<unknown>>();
  let eventSequence = 0;

  function track<T>(promise: Promise<T>): Promise<T> {
    inFlight.add(promise);
    promise.finally(() => inFlight.delete(promise)).catch(() => {});
    return promise;
  }

  async function request(
    method: string,
    path: string,
    body?: unknown,
    contentType = "application/json",
  ): Promise<{ status: number; body: unknown }> {
    const response = await fetch(`${server}${path}`, {
      method,
      headers: body === undefined ? {} : { "content-type": contentType },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    let parsed: unknown = undefined;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = text;
    }
    return { status: response.status, body: parsed };
  }

  function allocateNodePort(): number {
    for (let port = NODE_PORT_MIN; port <= NODE_PORT_MAX; port++) {
      if (!usedNodePorts.has(port)) {
        usedNodePorts.add(port);
        return port;
      }
    }
    throw new Error("Cannot allocate a NodePort: all 2768 are in use");
  }

  function release(uid: string): void {
    const entry = seen.get(uid);
    if (!entry) return;
    if (entry.timer !== undefined) clearTimeout(entry.timer);
    for (const port of entry.nodePorts) usedNodePorts.delete(port);
    seen.delete(uid);
  }

  function endpointsFor(
    cluster: ObservedCluster,
    nodePorts: number[],
  ): Record<string, string> {
    const nodePort =
      cluster.spec?.headGroupSpec?.serviceType?.toLowerCase() === "nodeport";
    const endpoints: Record<string, string> = {};
    for (const [name, port] of [...headServicePorts(cluster)].sort()) {
      if (nodePort) {
        const allocated = allocateNodePort();
        nodePorts.push(allocated);
        endpoints[name] = String(allocated);
      } else {
        endpoints[name] = String(port);
      }
    }
    return endpoints;
  }

  async function recordEvent(
    cluster: ObservedCluster,
    reason: string,
    message: string,
  ): Promise<void> {
    const { namespace, name, uid, resourceVersion } = cluster.metadata;
    const now = new Date();
    // client-go's recorder names events <object>.<unix nanos in hex>.
    const nanos = BigInt(now.getTime()) * 1_000_000n + BigInt(eventSequence++);
    const event = {
      apiVersion: "v1",
      kind: "Event",
      metadata: { name: `${name}.${nanos.toString(16)}`, namespace },
      involvedObject: {
        apiVersion: cluster.apiVersion ?? `${group}/${version}`,
        kind: "RayCluster",
        namespace,
        name,
        uid,
        resourceVersion,
      },
      reason,
      message,
      type: "Normal",
      count: 1,
      firstTimestamp: formatKubernetesTime(now),
      lastTimestamp: formatKubernetesTime(now),
      source: { component: COMPONENT },
      reportingComponent: COMPONENT,
      reportingInstance: "",
    };
    const result = await request(
      "POST",
      `/api/v1/namespaces/${encodeURIComponent(namespace)}/events`,
      event,
    );
    if (result.status !== 201) {
      log?.error("Failed to record event", {
        namespace,
        name,
        reason,
        status: result.status,
      });
    }
  }

  function report(
    type: OperatorActivity["type"],
    cluster: ObservedCluster,
    outcome?: OperatorActivity["outcome"],
  ): void {
    const { namespace, name, uid } = cluster.metadata;
    options.onActivity?.({
      type,
      namespace,
      name,
      uid,
      ...(outcome ? { outcome } : {}),
    });
  }

  async function reconcile(cluster: ObservedCluster): Promise<void> {
    const { namespace, name, uid } = cluster.metadata;
    const entry = seen.get(uid);
    if (!entry || stopped) return;
    entry.timer = undefined;
    report("reconciling", cluster);

    const current = await request(
      "GET",
      `/apis/${group}/${version}/namespaces/${
        encodeURIComponent(namespace)
      }/${plural}/${encodeURIComponent(name)}`,
    );
    const latest = current.body as ObservedCluster | undefined;
    if (
      current.status !== 200 || latest?.metadata?.uid !== uid ||
      latest.status?.state
    ) {
      report("reconciled", cluster, "skipped");
      return;
    }

    await recordEvent(
      latest,
      "CreatedService",
      `Created service ${namespace}/${name}-head-svc`,
    );
    await recordEvent(
      latest,
      "CreatedHeadPod",
      `Created head Pod ${namespace}/${name}-head-${randomSuffix()}`,
    );
    let workerEvents = 0;
    for (const worker of latest.spec?.workerGroupSpecs ?? []) {
      const replicas = Math.max(0, worker.replicas ?? 0);
      for (let i = 0; i < replicas; i++) {
        if (workerEvents++ >= MAX_WORKER_POD_EVENTS) break;
        await recordEvent(
          latest,
          "CreatedWorkerPod",
          `Created worker Pod ${namespace}/${name}-${
            worker.groupName ?? "workergroup"
          }-worker-${randomSuffix()}`,
        );
      }
    }

    const workers = latest.spec?.workerGroupSpecs ?? [];
    const sum = (pick: (w: (typeof workers)[number]) => number | undefined) =>
      workers.reduce((total, w) => total + Math.max(0, pick(w) ?? 0), 0);
    const desired = sum((w) => w.replicas);
    const now = formatKubernetesTime();
    const status = {
      state: "ready",
      endpoints: endpointsFor(latest, entry.nodePorts),
      desiredWorkerReplicas: desired,
      availableWorkerReplicas: desired,
      readyWorkerReplicas: desired,
      minWorkerReplicas: sum((w) => w.minReplicas),
      maxWorkerReplicas: sum((w) => w.maxReplicas),
      head: {
        podName: `${name}-head`,
        serviceName: `${name}-head-svc`,
      },
      lastUpdateTime: now,
      stateTransitionTimes: { ready: now },
      observedGeneration: latest.metadata.generation ?? 1,
    };
    const patched = await request(
      "PATCH",
      `/apis/${group}/${version}/namespaces/${
        encodeURIComponent(namespace)
      }/${plural}/${encodeURIComponent(name)}/status`,
      [
        { op: "test", path: "/metadata/uid", value: uid },
        { op: "add", path: "/status", value: status },
      ],
      "application/json-patch+json",
    );
    if (patched.status === 200) {
      log?.info("Marked cluster ready", {
        namespace,
        name,
        endpoints: status.endpoints,
      });
      report("reconciled", cluster, "ready");
    } else {
      log?.error("Failed to update cluster status", {
        namespace,
        name,
        status: patched.status,
      });
      report("reconciled", cluster, "failed");
    }
  }

  function schedule(cluster: ObservedCluster): void {
    const uid = cluster.metadata.uid;
    const entry: {
      timer?: ReturnType<typeof setTimeout>;
      nodePorts: number[];
    } = {
      nodePorts: [],
    };
    seen.set(uid, entry);
    entry.timer = setTimeout(() => {
      track(reconcile(cluster)).catch((error) =>
        log?.error("Failed to reconcile cluster", {
          namespace: cluster.metadata.namespace,
          name: cluster.metadata.name,
          error: error instanceof Error ? error.message : String(error),
        })
      );
    }, options.delayMs);
  }

  /** Keeps NodePorts of clusters made ready earlier (e.g. before a restart). */
  function adopt(cluster: ObservedCluster): void {
    const nodePorts: number[] = [];
    if (
      cluster.spec?.headGroupSpec?.serviceType?.toLowerCase() === "nodeport"
    ) {
      for (const value of Object.values(cluster.status?.endpoints ?? {})) {
        const port = Number(value);
        if (port >= NODE_PORT_MIN && port <= NODE_PORT_MAX) {
          usedNodePorts.add(port);
          nodePorts.push(port);
        }
      }
    }
    seen.set(cluster.metadata.uid, { nodePorts });
  }

  /** A cluster seen in a list or a watch event. */
  function observe(cluster: ObservedCluster): void {
    if (seen.has(cluster.metadata.uid)) return;
    if (cluster.status?.state) adopt(cluster);
    else schedule(cluster);
    report("observed", cluster);
  }

  /** Lists clusters; forgets those gone; returns the list's revision. */
  async function relist(): Promise<string> {
    const listed = await request("GET", collection);
    if (listed.status !== 200) {
      throw new HttpStatusError(listed.status, "Listing clusters");
    }
    const list = listed.body as {
      items?: ObservedCluster[];
      metadata?: { resourceVersion?: string };
    };
    const items = list.items ?? [];
    const present = new Set(items.map((c) => c.metadata.uid));
    for (const uid of [...seen.keys()]) {
      if (!present.has(uid)) release(uid);
    }
    for (const cluster of items) observe(cluster);
    return list.metadata?.resourceVersion ?? "";
  }

  /**
   * Follows changes from `resourceVersion` until the server ends the
   * watch; returns the revision to resume from, or "" to list again.
   */
  async function follow(resourceVersion: string): Promise<string> {
    const query = new URLSearchParams({
      watch: "true",
      resourceVersion,
      allowWatchBookmarks: "true",
    });
    const response = await fetch(`${server}${collection}?${query}`, {
      signal: aborter.signal,
    });
    if (response.status !== 200 || !response.body) {
      await response.body?.cancel();
      throw new HttpStatusError(response.status, "Watching clusters");
    }
    let latest = resourceVersion;
    for await (const line of lines(response.body)) {
      const event = JSON.parse(line) as {
        type: string;
        object: ObservedCluster & { code?: number };
      };
      if (event.type === "ERROR") {
        if (event.object.code === 410) return "";
        throw new HttpStatusError(
          event.object.code ?? 500,
          "Watching clusters",
        );
      }
      latest = event.object.metadata?.resourceVersion ?? latest;
      if (event.type === "ADDED" || event.type === "MODIFIED") {
        observe(event.object);
      } else if (event.type === "DELETED") {
        release(event.object.metadata.uid);
      }
    }
    return latest;
  }

  function pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        aborter.signal.removeEventListener("abort", done);
        resolve();
      }
      aborter.signal.addEventListener("abort", done);
    });
  }

  async function run(): Promise<void> {
    let resourceVersion = "";
    while (!stopped) {
      try {
        if (resourceVersion === "") resourceVersion = await relist();
        if (stopped) break;
        resourceVersion = await follow(resourceVersion);
      } catch (error) {
        if (stopped) break;
        log?.error("Failed to watch clusters", {
          url: `${server}${collection}`,
          error: error instanceof Error ? error.message : String(error),
        });
        resourceVersion = "";
        await pause(retryIntervalMs);
      }
    }
  }

  const running = run();
  log?.debug("Started simulated operator", {
    server,
    delayMs: options.delayMs,
  });

  return {
    async stop() {
      stopped = true;
      aborter.abort();
      await running;
      for (const entry of seen.values()) {
        if (entry.timer !== undefined) clearTimeout(entry.timer);
      }
      while (inFlight.size > 0) {
        await Promise.allSettled([...inFlight]);
      }
    },
  };
}
