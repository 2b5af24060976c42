/**
 * `deno task bench:watchers`: what WatchClusters costs. Corral in kubernetes
 * mode with its cache, against the stand-in (bench/standin.ts) in a
 * process of its own holding N clusters over 10 namespaces; W watchers,
 * each of one namespace (round robin), on connections of their own.
 *
 *   deno task bench:watchers                       # 1,000 clusters, 1,000 watchers
 *   deno task bench:watchers --watchers 2000 --changes 200
 *
 * Prints Corral's RSS when ready, with the watchers in step, and after
 * `changes` status changes (made directly in Kubernetes) have reached
 * every watcher, and how long that took.
 */
import http from "node:http";
import { parseArgs } from "node:util";

const { values } = parseArgs({
  args: Deno.args.filter((arg) => arg !== "--"),
  options: {
    clusters: { type: "string", default: "1000" },
    watchers: { type: "string", default: "1000" },
    changes: { type: "string", default: "100" },
  },
});
const N = Number(values.clusters);
const W = Number(values.watchers);
const CHANGES = Number(values.changes);
const ROOT = new URL("../", import.meta.url).pathname;
const NAMESPACES = Array.from({ length: 10 }, (_, i) => `team-${i}`);

function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}

const seeding = new Deno.Command(Deno.execPath(), {
  args: ["run", "-A", "bench/standin.ts", "--clusters", String(N)],
  cwd: ROOT,
  stdout: "piped",
  stderr: "null",
}).spawn();
const reader = seeding.stdout.pipeThrough(new TextDecoderStream()).getReader();
let first = "";
while (!first.includes("\n")) {
  const { value, done } = await reader.read();
  if (done) throw new Error("the stand-in ended before it was ready");
  first += value;
}
const { url: kubeUrl, kubeconfig } = JSON.parse(first.split("\n")[0]);

const port = freePort();
const api = `http://127.0.0.1:${port}`;
const corral = new Deno.Command(Deno.execPath(), {
  args: [
    "run",
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
  ],
  cwd: ROOT,
  stdout: "null",
  stderr: "null",
}).spawn();

for (;;) {
  try {
    const ready = await fetch(`${api}/readyz`);
    await ready.body?.cancel();
    if (ready.status === 200) break;
  } catch { /* not listening yet */ }
  await new Promise((r) => setTimeout(r, 20));
}

async function rssMb(): Promise<number> {
  const text = await (await fetch(`${api}/metrics`)).text();
  const line = text.split("\n").find((l) =>
    l.startsWith('process_memory_bytes{kind="rss"}')
  )!;
  return Number(line.split(" ").at(-1)) / 2 ** 20;
}

/** A watcher: counts the MODIFIED answers; resolves `ready` at its BOOKMARK. */
function watcher(namespace: string) {
  let modified = 0;
  let buffered = "";
  let markReady!: () => void;
  const ready = new Promise<void>((resolve) => markReady = resolve);
  const request = http.get(
    `${api}/apis/v1alpha2/watch/namespaces/${namespace}/clusters`,
    { agent: false },
    (response) => {
      response.setEncoding("utf8");
      response.on("data", (chunk: string) => {
        buffered += chunk;
        let at: number;
        while ((at = buffered.indexOf("\n")) >= 0) {
          const line = buffered.slice(0, at);
          buffered = buffered.slice(at + 1);
          if (line.includes('"type":"BOOKMARK"')) markReady();
          else if (line.includes('"type":"MODIFIED"')) modified++;
        }
      });
    },
  );
  return {
    ready,
    get modified() {
      return modified;
    },
    close: () => request.destroy(),
  };
}

const readyMb = await rssMb();
const started = performance.now();
const watchers = Array.from(
  { length: W },
  (_, i) => watcher(NAMESPACES[i % NAMESPACES.length]),
);
await Promise.all(watchers.map((w) => w.ready));
const inStepSeconds = (performance.now() - started) / 1000;
const watchingMb = await rssMb();

// Status changes as the operator makes them, spread over the namespaces.
const changed = performance.now();
for (let i = 0; i < CHANGES; i++) {
  const namespace = NAMESPACES[i % NAMESPACES.length];
  const name = `cluster-${String(i).padStart(5, "0")}`;
  const response = await fetch(
    `${kubeUrl}/apis/ray.io/v1/namespaces/${namespace}/rayclusters/${name}/status`,
    {
      method: "PATCH",
      headers: { "content-type": "application/merge-patch+json" },
      body: JSON.stringify({ status: { state: `state-${i}` } }),
    },
  );
  await response.body?.cancel();
}
const each = CHANGES / NAMESPACES.length;
while (watchers.some((w) => w.modified < each)) {
  await new Promise((r) => setTimeout(r, 10));
}
const deliveredSeconds = (performance.now() - changed) / 1000;
const afterMb = await rssMb();

console.log(`
Corral with ${N} clusters, ${W} watchers (each of one namespace, ${
  N / NAMESPACES.length
} clusters each)

| what | value |
|---|---|
| RSS when ready | ${readyMb.toFixed(0)} MB |
| RSS with ${W} watchers in step | ${watchingMb.toFixed(0)} MB |
| RSS after ${CHANGES} changes reached every watcher | ${
  afterMb.toFixed(0)
} MB |
| ${W} watchers sent their initial state | ${inStepSeconds.toFixed(2)} s |
| ${CHANGES} changes made and delivered (${W * each} answers) | ${
  deliveredSeconds.toFixed(2)
} s |
`);

for (const w of watchers) w.close();
corral.kill("SIGTERM");
await corral.status;
seeding.kill("SIGTERM");
await seeding.status;
