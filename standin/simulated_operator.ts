/**
 * A simulated KubeRay operator for dev mode. It follows RayClusters through
 * the Kubernetes REST API (plain fetch, nothing stand-in specific, so it
 * behaves the same against any server speaking that API) and, `delayMs`
 * after it first sees a cluster without a state, does what the real
 * operator's first reconcile visibly does: records Normal Events on the
 * cluster, then sets `status.state` to `ready` and fills `status.endpoints`.
 * Later, `delayMs` after a ready cluster's worker groups ask for another
 * number of pods, it records the pods' Events and writes the status'
 * replica counts. The pods are simulated: their names are kept here.
 *
 * It runs RayJobs and RayServices too, as KubeRay v1.7.0's controllers do
 * (operator/ray_jobs.ts, operator/ray_services.ts; the RayJob's Ray job
 * and the RayService's Serve applications are simulated): at the same
 * group and version as the clusters, plurals rayjobs and rayservices.
 *
 * The parts, under operator/:
 * - informer.ts: the list and watch of RayClusters, and retries;
 * - scheduler.ts: the clusters seen, and when each is reconciled;
 * - reconciler.ts: what a reconcile writes (events.ts, endpoints.ts,
 *   head_service.ts and workers.ts say what the Events, endpoints, head
 *   Service and pods are);
 * - ../dashboard/: the simulated Ray dashboard of each ready cluster (the
 *   Ray job REST API), reached through its head Service;
 * - controllers.ts: the RayJob and RayService controllers, their informers
 *   and work queues (work_queue.ts);
 * - api_client.ts: the REST calls;
 * - kueue.ts, with `kueue`: a simulated Kueue admitting queued RayClusters
 *   and RayJobs by their LocalQueue's ClusterQueue (../kueue/).
 *
 * The watch request, the retry timer and every delay are owned by the
 * operator; stop() aborts and clears them and waits for requests in flight,
 * so nothing outlives it.
 */

import type { Logger } from "../domain/log.ts";
import { DashboardPool } from "./dashboard/pool.ts";
import { ApiClient } from "./operator/api_client.ts";
import { NodePortPool } from "./operator/endpoints.ts";
import { EventRecorder } from "./operator/events.ts";
import { runJobAndServiceControllers } from "./operator/controllers.ts";
import { runInformer } from "./operator/informer.ts";
import { runSimulatedKueue } from "./operator/kueue.ts";
import { RayClusterReconciler } from "./operator/reconciler.ts";
import { type OperatorActivity, Scheduler } from "./operator/scheduler.ts";

export type { OperatorActivity } from "./operator/scheduler.ts";

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
   * Time between the steps of a job run by a simulated Ray dashboard
   * (dashboard/jobs.ts); 500 ms.
   */
  jobStepMs?: number;
  /**
   * What ttlSecondsAfterFinished deletes of a finished RayJob with
   * shutdownAfterJobFinishes: its cluster (false, the operator's default)
   * or the RayJob itself, and its cluster with it (true, the operator's
   * DELETE_RAYJOB_CR_AFTER_JOB_FINISHES=true).
   */
  deleteJobAfterFinishes?: boolean;
  /**
   * Told, synchronously, of each step the operator takes, so a test can wait
   * for the step that proves something happened (or did not) instead of
   * sleeping.
   */
  onActivity?: (activity: OperatorActivity) => void;
  /**
   * Also run a simulated Kueue (operator/kueue.ts), for a server that
   * serves Kueue's queues (the stand-in's `kueue` option).
   */
  kueue?: boolean;
}

export interface SimulatedOperator {
  /** Stops watching, cancels pending work and waits for requests in flight. */
  stop(): Promise<void>;
}

/** Starts at once: the first list happens immediately. */
export function startSimulatedOperator(
  options: SimulatedOperatorOptions,
): SimulatedOperator {
  const log = options.logger;
  const api = new ApiClient(options.server, {
    group: options.group ?? "ray.io",
    version: options.version ?? "v1",
    plural: options.plural ?? "rayclusters",
  });
  const aborter = new AbortController();
  const nodePorts = new NodePortPool();
  const dashboards = new DashboardPool({ stepMs: options.jobStepMs });
  const scheduler = new Scheduler({
    reconciler: new RayClusterReconciler(
      api,
      new EventRecorder(api, log),
      nodePorts,
      dashboards,
      log,
    ),
    nodePorts,
    dashboards,
    delayMs: options.delayMs,
    signal: aborter.signal,
    onActivity: options.onActivity,
    log,
  });
  const retryIntervalMs = options.retryIntervalMs ?? 1000;
  const running = Promise.all([
    runInformer(api, scheduler, {
      retryIntervalMs,
      signal: aborter.signal,
      log,
    }),
    runJobAndServiceControllers(api, {
      delayMs: options.delayMs,
      retryIntervalMs,
      deleteJobAfterFinishes: options.deleteJobAfterFinishes,
      dashboards,
      signal: aborter.signal,
      log,
    }),
    options.kueue
      ? runSimulatedKueue(api, {
        retryIntervalMs,
        signal: aborter.signal,
        log: log?.with({ component: "simulated-kueue" }),
      })
      : undefined,
  ]);
  log?.debug("Started simulated operator", {
    server: api.server,
    delayMs: options.delayMs,
  });
  return {
    async stop() {
      aborter.abort();
      await running;
      await scheduler.stop();
      await dashboards.close();
    },
  };
}
