/**
 * The submitter of a K8sJobMode RayJob, as KubeRay v1.7.0 makes it and as
 * it runs: a batch/v1 Job named after the RayJob and owned by it (labels
 * ray.io/originated-from-cr-name, ray.io/originated-from-crd and
 * app.kubernetes.io/created-by, a pod template whose one container is
 * `ray-job-submitter` running `ray job submit ... -- <entrypoint>`), and
 * the Pod the Job controller would make of it (owned by the Job, with its
 * job-name and controller-uid labels), which the kubelet would run.
 *
 * Neither runs here: this module writes what they would. The pod is
 * Running once made; what `ray job submit` prints goes to its log (the
 * annotation the stand-in's pods/log serves, ../pod_logs.ts): the
 * submission's lines, then, as the simulated Ray job advances, the lines
 * a run of the entrypoint logs (../dashboard/jobs.ts runLines) and how it
 * ended; then the container terminates (exit code 0, or 1 when the job
 * failed) and the Job completes or fails. The log is the pod's, so it
 * outlives the RayJob's cluster and goes with the RayJob (through the
 * owner references, by garbage collection).
 *
 * What was written is kept by RayJob uid; an operator started again does
 * not take over the pods of the one before (they keep what they had).
 */

import { SUBMITTER_CONTAINER } from "../../domain/job_conversions.ts";
import { formatKubernetesTime } from "../../domain/timestamps.ts";
import { runLines } from "../dashboard/jobs.ts";
import {
  type LogLine,
  podLogAnnotation,
  SIMULATED_LOG_ANNOTATION,
} from "../pod_logs.ts";
import type { ApiClient, KubeResource } from "./api_client.ts";
import type { ObservedJob, SimulatedRayJob } from "./ray_job_status.ts";

const BATCH = "/apis/batch/v1";
const MERGE_PATCH = "application/merge-patch+json";

/** What was written of one RayJob's submitter. */
interface Written {
  namespace: string;
  jobName: string;
  podName: string;
  submissionId: string;
  lines: LogLine[];
  /** How many of the run's lines (and the end's) are among `lines`. */
  printed: number;
  /** The simulated Ray job's status the log was last written for. */
  stage: string;
  /** Whether the container has terminated. */
  ended: boolean;
}

/** The labels KubeRay puts on the submitter Job and its pod template. */
function submitterLabels(job: ObservedJob): Record<string, string> {
  return {
    "ray.io/originated-from-cr-name": job.metadata.name,
    "ray.io/originated-from-crd": "RayJob",
    "app.kubernetes.io/created-by": "kuberay-operator",
  };
}

/** The image of the job's head container, which the submitter runs too. */
function headImage(job: ObservedJob): string {
  const head = (job.spec?.rayClusterSpec as {
    headGroupSpec?: {
      template?: { spec?: { containers?: { image?: string }[] } };
    };
  } | undefined)?.headGroupSpec;
  return head?.template?.spec?.containers?.[0]?.image ?? "rayproject/ray";
}

/** The lines `ray job submit` prints before it tails the job's logs. */
function submissionLines(address: string, id: string): string[] {
  return [
    `Job submission server address: ${address}\n`,
    `Job '${id}' submitted successfully\n`,
    "Tailing logs until the job exits (disable with --no-wait):\n",
  ];
}

export class SimulatedSubmitter {
  #api: ApiClient;
  #written = new Map<string, Written>();

  constructor(api: ApiClient) {
    this.#api = api;
  }

  /**
   * Creates the Job and its running Pod, whose log starts with the
   * submission; `created: false` with the API server's message when it
   * refused either. A Job already there (made by an operator before this
   * one) is left as it is.
   */
  async create(
    job: ObservedJob,
    dashboardURL: string,
  ): Promise<{ created: true } | { created: false; reason: string }> {
    const { namespace, name, uid } = job.metadata;
    const submissionId = job.status?.jobId ?? "";
    const address = `http://${dashboardURL}`;
    const template = podTemplate(job, address, submissionId);
    const made = await this.#api.send(
      "POST",
      `${BATCH}/namespaces/${namespace}/jobs`,
      batchJobOf(job, template, this.#api.apiVersion),
    );
    if (made.status === 409) return { created: true };
    if (made.status !== 201) return refused(made);
    const batchJob = (made.body as KubeResource).metadata;
    const podName = `${name}-${batchJob.uid.slice(0, 5)}`;
    const pod = await this.#api.send(
      "POST",
      `/api/v1/namespaces/${namespace}/pods`,
      podOf(batchJob, podName, template),
    );
    if (pod.status !== 201) return refused(pod);
    const now = formatKubernetesTime();
    const written: Written = {
      namespace,
      jobName: name,
      podName,
      submissionId,
      lines: submissionLines(address, submissionId).map((text) => ({
        time: now,
        text,
      })),
      printed: 0,
      stage: "",
      ended: false,
    };
    this.#written.set(uid, written);
    await this.#writeLog(written);
    await this.#writeStatus(written, { running: { startedAt: now } });
    await this.#writeJobStatus(written, { startTime: now, active: 1 });
    return { created: true };
  }

  /**
   * Writes what the submitter printed by the time the Ray job reached
   * `rayJob`'s status, and, once it ended, the container's end and the
   * Job's.
   */
  async follow(job: ObservedJob, rayJob: SimulatedRayJob): Promise<void> {
    const written = this.#written.get(job.metadata.uid);
    if (!written || written.ended || written.stage === rayJob.status) return;
    const ended = rayJob.status === "SUCCEEDED" || rayJob.status === "FAILED";
    const run = runLines({ entrypoint: job.spec?.entrypoint ?? "" }, () => []);
    const printed = rayJob.status === "PENDING" ? [] : ended
      ? [
        ...run,
        `Job '${written.submissionId}' ${
          rayJob.status === "SUCCEEDED" ? "succeeded" : "failed"
        }\n`,
      ]
      : run.slice(0, -1);
    const now = formatKubernetesTime();
    for (const text of printed.slice(written.printed)) {
      written.lines.push({ time: now, text });
    }
    written.printed = Math.max(written.printed, printed.length);
    written.stage = rayJob.status;
    written.ended = ended;
    await this.#writeLog(written);
    if (ended) await this.#end(written, rayJob.status === "SUCCEEDED", now);
  }

  /** The container's end (exit code 0 or 1, as `ray job submit`'s), the Job's. */
  async #end(written: Written, succeeded: boolean, now: string): Promise<void> {
    const exitCode = succeeded ? 0 : 1;
    await this.#writeStatus(written, {
      terminated: {
        exitCode,
        reason: succeeded ? "Completed" : "Error",
        startedAt: written.lines[0]?.time ?? now,
        finishedAt: now,
      },
    });
    await this.#writeJobStatus(written, {
      active: 0,
      ...(succeeded ? { succeeded: 1, completionTime: now } : { failed: 1 }),
      conditions: [{
        type: succeeded ? "Complete" : "Failed",
        status: "True",
        lastTransitionTime: now,
        lastProbeTime: now,
      }],
    });
  }

  /**
   * Deletes the Job (its pod goes with it, by garbage collection), as
   * KubeRay does when the RayJob is suspended; the HTTP status.
   */
  async delete(job: ObservedJob): Promise<number> {
    const { namespace, name, uid } = job.metadata;
    this.#written.delete(uid);
    const answer = await this.#api.send(
      "DELETE",
      `${BATCH}/namespaces/${namespace}/jobs/${name}`,
      {
        apiVersion: "v1",
        kind: "DeleteOptions",
        propagationPolicy: "Background",
      },
    );
    return answer.status;
  }

  /** Forgets a RayJob gone. */
  forget(uid: string): void {
    this.#written.delete(uid);
  }

  async #writeLog(written: Written): Promise<void> {
    await this.#api.send(
      "PATCH",
      `/api/v1/namespaces/${written.namespace}/pods/${written.podName}`,
      {
        metadata: {
          annotations: {
            [SIMULATED_LOG_ANNOTATION]: podLogAnnotation({
              [SUBMITTER_CONTAINER]: written.lines,
            }),
          },
        },
      },
      MERGE_PATCH,
    );
  }

  async #writeStatus(
    written: Written,
    state: Record<string, unknown>,
  ): Promise<void> {
    const terminated = state.terminated as { exitCode: number } | undefined;
    const phase = terminated
      ? terminated.exitCode === 0 ? "Succeeded" : "Failed"
      : "Running";
    await this.#api.send(
      "PATCH",
      `/api/v1/namespaces/${written.namespace}/pods/${written.podName}/status`,
      {
        status: {
          phase,
          startTime: written.lines[0]?.time,
          containerStatuses: [{
            name: SUBMITTER_CONTAINER,
            ready: !terminated,
            started: !terminated,
            restartCount: 0,
            state,
          }],
        },
      },
      MERGE_PATCH,
    );
  }

  async #writeJobStatus(
    written: Written,
    status: Record<string, unknown>,
  ): Promise<void> {
    await this.#api.send(
      "PATCH",
      `${BATCH}/namespaces/${written.namespace}/jobs/${written.jobName}/status`,
      { status },
      MERGE_PATCH,
    );
  }
}

/** The submitter's pod template: its labels, one container. */
function podTemplate(job: ObservedJob, address: string, submissionId: string) {
  return {
    metadata: { labels: submitterLabels(job) },
    spec: {
      restartPolicy: "Never",
      containers: [{
        name: SUBMITTER_CONTAINER,
        image: headImage(job),
        command: ["ray", "job", "submit"],
        args: [
          "--address",
          address,
          "--submission-id",
          submissionId,
          "--",
          job.spec?.entrypoint ?? "",
        ],
      }],
    },
  };
}

type PodTemplate = ReturnType<typeof podTemplate>;

/** The submitter Job of `job`: its name, labels, owner and template. */
function batchJobOf(
  job: ObservedJob,
  template: PodTemplate,
  rayApiVersion: string,
): Record<string, unknown> {
  const { namespace, name, uid } = job.metadata;
  return {
    apiVersion: "batch/v1",
    kind: "Job",
    metadata: {
      name,
      namespace,
      labels: submitterLabels(job),
      ownerReferences: [{
        apiVersion: job.apiVersion ?? rayApiVersion,
        kind: "RayJob",
        name,
        uid,
        controller: true,
        blockOwnerDeletion: true,
      }],
    },
    spec: { backoffLimit: 2, template },
  };
}

/** The pod the Job controller would make of `batchJob`'s template. */
function podOf(
  batchJob: KubeResource["metadata"],
  podName: string,
  template: PodTemplate,
): Record<string, unknown> {
  const { namespace, name, uid } = batchJob;
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      name: podName,
      namespace,
      labels: {
        ...template.metadata.labels,
        "batch.kubernetes.io/controller-uid": uid,
        "batch.kubernetes.io/job-name": name,
        "controller-uid": uid,
        "job-name": name,
      },
      ownerReferences: [{
        apiVersion: "batch/v1",
        kind: "Job",
        name,
        uid,
        controller: true,
        blockOwnerDeletion: true,
      }],
    },
    spec: template.spec,
  };
}

/** A refused write, with the API server's message. */
function refused(
  answer: { status: number; body: unknown },
): { created: false; reason: string } {
  const message = (answer.body as { message?: string } | undefined)?.message;
  return { created: false, reason: message ?? `HTTP ${answer.status}` };
}
