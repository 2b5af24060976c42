/**
 * bench/soak.ts's verdict: each figure at the end of the warm-up and at the
 * end, with its slope per minute over the samples after the warm-up, for
 * Corral and (in kubernetes mode) the stand-in; and the answers the
 * workload got, by call and HTTP status.
 */
import { type Sample, slopePerMinute } from "./soak_samples.ts";
import type { Outcomes } from "./soak_workload.ts";

export interface SoakResult {
  samples: Sample[];
  standinSamples: Sample[];
  warmUpSeconds: number;
  calls: number;
  outcomes: Outcomes;
  /** The size of Corral's log at the end. */
  logBytes: number;
}

const FIGURES: [string, (s: Sample) => number | undefined, number][] = [
  ["RSS (MiB)", (s) => s.rssMb, 1],
  ["heap in use (MiB)", (s) => s.heapMb, 1],
  ["live heap after a full GC (MiB)", (s) => s.liveHeapMb, 2],
  ["file descriptors", (s) => s.fds, 0],
  ["sockets", (s) => s.sockets, 0],
  ["series in /metrics", (s) => s.series, 0],
];

function table(title: string, samples: Sample[], warmUpSeconds: number) {
  const after = samples.filter((s) => s.at >= warmUpSeconds);
  const first = after[0];
  const last = after.at(-1);
  if (!first || !last) return console.log(`${title}: no sample after warm-up`);
  console.log(`\n${title}, ${after.length} samples after the warm-up\n`);
  console.log(
    `| figure | at ${first.at.toFixed(0)} s (warm-up end) | at ${
      last.at.toFixed(0)
    } s (end) | slope after warm-up, per minute |`,
  );
  console.log("|---|---|---|---|");
  for (const [name, value, digits] of FIGURES) {
    const a = value(first);
    const b = value(last);
    if (a === undefined || !Number.isFinite(a)) continue;
    console.log(
      `| ${name} | ${a.toFixed(digits)} | ${b!.toFixed(digits)} | ${
        slopePerMinute(after, value).toFixed(3)
      } |`,
    );
  }
}

export function printSummary(result: SoakResult): void {
  table("Corral", result.samples, result.warmUpSeconds);
  if (result.standinSamples.length) {
    table(
      "The stand-in and simulated operator (their own process)",
      result.standinSamples,
      result.warmUpSeconds,
    );
  }
  console.log(
    `\n${result.calls} calls, ${
      (result.logBytes / 2 ** 20).toFixed(1)
    } MiB of log; answers by call and HTTP status:`,
  );
  for (const [what, counts] of Object.entries(result.outcomes).sort()) {
    console.log(`  ${what}: ${JSON.stringify(counts)}`);
  }
}
