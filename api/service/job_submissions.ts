/**
 * The handlers of RayJobSubmissionService: jobs on a ready cluster, through
 * its Ray dashboard's job API (DashboardJobApi, domain/dashboard_ports.ts), reached as
 * --cluster-access says.
 *
 * The dispatcher has already checked the policy verb `proxy` on clusters in
 * the namespace (a job runs code on the cluster, as the dashboard can).
 * Each handler then validates the cluster's name and the submission id
 * (code 3, naming the field), reads the cluster from the orchestrator
 * (code 5 when there is none), refuses one that is not ready (code 9 with
 * its state), applies `owners: only` as the dashboard proxy does, and only
 * then talks to the dashboard. The dispatcher audits and measures the call.
 */
import { Code, ServiceError } from "../../domain/errors.ts";
import {
  checkReady,
  DASHBOARD_PORT,
  headServiceOf,
} from "../../domain/cluster_addresses.ts";
import {
  bytesOfBase64,
  clusterNameProblem,
  jobSubmissionInfoOf,
  packageNameProblem,
  submissionIdProblem,
  submitRequestOf,
  TERMINAL_JOB_STATUSES,
  throwIfProblems,
} from "../../domain/job_submissions.ts";
import type { Orchestrator } from "../../domain/ports.ts";
import type {
  DeleteRayJobSubmissionRequest,
  GetJobDetailsRequest,
  GetJobLogReply,
  GetJobLogRequest,
  JobSubmissionInfo,
  ListJobDetailsRequest,
  ListJobSubmissionInfo,
  StopRayJobSubmissionRequest,
  SubmitRayJobReply,
  SubmitRayJobRequest,
  UploadJobPackageRequest,
  WatchJobLogRequest,
  WatchJobLogResponse,
} from "../../domain/types.ts";
import type {
  DashboardCall,
  DashboardJobApi,
} from "../../domain/dashboard_ports.ts";
import { checkOwner } from "../auth/owners.ts";
import type { CallContext, NamespaceScope } from "./rpcs.ts";

type NamespaceCall = CallContext<NamespaceScope>;

export interface JobSubmissionOptions {
  orchestrator: Orchestrator;
  /** The dashboards' job API; without it every method is UNIMPLEMENTED. */
  jobs?: DashboardJobApi;
  /** How often WatchJobLog reads the logs again; 500 ms. */
  logPollMs?: number;
}

/** The request fields that say which cluster and which job. */
interface JobKey {
  clustername: string;
  submissionid?: string;
}

export class JobSubmissionHandlers {
  readonly #o: JobSubmissionOptions;

  constructor(options: JobSubmissionOptions) {
    this.#o = options;
  }

  async submitRayJob(
    request: SubmitRayJobRequest,
    call: NamespaceCall,
  ): Promise<SubmitRayJobReply> {
    throwIfProblems(call.action, [[
      "clustername",
      clusterNameProblem(request.clustername),
    ]]);
    const job = submitRequestOf(request.jobsubmission, call.action);
    const target = await this.#target(request, call);
    return { submissionId: await this.#jobs(call).submit(target, job) };
  }

  async getJobDetails(
    request: GetJobDetailsRequest,
    call: NamespaceCall,
  ): Promise<JobSubmissionInfo> {
    const target = await this.#target(request, call);
    const job = await this.#jobs(call).get(target, request.submissionid);
    return jobSubmissionInfoOf(job);
  }

  async getJobLog(
    request: GetJobLogRequest,
    call: NamespaceCall,
  ): Promise<GetJobLogReply> {
    const target = await this.#target(request, call);
    return { log: await this.#jobs(call).logs(target, request.submissionid) };
  }

  async listJobDetails(
    request: ListJobDetailsRequest,
    call: NamespaceCall,
  ): Promise<ListJobSubmissionInfo> {
    const target = await this.#target(request, call);
    const jobs = await this.#jobs(call).list(target);
    return { submissions: jobs.map(jobSubmissionInfoOf) };
  }

  async stopRayJob(
    request: StopRayJobSubmissionRequest,
    call: NamespaceCall,
  ): Promise<Record<string, never>> {
    const target = await this.#target(request, call);
    await this.#jobs(call).stop(target, request.submissionid);
    return {};
  }

  async deleteRayJob(
    request: DeleteRayJobSubmissionRequest,
    call: NamespaceCall,
  ): Promise<Record<string, never>> {
    const target = await this.#target(request, call);
    await this.#jobs(call).delete(target, request.submissionid);
    return {};
  }

  async uploadJobPackage(
    request: UploadJobPackageRequest,
    call: NamespaceCall,
  ): Promise<Record<string, never>> {
    const zip = request.content === ""
      ? undefined
      : bytesOfBase64(request.content);
    throwIfProblems(call.action, [
      ["clustername", clusterNameProblem(request.clustername)],
      ["name", packageNameProblem(request.name)],
      [
        "content",
        request.content === ""
          ? "is required"
          : zip === undefined
          ? "is not base64"
          : undefined,
      ],
    ]);
    const target = await this.#target(request, call);
    await this.#jobs(call).uploadPackage(target, request.name, zip!);
    return {};
  }

  /**
   * The job's logs as they grow: checks as every method does, then a
   * JobLogFollower.
   */
  async watchJobLog(
    request: WatchJobLogRequest,
    call: NamespaceCall,
  ): Promise<AsyncIterableIterator<WatchJobLogResponse>> {
    const target = await this.#target(request, call);
    // The first read happens here, so that a job that does not exist is
    // the call's error rather than the stream's.
    const first = await this.#jobs(call).get(target, request.submissionid);
    return new JobLogFollower({
      jobs: this.#jobs(call),
      target: { ...target, signal: undefined },
      id: request.submissionid,
      status: first.status ?? "",
      pollMs: this.#o.logPollMs ?? 500,
    });
  }

  #jobs(call: NamespaceCall): DashboardJobApi {
    if (!this.#o.jobs) {
      throw new ServiceError(
        Code.UNIMPLEMENTED,
        `${call.action}: job submission needs the dashboard proxy, which this Corral runs without`,
      );
    }
    return this.#o.jobs;
  }

  /**
   * Where the request's cluster's dashboard is, after the checks in the
   * module's comment.
   */
  async #target(key: JobKey, call: NamespaceCall): Promise<DashboardCall> {
    const { namespace } = call.scope;
    throwIfProblems(call.action, [
      ["clustername", clusterNameProblem(key.clustername)],
      ...(key.submissionid === undefined ? [] : [[
        "submissionid",
        submissionIdProblem(key.submissionid),
      ] as [string, string | undefined]]),
    ]);
    this.#jobs(call);
    const cluster = await this.#o.orchestrator.clusters.get(
      namespace,
      key.clustername,
      call.kube,
    ).catch((error) => {
      // The orchestrator's message speaks of getting the cluster; the
      // caller asked for something else of it.
      if (error instanceof ServiceError && error.code === Code.NOT_FOUND) {
        throw new ServiceError(
          Code.NOT_FOUND,
          `${call.action}: cluster "${namespace}/${key.clustername}" not found`,
          { cause: error },
        );
      }
      throw error;
    });
    checkReady(cluster, call.action);
    checkOwner(call, cluster, {
      resource: "clusters",
      doing: "run jobs on a cluster",
    });
    return {
      dashboard: {
        namespace,
        name: headServiceOf(cluster),
        port: DASHBOARD_PORT,
      },
      action: call.action,
      signal: call.kube.signal,
    };
  }
}

/** What a JobLogFollower reads, and how often. */
export interface LogFollow {
  jobs: DashboardJobApi;
  target: DashboardCall;
  id: string;
  /** The job's status when the follow began. */
  status: string;
  pollMs: number;
}

/**
 * A job's logs as a stream: what it logged so far, then what is new each
 * time the logs are read again (every `pollMs`, polling GET
 * /api/jobs/{id}/logs rather than following the logs/tail WebSocket, so
 * that it works the same through the API server's service proxy, which
 * Corral reaches with a plain fetch), sent only when something changed.
 * The status is read before the logs: once it is terminal, the logs read
 * after it are complete, and that answer, with the final status, is the
 * last. A dashboard error ends the stream with it.
 *
 * Its own signal, not the call's (the dispatcher ends that one when the
 * handler returns the stream): return() aborts the wait and the request
 * in progress, so a client that goes away leaves no timer or fetch behind.
 */
export class JobLogFollower
  implements AsyncIterableIterator<WatchJobLogResponse> {
  readonly #stopped = new AbortController();
  readonly #answers: AsyncGenerator<WatchJobLogResponse>;

  constructor(follow: LogFollow) {
    this.#answers = this.#follow({
      ...follow,
      target: { ...follow.target, signal: this.#stopped.signal },
    });
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<WatchJobLogResponse> {
    return this;
  }

  next(): Promise<IteratorResult<WatchJobLogResponse>> {
    return this.#answers.next();
  }

  async return(): Promise<IteratorResult<WatchJobLogResponse>> {
    this.#stopped.abort();
    return await this.#answers.return(undefined);
  }

  async *#follow(follow: LogFollow): AsyncGenerator<WatchJobLogResponse> {
    try {
      yield* followLog(follow, this.#stopped.signal);
    } catch (error) {
      // Stopped by return(): the stream's end, not an error.
      if (!this.#stopped.signal.aborted) throw error;
    }
  }
}

async function* followLog(
  follow: LogFollow,
  stopped: AbortSignal,
): AsyncGenerator<WatchJobLogResponse> {
  const { jobs, target, id, pollMs } = follow;
  let sent = 0;
  let status = follow.status;
  let first = true;
  while (true) {
    const log = await jobs.logs(target, id);
    const ended = TERMINAL_JOB_STATUSES.has(status);
    // Logs never shrink while a job lives; if they did (another job of the
    // same id), they are sent whole.
    const fresh = log.length >= sent ? log.slice(sent) : log;
    sent = log.length;
    if (first || fresh !== "" || ended) yield { log: fresh, status };
    first = false;
    if (ended) return;
    await pause(pollMs, stopped);
    status = (await jobs.get(target, id)).status ?? status;
  }
}

/** Waits `ms`, or rejects as soon as `signal` aborts. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", aborted);
      resolve();
    }, ms);
    const aborted = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener("abort", aborted, { once: true });
  });
}
