/**
 * Job submission's pure parts: validation of the requests of
 * RayJobSubmissionService, and the conversions between its messages and
 * Ray's job REST API (https://docs.ray.io, "Ray Jobs REST API"), whose
 * JSON is snake_case. No I/O.
 */
import { type FieldViolation, invalidArgument } from "./errors.ts";
import type { JobSubmissionInfo, RayJobSubmission } from "./types.ts";
import { parse as parseYaml } from "yaml";

/** A job as Ray's job API answers it. */
export interface RayJobDetails {
  entrypoint?: string;
  job_id?: string | null;
  submission_id?: string | null;
  status?: string;
  message?: string | null;
  error_type?: string | null;
  start_time?: number | null;
  end_time?: number | null;
  metadata?: Record<string, string> | null;
  runtime_env?: Record<string, unknown> | null;
}

/** The body of POST /api/jobs/, Ray's JobSubmitRequest. */
export interface RayJobSubmitRequest {
  entrypoint: string;
  submission_id?: string;
  metadata?: Record<string, string>;
  runtime_env?: Record<string, unknown>;
  entrypoint_num_cpus?: number;
  entrypoint_num_gpus?: number;
  entrypoint_resources?: Record<string, number>;
}

/** The statuses after which a job changes no more (Ray's JobStatus). */
export const TERMINAL_JOB_STATUSES: ReadonlySet<string> = new Set([
  "STOPPED",
  "SUCCEEDED",
  "FAILED",
]);

/**
 * Submission ids Corral passes on: Ray makes `raysubmit_<random>`, callers
 * may choose their own; "." and ".." and anything with "/" would change the
 * dashboard path they are put in, so ids are limited to these characters.
 */
const SUBMISSION_ID = /^[A-Za-z0-9_][A-Za-z0-9_.:-]{0,127}$/;

/** Package names: what Ray's job client makes, `_ray_pkg_<hash>.zip`. */
const PACKAGE_NAME = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,123}\.zip$/;

/** A cluster's name: a DNS-1123 subdomain, as the cluster's key. */
const CLUSTER_NAME =
  /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** The problem with a cluster name, or undefined. */
export function clusterNameProblem(name: string): string | undefined {
  if (name === "") return "is required";
  if (name.length > 253 || !CLUSTER_NAME.test(name)) {
    return `"${
      name.slice(0, 64)
    }" is not a cluster name: lower-case letters, digits, "-" and "." (a DNS-1123 subdomain)`;
  }
  return undefined;
}

/** The problem with a submission id, or undefined. */
export function submissionIdProblem(id: string): string | undefined {
  if (id === "") return "is required";
  if (!SUBMISSION_ID.test(id)) {
    return `"${
      id.slice(0, 64)
    }" is not a submission id: at most 128 letters, digits, "_", ".", ":" and "-", not starting with "." or "-"`;
  }
  return undefined;
}

/** The problem with a package name, or undefined. */
export function packageNameProblem(name: string): string | undefined {
  if (name === "") return "is required";
  if (!PACKAGE_NAME.test(name) || name.includes("..")) {
    return `"${
      name.slice(0, 64)
    }" is not a package name: a file name ending in ".zip" (Ray's job client names them _ray_pkg_<hash>.zip)`;
  }
  return undefined;
}

/**
 * Throws INVALID_ARGUMENT naming every field of `checks` that has a
 * problem: `[field, problem]` pairs, undefined for none.
 */
export function throwIfProblems(
  action: string,
  checks: [field: string, problem: string | undefined][],
): void {
  const violations: FieldViolation[] = checks
    .filter(([, problem]) => problem !== undefined)
    .map(([field, description]) => ({ field, description: description! }));
  if (violations.length > 0) throw invalidArgument(action, violations);
}

/**
 * The body Ray's POST /api/jobs/ takes for `job`, as KubeRay's API server
 * makes it: runtime_env parsed from YAML (JSON is YAML too), the
 * entrypoint resources' values as numbers. Throws INVALID_ARGUMENT naming
 * each field that cannot be converted.
 */
export function submitRequestOf(
  job: RayJobSubmission | undefined,
  action: string,
): RayJobSubmitRequest {
  const at = "jobsubmission";
  const problems: [string, string | undefined][] = [];
  if (!job) {
    throwIfProblems(action, [[at, "is required"]]);
    throw new Error("unreachable");
  }
  if (job.entrypoint.trim() === "") {
    problems.push([`${at}.entrypoint`, "is required"]);
  }
  if (job.submissionId !== "") {
    problems.push([
      `${at}.submission_id`,
      submissionIdProblem(job.submissionId),
    ]);
  }
  for (
    const [field, value] of [
      ["entrypoint_num_cpus", job.entrypointNumCpus],
      ["entrypoint_num_gpus", job.entrypointNumGpus],
    ] as const
  ) {
    if (!(value >= 0)) problems.push([`${at}.${field}`, "must be 0 or more"]);
  }
  const resources: Record<string, number> = {};
  for (const [name, text] of Object.entries(job.entrypointResources ?? {})) {
    const value = Number(text);
    if (text.trim() === "" || !Number.isFinite(value) || value < 0) {
      problems.push([
        `${at}.entrypoint_resources[${JSON.stringify(name)}]`,
        `"${text.slice(0, 64)}" is not a number of 0 or more`,
      ]);
    }
    resources[name] = value;
  }
  const runtimeEnv = runtimeEnvOf(job.runtimeEnv, `${at}.runtime_env`);
  problems.push(runtimeEnv.problem);
  throwIfProblems(action, problems);
  return {
    entrypoint: job.entrypoint,
    ...(job.submissionId !== "" ? { submission_id: job.submissionId } : {}),
    ...(Object.keys(job.metadata ?? {}).length > 0
      ? { metadata: job.metadata }
      : {}),
    ...(runtimeEnv.value ? { runtime_env: runtimeEnv.value } : {}),
    ...(job.entrypointNumCpus > 0
      ? { entrypoint_num_cpus: job.entrypointNumCpus }
      : {}),
    ...(job.entrypointNumGpus > 0
      ? { entrypoint_num_gpus: job.entrypointNumGpus }
      : {}),
    ...(Object.keys(resources).length > 0
      ? { entrypoint_resources: resources }
      : {}),
  };
}

/** runtime_env's text as a mapping, or the problem with it. */
function runtimeEnvOf(
  text: string,
  field: string,
): {
  value?: Record<string, unknown>;
  problem: [string, string | undefined];
} {
  if (text.trim() === "") return { problem: [field, undefined] };
  let value: unknown;
  try {
    value = parseYaml(text, { maxAliasCount: 10 });
  } catch (error) {
    const why = (error as Error).message.split("\n")[0];
    return { problem: [field, `is not YAML: ${why}`] };
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    return {
      problem: [field, "must be a YAML mapping, e.g. working_dir: gcs://..."],
    };
  }
  return {
    value: value as Record<string, unknown>,
    problem: [field, undefined],
  };
}

/** A job of Ray's job API as the API's JobSubmissionInfo. */
export function jobSubmissionInfoOf(job: RayJobDetails): JobSubmissionInfo {
  const runtimeEnv: Record<string, string> = {};
  for (const [key, value] of Object.entries(job.runtime_env ?? {})) {
    runtimeEnv[key] = typeof value === "string" ? value : JSON.stringify(value);
  }
  const metadata: Record<string, string> = {};
  for (const [key, value] of Object.entries(job.metadata ?? {})) {
    metadata[key] = String(value);
  }
  return {
    entrypoint: job.entrypoint ?? "",
    jobId: job.job_id ?? "",
    submissionId: job.submission_id ?? "",
    status: job.status ?? "",
    message: job.message ?? "",
    errorType: job.error_type ?? "",
    startTime: wholeNumber(job.start_time),
    endTime: wholeNumber(job.end_time),
    metadata,
    runtimeEnv,
  };
}

function wholeNumber(value: number | null | undefined): number {
  return typeof value === "number" && Number.isFinite(value) && value > 0
    ? Math.floor(value)
    : 0;
}

/**
 * The bytes of base64 `text` (standard alphabet, padding optional), or
 * undefined when it is not base64.
 */
export function bytesOfBase64(text: string): Uint8Array | undefined {
  const clean = text.replace(/\s+/g, "");
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(clean) || clean.length % 4 === 1) {
    return undefined;
  }
  try {
    const binary = atob(clean);
    const bytes = new Uint8Array(binary.length);
    for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
    return bytes;
  } catch {
    return undefined;
  }
}
