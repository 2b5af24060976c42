/**
 * A cluster for a person, as kubectl describe shows an object: what it was
 * asked to be (its head and worker groups: template, replicas, image), what
 * it is (state, endpoints), where it is (the addresses Corral gives once it
 * is ready, the dashboard through Corral as a link on the server the command
 * talks to) and what happened to it (its events, oldest first). Also the
 * `-o wide` columns of `clusters get` and `list`.
 */
import { onePositional, type ParsedArgs } from "./args.ts";
import { type Command, withClient, write } from "./command.ts";
import { EXIT_OK } from "./errors.ts";
import { age, formatTable } from "./output.ts";
import type { Cluster, ClusterEvent, WorkerGroup } from "./types.ts";
import { displayState } from "./wait.ts";

const API = "/apis/v1alpha2";

/** What a missing value reads as, as kubectl writes it. */
const NONE = "<none>";

/** The head group as the API's JSON has it. */
interface HeadGroup {
  computeTemplate?: string;
  image?: string;
  serviceType?: string;
}

/** The dashboard through Corral as a link: `server` and the cluster's path. */
export function proxyLink(cluster: Cluster, server: string): string {
  return cluster.dashboardProxyUrl
    ? `${server.replace(/\/+$/, "")}${cluster.dashboardProxyUrl}`
    : "";
}

/** The -o wide columns of a cluster. */
export const WIDE_HEADER = ["CLIENT-URL", "DASHBOARD"] as const;

/** A cluster's -o wide cells: its client address, the dashboard's link. */
export function wideCells(cluster: Cluster, server: string): string[] {
  return [cluster.clientUrl || NONE, proxyLink(cluster, server) || NONE];
}

/** `key: value` lines with the values aligned, indented by `indent`. */
function fields(pairs: [string, string][], indent = ""): string[] {
  const width = Math.max(...pairs.map(([key]) => key.length)) + 2;
  return pairs.map(([key, value]) =>
    `${indent}${`${key}:`.padEnd(width)}${value}`.trimEnd()
  );
}

/** The image a group runs: its own, else the version's default. */
function imageOf(image: string | undefined, cluster: Cluster): string {
  if (image) return image;
  return cluster.version
    ? `rayproject/ray:${cluster.version} (the version's default)`
    : NONE;
}

function workerLines(group: WorkerGroup, cluster: Cluster): string[] {
  const bounds = `min ${group.minReplicas ?? 0}, max ${
    group.maxReplicas ?? group.replicas ?? 0
  }`;
  return [
    `  ${group.groupName}:`,
    ...fields([
      ["Template", group.computeTemplate || NONE],
      ["Replicas", `${group.replicas ?? 0} (${bounds})`],
      ["Image", imageOf(group.image, cluster)],
    ], "    "),
  ];
}

/** The spec: head and worker groups. */
function specLines(cluster: Cluster): string[] {
  const head = (cluster.clusterSpec?.headGroupSpec ?? {}) as HeadGroup;
  const groups = cluster.clusterSpec?.workerGroupSpec ?? [];
  return [
    "Head:",
    ...fields([
      ["Template", head.computeTemplate || NONE],
      ["Image", imageOf(head.image, cluster)],
      ["Service type", head.serviceType || "ClusterIP"],
    ], "  "),
    `Worker groups:${groups.length === 0 ? ` ${NONE}` : ""}`,
    ...groups.flatMap((group) => workerLines(group, cluster)),
  ];
}

/** A map as indented `key: value` lines, or ` <none>` on the title's line. */
function mapLines(title: string, map: Record<string, string> | undefined) {
  const pairs = Object.entries(map ?? {}).sort(([a], [b]) =>
    a.localeCompare(b)
  );
  return pairs.length === 0
    ? [`${title}: ${NONE}`]
    : [`${title}:`, ...fields(pairs, "  ")];
}

/** Where the cluster is: Corral's addresses, empty until it is ready. */
function addressLines(cluster: Cluster, server: string): string[] {
  const link = proxyLink(cluster, server);
  if (!cluster.clientUrl && !cluster.dashboardUrl && !link) {
    return [`Addresses: ${NONE} (given once the cluster is ready)`];
  }
  return [
    "Addresses:",
    ...fields([
      ["Client", cluster.clientUrl || NONE],
      ["Dashboard", cluster.dashboardUrl || NONE],
      ["Dashboard via Corral", link || NONE],
    ], "  "),
  ];
}

function eventLines(events: ClusterEvent[], now: number): string[] {
  if (events.length === 0) return [`Events: ${NONE}`];
  const rows = [...events]
    .sort((a, b) =>
      Date.parse(a.lastTimestamp ?? "") - Date.parse(b.lastTimestamp ?? "")
    )
    .map((e) => [
      e.type || "Normal",
      e.reason || "",
      age(e.lastTimestamp, now),
      e.message || "",
    ]);
  const table = formatTable(["TYPE", "REASON", "AGE", "MESSAGE"], rows);
  return [
    "Events:",
    ...table.trimEnd().split("\n").map((line) => `  ${line}`),
  ];
}

/** The whole description, ending with a newline. */
export function describeCluster(
  cluster: Cluster,
  server: string,
  now = Date.now(),
): string {
  return [
    ...fields([
      ["Name", cluster.name],
      ["Namespace", cluster.namespace],
      ["User", cluster.user || NONE],
      ["Version", cluster.version || NONE],
      ["State", displayState(cluster)],
      ["Queue", cluster.queue || NONE],
      [
        "Created",
        cluster.createdAt
          ? `${cluster.createdAt} (${age(cluster.createdAt, now)} ago)`
          : NONE,
      ],
    ]),
    ...specLines(cluster),
    ...mapLines("Environment", cluster.envs),
    ...mapLines("Endpoints", cluster.serviceEndpoint),
    ...addressLines(cluster, server),
    ...eventLines(cluster.events ?? [], now),
  ].join("\n") + "\n";
}

async function describe({ values, positionals }: ParsedArgs): Promise<number> {
  const name = onePositional(positionals, "a cluster name", USAGE);
  return await withClient(values, async (client, { namespace, server }) => {
    const cluster = await client.call<Cluster>(
      "GET",
      `${API}/namespaces/${encodeURIComponent(namespace)}/clusters/${
        encodeURIComponent(name)
      }`,
    );
    write(describeCluster(cluster, server));
    return EXIT_OK;
  });
}
const USAGE = "clusters describe NAME [-n NS]";

/** The command, as `clusters` lists it. */
export const DESCRIBE_COMMAND: Command = {
  name: "describe",
  completeNames: "clusters",
  summary: "show a cluster in detail: spec, state, addresses and events",
  usage: USAGE,
  flags: {},
  examples: ["corral clusters describe blue -n team-a"],
  run: describe,
};
