/**
 * `deno task bench:soak`: whether Corral's memory stays flat under a steady
 * mixed workload (bench/soak_workload.ts: creates, gets, lists, watches,
 * jobs and deletes over HTTP/JSON, by three users with static tokens).
 *
 * Corral runs as deployed: main.ts in kubernetes mode, with the V8 flags of
 * `deno task start`, its log at info on a file, against the stand-in and
 * the simulated operator in a process of their own (bench/soak_standin.ts).
 * With --mode dev it runs as `deno task dev` does, the stand-in and the
 * operator in Corral's process, so their memory counts as Corral's.
 *
 * Every --interval it samples Corral's resident set, open file descriptors
 * and sockets (/proc/PID), and its V8 heap in use (/metrics), and the
 * stand-in's in kubernetes mode; at the end it prints the samples at the
 * end of the warm-up and at the end and each one's slope per minute after
 * the warm-up (least squares), which is what says flat or not. With
 * --inspect the heap is also read after a full collection through the V8
 * inspector (the live heap, without the garbage that blurs the figure from
 * /metrics); --snapshots DIR writes heap snapshots at the end of the
 * warm-up and at the end, of Corral and (standin-*.heapsnapshot) of the
 * stand-in's process, for bench/heap_diff.ts or Chrome's DevTools. A
 * snapshot stops the process for seconds and leaves its RSS high: with
 * --snapshots, only the heap figures say anything.
 *
 * The warm-up (12 minutes by default) is what Corral holds by design
 * filling up: the objects alive (--alive clusters and as many jobs), the
 * last 5 minutes' Events of objects gone (orchestrator/orphan_events.ts)
 * and above all the watch history, 4,096 changes of clusters and of jobs
 * (api/service/watch_fanout.ts), which at 9 calls/s takes some 11
 * minutes to fill. A shorter warm-up shows the history filling. Flags:
 * --duration, --warm-up, --interval, --rate (calls a second), --alive,
 * --watch (how long a watch stays open), --max-watches, --csv FILE,
 * --mode, --inspect, --snapshots DIR.
 *
 *   deno task bench:soak                                  # 30 min, 9 calls/s
 *   deno task bench:soak --duration 8m --warm-up 2m --rate 10
 *   deno task bench:soak --mode dev --csv /tmp/dev.csv
 *   deno task bench:soak --duration 10m --snapshots /tmp/heap
 *
 * Linux only (/proc), and with --allow-all: Deno lets nothing less read
 * another process's /proc/PID. The machine's CPU may be shared: the
 * figures that matter are memory and descriptors, not times.
 */
import { parseArgs } from "node:util";
import { Inspector } from "./inspector.ts";
import { freePort, spawn } from "./processes.ts";
import {
  COLUMNS,
  row,
  type Sample,
  sampleCorral,
  sampleProcess,
} from "./soak_samples.ts";
import { type SoakCorral, startSoakCorral } from "./soak_corral.ts";
import { printSummary } from "./soak_summary.ts";
import { Workload } from "./soak_workload.ts";

const { values } = parseArgs({
  args: Deno.args.filter((arg) => arg !== "--"),
  options: {
    mode: { type: "string", default: "kubernetes" },
    duration: { type: "string", default: "30m" },
    "warm-up": { type: "string", default: "12m" },
    interval: { type: "string", default: "10s" },
    rate: { type: "string", default: "9" },
    alive: { type: "string", default: "20" },
    watch: { type: "string", default: "20s" },
    "max-watches": { type: "string", default: "4" },
    csv: { type: "string" },
    inspect: { type: "boolean", default: false },
    snapshots: { type: "string" },
  },
});

/** "30m", "10s", "1h", "500ms" in ms. */
function duration(text: string): number {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h)$/.exec(text);
  if (!match) throw new Error(`not a duration: "${text}" (e.g. 30s, 10m)`);
  const unit = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[match[2]]!;
  return Number(match[1]) * unit;
}

const mode = values.mode;
if (mode !== "kubernetes" && mode !== "dev") {
  throw new Error(`--mode is kubernetes or dev, not "${mode}"`);
}
const DURATION_MS = duration(values.duration);
const WARM_UP_S = duration(values["warm-up"]) / 1000;
const INTERVAL_MS = duration(values.interval);
const inspect = values.inspect || values.snapshots !== undefined;

/** The workload and the samples, from the start to the summary. */
async function soak(corral: SoakCorral, standin?: Standin): Promise<void> {
  const inspectors: Inspected = {
    corral: corral.inspect
      ? await Inspector.connect(corral.inspect)
      : undefined,
    standin: standin?.inspect
      ? await Inspector.connect(standin.inspect)
      : undefined,
  };
  try {
    await measure(corral, inspectors, standin?.pid);
  } finally {
    // Deno keeps a process whose inspector has a client from exiting.
    inspectors.corral?.close();
    inspectors.standin?.close();
  }
}

/** The stand-in's process, and its inspector with --snapshots. */
interface Standin {
  pid: number;
  inspect?: string;
}

/** The inspectors of the processes measured, where asked for. */
interface Inspected {
  corral?: Inspector;
  standin?: Inspector;
}

async function measure(
  corral: SoakCorral,
  inspectors: Inspected,
  standinPid: number | undefined,
): Promise<void> {
  const workload = new Workload({
    http: corral.http,
    callers: corral.callers,
    namespaces: ["team-a", "team-b", "team-c", "team-d"],
    rate: Number(values.rate),
    alive: Number(values.alive),
    watchMs: duration(values.watch),
    maxWatches: Number(values["max-watches"]),
  });
  await workload.prepare();
  console.log(
    `Soak of Corral (${mode} mode, pid ${corral.pid}${
      standinPid ? `; stand-in pid ${standinPid}` : ""
    }): ${values.rate} calls/s for ${values.duration}, warm-up ${
      values["warm-up"]
    }, a sample every ${values.interval}`,
  );
  const table = new SampleTable(values.csv, standinPid !== undefined);
  const samples: Sample[] = [];
  const standinSamples: Sample[] = [];
  const started = performance.now();
  workload.start();
  for (let n = 0;; n++) {
    const at = (performance.now() - started) / 1000;
    if (values.snapshots && at >= WARM_UP_S && !table.snapshotTaken) {
      table.snapshotTaken = true;
      await snapshot(inspectors, "warm-up");
    }
    const live = await inspectors.corral?.liveHeapMb();
    const sample = await sampleCorral(corral.pid, corral.http, at, live);
    samples.push(sample);
    const of = standinPid ? await sampleProcess(standinPid, at) : undefined;
    if (of) standinSamples.push(of);
    await table.write(sample, of);
    if (at * 1000 >= DURATION_MS) break;
    // On the interval's beat, however long sampling took.
    const next = started + (n + 1) * INTERVAL_MS;
    await new Promise((r) => setTimeout(r, next - performance.now()));
  }
  const unended = await workload.stop();
  if (unended > 0) {
    console.log(`${unended} calls had not ended 30 s after the last`);
  }
  if (values.snapshots) await snapshot(inspectors, "end");
  table.close();
  printSummary({
    samples,
    standinSamples,
    warmUpSeconds: WARM_UP_S,
    calls: workload.calls,
    outcomes: workload.outcomes,
    logBytes: (await Deno.stat(corral.log)).size,
  });
}

/** Heap snapshots of Corral and of the stand-in, named `name`. */
async function snapshot(inspectors: Inspected, name: string): Promise<void> {
  await Deno.mkdir(values.snapshots!, { recursive: true });
  for (
    const [prefix, inspector] of [["", inspectors.corral], [
      "standin-",
      inspectors.standin,
    ]] as const
  ) {
    if (!inspector) continue;
    const path = `${values.snapshots}/${prefix}${name}.heapsnapshot`;
    await inspector.snapshot(path);
    console.log(`Wrote ${path}`);
  }
}

/** The samples as they come, on standard output and in the --csv file. */
class SampleTable {
  snapshotTaken = false;
  readonly #csv?: Deno.FsFile;

  constructor(csv: string | undefined, standin: boolean) {
    const columns = [
      ...COLUMNS,
      ...(standin ? ["standin_rss_mib", "standin_fds"] : []),
    ];
    console.log(columns.join("\t"));
    if (!csv) return;
    this.#csv = Deno.openSync(csv, {
      write: true,
      create: true,
      truncate: true,
    });
    this.#csv.writeSync(new TextEncoder().encode(columns.join(",") + "\n"));
  }

  async write(sample: Sample, standin?: Sample): Promise<void> {
    const line = [
      ...row(sample),
      ...(standin ? [standin.rssMb.toFixed(1), String(standin.fds)] : []),
    ];
    console.log(line.join("\t"));
    await this.#csv?.write(new TextEncoder().encode(line.join(",") + "\n"));
  }

  close(): void {
    this.#csv?.close();
  }
}

const work = await Deno.makeTempDir({ prefix: "corral-soak-" });
const standinInspect = values.snapshots && `127.0.0.1:${freePort()}`;
const standin = mode === "kubernetes"
  ? await spawn([
    "run",
    "-A",
    ...(standinInspect ? [`--inspect=${standinInspect}`] : []),
    "bench/soak_standin.ts",
  ])
  : undefined;
try {
  const corral = await startSoakCorral({
    mode,
    kubeconfig: standin && JSON.parse(standin.first).kubeconfig,
    work,
    inspect,
  });
  try {
    await soak(
      corral,
      standin && {
        pid: standin.child.pid,
        inspect: standinInspect || undefined,
      },
    );
  } finally {
    await corral.stop();
  }
} finally {
  if (standin) {
    standin.child.kill("SIGTERM");
    await standin.child.status;
  }
  await Deno.remove(work, { recursive: true });
}
