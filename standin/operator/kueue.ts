/**
 * A simulated Kueue for dev mode and tests, beside the simulated operator:
 * it follows RayClusters, RayJobs, LocalQueues and ClusterQueues
 * (kueue.x-k8s.io/v1beta1) through the Kubernetes API, and admits the
 * queued ones (labelled kueue.x-k8s.io/queue-name, created suspended) as
 * Kueue's RayCluster and RayJob integrations do: in creation order, while
 * their requests fit the ClusterQueue's nominal quotas
 * (../kueue/admission.ts), by setting spec.suspend false. A workload holds
 * its share until it is deleted or, for a RayJob, has finished (Complete or
 * Failed); then the next waiting one fits.
 *
 * It records Events on the workload: `Pending` with Kueue's reason when
 * the reason changes, `Started` ("Admitted by clusterQueue ...") when
 * admitted; and writes each queue's status.pendingWorkloads and
 * admittedWorkloads. A RayCluster a RayJob or RayService owns is the
 * owner's to queue, not its own (Kueue skips it too).
 *
 * Every change of the four kinds runs one pass over all of them (one key
 * of a work queue, so passes never overlap); stop by aborting `signal`.
 */

import type { Logger } from "../../domain/log.ts";
import { QUEUE_LABEL } from "../../domain/queues.ts";
import {
  capacityOf,
  clusterRequest,
  decide,
  type Workload,
} from "../kueue/admission.ts";
import { KUEUE_GROUP, KUEUE_VERSION } from "../kueue/queues.ts";
import { ApiClient, type KubeResource } from "./api_client.ts";
import { EventRecorder } from "./events.ts";
import { type ClusterHandler, runInformer } from "./informer.ts";
import { RAY_JOBS } from "./ray_jobs.ts";
import { WorkQueue } from "./work_queue.ts";

export interface SimulatedKueueOptions {
  retryIntervalMs: number;
  signal: AbortSignal;
  log?: Logger;
}

/** How soon a pass runs again after a write lost a race. */
const RETRY_MS = 200;

/** A watched object as the pass reads it. */
type Observed = KubeResource & {
  spec?: Record<string, unknown>;
  status?: Record<string, unknown>;
  metadata: KubeResource["metadata"] & {
    creationTimestamp?: string;
    ownerReferences?: { kind: string }[];
  };
};

/** The kinds followed, each kept by uid. */
type Kind = "RayCluster" | "RayJob" | "LocalQueue" | "ClusterQueue";

const PASS = "kueue";

export class SimulatedKueue {
  readonly #clusters: ApiClient;
  readonly #jobs: ApiClient;
  readonly #localQueues: ApiClient;
  readonly #clusterQueues: ApiClient;
  readonly #events: Record<"RayCluster" | "RayJob", EventRecorder>;
  readonly #log?: Logger;
  readonly #seen: Record<Kind, Map<string, Observed>> = {
    RayCluster: new Map(),
    RayJob: new Map(),
    LocalQueue: new Map(),
    ClusterQueue: new Map(),
  };
  /** When each object was first seen (admission.ts, Workload.seen). */
  readonly #firstSeen = new Map<string, number>();
  #sequence = 0;
  /** The last Pending reason recorded per workload uid. */
  readonly #reasons = new Map<string, string>();
  readonly queue: WorkQueue;

  constructor(clusters: ApiClient, log?: Logger) {
    this.#clusters = clusters;
    this.#jobs = clusters.forResource(RAY_JOBS);
    const kueue = (plural: string) =>
      new ApiClient(clusters.server, {
        group: KUEUE_GROUP,
        version: KUEUE_VERSION,
        plural,
      });
    this.#localQueues = kueue("localqueues");
    this.#clusterQueues = kueue("clusterqueues");
    const recorder = (kind: string) =>
      new EventRecorder(clusters, log, { kind, component: "kueue-admission" });
    this.#events = {
      RayCluster: recorder("RayCluster"),
      RayJob: recorder("RayJob"),
    };
    this.#log = log;
    this.queue = new WorkQueue(() => this.pass(), log);
  }

  /** Follows the four kinds until `options.signal` aborts. */
  async run(options: SimulatedKueueOptions): Promise<void> {
    const informer = { ...options, optional: true };
    await Promise.all([
      runInformer(this.#clusters, this.#handler("RayCluster"), informer),
      runInformer(this.#jobs, this.#handler("RayJob"), informer),
      runInformer(this.#localQueues, this.#handler("LocalQueue"), informer),
      runInformer(
        this.#clusterQueues,
        this.#handler("ClusterQueue"),
        informer,
      ),
    ]);
    await this.queue.stop();
  }

  /** Keeps one kind's objects and runs a pass on every change. */
  #handler(kind: Kind): ClusterHandler<KubeResource> {
    const seen = this.#seen[kind];
    return {
      listed: (objects) => {
        seen.clear();
        for (const o of objects) this.#keep(seen, o);
        this.queue.add(PASS);
      },
      observe: (object) => {
        this.#keep(seen, object);
        this.queue.add(PASS);
      },
      release: (uid) => {
        seen.delete(uid);
        this.#firstSeen.delete(uid);
        this.#reasons.delete(uid);
        this.queue.add(PASS);
      },
    };
  }

  #keep(seen: Map<string, Observed>, object: KubeResource): void {
    const { uid } = object.metadata;
    seen.set(uid, object as Observed);
    if (!this.#firstSeen.has(uid)) this.#firstSeen.set(uid, this.#sequence++);
  }

  /**
   * One pass: every ClusterQueue's workloads decided, the admitted ones
   * resumed, reasons recorded, queue counts written. Resolves to a delay
   * to run again after when a write lost a race.
   */
  async pass(): Promise<number | undefined> {
    const byClusterQueue = new Map<string, Workload[]>();
    const byLocalQueue = new Map<string, Workload[]>();
    const localQueues = new Map<string, string>();
    for (const q of this.#seen.LocalQueue.values()) {
      localQueues.set(
        `${q.metadata.namespace}/${q.metadata.name}`,
        String(q.spec?.clusterQueue ?? ""),
      );
    }
    const capacities = new Map(
      [...this.#seen.ClusterQueue.values()].map((q) => {
        const capacity = capacityOf(q as unknown as Record<string, unknown>);
        return [capacity.name, capacity];
      }),
    );
    let retry = false;
    for (const workload of this.#workloads()) {
      const local = `${workload.namespace}/${workload.queue}`;
      byLocalQueue.set(local, [...byLocalQueue.get(local) ?? [], workload]);
      const clusterQueue = localQueues.get(local);
      const reason = clusterQueue === undefined
        ? `LocalQueue ${workload.queue} doesn't exist`
        : !capacities.has(clusterQueue)
        ? `ClusterQueue ${clusterQueue} doesn't exist`
        : undefined;
      if (reason) {
        if (workload.suspended) await this.#pending(workload, reason);
        continue;
      }
      byClusterQueue.set(clusterQueue!, [
        ...byClusterQueue.get(clusterQueue!) ?? [],
        workload,
      ]);
    }
    const admitted = new Set<string>();
    for (const [name, workloads] of byClusterQueue) {
      const decision = decide(workloads, capacities.get(name)!);
      for (const { workload, reason } of decision.pending) {
        await this.#pending(workload, reason);
      }
      for (const workload of decision.admit) {
        if (await this.#admit(workload, name)) admitted.add(workload.uid);
        else retry = true;
      }
    }
    retry = !(await this.#writeCounts(byLocalQueue, localQueues, admitted)) ||
      retry;
    return retry ? RETRY_MS : undefined;
  }

  /** The queued RayClusters and unfinished RayJobs. */
  #workloads(): Workload[] {
    const out: Workload[] = [];
    const add = (kind: "RayCluster" | "RayJob", o: Observed, spec: unknown) => {
      const queue = o.metadata.labels?.[QUEUE_LABEL];
      if (!queue) return;
      out.push({
        kind,
        namespace: o.metadata.namespace,
        name: o.metadata.name,
        uid: o.metadata.uid,
        creationTimestamp: o.metadata.creationTimestamp ?? "",
        seen: this.#firstSeen.get(o.metadata.uid) ?? 0,
        queue,
        suspended: o.spec?.suspend === true,
        request: clusterRequest(spec),
      });
    };
    for (const cluster of this.#seen.RayCluster.values()) {
      const owned = (cluster.metadata.ownerReferences ?? []).some((owner) =>
        owner.kind === "RayJob" || owner.kind === "RayService"
      );
      if (!owned) add("RayCluster", cluster, cluster.spec);
    }
    for (const job of this.#seen.RayJob.values()) {
      const state = job.status?.jobDeploymentStatus;
      if (state === "Complete" || state === "Failed") continue;
      add("RayJob", job, job.spec?.rayClusterSpec);
    }
    return out;
  }

  /** Records Kueue's reason on a waiting workload, once per reason. */
  async #pending(workload: Workload, reason: string): Promise<void> {
    if (this.#reasons.get(workload.uid) === reason) return;
    this.#reasons.set(workload.uid, reason);
    const object = this.#objectOf(workload);
    if (!object) return;
    await this.#events[workload.kind as "RayCluster" | "RayJob"].record(
      object,
      "Pending",
      reason,
    );
  }

  /**
   * Resumes a workload (spec.suspend false, at the resourceVersion seen);
   * false when the write lost a race (the next pass sees the new one).
   */
  async #admit(workload: Workload, clusterQueue: string): Promise<boolean> {
    const object = this.#objectOf(workload);
    if (!object) return true;
    const client = workload.kind === "RayJob" ? this.#jobs : this.#clusters;
    const next = structuredClone(object);
    next.spec = { ...next.spec, suspend: false };
    const { status } = await client.replaceObject(client.plural, next);
    if (status === 404) return true;
    if (status !== 200) return false;
    this.#reasons.delete(workload.uid);
    this.#log?.info("Admitted workload", {
      kind: workload.kind,
      namespace: workload.namespace,
      name: workload.name,
      clusterQueue,
    });
    await this.#events[workload.kind as "RayCluster" | "RayJob"].record(
      object,
      "Started",
      `Admitted by clusterQueue ${clusterQueue}`,
    );
    return true;
  }

  #objectOf(workload: Workload): Observed | undefined {
    return this.#seen[workload.kind as "RayCluster" | "RayJob"].get(
      workload.uid,
    );
  }

  /**
   * Writes status.pendingWorkloads and admittedWorkloads of the queues
   * whose counts changed; false when a write lost a race.
   */
  async #writeCounts(
    byLocalQueue: Map<string, Workload[]>,
    localQueues: Map<string, string>,
    admitted: Set<string>,
  ): Promise<boolean> {
    const counts = new Map<string, { pending: number; admitted: number }>();
    const count = (key: string, workloads: Workload[]) => {
      const c = counts.get(key) ?? { pending: 0, admitted: 0 };
      for (const w of workloads) {
        if (w.suspended && !admitted.has(w.uid)) c.pending++;
        else c.admitted++;
      }
      counts.set(key, c);
    };
    for (const [local, workloads] of byLocalQueue) {
      count(`LocalQueue:${local}`, workloads);
      const clusterQueue = localQueues.get(local);
      if (clusterQueue) count(`ClusterQueue:${clusterQueue}`, workloads);
    }
    let ok = true;
    const queues: [Kind, ApiClient, string][] = [
      ["LocalQueue", this.#localQueues, ""],
      ["ClusterQueue", this.#clusterQueues, ""],
    ];
    for (const [kind, client] of queues) {
      for (const q of this.#seen[kind].values()) {
        const key = kind === "LocalQueue"
          ? `LocalQueue:${q.metadata.namespace}/${q.metadata.name}`
          : `ClusterQueue:${q.metadata.name}`;
        const c = counts.get(key) ?? { pending: 0, admitted: 0 };
        ok = await this.#writeStatus(client, q, c) && ok;
      }
    }
    return ok;
  }

  async #writeStatus(
    client: ApiClient,
    queue: Observed,
    c: { pending: number; admitted: number },
  ): Promise<boolean> {
    const status = queue.status ?? {};
    if (
      status.pendingWorkloads === c.pending &&
      status.admittedWorkloads === c.admitted
    ) return true;
    const next = structuredClone(queue);
    next.status = {
      ...status,
      pendingWorkloads: c.pending,
      admittedWorkloads: c.admitted,
      reservingWorkloads: c.admitted,
    };
    const { namespace, name } = queue.metadata;
    const path = namespace
      ? `${client.collection.replace(/\/[^/]+$/, "")}/namespaces/${
        encodeURIComponent(namespace)
      }/${client.plural}/${encodeURIComponent(name)}/status`
      : `${client.collection}/${encodeURIComponent(name)}/status`;
    const response = await fetch(`${client.server}${path}`, {
      method: "PUT",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(next),
    });
    await response.body?.cancel();
    return response.status === 200 || response.status === 404;
  }
}

/** Runs a simulated Kueue until `options.signal` aborts. */
export async function runSimulatedKueue(
  clusters: ApiClient,
  options: SimulatedKueueOptions,
): Promise<void> {
  await new SimulatedKueue(clusters, options.log).run(options);
}
