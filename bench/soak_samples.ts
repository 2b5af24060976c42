/**
 * What bench/soak.ts samples of a process, and what it makes of the
 * samples: the resident set, open file descriptors and sockets read from
 * /proc/PID (Linux), the V8 heap from Corral's /metrics, and the slope of
 * each per minute after the warm-up, by least squares.
 */
/** One sample of one process. */
export interface Sample {
  /** Seconds since the workload started. */
  at: number;
  rssMb: number;
  /** The V8 heap in use (live objects and garbage not yet collected). */
  heapMb: number;
  /** The heap after a full collection, when the inspector was asked for one. */
  liveHeapMb?: number;
  fds: number;
  sockets: number;
  /** The series /metrics answers (lines that are not comments). */
  series?: number;
}

/** The resident set of `pid`, in MiB, from /proc/PID/status. */
export async function procRssMb(pid: number): Promise<number> {
  const status = await Deno.readTextFile(`/proc/${pid}/status`);
  const kb = /^VmRSS:\s+(\d+) kB$/m.exec(status)?.[1];
  return Number(kb ?? NaN) / 1024;
}

/** The open file descriptors of `pid`, and how many of them are sockets. */
export async function procFds(
  pid: number,
): Promise<{ fds: number; sockets: number }> {
  let fds = 0;
  let sockets = 0;
  for await (const entry of Deno.readDir(`/proc/${pid}/fd`)) {
    fds++;
    try {
      const target = await Deno.readLink(`/proc/${pid}/fd/${entry.name}`);
      if (target.startsWith("socket:")) sockets++;
    } catch { /* closed while read */ }
  }
  return { fds, sockets };
}

/** A sample of Corral: /proc/PID for RSS and descriptors, /metrics for heap. */
export async function sampleCorral(
  pid: number,
  http: string,
  at: number,
  liveHeapMb?: number,
): Promise<Sample> {
  const lines = (await (await fetch(`${http}/metrics`)).text()).split("\n")
    .filter((line) => line !== "" && !line.startsWith("#"));
  const heap = lines.find((line) =>
    line.startsWith('process_memory_bytes{kind="heap_used"}')
  );
  return {
    at,
    rssMb: await procRssMb(pid),
    heapMb: Number(heap?.split(" ").at(-1)) / 2 ** 20,
    liveHeapMb,
    ...await procFds(pid),
    series: lines.length,
  };
}

/** A sample of a process without /metrics (the stand-in): no heap. */
export async function sampleProcess(pid: number, at: number): Promise<Sample> {
  return {
    at,
    rssMb: await procRssMb(pid),
    heapMb: NaN,
    ...await procFds(pid),
  };
}

/** The least-squares slope of `value` over `at`, per minute. */
export function slopePerMinute(
  samples: readonly Sample[],
  value: (sample: Sample) => number | undefined,
): number {
  const points = samples
    .map((s) => [s.at / 60, value(s)] as const)
    .filter((p): p is readonly [number, number] =>
      p[1] !== undefined && Number.isFinite(p[1])
    );
  const n = points.length;
  if (n < 2) return NaN;
  const meanX = points.reduce((sum, [x]) => sum + x, 0) / n;
  const meanY = points.reduce((sum, [, y]) => sum + y, 0) / n;
  let num = 0;
  let den = 0;
  for (const [x, y] of points) {
    num += (x - meanX) * (y - meanY);
    den += (x - meanX) ** 2;
  }
  return den === 0 ? NaN : num / den;
}

/** The columns of a sample, for the table and the CSV file. */
export const COLUMNS = [
  "seconds",
  "rss_mib",
  "heap_mib",
  "live_heap_mib",
  "fds",
  "sockets",
  "metric_series",
] as const;

/** One sample as the values of COLUMNS. */
export function row(sample: Sample): string[] {
  return [
    sample.at.toFixed(0),
    sample.rssMb.toFixed(1),
    Number.isFinite(sample.heapMb) ? sample.heapMb.toFixed(1) : "",
    sample.liveHeapMb === undefined ? "" : sample.liveHeapMb.toFixed(1),
    String(sample.fds),
    String(sample.sockets),
    sample.series === undefined ? "" : String(sample.series),
  ];
}
