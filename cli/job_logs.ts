/**
 * A job's log through GetRayJobLog and WatchRayJobLog: what its submitter
 * pod printed, there once the job has ended and after its cluster is
 * deleted. `jobs logs NAME [-f] [--tail N]` prints it (with `--cluster`,
 * the log of a submission to a running cluster instead:
 * job_submissions.ts), and `--wait` prints it once the job has ended.
 */
import { onePositional, type ParsedArgs, stringFlag } from "./args.ts";
import type { CorralClient } from "./client.ts";
import { withClient, write } from "./command.ts";
import { ApiError, EXIT_OK, UsageError } from "./errors.ts";
import { jobPath } from "./job_follow.ts";
import { outcomeOf } from "./job_wait.ts";
import { logs as submissionLogs } from "./job_submissions.ts";
import type { Job } from "./types.ts";

export const JOB_LOGS_USAGE =
  "jobs logs [-f] [--tail N] NAME [-n NS] | jobs logs [-f] --cluster NAME SUBMISSION_ID [-n NS]";

/** How long to wait before following again a stream that ended early. */
const RESUME_DELAY_MS = 500;

/** The route of a job's log; the watch route follows it. */
export function jobLogPath(
  namespace: string,
  name: string,
  options: { follow?: boolean; tailLines?: number } = {},
): string {
  const path = options.follow
    ? `/apis/v1alpha2/watch/namespaces/${encodeURIComponent(namespace)}/jobs/${
      encodeURIComponent(name)
    }/log`
    : `${jobPath(namespace, name)}/log`;
  return options.tailLines === undefined
    ? path
    : `${path}?tailLines=${options.tailLines}`;
}

/** `--tail N`: a whole number of lines, or undefined. */
function tailOf(values: ParsedArgs["values"]): number | undefined {
  const tail = stringFlag(values, "tail");
  if (tail === undefined) return undefined;
  if (!/^\d+$/.test(tail)) {
    throw new UsageError(`--tail must be a whole number of lines: "${tail}"`, [
      `  usage: ${JOB_LOGS_USAGE}`,
    ]);
  }
  return Number(tail);
}

/** `jobs logs`: a job's log, or with --cluster a submission's. */
export async function jobLogs(args: ParsedArgs): Promise<number> {
  const { values, positionals } = args;
  if (stringFlag(values, "cluster") !== undefined) {
    return await submissionLogs(args);
  }
  const name = onePositional(positionals, "a job name", JOB_LOGS_USAGE);
  const tailLines = tailOf(values);
  return await withClient(values, async (client, { namespace }) => {
    if (values.follow) {
      return await followJobLog(client, { namespace, name, tailLines });
    }
    const reply = await client.call<{ log?: string }>(
      "GET",
      jobLogPath(namespace, name, { tailLines }),
    );
    write(reply.log ?? "");
    return EXIT_OK;
  });
}

/**
 * Prints job `namespace/name`'s log as it grows until the job ends;
 * resolves with its outcome (0 SUCCEEDED, 1 FAILED, 4 STOPPED). A stream
 * that ends before the job does (Corral's --watch-max-duration) is
 * followed again, without what was printed already. With `tailLines`,
 * the last lines of the whole log are printed first and only what comes
 * after them is followed: a stream asked for its tail would start a
 * resumed one, which has the whole log, at a place the printed count
 * cannot find.
 */
export async function followJobLog(
  client: CorralClient,
  job: { namespace: string; name: string; tailLines?: number },
  print: (text: string) => void = write,
): Promise<number> {
  const { namespace, name, tailLines } = job;
  let printed = 0;
  // No lines (0) is the whole log, as Corral takes tail_lines.
  if (tailLines) {
    const reply = await client.call<{ log?: string }>(
      "GET",
      jobLogPath(namespace, name),
    );
    const log = reply.log ?? "";
    const tail = lastLines(log, tailLines);
    if (tail) print(tail);
    printed = log.length;
  }
  for (;;) {
    let seen = 0;
    const path = jobLogPath(namespace, name, { follow: true });
    for await (const result of client.watch(path)) {
      const log = (result as { log?: string }).log ?? "";
      // Only what lies past the printed part: each stream starts with the
      // whole log.
      const fresh = log.slice(Math.max(0, printed - seen));
      seen += log.length;
      if (fresh) {
        print(fresh);
        printed += fresh.length;
      }
    }
    const current = await client.call<Job>("GET", jobPath(namespace, name));
    const outcome = outcomeOf(current);
    if (outcome !== undefined) return outcome;
    await new Promise((resolve) => setTimeout(resolve, RESUME_DELAY_MS));
  }
}

/**
 * The last `count` lines of `log`, as a kubelet's tailLines counts them: a
 * last line without its newline is a line.
 */
function lastLines(log: string, count: number): string {
  const lines = log.match(/[^\n]*\n|[^\n]+$/g) ?? [];
  return lines.slice(-count).join("");
}

/**
 * After `--wait`: the ended job's log on stdout, or on stderr why there is
 * none (no submitter ran, a Corral without job logs).
 */
export async function printEndedJobLog(
  client: CorralClient,
  namespace: string,
  name: string,
): Promise<void> {
  try {
    const reply = await client.call<{ log?: string }>(
      "GET",
      jobLogPath(namespace, name),
    );
    const log = reply.log ?? "";
    if (log === "") return;
    console.log(`--- log of job ${namespace}/${name}`);
    write(log.endsWith("\n") ? log : `${log}\n`);
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    console.error(`job ${namespace}/${name}: no log: ${error.message}`);
  }
}
