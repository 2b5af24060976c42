/**
 * `corral clusters ...`: list, get, describe, create, delete, scale, watch
 * and open the dashboard or the Ray client port of clusters through the
 * cluster routes of the HTTP
 * API (`/apis/v1alpha2/...`); describe, dashboard and connect live in
 * cluster_describe.ts, dashboard.ts and connect.ts.
 */
import {
  type Flags,
  noPositionals,
  onePositional,
  type ParsedArgs,
  parseDuration,
  stringFlag,
  wholeNumber,
} from "./args.ts";
import type { CorralClient } from "./client.ts";
import {
  clusterSpecOf,
  NEW_CLUSTER_FLAGS,
  type NewClusterSpec,
  QUEUE_FLAG,
  queueOf,
  wantsNewCluster,
} from "./cluster_flags.ts";
import {
  DESCRIBE_COMMAND,
  WIDE_HEADER,
  wideCells,
} from "./cluster_describe.ts";
import { CONNECT_COMMAND } from "./connect.ts";
import { DASHBOARD_COMMAND } from "./dashboard.ts";
import { ownerOf, withDefaults } from "./cluster_defaults.ts";
import { type CommandGroup, withClient, write } from "./command.ts";
import {
  ApiError,
  CliError,
  EXIT_API_ERROR,
  EXIT_OK,
  EXIT_USAGE,
  UsageError,
} from "./errors.ts";
import { Code } from "../domain/errors.ts";
import { follow, watchPath } from "./follow.ts";
import { namespaceOf, readObjectFile } from "./files.ts";
import { age, columnWidths, tableLine } from "./output.ts";
import {
  ALL_NAMESPACES,
  getObject,
  headerOf,
  type Kind,
  listObjects,
  OUTPUT,
  rowOf,
} from "./resources.ts";
import type { Cluster, WorkerGroup } from "./types.ts";
import { displayState, waitForCluster } from "./wait.ts";

const API = "/apis/v1alpha2";
/** Retries of a scale that lost a race with another update (code 10). */
const SCALE_RETRIES = 5;
const DEFAULT_TIMEOUT = "10m";

const WAIT: Flags = {
  wait: { type: "boolean", help: "follow the cluster until it is done" },
  timeout: {
    type: "string",
    value: "DURATION",
    help: `how long --wait waits (default ${DEFAULT_TIMEOUT}); then exit 2`,
  },
};

function clusterPath(namespace: string, name?: string): string {
  const base = `${API}/namespaces/${encodeURIComponent(namespace)}/clusters`;
  return name === undefined ? base : `${base}/${encodeURIComponent(name)}`;
}

/** The sum of the worker groups' replicas. */
function workers(cluster: Cluster): number {
  return (cluster.clusterSpec?.workerGroupSpec ?? []).reduce(
    (sum, group) => sum + (group.replicas ?? 0),
    0,
  );
}

/** Clusters as the CLI lists and gets them. */
const CLUSTER_KIND: Kind<Cluster> = {
  noun: "cluster",
  plural: "clusters",
  listField: "clusters",
  allPath: `${API}/clusters`,
  path: clusterPath,
  header: ["NAME", "STATE", "USER", "VERSION", "WORKERS", "AGE"],
  cells: (cluster) => [
    cluster.name,
    displayState(cluster),
    cluster.user || "<none>",
    cluster.version || "<none>",
    String(workers(cluster)),
    age(cluster.createdAt, Date.now()),
  ],
  namespaceOf: (cluster) => cluster.namespace,
  wideHeader: WIDE_HEADER,
  wideCells,
};

function timeoutOf(values: ParsedArgs["values"]): number {
  return parseDuration(
    stringFlag(values, "timeout") ?? DEFAULT_TIMEOUT,
    "--timeout",
  );
}

const LIST_USAGE = "clusters list [-n NS | -A] [-o table|wide|json|yaml]";
const GET_USAGE = "clusters get NAME [-n NS] [-o table|wide|json|yaml]";

/** Flags of a cluster made from flags that jobs do not take. */
const CREATE_ONLY_FLAGS: Flags = {
  "max-workers": {
    type: "string",
    value: "N",
    help: "most workers the group may scale to (default --workers)",
  },
  user: {
    type: "string",
    value: "USER",
    help:
      "owner (default: the token's user, else whoami's, else your login name)",
  },
};

/**
 * The cluster `create` sends: the file's (-f), or one made from NAME and
 * the flags (cluster_flags.ts, as `jobs submit` reads them, and
 * --max-workers). Both at once is a usage error.
 */
async function clusterToCreate(
  { values, positionals }: ParsedArgs,
): Promise<{ file: Cluster } | { flags: FlagCluster }> {
  const file = stringFlag(values, "filename");
  const byFlags = wantsNewCluster(values) ||
    values["max-workers"] !== undefined;
  if (file !== undefined) {
    noPositionals(positionals, CREATE_USAGE);
    if (byFlags) {
      throw new UsageError(
        "-f FILE describes the whole cluster: drop --template, --workers, --max-workers, --image and --version",
      );
    }
    return { file: await readObjectFile(file, "cluster") as Cluster };
  }
  if (positionals.length === 0) {
    throw new UsageError(
      "a cluster name, or -f FILE, is required",
      [`  usage: ${CREATE_USAGE}`],
    );
  }
  const name = onePositional(positionals, "a cluster name", CREATE_USAGE);
  const clusterSpec = clusterSpecOf(values);
  const maxWorkers = wholeNumber(values, "max-workers");
  const [group] = clusterSpec.workerGroupSpec;
  if (maxWorkers !== undefined && group) {
    if (maxWorkers < group.replicas) {
      throw new UsageError(
        `--max-workers ${maxWorkers} is less than --workers ${group.replicas}`,
      );
    }
    group.maxReplicas = maxWorkers;
  }
  return {
    flags: {
      name,
      namespace: "",
      user: stringFlag(values, "user") ?? "",
      version: stringFlag(values, "version") ?? "",
      clusterSpec,
    },
  };
}

/**
 * A cluster made from NAME and the flags, which the command line's
 * defaults (cluster_defaults.ts) fill in.
 */
interface FlagCluster extends Cluster {
  clusterSpec: NewClusterSpec;
}

async function create(args: ParsedArgs): Promise<number> {
  const { values } = args;
  const timeoutMs = timeoutOf(values);
  const asked = await clusterToCreate(args);
  return await withClient(values, async (client, connection) => {
    const namespace = namespaceOf(
      "file" in asked ? asked.file : asked.flags,
      values,
      connection.namespace,
    );
    const cluster = "file" in asked
      ? asked.file
      : await withDefaults(client, namespace, asked.flags);
    const created = await client.call<Cluster>(
      "POST",
      clusterPath(namespace),
      {
        ...cluster,
        ...queueOf(values),
        user: await ownerOf(client, connection, cluster.user ?? ""),
        namespace,
      },
    );
    const key = `${created.namespace}/${created.name}`;
    if (!values.wait) {
      console.log(`cluster ${key} created`);
      return EXIT_OK;
    }
    console.log(`cluster ${key} created, waiting for it to be ready`);
    return await waitForCluster(client, {
      namespace: created.namespace,
      name: created.name,
      until: "ready",
      timeoutMs,
    });
  });
}
const CREATE_USAGE =
  "clusters create (-f FILE | NAME [--template T] [--workers N] [--max-workers M] [--version V | --image I]) [--queue Q] [--wait] [--timeout 10m]";

async function remove({ values, positionals }: ParsedArgs): Promise<number> {
  const name = onePositional(positionals, "a cluster name", DELETE_USAGE);
  const timeoutMs = timeoutOf(values);
  return await withClient(values, async (client, { namespace }) => {
    await client.call("DELETE", clusterPath(namespace, name));
    const key = `${namespace}/${name}`;
    if (!values.wait) {
      console.log(`cluster ${key} deleted`);
      return EXIT_OK;
    }
    console.log(`cluster ${key} is being deleted, waiting for it to be gone`);
    return await waitForCluster(client, {
      namespace,
      name,
      until: "deleted",
      timeoutMs,
    });
  });
}
const DELETE_USAGE = "clusters delete NAME [-n NS] [--wait] [--timeout 10m]";

/** --replicas, which a scale needs. */
function replicasOf(values: ParsedArgs["values"]): number {
  const replicas = wholeNumber(values, "replicas");
  if (replicas === undefined) {
    throw new UsageError("--replicas N is required", [
      `  usage: ${SCALE_USAGE}`,
    ]);
  }
  return replicas;
}

/**
 * The group a scale changes: --group's, else the only one; several without
 * --group is refused naming them, as is a --group the cluster has not.
 */
export function groupToScale(
  groups: WorkerGroup[],
  groupName: string | undefined,
  key: string,
): WorkerGroup {
  const names = groups.map((g) => g.groupName).join(", ") || "(none)";
  if (groupName === undefined) {
    if (groups.length === 1) return groups[0];
    throw new CliError(
      groups.length === 0
        ? `cluster ${key} has no worker group to scale`
        : `cluster ${key} has ${groups.length} worker groups: pick one with --group`,
      groups.length === 0 ? EXIT_API_ERROR : EXIT_USAGE,
      [`  its groups: ${names}`],
    );
  }
  const group = groups.find((g) => g.groupName === groupName);
  if (!group) {
    throw new CliError(
      `cluster ${key} has no worker group ${JSON.stringify(groupName)}`,
      EXIT_API_ERROR,
      [`  its groups: ${names}`],
    );
  }
  return group;
}

/**
 * Changes one group's replicas: the cluster's worker groups as they are,
 * that one changed, sent with the etag they were read with, so a scale never
 * undoes another update made meanwhile; a lost race reads again and retries.
 */
async function scale({ values, positionals }: ParsedArgs): Promise<number> {
  const name = onePositional(positionals, "a cluster name", SCALE_USAGE);
  const groupName = stringFlag(values, "group");
  const replicas = replicasOf(values);
  return await withClient(values, async (client, { namespace }) => {
    const key = `${namespace}/${name}`;
    for (let attempt = 0;; attempt++) {
      const cluster = await client.call<Cluster>(
        "GET",
        clusterPath(namespace, name),
      );
      const groups = cluster.clusterSpec?.workerGroupSpec ?? [];
      const group = groupToScale(groups, groupName, key);
      try {
        await client.call(
          "PATCH",
          `${
            clusterPath(namespace, name)
          }?updateMask=clusterSpec.workerGroupSpec`,
          {
            clusterSpec: {
              workerGroupSpec: groups.map((g) =>
                g === group ? { ...g, replicas } : g
              ),
            },
            etag: cluster.etag,
          },
        );
        console.log(
          `cluster ${key} scaled: group ${group.groupName} from ${
            group.replicas ?? 0
          } to ${replicas} replicas`,
        );
        return EXIT_OK;
      } catch (error) {
        const raced = error instanceof ApiError && error.code === Code.ABORTED;
        if (!raced || attempt >= SCALE_RETRIES) throw error;
      }
    }
  });
}
const SCALE_USAGE = "clusters scale NAME [--group G] --replicas N [-n NS]";

/**
 * Pushes a cluster's expiry back by --by (ExtendCluster): the server adds
 * it to the stored expiry, so two extends at once both count, and refuses
 * (code 3) an expiry past now plus the policy's maximum lifetime.
 */
async function extend({ values, positionals }: ParsedArgs): Promise<number> {
  const name = onePositional(positionals, "a cluster name", EXTEND_USAGE);
  const by = stringFlag(values, "by");
  if (by === undefined) {
    throw new UsageError("--by DURATION is required", [
      `  usage: ${EXTEND_USAGE}`,
    ]);
  }
  parseDuration(by, "--by"); // a usage error before any call
  return await withClient(values, async (client, { namespace }) => {
    const extended = await client.call<Cluster & { expiresAt?: string }>(
      "POST",
      `${clusterPath(namespace, name)}/extend`,
      { by },
    );
    console.log(
      `cluster ${namespace}/${name} extended: expires at ${extended.expiresAt}`,
    );
    return EXIT_OK;
  });
}
const EXTEND_USAGE = "clusters extend NAME --by DURATION [-n NS]";

/**
 * Follows changes until interrupted: the clusters there are first (as one
 * aligned table), then a row for each change, its event type first.
 */
async function watch({ values, positionals }: ParsedArgs): Promise<number> {
  noPositionals(positionals, WATCH_USAGE);
  const all = values["all-namespaces"] === true;
  return await withClient(values, async (client, { namespace }) => {
    const path = watchPath(all ? undefined : namespace);
    await printChanges(client, path, all);
    return EXIT_OK;
  });
}
const WATCH_USAGE = "clusters watch [-n NS | -A]";

async function printChanges(
  client: CorralClient,
  path: string,
  withNamespace: boolean,
): Promise<void> {
  const titles = ["EVENT", ...headerOf(CLUSTER_KIND, withNamespace)];
  let widths: number[] | undefined;
  const initial: string[][] = [];
  const aborter = new AbortController();
  Deno.addSignalListener("SIGINT", () => aborter.abort());
  for await (const result of follow(client, path, aborter.signal)) {
    if (result.type === "BOOKMARK") {
      if (!widths) {
        // The first state is in: print it as one table, and keep its widths.
        widths = columnWidths(titles, [["MODIFIED"], ...initial]);
        write(
          [titles, ...initial].map((row) => `${tableLine(row, widths!)}\n`)
            .join(""),
        );
      }
      continue;
    }
    if (!result.cluster) continue;
    const row = [
      result.type,
      ...rowOf(CLUSTER_KIND, result.cluster, withNamespace),
    ];
    if (!widths) {
      initial.push(row);
    } else {
      widths = widths.map((w, i) => Math.max(w, row[i].length));
      write(`${tableLine(row, widths)}\n`);
    }
  }
}

export const CLUSTERS: CommandGroup = {
  name: "clusters",
  summary: "create, list, describe, scale, watch and delete clusters",
  commands: [
    {
      name: "list",
      summary: "list the clusters of a namespace, or of all (-A)",
      usage: LIST_USAGE,
      flags: { ...ALL_NAMESPACES, ...OUTPUT },
      examples: [
        "corral clusters list -n team-a",
        "corral clusters list -A -o wide   # with each cluster's addresses",
        "corral clusters list -A -o json",
      ],
      run: listObjects(CLUSTER_KIND, LIST_USAGE),
    },
    {
      name: "get",
      completeNames: "clusters",
      summary: "show one cluster",
      usage: GET_USAGE,
      flags: OUTPUT,
      examples: [
        "corral clusters get blue -n team-a -o yaml",
        "corral clusters get blue -o wide   # with its client and dashboard addresses",
      ],
      run: getObject(CLUSTER_KIND, GET_USAGE),
    },
    DESCRIBE_COMMAND,
    {
      name: "create",
      summary: "create a cluster from a YAML or JSON file, or from flags",
      usage: CREATE_USAGE,
      flags: {
        filename: {
          type: "string",
          short: "f",
          value: "FILE",
          help: "the Cluster, as the HTTP API takes it (- for standard input)",
        },
        ...NEW_CLUSTER_FLAGS,
        ...QUEUE_FLAG,
        ...CREATE_ONLY_FLAGS,
        ...WAIT,
      },
      examples: [
        "corral clusters create red --wait   # the newest Ray, the namespace's smallest template, you as owner",
        "corral clusters create -f examples/blue.yaml --wait",
        "corral clusters create blue --template small --workers 2 --max-workers 4 --version 2.9.0",
        "corral clusters create big --template gpu --version 2.9.0 --queue default --wait",
        "cat blue.json | corral clusters create -f - -n team-a",
      ],
      run: create,
    },
    {
      name: "delete",
      completeNames: "clusters",
      summary: "delete a cluster",
      usage: DELETE_USAGE,
      flags: WAIT,
      examples: ["corral clusters delete blue -n team-a --wait"],
      run: remove,
    },
    {
      name: "scale",
      completeNames: "clusters",
      summary:
        "change the number of workers of one worker group (--group, or the only one)",
      usage: SCALE_USAGE,
      flags: {
        group: { type: "string", value: "G", help: "the worker group's name" },
        replicas: {
          type: "string",
          value: "N",
          help: "how many workers it should have",
        },
      },
      examples: [
        "corral clusters scale blue --replicas 3",
        "corral clusters scale blue --group gpus --replicas 1   # one of several groups",
      ],
      run: scale,
    },
    {
      name: "extend",
      summary: "push a cluster's expiry back, within the policy's maximum",
      usage: EXTEND_USAGE,
      flags: {
        by: {
          type: "string",
          value: "DURATION",
          help: "how much later it expires, e.g. 4h or 1h30m",
        },
      },
      examples: ["corral clusters extend blue --by 4h -n team-a"],
      run: extend,
    },
    {
      name: "watch",
      summary: "follow clusters as they change, until Ctrl-C",
      usage: WATCH_USAGE,
      flags: ALL_NAMESPACES,
      examples: ["corral clusters watch -A"],
      run: watch,
    },
    DASHBOARD_COMMAND,
    CONNECT_COMMAND,
  ],
};
