/**
 * `--wait`: follows the watch stream of one cluster (no polling) and shows
 * its progress until it is ready, failed or gone, or the time runs out. On
 * a terminal, one status line rewritten in place with each event printed
 * above it as it arrives; elsewhere (a pipe, a CI log), plain lines.
 */
import type { CorralClient } from "./client.ts";
import { write } from "./command.ts";
import { CliError, EXIT_API_ERROR, EXIT_OK, EXIT_USAGE } from "./errors.ts";
import { follow, watchPath } from "./follow.ts";
import { formatDuration } from "./output.ts";
import type { Cluster, ClusterEvent } from "./types.ts";

export interface WaitOptions {
  namespace: string;
  name: string;
  /** ready: until the cluster is ready (or failed); deleted: until it is gone. */
  until: "ready" | "deleted";
  timeoutMs: number;
}

/** How many of a failed cluster's last Warning events are shown. */
const WARNINGS_SHOWN = 5;
const SPINNER = ["|", "/", "-", "\\"];

/** The state a person reads: the operator's, else pending. */
export function displayState(cluster: Cluster): string {
  return cluster.clusterState || (cluster.deletedAt ? "deleting" : "pending");
}

/**
 * Where progress goes: on a terminal one line kept at the bottom and
 * rewritten (with a spinner and the time taken), events above it.
 */
class Progress {
  #status = "";
  #frame = 0;
  #timer?: ReturnType<typeof setInterval>;
  readonly #started = Date.now();

  constructor(readonly terminal: boolean) {
    if (terminal) this.#timer = setInterval(() => this.#redraw(), 200);
  }

  status(text: string): void {
    if (text === this.#status) return;
    this.#status = text;
    if (this.terminal) this.#redraw();
    else write(`${text}\n`);
  }

  line(text: string): void {
    if (this.terminal) write(`\r\x1b[2K${text}\n`), this.#redraw();
    else write(`${text}\n`);
  }

  /** Ends the status line; `text` replaces it on a terminal. */
  end(text?: string): void {
    clearInterval(this.#timer);
    if (this.terminal) write(`\r\x1b[2K${text ? `${text}\n` : ""}`);
    else if (text) write(`${text}\n`);
  }

  #redraw(): void {
    const seconds = Math.floor((Date.now() - this.#started) / 1000);
    const spinner = SPINNER[this.#frame++ % SPINNER.length];
    write(`\r\x1b[2K${spinner} ${this.#status} (${seconds}s)`);
  }
}

function eventLine(event: ClusterEvent): string {
  return `  ${event.type ?? "Normal"}  ${event.reason ?? ""}: ${
    event.message ?? ""
  }`;
}

/**
 * Waits as `options` say; resolves with exit code 0 when the cluster got
 * there, throws a CliError (exit 1 failed or deleted, exit 2 timed out)
 * otherwise.
 */
export async function waitForCluster(
  client: CorralClient,
  options: WaitOptions,
): Promise<number> {
  const { namespace, name, until, timeoutMs } = options;
  const key = `${namespace}/${name}`;
  const progress = new Progress(Deno.stdout.isTerminal());
  const aborter = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    aborter.abort();
  }, timeoutMs);
  const shown = new Set<string>();
  let last: Cluster | undefined;
  let initial = true;
  const path = `${watchPath(namespace)}?name=${encodeURIComponent(name)}`;
  progress.status(
    `cluster ${key}: ${until === "ready" ? "waiting" : "deleting"}`,
  );
  try {
    for await (const result of follow(client, path, aborter.signal)) {
      if (result.type === "BOOKMARK") {
        // The initial state ended without the cluster: it is gone already.
        if (initial && until === "deleted" && !last) break;
        initial = false;
        continue;
      }
      const cluster = result.cluster;
      if (!cluster || cluster.name !== name) continue;
      if (result.type === "DELETED") {
        if (until === "deleted") {
          last = undefined;
          break;
        }
        throw new CliError(
          `cluster ${key} was deleted while waiting for it to be ready`,
          EXIT_API_ERROR,
        );
      }
      last = cluster;
      for (const event of cluster.events ?? []) {
        const id = event.id ?? `${event.reason}/${event.message}`;
        if (shown.has(id)) continue;
        shown.add(id);
        progress.line(eventLine(event));
      }
      const state = displayState(cluster);
      progress.status(`cluster ${key}: ${state}`);
      if (until === "ready" && state === "ready") break;
      if (until === "ready" && state === "failed") {
        progress.end();
        const warnings = (cluster.events ?? []).filter((e) =>
          e.type === "Warning"
        ).slice(-WARNINGS_SHOWN);
        throw new CliError(
          `cluster ${key} failed`,
          EXIT_API_ERROR,
          warnings.length > 0
            ? warnings.map(eventLine)
            : ["  (it has no Warning events)"],
        );
      }
    }
  } catch (error) {
    progress.end();
    throw error;
  } finally {
    clearTimeout(timer);
    aborter.abort();
  }
  if (timedOut) {
    progress.end();
    throw new CliError(
      `timed out after ${
        formatDuration(timeoutMs)
      } waiting for cluster ${key} to be ${
        until === "ready" ? "ready" : "deleted"
      }${last ? ` (state: ${displayState(last)})` : ""}`,
      EXIT_USAGE,
    );
  }
  progress.end(
    until === "ready" ? `cluster ${key} is ready` : `cluster ${key} deleted`,
  );
  return EXIT_OK;
}
