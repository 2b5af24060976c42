/**
 * What the command line says of a service's health, and `services wait`:
 * follows one service (by polling, poll_follow.ts, as the API has no watch
 * of services) and prints each change of its status and each new event,
 * until it is Running (exit 0), is deleted (exit 1) or --timeout runs out
 * (exit 2).
 */
import { parse } from "yaml";
import type { CorralClient } from "./client.ts";
import { CliError, EXIT_API_ERROR, EXIT_OK, EXIT_USAGE } from "./errors.ts";
import { formatDuration } from "./output.ts";
import { pollChanges, readObjects } from "./poll_follow.ts";
import type { ClusterEvent, Service } from "./types.ts";

const API = "/apis/v1alpha2";

/** How often a waited-for service is read again. */
export const POLL_MS = 1_000;

/** The status a service that serves has. */
export const RUNNING = "Running";

/** Application statuses that say something is wrong, as Serve words them. */
const BAD_APPLICATION = new Set(["DEPLOY_FAILED", "UNHEALTHY"]);

/** The route of a namespace's services (or every namespace's), or of one. */
export function servicePath(namespace?: string, name?: string): string {
  if (namespace === undefined) return `${API}/services`;
  const base = `${API}/namespaces/${encodeURIComponent(namespace)}/services`;
  return name === undefined ? base : `${base}/${encodeURIComponent(name)}`;
}

/**
 * A service's health in a word: the operator's status (Running), else
 * Unhealthy when an application failed or is unhealthy, else Pending.
 */
export function serviceHealth(service: Service): string {
  const status = service.rayServiceStatus;
  if (status?.applicationStatus) return status.applicationStatus;
  const apps = status?.serveApplicationStatus ?? [];
  return apps.some((app) => BAD_APPLICATION.has(app.status ?? ""))
    ? "Unhealthy"
    : "Pending";
}

/**
 * How many applications of the serve config there are: those the config
 * lists, or 0 when it does not parse (the API refused such a config).
 */
function configuredApplications(service: Service): number {
  try {
    const config = parse(service.serveConfigV2 ?? "");
    const apps = config?.applications;
    return Array.isArray(apps) ? apps.length : 0;
  } catch {
    return 0;
  }
}

/**
 * "RUNNING n/m": of the m applications (as many as the config lists, or
 * the operator reports if more), n are RUNNING on the active cluster.
 */
export function applicationsCell(service: Service): string {
  const apps = service.rayServiceStatus?.serveApplicationStatus ?? [];
  const running = apps.filter((app) => app.status === "RUNNING").length;
  const total = Math.max(apps.length, configuredApplications(service));
  return `RUNNING ${running}/${total}`;
}

/** Where a service is: its health, its cluster and the operator's message. */
function statusLine(key: string, service: Service): string {
  const status = service.rayServiceStatus;
  const cluster = status?.rayClusterName
    ? ` on cluster ${status.rayClusterName}`
    : status?.pendingRayClusterName
    ? ` (cluster ${status.pendingRayClusterName} pending)`
    : "";
  const apps = `, applications ${applicationsCell(service)}`;
  const message = status?.applicationMessage
    ? `: ${status.applicationMessage}`
    : "";
  return `service ${key}: ${serviceHealth(service)}${cluster}${apps}${message}`;
}

function eventLine(event: ClusterEvent): string {
  return `  ${event.type ?? "Normal"}  ${event.reason ?? ""}: ${
    event.message ?? ""
  }`;
}

/**
 * Waits for service `namespace/name` to be Running, printing its changes;
 * resolves with 0, or throws a CliError when it is not there or deleted
 * meanwhile (exit 1) or `timeoutMs` runs out first (exit 2).
 */
export async function waitForService(
  client: CorralClient,
  options: { namespace: string; name: string; timeoutMs: number },
): Promise<number> {
  const { namespace, name, timeoutMs } = options;
  const key = `${namespace}/${name}`;
  const aborter = new AbortController();
  const timer = setTimeout(() => aborter.abort(), timeoutMs);
  const shownEvents = new Set<string>();
  const read = () =>
    readObjects<Service>(client, { one: servicePath(namespace, name) });
  let last: Service | undefined;
  let shown = "";
  try {
    for await (const change of pollChanges(read, POLL_MS, aborter.signal)) {
      if (change.type === "BOOKMARK" && !last) {
        throw new CliError(`service ${key} not found`, EXIT_API_ERROR);
      }
      if (change.type === "DELETED") {
        throw new CliError(
          `service ${key} was deleted while waiting for it to be ${RUNNING}`,
          EXIT_API_ERROR,
        );
      }
      if (!change.object) continue;
      last = change.object;
      for (const event of last.rayServiceStatus?.rayServiceEvents ?? []) {
        const id = event.id ?? `${event.reason}/${event.message}`;
        if (shownEvents.has(id)) continue;
        shownEvents.add(id);
        console.log(eventLine(event));
      }
      const line = statusLine(key, last);
      if (line !== shown) console.log(shown = line);
      if (serviceHealth(last) === RUNNING) return EXIT_OK;
    }
  } finally {
    clearTimeout(timer);
    aborter.abort();
  }
  throw new CliError(
    `timed out after ${
      formatDuration(timeoutMs)
    } waiting for service ${key} to be ${RUNNING}${
      last ? ` (status: ${serviceHealth(last)})` : ""
    }`,
    EXIT_USAGE,
  );
}
