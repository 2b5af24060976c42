/**
 * Jobs submitted to a running cluster through its Ray dashboard
 * (RayJobSubmissionService, docs/http-api.md "Job submission"), rather than as
 * RayJob resources: `jobs run`, `jobs submit --working-dir`, `jobs logs`,
 * `jobs stop` and `jobs list --cluster`. Every call needs the policy verb
 * `proxy` on the cluster. A followed job ends the command with its
 * outcome, as `jobs submit --wait` does for a RayJob: 0 SUCCEEDED,
 * 1 FAILED, 4 STOPPED.
 */
import {
  type Flags,
  onePositional,
  type ParsedArgs,
  stringFlag,
} from "./args.ts";
import type { CorralClient } from "./client.ts";
import { withClient, write } from "./command.ts";
import {
  ApiError,
  CliError,
  EXIT_API_ERROR,
  EXIT_JOB_STOPPED,
  EXIT_OK,
  UsageError,
} from "./errors.ts";
import { readObjectFile } from "./files.ts";
import { packageDirectory } from "./job_package.ts";
import { formatObject, formatTable, outputFormat } from "./output.ts";
import { Code } from "../domain/errors.ts";

/** A submission as Corral answers it (JobSubmissionInfo). */
export interface Submission {
  entrypoint?: string;
  jobId?: string;
  submissionId?: string;
  status?: string;
  message?: string;
  startTime?: string | number;
  endTime?: string | number;
  metadata?: Record<string, string>;
  runtimeEnv?: Record<string, string>;
}

/** The exit code of a job that ended with `status`; undefined before. */
export function submissionOutcome(status: string | undefined) {
  switch (status) {
    case "SUCCEEDED":
      return EXIT_OK;
    case "FAILED":
      return EXIT_API_ERROR;
    case "STOPPED":
      return EXIT_JOB_STOPPED;
  }
  return undefined;
}

/** The submissions route of `cluster`, or of one of its submissions. */
export function submissionPath(
  namespace: string,
  cluster: string,
  ...rest: string[]
): string {
  return [
    "/apis/v1alpha2/namespaces",
    namespace,
    "jobsubmissions",
    cluster,
    ...rest,
  ].map((part, i) => i === 0 ? part : encodeURIComponent(part)).join("/");
}

/** `--cluster`, which every submission command needs. */
function clusterFlag(values: ParsedArgs["values"], usage: string): string {
  const cluster = stringFlag(values, "cluster");
  if (cluster === undefined) {
    throw new UsageError("--cluster NAME is required: the running cluster", [
      `  usage: ${usage}`,
    ]);
  }
  return cluster;
}

/**
 * The runtime environment to submit: `--runtime-env FILE`'s mapping, with
 * `working_dir` set to an uploaded package's URI when there is one (a
 * working_dir in the file as well is refused, not silently replaced).
 */
async function runtimeEnvOf(
  values: ParsedArgs["values"],
  workingDirUri: string | undefined,
): Promise<string | undefined> {
  const file = stringFlag(values, "runtime-env");
  const env = file === undefined
    ? {}
    : await readObjectFile(file, "runtime environment");
  if (workingDirUri !== undefined) {
    if ("working_dir" in env) {
      throw new UsageError(
        `give the working directory once: --working-dir or working_dir in ${file}`,
      );
    }
    env.working_dir = workingDirUri;
  }
  return Object.keys(env).length > 0 ? JSON.stringify(env) : undefined;
}

function alreadyThere(dir: string, uri: string): string {
  console.log(`working directory ${dir}: ${uri} already uploaded`);
  return uri;
}

/**
 * Uploads the package of `dir` to the cluster unless the cluster's
 * dashboard has it already (same contents, same name); resolves with its
 * URI for `working_dir`.
 */
async function uploadWorkingDir(
  client: CorralClient,
  target: { namespace: string; cluster: string },
  dir: string,
): Promise<string> {
  const pkg = await packageDirectory(dir);
  const { namespace, cluster } = target;
  const probe = `/apis/v1alpha2/namespaces/${encodeURIComponent(namespace)}` +
    `/clusters/${
      encodeURIComponent(cluster)
    }/dashboard/api/packages/gcs/${pkg.name}`;
  try {
    await client.call("GET", probe);
    return alreadyThere(dir, pkg.uri);
  } catch (error) {
    // The dashboard answers 200 with text, not JSON: it has the package.
    if (error instanceof SyntaxError) return alreadyThere(dir, pkg.uri);
    // 404 (not there yet) and any refusal alike: the upload says why.
    if (!(error instanceof ApiError)) throw error;
  }
  const content = btoa(
    Array.from(pkg.zip, (b) => String.fromCharCode(b)).join(""),
  );
  try {
    await client.call(
      "PUT",
      submissionPath(namespace, cluster, "packages", pkg.name),
      { content },
    );
  } catch (error) {
    if (error instanceof ApiError && error.code === Code.RESOURCE_EXHAUSTED) {
      throw new CliError(error.message, error.exitCode, [
        `  the zipped working directory is ${pkg.zip.length} bytes (${content.length} as base64): Corral's --max-body-bytes bounds an upload`,
        "  leave large files out with a .gitignore in the directory",
      ]);
    }
    throw error;
  }
  console.log(
    `working directory ${dir}: uploaded ${pkg.uri} (${pkg.files.length} files, ${pkg.zip.length} bytes)`,
  );
  return pkg.uri;
}

/**
 * `jobs run` (and `jobs submit` with `--working-dir` or
 * `--submission-id`): submits `entrypoint` to the running cluster; with
 * `--wait`, follows its logs to the end and exits with its outcome.
 */
export async function runSubmission(
  args: ParsedArgs,
  entrypoint: string,
  usage: string,
): Promise<number> {
  const { values } = args;
  const cluster = clusterFlag(values, usage);
  const dir = stringFlag(values, "working-dir");
  const submissionId = stringFlag(values, "submission-id");
  return await withClient(values, async (client, { namespace }) => {
    const target = { namespace, cluster };
    const uri = dir === undefined
      ? undefined
      : await uploadWorkingDir(client, target, dir);
    const runtimeEnv = await runtimeEnvOf(values, uri);
    const reply = await client.call<{ submissionId?: string }>(
      "POST",
      submissionPath(namespace, cluster),
      {
        entrypoint,
        ...submissionId !== undefined ? { submissionId } : {},
        ...runtimeEnv !== undefined ? { runtimeEnv } : {},
      },
    );
    const id = reply.submissionId ?? submissionId ?? "";
    console.log(`job ${id} submitted to cluster ${namespace}/${cluster}`);
    if (!values.wait) return EXIT_OK;
    return await followLog(client, { ...target, id });
  });
}

/** A line of WatchJobLog: what is new in the log, and the job's status. */
interface LogChunk {
  log?: string;
  status?: string;
}

/** How long to wait before following again a stream Corral ended. */
const RESUME_DELAY_MS = 500;

/**
 * Prints the job's log as it grows until the job ends; resolves with its
 * outcome. A stream Corral ends before the job does (its
 * --watch-max-duration) is followed again, its first answer (the log so
 * far) without what was printed already.
 */
export async function followLog(
  client: CorralClient,
  job: { namespace: string; cluster: string; id: string },
): Promise<number> {
  const path = `/apis/v1alpha2/watch/namespaces/${
    encodeURIComponent(job.namespace)
  }/jobsubmissions/${encodeURIComponent(job.cluster)}/log/${
    encodeURIComponent(job.id)
  }`;
  let printed = 0;
  for (;;) {
    let seen = 0;
    let status: string | undefined;
    const stream = client.watch(path) as AsyncGenerator<unknown>;
    for await (const result of stream) {
      const chunk = result as LogChunk;
      const log = chunk.log ?? "";
      // Only what lies past the printed part: a resumed stream starts over.
      const fresh = log.slice(Math.max(0, printed - seen));
      seen += log.length;
      if (fresh) {
        write(fresh);
        printed += fresh.length;
      }
      status = chunk.status || status;
    }
    const outcome = submissionOutcome(status);
    if (outcome !== undefined) {
      console.error(`job ${job.id}: ${status}`);
      return outcome;
    }
    await new Promise((resolve) => setTimeout(resolve, RESUME_DELAY_MS));
  }
}

/** `jobs logs [-f] --cluster NAME ID`. */
export async function logs(args: ParsedArgs): Promise<number> {
  const { values, positionals } = args;
  const id = onePositional(positionals, "a submission id", LOGS_USAGE);
  const cluster = clusterFlag(values, LOGS_USAGE);
  return await withClient(values, async (client, { namespace }) => {
    if (values.follow) {
      return await followLog(client, { namespace, cluster, id });
    }
    const reply = await client.call<{ log?: string }>(
      "GET",
      submissionPath(namespace, cluster, "log", id),
    );
    write(reply.log ?? "");
    return EXIT_OK;
  });
}
export const LOGS_USAGE = "jobs logs [-f] --cluster NAME SUBMISSION_ID [-n NS]";

/** `jobs stop --cluster NAME ID`. */
export async function stop(args: ParsedArgs): Promise<number> {
  const { values, positionals } = args;
  const id = onePositional(positionals, "a submission id", STOP_USAGE);
  const cluster = clusterFlag(values, STOP_USAGE);
  return await withClient(values, async (client, { namespace }) => {
    await client.call("POST", submissionPath(namespace, cluster, id));
    console.log(`job ${id} on cluster ${namespace}/${cluster} stopping`);
    return EXIT_OK;
  });
}
export const STOP_USAGE = "jobs stop --cluster NAME SUBMISSION_ID [-n NS]";

/** A time in milliseconds since the epoch, as an ISO time, or <none>. */
function when(ms: string | number | undefined): string {
  const n = Number(ms ?? 0);
  return n > 0 ? new Date(n).toISOString().replace(/\.\d+Z$/, "Z") : "<none>";
}

/** `jobs list --cluster NAME`: the cluster's submissions. */
export async function listSubmissions(
  values: ParsedArgs["values"],
  cluster: string,
): Promise<number> {
  const format = outputFormat(values.output);
  return await withClient(values, async (client, { namespace }) => {
    const reply = await client.call<{ submissions?: Submission[] }>(
      "GET",
      submissionPath(namespace, cluster),
    );
    const submissions = reply.submissions ?? [];
    // `-o wide` is the table: a submission has no wider columns.
    if (format === "json" || format === "yaml") {
      console.log(formatObject(submissions, format));
      return EXIT_OK;
    }
    if (submissions.length === 0) {
      console.error(`No jobs submitted to cluster ${namespace}/${cluster}.`);
      return EXIT_OK;
    }
    console.log(formatTable(
      ["SUBMISSION", "STATUS", "START", "END", "ENTRYPOINT"],
      submissions.map((s) => [
        s.submissionId || "<none>",
        s.status || "PENDING",
        when(s.startTime),
        when(s.endTime),
        s.entrypoint ?? "",
      ]),
    ));
    return EXIT_OK;
  });
}

/** The flags of a submission to a running cluster. */
export const SUBMISSION_FLAGS: Flags = {
  "working-dir": {
    type: "string",
    value: "DIR",
    help: "zip DIR (its .gitignore respected), upload it and run the job in it",
  },
  "submission-id": {
    type: "string",
    value: "ID",
    help: "the submission's id (default: raysubmit_<random>, the cluster's)",
  },
};
