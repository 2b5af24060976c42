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
import { rssMb as rssOf, seededStandin, startCorral } from "./processes.ts";

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
const NAMESPACES = Array.from({ length: 10 }, (_, i) => `team-${i}`);

const standin = await seededStandin(N);
const kubeUrl = standin.url;
const corral = await startCorral(standin.kubeconfig);
const api = corral.http;

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

const rssMb = () => rssOf(api);
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
await corral.stop();
await standin.stop();
