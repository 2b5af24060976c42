/**
 * The jobs of one simulated Ray dashboard: what Ray's job manager keeps of
 * a submitted job (its JobDetails, as the Ray Jobs REST API answers them)
 * and a simulated run of its entrypoint. A run is a few steps `stepMs`
 * apart: PENDING, then RUNNING with a log line per step (the entrypoint,
 * the working directory's files when a package was given, `Running...`),
 * then SUCCEEDED, or FAILED when the entrypoint ends in `exit <non-zero>`
 * (the rule the RayJob simulation follows, requestedExitCode); one that
 * ends in `sleep infinity` runs until it is stopped. Stopping a job ends
 * it STOPPED. Nothing is executed.
 *
 * The step timers are owned by the table: close() clears them, and a
 * follower of a job's logs is woken on every line and at the end.
 */

import { requestedExitCode } from "../operator/ray_job_status.ts";

/** A job's status, as Ray's JobStatus names them. */
export type JobStatus =
  | "PENDING"
  | "RUNNING"
  | "STOPPED"
  | "SUCCEEDED"
  | "FAILED";

const TERMINAL: ReadonlySet<JobStatus> = new Set([
  "STOPPED",
  "SUCCEEDED",
  "FAILED",
]);

/** Whether a job in `status` has ended. */
export function isTerminal(status: JobStatus): boolean {
  return TERMINAL.has(status);
}

/** What a submission asks for (Ray's JobSubmitRequest, checked). */
export interface JobRequest {
  entrypoint: string;
  submissionId?: string;
  runtimeEnv?: Record<string, unknown>;
  metadata?: Record<string, string>;
  entrypointNumCpus?: number;
  entrypointNumGpus?: number;
  entrypointMemory?: number;
  entrypointResources?: Record<string, number>;
}

/** Ray's JobDetails of a submission job, with snake_case keys. */
export interface JobDetails {
  type: "SUBMISSION";
  job_id: string | null;
  submission_id: string;
  driver_info: { id: string; node_ip_address: string; pid: string } | null;
  status: JobStatus;
  entrypoint: string;
  message: string;
  error_type: string | null;
  start_time: number;
  end_time: number | null;
  metadata: Record<string, string>;
  runtime_env: Record<string, unknown>;
  driver_agent_http_address: string | null;
  driver_node_id: string | null;
  driver_exit_code: number | null;
  entrypoint_num_cpus: number | null;
  entrypoint_num_gpus: number | null;
  entrypoint_memory: number | null;
  entrypoint_resources: Record<string, number> | null;
}

interface Job {
  details: JobDetails;
  logs: string[];
  /** The lines still to log while running, then the end. */
  script: string[];
  timer?: ReturnType<typeof setTimeout>;
}

const MESSAGES: Record<JobStatus, string> = {
  PENDING:
    "Job has not started yet. It may be waiting for the runtime environment to be set up.",
  RUNNING: "Job is currently running.",
  STOPPED: "Job was intentionally stopped.",
  SUCCEEDED: "Job finished successfully.",
  FAILED: "",
};

const ID_ALPHABET =
  "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";

/** A submission id as Ray generates one: `raysubmit_` and 16 characters. */
function newSubmissionId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return `raysubmit_${
    [...bytes].map((b) => ID_ALPHABET[b % ID_ALPHABET.length]).join("")
  }`;
}

export interface JobTableOptions {
  /** Time between a run's steps; 500 ms. */
  stepMs?: number;
  /** The file names of an uploaded package, by its URI; [] if unknown. */
  packageFiles: (uri: string) => string[] | undefined;
}

/**
 * The lines a simulated run of `request` logs, one per step: the
 * entrypoint, the working directory's files (as `packageFiles` knows them)
 * when a package was given, `Running...`, and how it ended. The RayJob
 * submitter's pod log (operator/submitter.ts) is made of them too.
 */
export function runLines(
  request: Pick<JobRequest, "entrypoint" | "runtimeEnv">,
  packageFiles: (uri: string) => string[] | undefined,
): string[] {
  const lines = [`Running entrypoint: ${request.entrypoint}\n`];
  const workingDir = request.runtimeEnv?.working_dir;
  if (typeof workingDir === "string") {
    const files = packageFiles(workingDir);
    lines.push(
      files
        ? `Working directory ${workingDir}: ${files.join(", ")}\n`
        : `Working directory ${workingDir}: not uploaded\n`,
    );
  }
  lines.push("Running...\n");
  if (runsUntilStopped(request.entrypoint)) return lines;
  const code = requestedExitCode(request.entrypoint);
  lines.push(code === 0 ? "Done.\n" : `Exited with code ${code}\n`);
  return lines;
}

/**
 * Whether a simulated run goes on until it is stopped: its entrypoint ends
 * in `sleep infinity` (what a test that stops a job runs, so that the job
 * cannot end first however slow the machine).
 */
export function runsUntilStopped(entrypoint: string | undefined): boolean {
  return /(?:^|[;&|\s])sleep\s+infinity\s*;?\s*$/.test(entrypoint ?? "");
}

/** Thrown for a request Ray answers with a client error. */
export class JobError extends Error {
  constructor(readonly status: 400 | 404, message: string) {
    super(message);
    this.name = "JobError";
  }
}

/** The jobs of one dashboard, by submission id, in submission order. */
export class JobTable {
  #jobs = new Map<string, Job>();
  #stepMs: number;
  #packageFiles: JobTableOptions["packageFiles"];
  #listeners = new Set<() => void>();
  #driverCount = 0;

  constructor(options: JobTableOptions) {
    this.#stepMs = options.stepMs ?? 500;
    this.#packageFiles = options.packageFiles;
  }

  /** Starts a job; throws JobError 400 for a submission id in use. */
  submit(request: JobRequest): JobDetails {
    const id = request.submissionId || newSubmissionId();
    if (this.#jobs.has(id)) {
      throw new JobError(
        400,
        `Job with submission_id ${id} already exists. Please use a different submission_id.`,
      );
    }
    const job: Job = {
      details: {
        type: "SUBMISSION",
        job_id: null,
        submission_id: id,
        driver_info: null,
        status: "PENDING",
        entrypoint: request.entrypoint,
        message: MESSAGES.PENDING,
        error_type: null,
        start_time: Date.now(),
        end_time: null,
        metadata: request.metadata ?? {},
        runtime_env: request.runtimeEnv ?? {},
        driver_agent_http_address: null,
        driver_node_id: null,
        driver_exit_code: null,
        entrypoint_num_cpus: request.entrypointNumCpus ?? null,
        entrypoint_num_gpus: request.entrypointNumGpus ?? null,
        entrypoint_memory: request.entrypointMemory ?? null,
        entrypoint_resources: request.entrypointResources ?? null,
      },
      logs: [],
      script: this.#script(request),
    };
    this.#jobs.set(id, job);
    this.#schedule(job);
    return { ...job.details };
  }

  /** Every job's details, in submission order. */
  list(): JobDetails[] {
    return [...this.#jobs.values()].map((job) => ({ ...job.details }));
  }

  /** A job's details by submission id (or its job_id, as Ray accepts). */
  get(id: string): JobDetails {
    return { ...this.#find(id).details };
  }

  /** A job's logs so far, one string. */
  logs(id: string): string {
    return this.#find(id).logs.join("");
  }

  /** Stops a running or pending job; false if it had already ended. */
  stop(id: string): boolean {
    const job = this.#find(id);
    if (isTerminal(job.details.status)) return false;
    clearTimeout(job.timer);
    this.#end(job, "STOPPED");
    return true;
  }

  /** Deletes an ended job; throws JobError 400 while it runs. */
  delete(id: string): boolean {
    const job = this.#find(id);
    if (!isTerminal(job.details.status)) {
      throw new JobError(
        400,
        `Attempted to delete job with submission_id '${job.details.submission_id}', but it is in a non-terminal state ${job.details.status}`,
      );
    }
    this.#jobs.delete(job.details.submission_id);
    this.#notify();
    return true;
  }

  /** Calls `listener` after every change of any job; returns its removal. */
  subscribe(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Clears every pending step; the jobs stay as they are. */
  close(): void {
    for (const job of this.#jobs.values()) clearTimeout(job.timer);
    this.#listeners.clear();
  }

  #find(id: string): Job {
    const job = this.#jobs.get(id) ??
      [...this.#jobs.values()].find((j) => j.details.job_id === id);
    if (!job) throw new JobError(404, `Job ${id} does not exist.`);
    return job;
  }

  /** The log lines a run writes, one per step. */
  #script(request: JobRequest): string[] {
    return runLines(request, this.#packageFiles);
  }

  /** The run's next step, `stepMs` from now. */
  #schedule(job: Job): void {
    job.timer = setTimeout(() => this.#step(job), this.#stepMs);
  }

  #step(job: Job): void {
    const { details } = job;
    if (details.status === "PENDING") {
      this.#driverCount += 1;
      const hex = this.#driverCount.toString(16).padStart(2, "0");
      details.status = "RUNNING";
      details.message = MESSAGES.RUNNING;
      details.job_id = `${hex}000000`;
      details.driver_info = {
        id: details.job_id,
        node_ip_address: "127.0.0.1",
        pid: String(Deno.pid),
      };
    }
    const line = job.script.shift();
    if (line !== undefined) {
      job.logs.push(line);
      this.#notify();
      this.#schedule(job);
      return;
    }
    if (runsUntilStopped(details.entrypoint)) {
      job.timer = undefined;
      return;
    }
    const code = requestedExitCode(details.entrypoint);
    this.#end(job, code === 0 ? "SUCCEEDED" : "FAILED", code);
  }

  #end(job: Job, status: JobStatus, code?: number): void {
    const { details } = job;
    job.timer = undefined;
    details.status = status;
    details.end_time = Date.now();
    if (status === "FAILED") {
      details.error_type = "JOB_ENTRYPOINT_COMMAND_ERROR";
      details.driver_exit_code = code ?? null;
      details.message =
        `Job entrypoint command failed with exit code ${code}, last available logs (truncated to 20,000 chars):\n${
          job.logs.join("")
        }`;
    } else {
      details.message = MESSAGES[status];
      if (status === "SUCCEEDED") details.driver_exit_code = 0;
    }
    this.#notify();
  }

  #notify(): void {
    for (const listener of [...this.#listeners]) listener();
  }
}
