/**
 * The processes a benchmark runs: the stand-in seeded with N clusters
 * (bench/standin.ts) and Corral in kubernetes mode against it, each in a
 * process of its own on free loopback ports, as an installation runs them.
 */
import denoJson from "../deno.json" with { type: "json" };

const ROOT = new URL("../", import.meta.url).pathname;

export function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}

/** A child process and the first line it printed. */
export async function spawn(
  args: string[],
): Promise<{ child: Deno.ChildProcess; first: string }> {
  const child = new Deno.Command(Deno.execPath(), {
    args,
    cwd: ROOT,
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let buffered = "";
  while (!buffered.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`${args.join(" ")} ended before printing`);
    buffered += value;
  }
  // Keep draining so the child never blocks on a full pipe.
  (async () => {
    while (!(await reader.read()).done) { /* drain */ }
  })();
  return { child, first: buffered.split("\n")[0] };
}

export interface SeededStandin {
  /** The stand-in's base URL, for changes made directly in Kubernetes. */
  url: string;
  kubeconfig: string;
  stop(): Promise<void>;
}

/**
 * The stand-in in its own process, holding `clusters` clusters with
 * `eventsEach` events each.
 */
export async function seededStandin(
  clusters: number,
  eventsEach = 3,
): Promise<SeededStandin> {
  const { child, first } = await spawn([
    "run",
    "-A",
    "bench/standin.ts",
    "--clusters",
    String(clusters),
    "--events-per-cluster",
    String(eventsEach),
  ]);
  const { url, kubeconfig } = JSON.parse(first);
  return {
    url,
    kubeconfig,
    async stop() {
      child.kill("SIGTERM");
      await child.status;
    },
  };
}

export interface CorralProcess {
  /** "http://127.0.0.1:PORT" */
  http: string;
  /** Seconds from start until /readyz answered 200. */
  readySeconds: number;
  stop(): Promise<void>;
}

/**
 * The V8 flags `deno task start` (and so the image) runs Corral with: a
 * benchmark measures Corral as it is deployed.
 */
const START_V8_FLAGS = denoJson.tasks.start.split(/\s+/).filter((word) =>
  word.startsWith("--v8-flags=")
);

/** Corral in kubernetes mode against `kubeconfig`, once it is ready. */
export async function startCorral(
  kubeconfig: string,
  extra: string[] = [],
): Promise<CorralProcess> {
  const port = freePort();
  const http = `http://127.0.0.1:${port}`;
  const started = performance.now();
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      ...START_V8_FLAGS,
      "--allow-net",
      "--allow-env",
      "--allow-read",
      "main.ts",
      "--orchestrator",
      "kubernetes",
      "--kubeconfig",
      kubeconfig,
      "--allow-anonymous",
      "--shutdown-delay",
      "0s",
      "--log-level",
      "error",
      "--host",
      "127.0.0.1",
      "--http-port",
      String(port),
      "--grpc-port",
      String(freePort()),
      // One load generator is one caller: fair use would measure itself.
      "--rate-limit",
      "0",
      "--max-watches-per-user",
      "0",
      ...extra,
    ],
    cwd: ROOT,
    stdout: "null",
    stderr: "null",
  }).spawn();
  for (;;) {
    try {
      const ready = await fetch(`${http}/readyz`);
      await ready.body?.cancel();
      if (ready.status === 200) break;
    } catch { /* not listening yet */ }
    await new Promise((r) => setTimeout(r, 20));
  }
  return {
    http,
    readySeconds: (performance.now() - started) / 1000,
    async stop() {
      child.kill("SIGTERM");
      await child.status;
    },
  };
}

/** The sum of the values of the /metrics lines `pattern` matches. */
export async function metric(http: string, pattern: RegExp): Promise<number> {
  const text = await (await fetch(`${http}/metrics`)).text();
  let sum = 0;
  for (const line of text.split("\n")) {
    if (pattern.test(line)) sum += Number(line.split(" ").at(-1));
  }
  return sum;
}

/** Corral's resident memory, in MiB. */
export async function rssMb(http: string): Promise<number> {
  return await metric(http, /^process_memory_bytes\{kind="rss"\}/) / 2 ** 20;
}

/** Corral's V8 heap in use (live objects and garbage not yet collected), in MiB. */
export async function heapUsedMb(http: string): Promise<number> {
  return await metric(http, /^process_memory_bytes\{kind="heap_used"\}/) /
    2 ** 20;
}

/** The load average over the last minute; NaN where it cannot be read. */
export function loadAverage(): number {
  try {
    return Deno.loadavg()[0];
  } catch {
    return NaN;
  }
}
