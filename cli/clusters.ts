/**
 * `corral clusters ...`: list, get, create, delete, scale and watch
 * clusters through the cluster routes of the HTTP API
 * (`/apis/v1alpha2/...`).
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
import { type CommandGroup, withClient, write } from "./command.ts";
import {
  ApiError,
  CliError,
  EXIT_API_ERROR,
  EXIT_OK,
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
import type { Cluster } from "./types.ts";
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
};

function timeoutOf(values: ParsedArgs["values"]): number {
  return parseDuration(
    stringFlag(values, "timeout") ?? DEFAULT_TIMEOUT,
    "--timeout",
  );
}

const LIST_USAGE = "clusters list [-n NS | -A] [-o table|json|yaml]";
const GET_USAGE = "clusters get NAME [-n NS] [-o table|json|yaml]";

async function create({ values, positionals }: ParsedArgs): Promise<number> {
  noPositionals(positionals, CREATE_USAGE);
  const file = stringFlag(values, "filename");
  if (file === undefined) {
    throw new UsageError("-f FILE is required (- reads standard input)", [
      `  usage: ${CREATE_USAGE}`,
    ]);
  }
  const timeoutMs = timeoutOf(values);
  const cluster = await readObjectFile(file, "cluster") as Cluster;
  return await withClient(values, async (client, connection) => {
    const namespace = namespaceOf(cluster, values, connection.namespace);
    const created = await client.call<Cluster>(
      "POST",
      clusterPath(namespace),
      { ...cluster, namespace },
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
const CREATE_USAGE = "clusters create -f FILE [--wait] [--timeout 10m]";

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
 * Changes one group's replicas: the cluster's worker groups as they are,
 * that one changed, sent with the etag they were read with, so a scale never
 * undoes another update made meanwhile; a lost race reads again and retries.
 */
async function scale({ values, positionals }: ParsedArgs): Promise<number> {
  const name = onePositional(positionals, "a cluster name", SCALE_USAGE);
  const groupName = stringFlag(values, "group");
  if (groupName === undefined) {
    throw new UsageError("--group G is required", [`  usage: ${SCALE_USAGE}`]);
  }
  const replicas = replicasOf(values);
  return await withClient(values, async (client, { namespace }) => {
    const key = `${namespace}/${name}`;
    for (let attempt = 0;; attempt++) {
      const cluster = await client.call<Cluster>(
        "GET",
        clusterPath(namespace, name),
      );
      const groups = cluster.clusterSpec?.workerGroupSpec ?? [];
      const group = groups.find((g) => g.groupName === groupName);
      if (!group) {
        throw new CliError(
          `cluster ${key} has no worker group ${JSON.stringify(groupName)}`,
          EXIT_API_ERROR,
          [`  its groups: ${
            groups.map((g) => g.groupName).join(", ") || "(none)"
          }`],
        );
      }
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
          `cluster ${key} scaled: group ${groupName} from ${
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
const SCALE_USAGE = "clusters scale NAME --group G --replicas N [-n NS]";

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
  summary: "create, list, scale, watch and delete clusters",
  commands: [
    {
      name: "list",
      summary: "list the clusters of a namespace, or of all (-A)",
      usage: LIST_USAGE,
      flags: { ...ALL_NAMESPACES, ...OUTPUT },
      examples: [
        "corral clusters list -n team-a",
        "corral clusters list -A -o json",
      ],
      run: listObjects(CLUSTER_KIND, LIST_USAGE),
    },
    {
      name: "get",
      summary: "show one cluster",
      usage: GET_USAGE,
      flags: OUTPUT,
      examples: ["corral clusters get blue -n team-a -o yaml"],
      run: getObject(CLUSTER_KIND, GET_USAGE),
    },
    {
      name: "create",
      summary: "create a cluster from a YAML or JSON file",
      usage: CREATE_USAGE,
      flags: {
        filename: {
          type: "string",
          short: "f",
          value: "FILE",
          help: "the Cluster, as the HTTP API takes it (- for standard input)",
        },
        ...WAIT,
      },
      examples: [
        "corral clusters create -f blue.yaml --wait",
        "cat blue.json | corral clusters create -f - -n team-a",
      ],
      run: create,
    },
    {
      name: "delete",
      summary: "delete a cluster",
      usage: DELETE_USAGE,
      flags: WAIT,
      examples: ["corral clusters delete blue -n team-a --wait"],
      run: remove,
    },
    {
      name: "scale",
      summary: "change the number of workers of one worker group",
      usage: SCALE_USAGE,
      flags: {
        group: { type: "string", value: "G", help: "the worker group's name" },
        replicas: {
          type: "string",
          value: "N",
          help: "how many workers it should have",
        },
      },
      examples: ["corral clusters scale blue --group workers --replicas 3"],
      run: scale,
    },
    {
      name: "watch",
      summary: "follow clusters as they change, until Ctrl-C",
      usage: WATCH_USAGE,
      flags: ALL_NAMESPACES,
      examples: ["corral clusters watch -A"],
      run: watch,
    },
  ],
};
