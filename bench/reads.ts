/**
 * `deno task bench`: how fast Corral answers reads, from its cache and with
 * --cache=off, against the stand-in (bench/standin.ts) in a process of its
 * own holding N clusters over 10 namespaces. wrk (Debian package `wrk`)
 * makes the load: 16 connections, 2 threads; a paginated walk, which wrk
 * cannot follow, is made by this script with 16 concurrent walkers. Each
 * wrk run follows a run of 1 s whose numbers are dropped (a warm-up), for
 * Corral and for the hello-world ceiling alike.
 *
 *   deno task bench                          # 10,000 clusters, 10 s a run
 *   deno task bench --clusters 1000 --duration 5s
 *   deno task bench --clusters 50000         # size only (bench/size.ts)
 *
 * Prints a table: req/s, p50 and p99 latency, Kubernetes calls per request
 * (from Corral's /metrics), Corral's RSS after loading, the bytes a cached
 * cluster costs, and the time from start to ready. Above SIZE_ONLY_ABOVE
 * clusters (or with --size-only) it measures size alone, with one event a
 * cluster unless --events-per-cluster says: the time to ready, the memory
 * when ready and after one unpaginated ListAllClusters (bench/size.ts).
 *
 * Ready is timed on Corral's second start against the stand-in: a first one
 * (timed and reported too) makes the stand-in answer each of Corral's lists
 * once, as an API server in use always has, so that the stand-in's own
 * start-up (its code compiled on its first lists) is not counted as
 * Corral's. ListAllClusters is reported beside Deno.serve answering a body
 * of the same size to as many connections: the ceiling for that read.
 */
import { parseArgs } from "node:util";
import {
  freePort,
  heapUsedMb,
  loadAverage,
  metric,
  rssMb,
  seededStandin,
  spawn,
  startCorral,
} from "./processes.ts";
import { bytesPerCluster, measureSize, printSize } from "./size.ts";

const { values } = parseArgs({
  args: Deno.args.filter((arg) => arg !== "--"),
  options: {
    clusters: { type: "string", default: "10000" },
    duration: { type: "string", default: "10s" },
    connections: { type: "string", default: "16" },
    "events-per-cluster": { type: "string" },
    "size-only": { type: "boolean", default: false },
  },
});
const N = Number(values.clusters);
const DURATION = values.duration;
const WARM_UP = "1s";
const CONNECTIONS = Number(values.connections);
/**
 * Above this many clusters the bench measures size alone: the reads' runs
 * at 50,000 take minutes, and with --cache=off every list times out.
 */
const SIZE_ONLY_ABOVE = 10_000;
const SIZE_ONLY = values["size-only"] || N > SIZE_ONLY_ABOVE;
/** 3 a cluster for the reads; 1 for size alone (the size target's seed). */
const EVENTS_EACH = Number(values["events-per-cluster"] ?? (SIZE_ONLY ? 1 : 3));

async function has(tool: string): Promise<boolean> {
  try {
    await new Deno.Command(tool, {
      args: ["--version"],
      stdout: "null",
      stderr: "null",
    }).output();
    return true;
  } catch {
    return false;
  }
}

interface Row {
  what: string;
  rps: number;
  p50: number;
  p99: number;
  kubeCallsPerRequest?: number;
  /** Answers that were not 200 (direct reads of 10,000 time out). */
  errors: number;
}

interface Load {
  rps: number;
  p50: number;
  p99: number;
  requests: number;
  errors: number;
}

/** One wrk run (of DURATION unless told). */
async function wrk(
  url: string,
  connections = CONNECTIONS,
  gzip = false,
  duration = DURATION,
): Promise<Load> {
  return parseWrk(
    await new Deno.Command("wrk", {
      args: [
        `-t${Math.min(2, connections)}`,
        `-c${connections}`,
        `-d${duration}`,
        "--latency",
        // As browsers, curl --compressed and Kubernetes' clients ask.
        ...(gzip ? ["-H", "Accept-Encoding: gzip"] : []),
        url,
      ],
      stdout: "piped",
    }).output(),
  );
}

function parseWrk(output: Deno.CommandOutput): Load {
  const text = new TextDecoder().decode(output.stdout);

  const ms = (label: string) => {
    const match = text.match(new RegExp(`${label}%\\s+([\\d.]+)(us|ms|s)`));
    if (!match) return NaN;
    const value = Number(match[1]);
    return match[2] === "us"
      ? value / 1000
      : match[2] === "s"
      ? value * 1000
      : value;
  };
  const rps = Number(text.match(/Requests\/sec:\s+([\d.]+)/)?.[1] ?? NaN);
  const requests = Number(text.match(/(\d+) requests in/)?.[1] ?? 0);
  const errors = Number(
    text.match(/Non-2xx or 3xx responses: (\d+)/)?.[1] ?? 0,
  );
  return { rps, p50: ms("50"), p99: ms("99"), requests, errors };
}

/** Every Kubernetes call Corral made so far, by its /metrics. */
function kubeCalls(http: string): Promise<number> {
  return metric(http, /^corral_kubernetes_requests_total\{.*\}/);
}

/** 16 walkers paging through every cluster, page size 500, for the duration. */
async function walk(http: string): Promise<Load> {
  const latencies: number[] = [];
  let errors = 0;
  const seconds = Number(DURATION.replace(/s$/, ""));
  const end = performance.now() + seconds * 1000;
  await Promise.all(Array.from({ length: CONNECTIONS }, async () => {
    while (performance.now() < end) {
      let token = "";
      do {
        const started = performance.now();
        const response = await fetch(
          `${http}/apis/v1alpha2/clusters?pageSize=500${
            token ? `&pageToken=${token}` : ""
          }`,
        );
        const body = await response.json();
        latencies.push(performance.now() - started);
        if (response.status !== 200) {
          errors++;
          break;
        }
        token = body.nextPageToken;
      } while (token && performance.now() < end);
    }
  }));
  latencies.sort((a, b) => a - b);
  const at = (q: number) =>
    latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))];
  return {
    rps: latencies.length / seconds,
    p50: at(0.5),
    p99: at(0.99),
    requests: latencies.length,
    errors,
  };
}

async function measure(
  http: string,
  what: string,
  url: string,
  walker = false,
  connections = CONNECTIONS,
  gzip = false,
): Promise<Row> {
  // What is measured is the server warmed up, its code compiled and the
  // garbage of its start-up collected (the hello-world's likewise).
  if (!walker) await wrk(url, connections, gzip, WARM_UP);
  const before = await kubeCalls(http);
  const result = walker ? await walk(http) : await wrk(url, connections, gzip);
  const after = await kubeCalls(http);
  return {
    what,
    rps: result.rps,
    p50: result.p50,
    p99: result.p99,
    kubeCallsPerRequest: (after - before) / Math.max(1, result.requests),
    errors: result.errors,
  };
}

// ---------------------------------------------------------------------------

/** What GetCluster answers for a cluster bench/standin.ts seeds. */
const SEEDED_CLUSTER_BYTES = 1_560;

/**
 * Deno.serve answering a JSON body of `bytes`: the runtime's ceiling. Made
 * on each request, as the issue that set the target measured it; or, with
 * `kept`, made once, as Corral keeps a large list's answer (a string: for
 * 15 MB at 16 connections, faster here than bytes, which Response copies,
 * or a stream of them).
 */
async function ceiling(bytes: number, kept = false): Promise<Load> {
  const port = freePort();
  const answer = kept
    ? "new Response(text, init)"
    : "new Response(JSON.stringify({ body }), init)";
  const hello = await spawn([
    "eval",
    `const body = "x".repeat(${Math.max(0, bytes - 11)});
     const text = JSON.stringify({ body });
     const init = { headers: { "content-type": "application/json" } };
     Deno.serve({ hostname: "127.0.0.1", port: ${port}, onListen() { console.log("{}"); } },
       () => ${answer});`,
  ]);
  await wrk(`http://127.0.0.1:${port}/`, CONNECTIONS, false, WARM_UP);
  const load = await wrk(`http://127.0.0.1:${port}/`);
  hello.child.kill("SIGTERM");
  await hello.child.status;
  return load;
}

/** One Corral's rows, with its memory and start-up time. */
interface Variant {
  variant: string;
  rows: Row[];
  rssMb: number;
  loadedMb: number;
  /** The V8 heap in use when ready, in MiB. */
  loadedHeapMb: number;
  readySeconds: number;
}

async function main(): Promise<void> {
  if (!(await has("wrk"))) {
    console.error("deno task bench needs wrk: apt-get install wrk");
    Deno.exit(2);
  }
  console.error(
    `Seeding the stand-in with ${N} clusters, ${EVENTS_EACH} events each...`,
  );
  const standin = await seededStandin(N, EVENTS_EACH);
  if (SIZE_ONLY) {
    try {
      const report = await measureSize(standin.kubeconfig, N);
      console.log(
        `\n${N} clusters over 10 namespaces, ${EVENTS_EACH} events each`,
      );
      printSize(report);
    } finally {
      await standin.stop();
    }
    return;
  }
  const load = loadAverage();

  const results: Variant[] = [];
  let clusterJson = "";
  let listBytes = 0;
  const firstReady = await firstStart(standin.kubeconfig);
  // The ceiling before Corral's runs as well as after them: on a shared
  // machine it moves, and the higher one is the fair one to compare with.
  const before = await ceiling(SEEDED_CLUSTER_BYTES);
  for (const cache of ["on", "off"]) {
    const measured = await measureCorral(
      standin.kubeconfig,
      cache,
      clusterJson === "",
    );
    clusterJson ||= measured.clusterJson;
    listBytes ||= measured.listBytes;
    results.push(measured.variant);
  }
  const after = await ceiling(clusterJson.length);
  const listCeiling = await ceiling(listBytes, true);
  await standin.stop();

  console.log(
    `\n${N} clusters over 10 namespaces, ${EVENTS_EACH} events each; ${CONNECTIONS} connections, ${DURATION} a run (wrk; the paginated walk by this script); load average ${
      fmt(load, 2)
    } before, ${fmt(loadAverage(), 2)} after`,
  );
  printCeilings(before, after, clusterJson.length, results[0]?.rows[0]);
  printRows(results);
  console.log("");
  printListCeiling(listCeiling, listBytes, results[0]?.rows[2]);
  printMemory(results, firstReady);
}

/**
 * Corral's first start against the stand-in, stopped once ready: its time
 * to ready, which counts the stand-in's first answers to each list.
 */
async function firstStart(kubeconfig: string): Promise<number> {
  const corral = await startCorral(kubeconfig, ["--cache", "on"]);
  await corral.stop();
  return corral.readySeconds;
}

/** ListAllClusters (cache on, 16 connections) beside its ceiling. */
function printListCeiling(
  load: Load,
  bytes: number,
  list: Row | undefined,
): void {
  console.log(
    `Deno.serve answering a ${
      (bytes / 1e6).toFixed(1)
    } MB body (ListAllClusters' size), ${CONNECTIONS} connections: ${
      fmt(load.rps, 0)
    } req/s, p50 ${fmt(load.p50, 1)} ms, p99 ${fmt(load.p99, 1)} ms${
      list
        ? `; ListAllClusters (cache on) p50 ${fmt(list.p50, 1)} ms, ${
          fmt(list.p50 / load.p50, 2)
        } times the ceiling's`
        : ""
    }`,
  );
}

/**
 * Starts Corral with --cache=<cache> against the stand-in, measures every
 * read, and stops it; with `wantClusterJson`, also what GetCluster answers
 * (its body, fetched before the runs), else "".
 */
async function measureCorral(
  kubeconfig: string,
  cache: string,
  wantClusterJson: boolean,
): Promise<{ variant: Variant; clusterJson: string; listBytes: number }> {
  const corral = await startCorral(kubeconfig, ["--cache", cache]);
  try {
    const { http, readySeconds } = corral;
    const loadedMb = await rssMb(http);
    const loadedHeapMb = await heapUsedMb(http);
    const one =
      `${http}/apis/v1alpha2/namespaces/team-3/clusters/cluster-00003`;
    const clusterJson = wantClusterJson ? await (await fetch(one)).text() : "";
    console.error(
      `Corral --cache=${cache} ready in ${
        readySeconds.toFixed(2)
      } s; measuring...`,
    );
    const rows = await measureReads(http, one);
    // Asked for after the reads: the first list-all keeps every cluster's
    // message, which GetCluster's run before it must not be measured with.
    const listBytes = wantClusterJson
      ? (await (await fetch(`${http}/apis/v1alpha2/clusters`)).arrayBuffer())
        .byteLength
      : 0;
    const variant = {
      variant: `cache ${cache}`,
      rows,
      rssMb: await rssMb(http),
      loadedMb,
      loadedHeapMb,
      readySeconds,
    };
    return { variant, clusterJson, listBytes };
  } finally {
    await corral.stop();
  }
}

/** Every read of the table, one after another, against the Corral at `http`. */
async function measureReads(http: string, one: string): Promise<Row[]> {
  return [
    await measure(http, "GetCluster", one),
    await measure(
      http,
      `ListCluster (${N / 10})`,
      `${http}/apis/v1alpha2/namespaces/team-3/clusters`,
    ),
    await measure(
      http,
      `ListAllClusters (${N})`,
      `${http}/apis/v1alpha2/clusters`,
    ),
    await measure(
      http,
      `ListAllClusters (${N}), 1 connection`,
      `${http}/apis/v1alpha2/clusters`,
      false,
      1,
    ),
    await measure(
      http,
      `ListAllClusters (${N}), gzip`,
      `${http}/apis/v1alpha2/clusters`,
      false,
      CONNECTIONS,
      true,
    ),
    await measure(http, `paginated walk of ${N}, pages of 500`, "", true),
    // Again once every cluster's message is kept (by the list-all runs):
    // the live heap each full collection marks is larger from then on.
    await measure(http, "GetCluster, after the lists", one),
  ];
}

function fmt(n: number, digits = 1): string {
  return Number.isFinite(n) ? n.toFixed(digits) : "n/a";
}

/**
 * The hello-world ceilings, before and after Corral's runs, and GetCluster
 * (cache on) as a share of the higher.
 */
function printCeilings(
  before: Load,
  after: Load,
  clusterBytes: number,
  get: Row | undefined,
): void {
  for (const [when, load] of [["before", before], ["after", after]] as const) {
    console.log(
      `Deno.serve hello-world (${when} Corral's runs), ${
        when === "before" ? SEEDED_CLUSTER_BYTES : clusterBytes
      } B body: ${fmt(load.rps, 0)} req/s, p50 ${fmt(load.p50, 2)} ms, p99 ${
        fmt(load.p99, 2)
      } ms`,
    );
  }
  if (get) {
    console.log(
      `GetCluster (cache on): ${
        fmt(100 * get.rps / Math.max(before.rps, after.rps), 0)
      }% of the higher ceiling\n`,
    );
  }
}

/** The table of reads: one line a variant and read. */
function printRows(results: Variant[]): void {
  console.log(
    "| variant | read | req/s | p50 ms | p99 ms | Kubernetes calls / request | not 200 |",
  );
  console.log("|---|---|---|---|---|---|---|");
  for (const { variant, rows } of results) {
    for (const row of rows) {
      console.log(
        `| ${variant} | ${row.what} | ${fmt(row.rps, 0)} | ${
          fmt(row.p50, 2)
        } | ${fmt(row.p99, 2)} | ${
          fmt(row.kubeCallsPerRequest ?? NaN, 2)
        } | ${row.errors} |`,
      );
    }
  }
}

/**
 * Each variant's start-up time and memory, and what a cached cluster costs:
 * cache on minus cache off, both when ready, divided by the clusters.
 */
function printMemory(results: Variant[], firstReady: number): void {
  console.log(
    `first start (cache on), the stand-in answering its lists for the first time: ready ${
      firstReady.toFixed(2)
    } s after start`,
  );
  for (const { variant, rssMb, loadedMb, readySeconds } of results) {
    console.log(
      `${variant}: ready ${
        readySeconds.toFixed(2)
      } s after start; RSS when ready ${
        loadedMb.toFixed(0)
      } MB, after the runs ${rssMb.toFixed(0)} MB`,
    );
  }
  const [on, off] = results;
  if (on === undefined || off === undefined) return;
  console.log(
    `per cached cluster with its events (cache on minus off, when ready): ${
      bytesPerCluster(on.loadedMb, off.loadedMb, N).toFixed(0)
    } B of RSS, ${
      bytesPerCluster(on.loadedHeapMb, off.loadedHeapMb, N).toFixed(0)
    } B of heap in use`,
  );
}

if (import.meta.main) await main();
