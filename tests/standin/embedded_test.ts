/**
 * Embedded mode: the stand-in and the simulated operator serve and watch the
 * cluster resource at the coordinates Corral is configured with, through
 * startEmbedded() and through main.ts's flags.
 */
import assert from "node:assert/strict";
import { KubeConfig } from "@kubernetes/client-node";
import { silentLogger } from "../../api/log.ts";
import { clusterToResource } from "../../domain/conversions.ts";
import { createKubernetesOrchestrator } from "../../orchestrator/mod.ts";
import { startEmbedded } from "../../standin/mod.ts";
import { NS, sampleCluster } from "../api/cases.ts";
import { eventually } from "../eventually.ts";
import { clusterSpec, KUBERAY_CRDS, rayJob } from "./kuberay.ts";
import { DEV_PERMISSIONS, EMBEDDED, startMain } from "../main_process.ts";
import {
  asCluster,
  SHAPES,
  TEMPLATES,
} from "../orchestrator/cluster_shapes.ts";

/** Not ray.io/v1 rayclusters in any part. */
const COORDINATES = {
  group: "example.com",
  version: "v1alpha1",
  plural: "computeclusters",
};

Deno.test("startEmbedded() serves and watches the cluster resource at the configured group, version and plural", async () => {
  const embedded = startEmbedded({
    ...COORDINATES,
    crds: [],
    operatorDelayMs: 0,
    logger: silentLogger(),
  });
  try {
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromString(embedded.kubeconfig);
    const orchestrator = createKubernetesOrchestrator({
      kubeConfig,
      ...COORDINATES,
    });
    const cluster = clusterToResource(
      asCluster(SHAPES["several worker groups"]),
      new Map(TEMPLATES.map((tpl) => [tpl.name, tpl])),
      { apiVersion: "example.com/v1alpha1", now: new Date() },
    );
    const created = await orchestrator.clusters.create(cluster);
    const { name, namespace } = created.metadata;
    const ready = await eventually("the cluster to turn ready", async () => {
      const got = await orchestrator.clusters.get(namespace!, name!);
      return got.status?.state === "ready" ? got : undefined;
    }, 10_000);
    assert.equal(ready.apiVersion, "example.com/v1alpha1");
    assert.ok(Object.keys(ready.status?.endpoints ?? {}).length > 0);
    const events = await orchestrator.clusters.events(namespace, name);
    assert.ok(events.length > 0, "the operator recorded events");
    for (const event of events) {
      assert.equal(event.involvedObject?.apiVersion, "example.com/v1alpha1");
      assert.equal(event.involvedObject?.uid, created.metadata.uid);
    }
  } finally {
    await embedded.close();
  }
  await assert.rejects(fetch(`${embedded.url}/version`), "closed");
});

Deno.test("main.ts in embedded mode honours --cluster-group, --cluster-version and --cluster-plural", async () => {
  const main = await startMain({
    permissions: DEV_PERMISSIONS,
    args: [
      ...EMBEDDED,
      "--cluster-group",
      COORDINATES.group,
      "--cluster-version",
      COORDINATES.version,
      "--cluster-plural",
      COORDINATES.plural,
    ],
  });
  const post = async (path: string, body: unknown) => {
    const response = await fetch(`${main.http}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    return { status: response.status, body: await response.json() };
  };
  try {
    const template = await post(
      `/apis/v1/namespaces/${NS}/compute_templates`,
      { name: "small", namespace: NS, cpu: 2, memory: 4 },
    );
    assert.equal(template.status, 200, JSON.stringify(template.body));
    const cluster = await post(
      `/apis/v1alpha2/namespaces/${NS}/clusters`,
      sampleCluster(),
    );
    assert.equal(cluster.status, 200, JSON.stringify(cluster.body));
    const name = cluster.body.name;
    await eventually("the cluster to be ready", async () => {
      const response = await fetch(
        `${main.http}/apis/v1alpha2/namespaces/${NS}/clusters/${name}`,
      );
      const body = await response.json();
      return body.clusterState === "ready" ? body : undefined;
    }, 15_000);
  } finally {
    assert.equal((await main.stop()).code, 0);
  }
});

Deno.test("startEmbedded() with KubeRay's CRDs serves RayJobs and RayServices, and the operator runs a job to its end", async () => {
  const embedded = startEmbedded({
    group: "ray.io",
    version: "v1",
    plural: "rayclusters",
    crds: KUBERAY_CRDS,
    operatorDelayMs: 0,
    logger: silentLogger(),
  });
  try {
    const discovery = await fetch(`${embedded.url}/apis/ray.io/v1`);
    const names = (await discovery.json()).resources.map((
      r: { name: string },
    ) => r.name);
    for (const name of ["rayjobs", "rayjobs/status", "rayservices/status"]) {
      assert.ok(names.includes(name), `discovery lists ${name}: ${names}`);
    }
    const jobs = `${embedded.url}/apis/ray.io/v1/namespaces/${NS}/rayjobs`;
    const created = await fetch(jobs, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(rayJob("embedded", {
        rayClusterSpec: clusterSpec(),
        entrypoint: "python fail.py && exit 1",
      })),
    });
    assert.equal(created.status, 201, await created.text());
    const failed = await eventually("the job to fail", async () => {
      const job = await (await fetch(`${jobs}/embedded`)).json();
      return job.status?.jobDeploymentStatus === "Failed" ? job : undefined;
    }, 10_000);
    assert.equal(failed.status.jobStatus, "FAILED");
  } finally {
    await embedded.close();
  }
});
