/**
 * `corral jobs ...`: submit, list, get, wait for, watch and delete jobs
 * through the job routes of the HTTP API (`/apis/v1alpha2/.../jobs`). A
 * job runs on an existing cluster (`--cluster`) or on one of its own made
 * from flags (cluster_flags.ts); `--wait` ends with the job's outcome as
 * the exit code (job_wait.ts).
 *
 * `jobs logs NAME` prints a job's log, its submitter's (job_logs.ts), and
 * `--wait` prints it once the job has ended. `jobs run`, `stop`, `logs
 * --cluster`, and `submit` or `list` with what only a submission has
 * (`--working-dir`, `--submission-id`; `list --cluster`), go to a running
 * cluster's dashboard instead (job_submissions.ts).
 */
import {
  type Flags,
  onePositional,
  type ParsedArgs,
  parseDuration,
  stringFlag,
} from "./args.ts";
import {
  clusterSpecOf,
  NEW_CLUSTER_FLAGS,
  wantsNewCluster,
} from "./cluster_flags.ts";
import { type CommandGroup, withClient } from "./command.ts";
import { EXIT_OK, UsageError } from "./errors.ts";
import { namespaceOf, readObjectFile } from "./files.ts";
import { age } from "./output.ts";
import {
  ALL_NAMESPACES,
  getObject,
  type Kind,
  listObjects,
  OUTPUT,
} from "./resources.ts";
import { followJobs, jobPath } from "./job_follow.ts";
import { jobStatus, waitForJob } from "./job_wait.ts";
import { printJobChanges } from "./job_watch.ts";
import type { Job } from "./types.ts";
import { JOB_LOGS_USAGE, jobLogs, printEndedJobLog } from "./job_logs.ts";
import {
  listSubmissions,
  runSubmission,
  stop,
  STOP_USAGE,
  SUBMISSION_FLAGS,
} from "./job_submissions.ts";

const DEFAULT_TIMEOUT = "1h";

const WAIT: Flags = {
  wait: {
    type: "boolean",
    help: "follow the job until it ends; exit 0 SUCCEEDED, 1 FAILED, 4 STOPPED",
  },
  timeout: {
    type: "string",
    value: "DURATION",
    help: `how long --wait waits (default ${DEFAULT_TIMEOUT}); then exit 2`,
  },
};

/** When a time was, as an age ("45s"), or <none>. */
function ago(time: string | null | undefined): string {
  return time ? age(time, Date.now()) : "<none>";
}

/** Jobs as the CLI lists and gets them. */
export const JOB_KIND: Kind<Job> = {
  noun: "job",
  plural: "jobs",
  listField: "jobs",
  allPath: jobPath(),
  path: jobPath,
  header: ["NAME", "STATUS", "DEPLOYMENT", "CLUSTER", "START", "END"],
  cells: (job) => [
    job.name,
    jobStatus(job),
    job.jobDeploymentStatus || "<none>",
    job.rayClusterName || job.clusterSelector?.["ray.io/cluster"] ||
    "<none>",
    ago(job.startTime),
    ago(job.endTime),
  ],
  // The Ray job's submission id, which the operator fills in.
  wideHeader: ["JOB ID"],
  wideCells: (job) => [String(job.jobId || "<none>")],
  namespaceOf: (job) => job.namespace,
};

function timeoutOf(values: ParsedArgs["values"]): number {
  return parseDuration(
    stringFlag(values, "timeout") ?? DEFAULT_TIMEOUT,
    "--timeout",
  );
}

/** A duration flag in whole seconds (`--ttl 10m`: 600), or undefined. */
function seconds(values: ParsedArgs["values"], flag: string) {
  const text = stringFlag(values, flag);
  if (text === undefined) return undefined;
  const ms = parseDuration(text, `--${flag}`);
  if (ms % 1000 !== 0) {
    throw new UsageError(
      `--${flag} ${JSON.stringify(text)} is not a whole number of seconds`,
    );
  }
  return ms / 1000;
}

/** A word as a shell reads it back: quoted when it has to be. */
function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word)
    ? word
    : `'${word.replaceAll("'", `'\\''`)}'`;
}

/** The entrypoint: --entrypoint, or the words after `--`; not both. */
function entrypointOf(
  { values, positionals }: ParsedArgs,
  usage = SUBMIT_USAGE,
): string {
  const flag = stringFlag(values, "entrypoint");
  if (flag !== undefined && positionals.length > 0) {
    throw new UsageError(
      "give the entrypoint once: --entrypoint or the words after --",
      [`  usage: ${usage}`],
    );
  }
  const entrypoint = flag ?? positionals.map(shellWord).join(" ");
  if (!entrypoint.trim()) {
    throw new UsageError(
      "the entrypoint is required: -- <command...> or --entrypoint CMD",
      [`  usage: ${usage}`],
    );
  }
  return entrypoint;
}

/** Where the job runs: `--cluster` or a new cluster, exactly one. */
function clusterOf(values: ParsedArgs["values"]) {
  const cluster = stringFlag(values, "cluster");
  const fresh = wantsNewCluster(values);
  if (cluster !== undefined && fresh) {
    throw new UsageError(
      "--cluster runs the job on an existing cluster: it takes no --template, --workers, --image or --version",
    );
  }
  if (cluster !== undefined) {
    return { clusterSelector: { "ray.io/cluster": cluster } };
  }
  if (!fresh) {
    throw new UsageError(
      "say where the job runs: --cluster NAME, or --template T for a cluster of its own",
      [`  usage: ${SUBMIT_USAGE}`],
    );
  }
  const version = stringFlag(values, "version");
  return { clusterSpec: clusterSpecOf(values), ...version ? { version } : {} };
}

/** A name for a job not given one: "job-" and five random letters. */
function generatedName(): string {
  const letters = "abcdefghijklmnopqrstuvwxyz0123456789";
  const bytes = crypto.getRandomValues(new Uint8Array(5));
  return `job-${[...bytes].map((b) => letters[b % letters.length]).join("")}`;
}

/** The job the flags describe, in the API's JSON. */
async function jobOf(args: ParsedArgs): Promise<Record<string, unknown>> {
  const { values } = args;
  const entrypoint = entrypointOf(args);
  const where = clusterOf(values);
  const ttl = seconds(values, "ttl");
  const deadline = seconds(values, "deadline");
  const runtimeEnvFile = stringFlag(values, "runtime-env");
  let runtimeEnv: string | undefined;
  if (runtimeEnvFile !== undefined) {
    // Read as YAML first, so a file that is not is named here, not sent.
    await readObjectFile(runtimeEnvFile, "runtime environment");
    runtimeEnv = await Deno.readTextFile(runtimeEnvFile);
  }
  return {
    name: stringFlag(values, "name") ?? generatedName(),
    user: stringFlag(values, "user") ?? "",
    entrypoint,
    ...where,
    ...runtimeEnv !== undefined ? { runtimeEnv } : {},
    ...values["shutdown-after-finish"]
      ? { shutdownAfterJobFinishes: true }
      : {},
    ...ttl !== undefined ? { ttlSecondsAfterFinished: ttl } : {},
    ...deadline !== undefined ? { activeDeadlineSeconds: deadline } : {},
  };
}

/**
 * The owner of a job not given --user: with a token, none (Corral makes
 * the token's user the owner, and refuses any other); without one (a
 * Corral that lets anyone in, as `deno task dev`), the local login name,
 * since a job needs an owner.
 */
export function defaultUser(token: string | undefined): string {
  if (token) return "";
  return Deno.env.get("USER") || Deno.env.get("USERNAME") || "";
}

/**
 * Flags a RayJob does not have: they make `jobs submit --cluster` a
 * submission to the running cluster (`jobs run`).
 */
const SUBMISSION_ONLY = ["working-dir", "submission-id"];

/** The RayJob flags a submission to a running cluster cannot carry. */
const RAYJOB_ONLY = [
  "name",
  "shutdown-after-finish",
  "ttl",
  "deadline",
  "user",
  "timeout",
];

async function submit(args: ParsedArgs): Promise<number> {
  const { values } = args;
  if (SUBMISSION_ONLY.some((flag) => values[flag] !== undefined)) {
    return await run(args);
  }
  const timeoutMs = timeoutOf(values);
  const job = await jobOf(args);
  return await withClient(values, async (client, connection) => {
    const namespace = namespaceOf({}, values, connection.namespace);
    const created = await client.call<Job>("POST", jobPath(namespace), {
      ...job,
      user: job.user || defaultUser(connection.token),
      namespace,
    });
    const key = `${created.namespace}/${created.name}`;
    if (!values.wait) {
      console.log(`job ${key} submitted`);
      return EXIT_OK;
    }
    console.log(`job ${key} submitted, waiting for it to end`);
    const outcome = await waitForJob(client, {
      namespace: created.namespace,
      name: created.name,
      timeoutMs,
    });
    await printEndedJobLog(client, created.namespace, created.name);
    return outcome;
  });
}
const SUBMIT_USAGE =
  "jobs submit [--name NAME] (--cluster NAME [--working-dir DIR] | --template T [--workers N] [--image I | --version V]) [--wait] -- <command...>";

/** `jobs run`: a submission to the running cluster `--cluster`. */
async function run(args: ParsedArgs): Promise<number> {
  const { values } = args;
  const rayJobFlag = RAYJOB_ONLY.find((flag) => values[flag] !== undefined) ??
    (wantsNewCluster(values) ? "template" : undefined);
  if (rayJobFlag !== undefined) {
    throw new UsageError(
      `--${rayJobFlag} is for a RayJob: a job submitted to a running cluster (jobs run, --working-dir, --submission-id) takes no --${rayJobFlag}`,
      [`  usage: ${RUN_USAGE}`],
    );
  }
  return await runSubmission(args, entrypointOf(args, RUN_USAGE), RUN_USAGE);
}
const RUN_USAGE =
  "jobs run --cluster NAME [--working-dir DIR] [--runtime-env FILE] [--submission-id ID] [--wait] -- <command...>";

async function wait({ values, positionals }: ParsedArgs): Promise<number> {
  const name = onePositional(positionals, "a job name", WAIT_USAGE);
  const timeoutMs = timeoutOf(values);
  return await withClient(values, async (client, { namespace }) => {
    // Read once first, so a job that is not there is named as the API says.
    await client.call<Job>("GET", jobPath(namespace, name));
    const outcome = await waitForJob(client, { namespace, name, timeoutMs });
    await printEndedJobLog(client, namespace, name);
    return outcome;
  });
}
const WAIT_USAGE = "jobs wait NAME [-n NS] [--timeout 1h]";

async function remove({ values, positionals }: ParsedArgs): Promise<number> {
  const name = onePositional(positionals, "a job name", DELETE_USAGE);
  return await withClient(values, async (client, { namespace }) => {
    await client.call("DELETE", jobPath(namespace, name));
    console.log(`job ${namespace}/${name} deleted`);
    return EXIT_OK;
  });
}
const DELETE_USAGE = "jobs delete NAME [-n NS]";

async function watch({ values, positionals }: ParsedArgs): Promise<number> {
  if (positionals.length > 0) {
    throw new UsageError(
      `unexpected argument ${JSON.stringify(positionals[0])}`,
      [`  usage: ${WATCH_USAGE}`],
    );
  }
  const all = values["all-namespaces"] === true;
  return await withClient(values, async (client, { namespace }) => {
    const aborter = new AbortController();
    const stop = () => aborter.abort();
    Deno.addSignalListener("SIGINT", stop);
    try {
      const scope = all ? {} : { namespace };
      await printJobChanges(
        followJobs(client, scope, aborter.signal),
        JOB_KIND,
        all,
      );
    } finally {
      Deno.removeSignalListener("SIGINT", stop);
    }
    return EXIT_OK;
  });
}
const WATCH_USAGE = "jobs watch [-n NS | -A]";

const LIST_USAGE =
  "jobs list [-n NS | -A] [--cluster NAME] [-o table|json|yaml]";

/** `jobs list`: the namespace's RayJobs, or with --cluster its submissions. */
async function list(args: ParsedArgs): Promise<number> {
  const cluster = stringFlag(args.values, "cluster");
  if (cluster === undefined) {
    return await listObjects(JOB_KIND, LIST_USAGE)(args);
  }
  if (args.values["all-namespaces"]) {
    throw new UsageError("--cluster names a cluster of one namespace: no -A");
  }
  if (args.positionals.length > 0) {
    throw new UsageError(
      `unexpected argument ${JSON.stringify(args.positionals[0])}`,
      [`  usage: ${LIST_USAGE}`],
    );
  }
  return await listSubmissions(args.values, cluster);
}
const GET_USAGE = "jobs get NAME [-n NS] [-o table|json|yaml]";

const SUBMIT_FLAGS: Flags = {
  name: {
    type: "string",
    value: "NAME",
    help: "the job's name (default job-<random>)",
  },
  entrypoint: {
    type: "string",
    value: "CMD",
    help: "the command the job runs (or the words after --)",
  },
  "runtime-env": {
    type: "string",
    value: "FILE",
    help: "the job's runtime environment, a YAML file",
  },
  cluster: {
    type: "string",
    value: "NAME",
    help:
      "run on this existing cluster of the namespace (a RayJob; with --working-dir or --submission-id, as jobs run)",
  },
  ...NEW_CLUSTER_FLAGS,
  "shutdown-after-finish": {
    type: "boolean",
    help: "delete the job's own cluster once it ends",
  },
  ttl: {
    type: "string",
    value: "DURATION",
    help: "with --shutdown-after-finish: how long after the end, e.g. 10m",
  },
  deadline: {
    type: "string",
    value: "DURATION",
    help: "how long the job may run before it is ended, e.g. 2h",
  },
  user: {
    type: "string",
    value: "NAME",
    help:
      "the job's owner (default: who the token says you are; without a token, $USER)",
  },
  ...SUBMISSION_FLAGS,
  ...WAIT,
};

const RUN_FLAGS: Flags = {
  cluster: {
    type: "string",
    value: "NAME",
    help: "the running cluster of the namespace",
  },
  ...SUBMISSION_FLAGS,
  entrypoint: SUBMIT_FLAGS.entrypoint,
  "runtime-env": SUBMIT_FLAGS["runtime-env"],
  wait: {
    type: "boolean",
    help:
      "print the job's logs until it ends; exit 0 SUCCEEDED, 1 FAILED, 4 STOPPED",
  },
};

const SUBMISSION_CLUSTER: Flags = {
  cluster: {
    type: "string",
    value: "NAME",
    help: "the running cluster the job was submitted to",
  },
};

export const JOBS: CommandGroup = {
  name: "jobs",
  summary: "submit, list, wait for, watch and delete jobs",
  commands: [
    {
      name: "submit",
      summary: "submit a job to an existing cluster or a new one of its own",
      usage: SUBMIT_USAGE,
      flags: SUBMIT_FLAGS,
      examples: [
        "corral jobs submit --name train --cluster blue --wait -- python train.py",
        "corral jobs submit --cluster blue --working-dir . --wait -- python train.py",
        "corral jobs submit --template small --workers 2 --version 2.9.0 \\",
        "  --shutdown-after-finish --ttl 5m --runtime-env env.yaml -- python train.py",
      ],
      run: submit,
    },
    {
      name: "run",
      summary: "submit a job to a running cluster through its dashboard",
      usage: RUN_USAGE,
      flags: RUN_FLAGS,
      examples: [
        "corral jobs run --cluster blue --working-dir . --wait -- python main.py",
      ],
      run,
    },
    {
      name: "logs",
      summary:
        "print a job's log (its submitter's, kept while the job exists) or, with --cluster, a submission's; -f follows it to its end",
      usage: JOB_LOGS_USAGE,
      flags: {
        cluster: {
          type: "string",
          value: "NAME",
          help:
            "the running cluster a submission was made to (then SUBMISSION_ID, not a job's name)",
        },
        follow: {
          type: "boolean",
          short: "f",
          help:
            "follow until the job ends; exit 0 SUCCEEDED, 1 FAILED, 4 STOPPED",
        },
        tail: {
          type: "string",
          value: "N",
          help: "only the last N lines of a job's log",
        },
      },
      examples: [
        "corral jobs logs train",
        "corral jobs logs -f train",
        "corral jobs logs -f --cluster blue raysubmit_8tSTKJVNTwy9aS2B",
      ],
      run: jobLogs,
    },
    {
      name: "stop",
      summary: "stop a job submitted to a running cluster",
      usage: STOP_USAGE,
      flags: SUBMISSION_CLUSTER,
      examples: ["corral jobs stop --cluster blue raysubmit_8tSTKJVNTwy9aS2B"],
      run: stop,
    },
    {
      name: "list",
      summary:
        "list the jobs of a namespace, or of all (-A), or those submitted to a cluster",
      usage: LIST_USAGE,
      flags: {
        ...ALL_NAMESPACES,
        cluster: {
          type: "string",
          value: "NAME",
          help: "the jobs submitted to this running cluster instead",
        },
        ...OUTPUT,
      },
      examples: [
        "corral jobs list -n team-a",
        "corral jobs list -A -o json",
        "corral jobs list --cluster blue",
      ],
      run: list,
    },
    {
      name: "get",
      summary: "show one job",
      usage: GET_USAGE,
      flags: OUTPUT,
      examples: ["corral jobs get train -n team-a -o yaml"],
      run: getObject(JOB_KIND, GET_USAGE),
    },
    {
      name: "wait",
      summary: "wait for a job to end; its outcome is the exit code",
      usage: WAIT_USAGE,
      flags: { timeout: WAIT.timeout },
      examples: ["corral jobs wait train --timeout 30m && echo done"],
      run: wait,
    },
    {
      name: "watch",
      summary: "follow jobs as they change, until Ctrl-C",
      usage: WATCH_USAGE,
      flags: ALL_NAMESPACES,
      examples: ["corral jobs watch -A"],
      run: watch,
    },
    {
      name: "delete",
      summary: "delete a job (and the cluster it brought)",
      usage: DELETE_USAGE,
      flags: {},
      examples: ["corral jobs delete train -n team-a"],
      run: remove,
    },
  ],
};
