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
 * sees the events.
 *
 * Later, when a ready cluster's worker groups ask for another number of
 * pods (a scale, a group added or removed), it does what the operator's
 * reconcile of the change visibly does, `delayMs` after seeing it: records
 * `CreatedWorkerPod` for each pod it adds and `DeletedWorkerPod` ("Deleted
 * Pod ns/name") for each it removes, the newest first, and writes the
 * status' replica counts and observedGeneration; the state stays `ready`.
 * The pods are simulated: their names are kept here, per group. The status write is a JSON patch that first tests
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
import { lines } from "../domain/lines.ts";

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
  type: "observed" | "reconciling" | "reconciled" | "scaled";
  namespace: string;
  name: string;
  uid: string;
  /**
   * For reconciled: ready (status written), skipped (gone, replaced by a
   * namesake, or given a state meanwhile) or failed (status write refused).
   * For scaled: ready (pods and status follow the spec), skipped or failed.
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

/** What the simulated operator keeps of a cluster it has seen. */
interface Entry {
  timer?: ReturnType<typeof setTimeout>;
  nodePorts: number[];
  /** Worker pod names by group, once the cluster is ready. */
  pods?: Map<string, string[]>;
  /** The cluster as last seen, to scale to once a scale in progress ends. */
  latest?: ObservedCluster;
}

/** Desired worker pods by group name. */
function desiredPods(cluster: ObservedCluster): Map<string, number> {
  const desired = new Map<string, number>();
  for (const worker of cluster.spec?.workerGroupSpecs ?? []) {
    const name = worker.groupName ?? "workergroup";
    desired.set(name, Math.max(0, worker.replicas ?? 0));
  }
  return desired;
}

/** Whether the pods differ from what the spec asks for. */
function needsScale(
  pods: Map<string, string[]>,
  cluster: ObservedCluster,
): boolean {
  const desired = desiredPods(cluster);
  if (
    [...pods.keys()].some((g) => !desired.has(g) && pods.get(g)!.length > 0)
  ) {
    return true;
  }
  return [...desired].some(([g, n]) => (pods.get(g)?.length ?? 0) !== n);
}

/** The status counts of the worker groups. */
function replicaStatus(cluster: ObservedCluster): Record<string, number> {
  const workers = cluster.spec?.workerGroupSpecs ?? [];
  const sum = (pick: (w: (typeof workers)[number]) => number | undefined) =>
    workers.reduce((total, w) => total + Math.max(0, pick(w) ?? 0), 0);
  const desired = sum((w) => w.replicas);
  return {
    desiredWorkerReplicas: desired,
    availableWorkerReplicas: desired,
    readyWorkerReplicas: desired,
    minWorkerReplicas: sum((w) => w.minReplicas),
    maxWorkerReplicas: sum((w) => w.maxReplicas),
  };
}

/** A failure answered by the API server, with its HTTP status. */
class HttpStatusError extends Error {
  constructor(readonly status: number, what: string) {
    super(`${what} answered HTTP ${status}`);
    this.name = "HttpStatusError";
  }
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
  /**
   * Clusters seen, by uid: their pending timer, allocated NodePorts and,
   * once ready, their simulated worker pods' names by group.
   */
  const seen = new Map<string, Entry>();
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
    const pods = new Map<string, string[]>();
    await scalePods(latest, pods);

    const now = formatKubernetesTime();
    const status = {
      state: "ready",
      endpoints: endpointsFor(latest, entry.nodePorts),
      ...replicaStatus(latest),
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
      entry.pods = pods;
      // A change seen while the cluster was made ready.
      if (entry.latest && !stopped) observe(entry.latest);
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

  /**
   * Creates and deletes simulated worker pods until `pods` matches the
   * spec, recording an Event for each (at most MAX_WORKER_POD_EVENTS).
   */
  async function scalePods(
    cluster: ObservedCluster,
    pods: Map<string, string[]>,
  ): Promise<void> {
    const { namespace, name } = cluster.metadata;
    const desired = desiredPods(cluster);
    let events = 0;
    const record = async (reason: string, message: string) => {
      if (events++ < MAX_WORKER_POD_EVENTS) {
        await recordEvent(cluster, reason, message);
      }
    };
    for (const [group, names] of pods) {
      const keep = desired.get(group) ?? 0;
      while (names.length > keep) {
        const pod = names.pop()!;
        await record("DeletedWorkerPod", `Deleted Pod ${namespace}/${pod}`);
      }
      if (!desired.has(group)) pods.delete(group);
    }
    for (const [group, count] of desired) {
      const names = pods.get(group) ?? [];
      pods.set(group, names);
      while (names.length < count) {
        const pod = `${name}-${group}-worker-${randomSuffix()}`;
        names.push(pod);
        await record(
          "CreatedWorkerPod",
          `Created worker Pod ${namespace}/${pod}`,
        );
      }
    }
  }

  /** Brings a ready cluster's pods and status to its changed spec. */
  async function rescale(cluster: ObservedCluster): Promise<void> {
    const entry = seen.get(cluster.metadata.uid);
    if (!entry?.pods || stopped) return;
    try {
      await scaleTo(cluster, entry.pods);
    } finally {
      entry.timer = undefined;
    }
    // A change seen while this one ran.
    if (entry.latest && !stopped) observe(entry.latest);
  }

  async function scaleTo(
    cluster: ObservedCluster,
    pods: Map<string, string[]>,
  ): Promise<void> {
    const { namespace, name, uid } = cluster.metadata;
    const path = `/apis/${group}/${version}/namespaces/${
      encodeURIComponent(namespace)
    }/${plural}/${encodeURIComponent(name)}`;
    const current = await request("GET", path);
    const latest = current.body as ObservedCluster | undefined;
    if (current.status !== 200 || latest?.metadata?.uid !== uid) {
      report("scaled", cluster, "skipped");
      return;
    }
    await scalePods(latest, pods);
    const patched = await request(
      "PATCH",
      `${path}/status`,
      [
        { op: "test", path: "/metadata/uid", value: uid },
        ...Object.entries({
          ...replicaStatus(latest),
          lastUpdateTime: formatKubernetesTime(),
          observedGeneration: latest.metadata.generation ?? 1,
        }).map(([key, value]) => ({
          op: "add",
          path: `/status/${key}`,
          value,
        })),
      ],
      "application/json-patch+json",
    );
    if (patched.status === 200) {
      log?.info("Scaled cluster", {
        namespace,
        name,
        ...replicaStatus(latest),
      });
      report("scaled", cluster, "ready");
    } else {
      log?.error("Failed to update cluster status", {
        namespace,
        name,
        status: patched.status,
      });
      report("scaled", cluster, "failed");
    }
  }

  function schedule(cluster: ObservedCluster): void {
    const uid = cluster.metadata.uid;
    const entry: Entry = { nodePorts: [] };
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
    // The pods the operator made before: as many as the spec asks for.
    const pods = new Map<string, string[]>();
    for (const [group, count] of desiredPods(cluster)) {
      pods.set(
        group,
        Array.from(
          { length: count },
          () => `${cluster.metadata.name}-${group}-worker-${randomSuffix()}`,
        ),
      );
    }
    seen.set(cluster.metadata.uid, { nodePorts, pods });
  }

  /** A cluster seen in a list or a watch event. */
  function observe(cluster: ObservedCluster): void {
    const entry = seen.get(cluster.metadata.uid);
    if (entry) {
      entry.latest = cluster;
      // A ready cluster whose worker groups changed: scale, once.
      if (
        entry.pods && entry.timer === undefined &&
        needsScale(entry.pods, cluster)
      ) {
        entry.timer = setTimeout(() => {
          track(rescale(cluster)).catch((error) =>
            log?.error("Failed to scale cluster", {
              namespace: cluster.metadata.namespace,
              name: cluster.metadata.name,
              error: error instanceof Error ? error.message : String(error),
            })
          );
        }, options.delayMs);
      }
      return;
    }
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
