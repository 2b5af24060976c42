/**
 * What holding N clusters costs Corral: the time from start to ready, its
 * memory when ready, and its memory after one full unpaginated
 * ListAllClusters; and the bytes a cached cluster (with its events) costs,
 * as the difference between Corral with --cache=on and with --cache=off,
 * both read when ready, divided by N.
 *
 * Memory is read from Corral's /metrics (process_memory_bytes, from
 * Deno.memoryUsage()): the RSS, and the V8 heap in use. The heap in use is
 * read when ready, without forcing a collection (Corral runs as deployed),
 * so it counts the garbage of the first lists not yet collected as well as
 * what the cache holds: an upper bound of a cluster's cost.
 */
import { heapUsedMb, loadAverage, rssMb, startCorral } from "./processes.ts";

/** Corral's memory at one moment, in MiB. */
export interface Memory {
  rssMb: number;
  heapMb: number;
}

export interface SizeReport {
  clusters: number;
  readySeconds: number;
  ready: Memory;
  /** --cache=off when ready: what Corral holds without the cache. */
  uncached: Memory;
  /** SETTLE_MS after ready, idle: what V8 gave back of the first lists. */
  settled: Memory;
  afterList: Memory;
  listSeconds: number;
  listBytes: number;
  /** The load average (1 min) when measured. */
  load: number;
}

/** How long Corral is left idle after ready before its memory is read again. */
const SETTLE_MS = 5_000;

async function memoryOf(http: string): Promise<Memory> {
  return { rssMb: await rssMb(http), heapMb: await heapUsedMb(http) };
}

/** Corral with --cache=off, only to read its memory when ready. */
export async function uncachedMemory(kubeconfig: string): Promise<Memory> {
  const corral = await startCorral(kubeconfig, ["--cache", "off"]);
  try {
    return await memoryOf(corral.http);
  } finally {
    await corral.stop();
  }
}

/**
 * Starts Corral with the cache against the stand-in holding `clusters`,
 * measures it as the module says, and stops it.
 */
export async function measureSize(
  kubeconfig: string,
  clusters: number,
): Promise<SizeReport> {
  const uncached = await uncachedMemory(kubeconfig);
  const load = loadAverage();
  const corral = await startCorral(kubeconfig, ["--cache", "on"]);
  try {
    const { http, readySeconds } = corral;
    const ready = await memoryOf(http);
    console.error(
      `Corral --cache=on ready in ${readySeconds.toFixed(2)} s with ${
        ready.rssMb.toFixed(0)
      } MB; listing every cluster...`,
    );
    await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
    const settled = await memoryOf(http);
    const started = performance.now();
    const response = await fetch(`${http}/apis/v1alpha2/clusters`);
    const listBytes = (await response.arrayBuffer()).byteLength;
    if (response.status !== 200) {
      throw new Error(`ListAllClusters answered ${response.status}`);
    }
    const listSeconds = (performance.now() - started) / 1000;
    return {
      clusters,
      readySeconds,
      ready,
      settled,
      uncached,
      afterList: await memoryOf(http),
      listSeconds,
      listBytes,
      load,
    };
  } finally {
    await corral.stop();
  }
}

/** Bytes a cached cluster costs: (cached - uncached) / clusters. */
export function bytesPerCluster(
  cached: number,
  uncached: number,
  clusters: number,
): number {
  return (cached - uncached) * 2 ** 20 / Math.max(1, clusters);
}

export function printSize(report: SizeReport): void {
  const { clusters, ready, uncached, afterList } = report;
  const per = (kind: keyof Memory) =>
    bytesPerCluster(ready[kind], uncached[kind], clusters).toFixed(0);
  console.log(
    `${clusters} clusters (load average ${report.load.toFixed(2)}):`,
  );
  console.log(`  ready ${report.readySeconds.toFixed(2)} s after start`);
  console.log(
    `  when ready: RSS ${ready.rssMb.toFixed(0)} MB, heap in use ${
      ready.heapMb.toFixed(0)
    } MB (--cache=off: RSS ${uncached.rssMb.toFixed(0)} MB, heap ${
      uncached.heapMb.toFixed(0)
    } MB)`,
  );
  console.log(
    `  per cached cluster with its events, cache on minus off when ready: ${
      per("rssMb")
    } B of RSS, ${per("heapMb")} B of heap in use`,
  );
  console.log(
    `  ${SETTLE_MS / 1000} s later, idle: RSS ${
      report.settled.rssMb.toFixed(0)
    } MB, heap in use ${report.settled.heapMb.toFixed(0)} MB`,
  );
  console.log(
    `  one unpaginated ListAllClusters: ${
      (report.listBytes / 2 ** 20).toFixed(1)
    } MB in ${report.listSeconds.toFixed(2)} s; then RSS ${
      afterList.rssMb.toFixed(0)
    } MB, heap in use ${afterList.heapMb.toFixed(0)} MB`,
  );
}
