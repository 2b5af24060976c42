/**
 * The simulated operator's RayJob controller: KubeRay v1.7.0's
 * rayjob_controller.go state machine over the Kubernetes API, with the
 * Ray side simulated (ray_job_status.ts). Each reconcile reads the job,
 * takes the step its status.jobDeploymentStatus calls for and writes the
 * status only when the real controller would:
 *
 * - "" (New): job id, cluster name, start time, Initializing;
 * - Initializing: suspend -> Suspending; past the deadline -> Failed
 *   (DeadlineExceeded); creates the cluster from spec.rayClusterSpec
 *   (owned by the job, with its labels), or finds the one the
 *   clusterSelector names; once that cluster is ready, the dashboard URL,
 *   in K8sJobMode the submitter (its batch/v1 Job and Pod, submitter.ts)
 *   and Running;
 * - Running: the Ray job's PENDING, RUNNING and its end, one per delay:
 *   Complete, or Failed (AppFailed); the submitter's pod log follows it;
 * - Suspending: deletes the cluster and the submitter's Job, then
 *   Suspended with no cluster;
 *   Suspended: back to New when spec.suspend is cleared;
 * - Complete/Failed: with shutdownAfterJobFinishes, ttlSecondsAfterFinished
 *   after endTime, deletes the cluster it created, or the RayJob itself
 *   when the operator runs with DELETE_RAYJOB_CR_AFTER_JOB_FINISHES
 *   (`deleteJobAfterFinishes`); a clusterSelector job's cluster never.
 *
 * The controller's finalizer (ray.io/rayjob-finalizer) is added to a new
 * RayJob and removed once it is being deleted, so a delete answers the job
 * marked for deletion and it goes a moment later, as with the operator.
 *
 * Events are the controller's (CreatedRayCluster, DeletedRayCluster,
 * CreatedRayJobSubmitter, RayClusterNotFound, InvalidRayJobSpec, ...).
 */

import type { Logger } from "../../domain/log.ts";
import { JobError } from "../dashboard/jobs.ts";
import type { DashboardPool } from "../dashboard/pool.ts";
import type { ApiClient, KubeResource } from "./api_client.ts";
import type { EventRecorder } from "./events.ts";
import { holds, setFinalizer } from "./finalizers.ts";
import {
  advanceRayJob,
  deadlineExceeded,
  deadlineLeftMs,
  initialStatus,
  isDeploymentTerminal,
  jobSpecProblem,
  type ObservedJob,
  type RayJobStatus,
  type SimulatedRayJob,
  statusFromRayJob,
  statusToWrite,
  suspendedStatus,
  usesClusterSelector,
} from "./ray_job_status.ts";
import { SimulatedSubmitter } from "./submitter.ts";

export const RAY_JOBS = "rayjobs";

/** RayJobStopJobFinalizer: held until the operator has stopped the job. */
export const FINALIZER = "ray.io/rayjob-finalizer";

/** RayJobDefaultRequeueDuration: how often an unfinished step is retried. */
const REQUEUE_MS = 3000;

const DASHBOARD_PORT = "8265";

export interface RayJobControllerOptions {
  /** Delay between the steps of a Ray job (PENDING, RUNNING, its end). */
  delayMs: number;
  /** DELETE_RAYJOB_CR_AFTER_JOB_FINISHES: the TTL deletes the RayJob. */
  deleteJobAfterFinishes?: boolean;
  /**
   * The simulated dashboards: a RayJob's entrypoint is submitted to its
   * cluster's, as status.jobId, so its logs can be read there.
   */
  dashboards?: DashboardPool;
  log?: Logger;
}

/** What one step decided: the next status and when to come back. */
interface Step {
  status: RayJobStatus;
  requeueMs?: number;
}

export class RayJobController {
  #clusters: ApiClient;
  #events: EventRecorder;
  #options: RayJobControllerOptions;
  /** The simulated dashboard's Ray jobs, by RayJob uid. */
  #rayJobs = new Map<string, SimulatedRayJob>();
  /** RayJobs (by uid) whose submitter Kubernetes Job exists. */
  #submitters = new Set<string>();
  /** What the submitters wrote: their Jobs, pods and logs. */
  #submitter: SimulatedSubmitter;

  /** `clusters` is the client of the RayClusters (same group and version). */
  constructor(
    clusters: ApiClient,
    events: EventRecorder,
    options: RayJobControllerOptions,
  ) {
    this.#clusters = clusters;
    this.#events = events;
    this.#options = options;
    this.#submitter = new SimulatedSubmitter(clusters);
  }

  /** Reconciles the RayJob `namespace/name`; resolves to a requeue delay. */
  async reconcile(key: string): Promise<number | undefined> {
    const [namespace, name] = key.split("/");
    const { status, object: read } = await this.#clusters.getObject<
      ObservedJob
    >(RAY_JOBS, namespace, name);
    if (status === 404) return undefined;
    let job = read;
    if (!job) throw new Error(`Reading RayJob ${key} answered HTTP ${status}`);
    if (job.metadata.deletionTimestamp) return await this.#release(job);
    const problem = jobSpecProblem(job);
    if (problem) return await this.#failValidation(job, problem);
    if (
      !job.status?.jobDeploymentStatus &&
      !holds(job, FINALIZER)
    ) {
      const held = await setFinalizer(
        this.#clusters,
        RAY_JOBS,
        job,
        FINALIZER,
        true,
      );
      if (!held) return 0;
      job = held;
    }
    const now = new Date();
    const step = await this.#step(job, now);
    const old = job.status ?? {};
    const written = statusToWrite(old, step.status, now);
    if (written) {
      const answer = await this.#clusters.replaceStatus(RAY_JOBS, {
        ...job,
        status: written,
      });
      if (answer.status === 409) return 0;
      if (answer.status !== 200) {
        throw new Error(
          `Writing RayJob ${key} status answered HTTP ${answer.status}`,
        );
      }
      this.#options.log?.info("Updated job status", {
        namespace,
        name,
        jobDeploymentStatus: written.jobDeploymentStatus ?? "",
        jobStatus: written.jobStatus ?? "",
      });
      // The real controller requeues after every write; the write's own
      // watch event would too, this does not wait for it.
      return step.requeueMs ?? 0;
    }
    return step.requeueMs;
  }

  /**
   * A RayJob being deleted: its Ray job stopped (forgotten, when it has not
   * ended) and the finalizer removed, which lets the delete finish.
   */
  async #release(job: ObservedJob): Promise<number | undefined> {
    if (!holds(job, FINALIZER)) return undefined;
    this.#rayJobs.delete(job.metadata.uid);
    return (await setFinalizer(this.#clusters, RAY_JOBS, job, FINALIZER, false))
      ? undefined
      : 0;
  }

  /** Forgets the simulated Ray job of a RayJob gone. */
  forget(uid: string): void {
    this.#rayJobs.delete(uid);
    this.#submitters.delete(uid);
    this.#submitter.forget(uid);
  }

  async #step(job: ObservedJob, now: Date): Promise<Step> {
    const status = job.status ?? {};
    switch (status.jobDeploymentStatus ?? "") {
      case "":
        return { status: initialStatus(job, now) };
      case "Initializing":
        return await this.#initializing(job, now);
      case "Waiting":
        return job.spec?.jobId
          ? {
            status: {
              ...status,
              jobId: job.spec.jobId,
              jobDeploymentStatus: "Running",
            },
          }
          : { status, requeueMs: REQUEUE_MS };
      case "Running":
        return await this.#running(job, now);
      case "Suspending":
      case "Retrying":
        return await this.#suspending(job);
      case "Suspended":
        return job.spec?.suspend
          ? { status }
          : { status: { ...status, jobStatus: "", jobDeploymentStatus: "" } };
      case "Complete":
      case "Failed":
        return { status, requeueMs: await this.#finished(job, now) };
      default:
        return { status };
    }
  }

  /** Suspend, deadline, or the cluster: created, found, or ready. */
  async #initializing(job: ObservedJob, now: Date): Promise<Step> {
    const status = job.status ?? {};
    const interrupted = this.#interruption(job, now);
    if (interrupted) return interrupted;
    const cluster = await this.#getOrCreateCluster(job);
    const poll = Math.max(
      0,
      Math.min(REQUEUE_MS, deadlineLeftMs(job, now) ?? REQUEUE_MS),
    );
    if (!cluster) return { status, requeueMs: poll };
    const clusterStatus = (cluster.status ?? {}) as Record<string, unknown>;
    if (!status.dashboardURL && clusterStatus.state !== "ready") {
      // The cluster's change requeues the job too (controllers.ts); the
      // poll is for the deadline, and for a cluster never made ready.
      return {
        status: { ...status, rayClusterStatus: clusterStatus },
        requeueMs: poll,
      };
    }
    const endpoints = (clusterStatus.endpoints ?? {}) as Record<string, string>;
    const next: RayJobStatus = {
      ...status,
      dashboardURL: status.dashboardURL ||
        `${cluster.metadata.name}-head-svc.${cluster.metadata.namespace}.svc.cluster.local:${
          endpoints.dashboard ?? DASHBOARD_PORT
        }`,
    };
    const mode = job.spec?.submissionMode || "K8sJobMode";
    if (mode === "InteractiveMode") {
      return { status: { ...next, jobDeploymentStatus: "Waiting" } };
    }
    if (mode === "K8sJobMode" && !this.#submitters.has(job.metadata.uid)) {
      const { namespace, name } = job.metadata;
      const made = await this.#submitter.create(job, next.dashboardURL ?? "");
      if (!made.created) {
        await this.#events.record(
          job,
          "FailedToCreateRayJobSubmitter",
          `Failed to create new Kubernetes Job ${namespace}/${name}: ${made.reason}`,
          "Warning",
        );
        return { status: next, requeueMs: REQUEUE_MS };
      }
      this.#submitters.add(job.metadata.uid);
      await this.#events.record(
        job,
        "CreatedRayJobSubmitter",
        `Created Kubernetes Job ${namespace}/${name}`,
      );
    }
    return { status: { ...next, jobDeploymentStatus: "Running" } };
  }

  /** The Ray job one step on, or suspend, or the deadline. */
  async #running(job: ObservedJob, now: Date): Promise<Step> {
    const interrupted = this.#interruption(job, now);
    if (interrupted) return interrupted;
    const cluster = await this.#getOrCreateCluster(job);
    const status = job.status ?? {};
    const deadline = deadlineLeftMs(job, now) ?? Infinity;
    if (!cluster) {
      return { status, requeueMs: Math.min(REQUEUE_MS, deadline) };
    }
    const { uid } = job.metadata;
    if (!this.#rayJobs.has(uid)) this.#submitToDashboard(job, cluster);
    const rayJob = advanceRayJob(
      this.#rayJobs.get(uid),
      job.spec?.entrypoint,
      this.#options.delayMs,
      now.getTime(),
    );
    this.#rayJobs.set(uid, rayJob);
    await this.#submitter.follow(job, rayJob);
    const next = statusFromRayJob(status, rayJob);
    next.rayClusterStatus = (cluster.status ?? {}) as Record<string, unknown>;
    if (isDeploymentTerminal(next.jobDeploymentStatus)) {
      this.#rayJobs.delete(uid);
      return { status: next };
    }
    const stepLeft = rayJob.since + this.#options.delayMs - now.getTime();
    return {
      status: next,
      requeueMs: Math.max(0, Math.min(stepLeft, deadline)),
    };
  }

  /**
   * Submits the RayJob's entrypoint to its cluster's simulated dashboard
   * with status.jobId as submission id, as the submitter does; the RayJob's
   * status still follows advanceRayJob, the dashboard's run being a second
   * simulation of the same entrypoint (its logs and end are its own). A
   * submission id already there (the operator resumed) is left as it is.
   */
  #submitToDashboard(job: ObservedJob, cluster: KubeResource): void {
    const dashboard = this.#options.dashboards?.get(cluster.metadata.uid);
    const submissionId = job.status?.jobId;
    const entrypoint = job.spec?.entrypoint;
    if (!dashboard || !submissionId || !entrypoint) return;
    try {
      dashboard.jobs.submit({
        entrypoint,
        submissionId,
      });
    } catch (error) {
      if (!(error instanceof JobError)) throw error;
    }
  }

  /** Suspending (spec.suspend) or Failed (past the deadline), if either. */
  #interruption(job: ObservedJob, now: Date): Step | undefined {
    if (job.spec?.suspend) {
      return {
        status: { ...job.status, jobDeploymentStatus: "Suspending" },
      };
    }
    const left = deadlineLeftMs(job, now);
    if (left !== undefined && left <= 0) {
      return { status: deadlineExceeded(job) };
    }
    return undefined;
  }

  /** Deletes the cluster and the submitter; Suspended once both are gone. */
  async #suspending(job: ObservedJob): Promise<Step> {
    const status = job.status ?? {};
    const clusterGone = await this.#deleteCluster(job);
    const { uid, namespace, name } = job.metadata;
    if (this.#submitters.delete(uid)) {
      await this.#submitter.delete(job);
      await this.#events.record(
        job,
        "DeletedRayJobSubmitter",
        `Deleted submitter K8s Job ${namespace}/${name}`,
      );
    }
    if (!clusterGone) return { status, requeueMs: 0 };
    this.#rayJobs.delete(uid);
    return { status: suspendedStatus(status) };
  }

  /**
   * handleShutdownAfterJobFinishes: ttlSecondsAfterFinished after endTime,
   * the cluster (or the RayJob) goes; resolves to the time left, if any.
   */
  async #finished(job: ObservedJob, now: Date): Promise<number | undefined> {
    this.#submitters.delete(job.metadata.uid);
    if (usesClusterSelector(job) || !job.spec?.shutdownAfterJobFinishes) {
      return undefined;
    }
    const end = Date.parse(job.status?.endTime ?? "");
    const ttlMs = (job.spec.ttlSecondsAfterFinished ?? 0) * 1000;
    const left = (Number.isNaN(end) ? now.getTime() : end) + ttlMs -
      now.getTime();
    if (left > 0) return left;
    if (this.#options.deleteJobAfterFinishes) {
      const status = await this.#clusters.deleteObject(RAY_JOBS, job.metadata);
      if (status === 200) {
        this.#options.log?.info("Deleted job after it finished", {
          namespace: job.metadata.namespace,
          name: job.metadata.name,
        });
      }
      return undefined;
    }
    await this.#deleteCluster(job);
    return undefined;
  }

  /**
   * deleteClusterResources: true once the job's cluster is gone; deletes
   * it (recording DeletedRayCluster) when it is there. A clusterSelector
   * job's cluster is never deleted.
   */
  async #deleteCluster(job: ObservedJob): Promise<boolean> {
    if (usesClusterSelector(job)) return true;
    const name = job.status?.rayClusterName;
    const { namespace } = job.metadata;
    if (!name) return true;
    const found = await this.#clusters.getCluster(namespace, name);
    if (found.status === 404) return true;
    const cluster = found.cluster as KubeResource | undefined;
    if (!cluster) throw new Error(`Reading cluster answered ${found.status}`);
    if (cluster.metadata.deletionTimestamp) return false;
    const status = await this.#clusters.deleteObject(
      this.#clusters.plural,
      cluster.metadata,
    );
    if (status !== 200 && status !== 202 && status !== 404) {
      await this.#events.record(
        job,
        "FailedToDeleteRayCluster",
        `Failed to delete cluster ${namespace}/${name}: HTTP ${status}`,
        "Warning",
      );
      return false;
    }
    await this.#events.record(
      job,
      "DeletedRayCluster",
      `Deleted cluster ${namespace}/${name}`,
    );
    return false;
  }

  /**
   * getOrCreateRayClusterInstance: the job's cluster; created from
   * spec.rayClusterSpec when missing, unless the job names an existing
   * one (then RayClusterNotFound, and undefined).
   */
  async #getOrCreateCluster(
    job: ObservedJob,
  ): Promise<KubeResource | undefined> {
    const { namespace } = job.metadata;
    const name = job.status?.rayClusterName ?? "";
    const found = await this.#clusters.getCluster(namespace, name);
    if (found.cluster) return found.cluster as KubeResource;
    if (found.status !== 404) {
      throw new Error(
        `Reading cluster ${namespace}/${name} answered HTTP ${found.status}`,
      );
    }
    if (usesClusterSelector(job)) {
      await this.#events.record(
        job,
        "RayClusterNotFound",
        `RayCluster ${namespace}/${name} set in the clusterSelector is not found. It must be created manually`,
        "Warning",
      );
      return undefined;
    }
    const created = await this.#clusters.createObject(
      this.#clusters.plural,
      namespace,
      this.#clusterFor(job, name),
    );
    if (created.status !== 201) {
      const detail = (created.body as { message?: string })?.message ??
        `HTTP ${created.status}`;
      await this.#events.record(
        job,
        "FailedToCreateRayCluster",
        `Failed to create RayCluster ${namespace}/${name}: ${detail}`,
        "Warning",
      );
      return undefined;
    }
    await this.#events.record(
      job,
      "CreatedRayCluster",
      `Created RayCluster ${namespace}/${name}`,
    );
    return created.body as KubeResource;
  }

  /** constructRayClusterForRayJob: the spec, labels, annotations, owner. */
  #clusterFor(job: ObservedJob, name: string): Record<string, unknown> {
    const { metadata } = job;
    const annotations = { ...metadata.annotations };
    return {
      apiVersion: this.#clusters.apiVersion,
      kind: "RayCluster",
      metadata: {
        name,
        namespace: metadata.namespace,
        labels: {
          ...metadata.labels,
          "ray.io/originated-from-cr-name": metadata.name,
          "ray.io/originated-from-crd": "RayJob",
          "ray.io/job-submission-mode": job.spec?.submissionMode ??
            "K8sJobMode",
        },
        ...(Object.keys(annotations).length > 0 ? { annotations } : {}),
        ownerReferences: [{
          apiVersion: job.apiVersion ?? this.#clusters.apiVersion,
          kind: "RayJob",
          name: metadata.name,
          uid: metadata.uid,
          controller: true,
          blockOwnerDeletion: true,
        }],
      },
      spec: structuredClone(job.spec?.rayClusterSpec ?? {}),
    };
  }

  /** ValidationFailed with the rule broken, and InvalidRayJobSpec. */
  async #failValidation(
    job: ObservedJob,
    problem: string,
  ): Promise<undefined> {
    const status = job.status ?? {};
    if (
      status.jobDeploymentStatus === "ValidationFailed" &&
      status.message === problem
    ) {
      return undefined;
    }
    const { namespace, name } = job.metadata;
    await this.#events.record(
      job,
      "InvalidRayJobSpec",
      `${namespace}/${name}: ${problem}`,
      "Warning",
    );
    await this.#clusters.replaceStatus(RAY_JOBS, {
      ...job,
      status: {
        ...status,
        jobDeploymentStatus: "ValidationFailed",
        reason: "ValidationFailed",
        message: problem,
      },
    });
    return undefined;
  }
}
