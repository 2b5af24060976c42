/**
 * The Kubernetes API stand-in for the benchmark, in a process of its own,
 * seeded with N clusters over 10 namespaces as Corral writes them (a
 * compute template per namespace, each cluster with a few events).
 *
 *   deno run -A bench/standin.ts --port 0 --clusters 10000
 *
 * Prints one JSON line when ready: {"url": ..., "kubeconfig": <path>}.
 */
import { parseArgs } from "node:util";
import { clusterToResource } from "../domain/conversions.ts";
import { computeTemplateToConfigMap } from "../domain/template_conversions.ts";
import { kubeconfigFor, startStandin } from "../standin/mod.ts";
import type { Cluster, ComputeTemplate } from "../domain/types.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    port: { type: "string", default: "0" },
    clusters: { type: "string", default: "10000" },
    "events-per-cluster": { type: "string", default: "3" },
  },
});
const total = Number(values.clusters);
const eventsEach = Number(values["events-per-cluster"]);
const standin = startStandin({
  hostname: "127.0.0.1",
  port: Number(values.port),
});
const NAMESPACES = Array.from({ length: 10 }, (_, i) => `team-${i}`);

async function post(
  path: string,
  body: unknown,
): Promise<Record<string, unknown>> {
  const response = await fetch(`${standin.url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const answer = await response.json();
  if (response.status !== 201) {
    throw new Error(`${path}: ${response.status} ${JSON.stringify(answer)}`);
  }
  return answer;
}

function template(namespace: string): ComputeTemplate {
  return {
    name: "small",
    namespace,
    cpu: 2,
    memory: 4,
    gpu: 0,
    gpuAccelerator: "",
    tolerations: [],
  };
}

function cluster(namespace: string, name: string): Cluster {
  const group = {
    computeTemplate: "small",
    image: "",
    engineStartParams: { "num-cpus": "2" },
    volumes: [],
    serviceAccount: "",
    imagePullSecret: "",
    environment: {},
    environmentValuesFrom: {},
    annotations: {},
    labels: {},
  };
  return {
    name,
    namespace,
    user: "ada",
    version: "2.9.0",
    environment: "DEV",
    clusterSpec: {
      headGroupSpec: { ...group, serviceType: "ClusterIP" },
      workerGroupSpec: [{
        ...group,
        groupName: "workers",
        replicas: 2,
        minReplicas: 0,
        maxReplicas: 4,
      }],
    },
    clusterState: "",
    events: [],
    serviceEndpoint: {},
    envs: { EXAMPLE: "1" },
    etag: "",
    clientUrl: "",
    dashboardUrl: "",
    dashboardProxyUrl: "",
    ttl: "",
    queue: "",
  } as Cluster;
}

for (const namespace of NAMESPACES) {
  await post(
    `/api/v1/namespaces/${namespace}/configmaps`,
    computeTemplateToConfigMap(template(namespace)),
  );
}
const templates = new Map([["small", template("")]]);
const work = Array.from({ length: total }, (_, i) => i);
const CONCURRENCY = 32;
await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
  for (let i = work.shift(); i !== undefined; i = work.shift()) {
    const namespace = NAMESPACES[i % NAMESPACES.length];
    const name = `cluster-${String(i).padStart(5, "0")}`;
    const created = await post(
      `/apis/ray.io/v1/namespaces/${namespace}/rayclusters`,
      clusterToResource(cluster(namespace, name), templates, {
        apiVersion: "ray.io/v1",
        now: new Date(),
      }),
    );
    const uid = (created.metadata as { uid: string }).uid;
    for (let e = 0; e < eventsEach; e++) {
      await post(`/api/v1/namespaces/${namespace}/events`, {
        metadata: { name: `${name}.${e}` },
        involvedObject: { kind: "RayCluster", name, namespace, uid },
        reason: ["Created", "CreatedService", "Ready"][e % 3],
        message: `event ${e} of ${name}`,
        type: "Normal",
        firstTimestamp: new Date().toISOString(),
        lastTimestamp: new Date().toISOString(),
        count: 1,
      });
    }
  }
}));
const kubeconfig = await Deno.makeTempFile({ suffix: ".kubeconfig" });
await Deno.writeTextFile(kubeconfig, kubeconfigFor(standin.url));
console.log(JSON.stringify({ url: standin.url, kubeconfig }));
Deno.addSignalListener("SIGTERM", async () => {
  await standin.close();
  await Deno.remove(kubeconfig).catch(() => {});
  Deno.exit(0);
});
