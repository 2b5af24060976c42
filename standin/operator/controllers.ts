/**
 * The RayJob and RayService controllers, each with its work queue, fed as
 * controller-runtime feeds them: an informer on their own resource (every
 * change of a job or service reconciles it) and one on RayClusters (a
 * cluster's change reconciles the job or service that owns it, and the
 * jobs that name it in status.rayClusterName, i.e. clusterSelector jobs).
 */

import type { Logger } from "../../domain/log.ts";
import type { DashboardPool } from "../dashboard/pool.ts";
import type { ApiClient, KubeResource } from "./api_client.ts";
import { EventRecorder } from "./events.ts";
import { type ClusterHandler, runInformer } from "./informer.ts";
import { RAY_JOBS, RayJobController } from "./ray_jobs.ts";
import type { ObservedJob } from "./ray_job_status.ts";
import { RAY_SERVICES, RayServiceController } from "./ray_services.ts";
import { WorkQueue } from "./work_queue.ts";

export interface ControllerOptions {
  delayMs: number;
  retryIntervalMs: number;
  deleteJobAfterFinishes?: boolean;
  /** The clusters' simulated dashboards, where RayJobs are submitted. */
  dashboards?: DashboardPool;
  signal: AbortSignal;
  log?: Logger;
}

function keyOf(object: KubeResource): string {
  return `${object.metadata.namespace}/${object.metadata.name}`;
}

/**
 * Enqueues a job or service on each change of it, and forgets the
 * simulated state of one deleted.
 */
function ownHandler(
  queue: WorkQueue,
  forget: (uid: string) => void,
  seen?: Map<string, ObservedJob>,
): ClusterHandler<KubeResource> {
  return {
    listed(objects) {
      seen?.clear();
      for (const object of objects) this.observe(object);
    },
    observe(object) {
      seen?.set(object.metadata.uid, object as ObservedJob);
      queue.add(keyOf(object));
    },
    release(uid, object) {
      seen?.delete(uid);
      forget(uid);
      if (object) queue.add(keyOf(object));
    },
  };
}

/** Enqueues the owner of a changed cluster, and the jobs that name it. */
function clusterHandler(
  queues: Record<"RayJob" | "RayService", WorkQueue>,
  jobs: Map<string, ObservedJob>,
): ClusterHandler<KubeResource> {
  const touched = (cluster: KubeResource) => {
    const { namespace, name } = cluster.metadata;
    for (const owner of cluster.metadata.ownerReferences ?? []) {
      if (owner.kind === "RayJob" || owner.kind === "RayService") {
        queues[owner.kind].add(`${namespace}/${owner.name}`);
      }
    }
    for (const job of jobs.values()) {
      if (
        job.metadata.namespace === namespace &&
        job.status?.rayClusterName === name
      ) {
        queues.RayJob.add(keyOf(job));
      }
    }
  };
  return {
    listed(clusters) {
      clusters.forEach(touched);
    },
    observe: touched,
    release(_uid, cluster) {
      if (cluster) touched(cluster);
    },
  };
}

/** Starts both controllers; resolves when `options.signal` aborts and all ended. */
export async function runJobAndServiceControllers(
  clusters: ApiClient,
  options: ControllerOptions,
): Promise<void> {
  const { log, signal } = options;
  const jobController = new RayJobController(
    clusters,
    new EventRecorder(clusters, log, {
      kind: "RayJob",
      component: "rayjob-controller",
    }),
    options,
  );
  const serviceController = new RayServiceController(
    clusters,
    new EventRecorder(clusters, log, {
      kind: "RayService",
      component: "rayservice-controller",
    }),
    log,
  );
  const queues = {
    RayJob: new WorkQueue((key) => jobController.reconcile(key), log),
    RayService: new WorkQueue((key) => serviceController.reconcile(key), log),
  };
  const jobs = new Map<string, ObservedJob>();
  const informer = {
    retryIntervalMs: options.retryIntervalMs,
    signal,
    log,
    optional: true,
  };
  await Promise.all([
    runInformer<KubeResource>(
      clusters.forResource(RAY_JOBS),
      ownHandler(queues.RayJob, (uid) => jobController.forget(uid), jobs),
      informer,
    ),
    runInformer<KubeResource>(
      clusters.forResource(RAY_SERVICES),
      ownHandler(queues.RayService, (uid) => serviceController.forget(uid)),
      informer,
    ),
    runInformer<KubeResource>(
      clusters,
      clusterHandler(queues, jobs),
      informer,
    ),
  ]);
  await Promise.all([queues.RayJob.stop(), queues.RayService.stop()]);
}
