/**
 * The watch-backed cache against the stand-in, through the gateway: changes
 * made directly in Kubernetes show within a second, reads cost no Kubernetes
 * call, writes are read back at once, and the cache converges after its
 * watch is dropped, after 410 Expired, and after the API server lost every
 * object. A fault proxy sits between Corral and the stand-in.
 */
import assert from "node:assert/strict";
import type { KubernetesCallRecord } from "../domain/ports.ts";
import { type Standin, startStandin } from "../standin/mod.ts";
import { NS, sampleCluster } from "./api/cases.ts";
import { eventually } from "./eventually.ts";
import { type FaultProxy, startFaultProxy } from "./fault_proxy.ts";
import { type Corral, startCorral } from "./harness.ts";
import { kubeFetch } from "./standin/with_standin.ts";

const CLUSTERS = `/apis/ray.io/v1/namespaces/${NS}/rayclusters`;
const TEMPLATE = { name: "small", cpu: 1, memory: 1 };

interface Rig {
  standin: Standin;
  proxy: FaultProxy;
  corral: Corral;
  calls: KubernetesCallRecord[];
  /** A request to the gateway; its status and JSON body. */
  api(
    method: string,
    path: string,
    body?: unknown,
  ): Promise<{ status: number; body: Record<string, unknown> }>;
  /** A request straight to the stand-in, as another client would make it. */
  kube(method: string, path: string, body?: unknown): Promise<Response>;
}

async function withRig(
  run: (rig: Rig) => Promise<void>,
  options: { watchHistory?: number; staleAfterMs?: number } = {},
): Promise<void> {
  let standin = startStandin({
    hostname: "127.0.0.1",
    port: 0,
    watchHistory: options.watchHistory,
  });
  const proxy = await startFaultProxy(standin.url);
  const calls: KubernetesCallRecord[] = [];
  const corral = await startCorral({
    kubeUrl: proxy.url,
    cache: { staleAfterMs: options.staleAfterMs, backoffMs: 50 },
    onKubernetesCall: (record) => calls.push(record),
  });
  const rig: Rig = {
    get standin() {
      return standin;
    },
    set standin(next) {
      standin = next;
    },
    proxy,
    corral,
    calls,
    async api(method, path, body) {
      const response = await corral.gateway(
        new Request(`http://corral.test${path}`, {
          method,
          ...(body === undefined ? {} : {
            body: JSON.stringify(body),
            headers: { "content-type": "application/json" },
          }),
        }),
      );
      return { status: response.status, body: await response.json() };
    },
    kube: (method, path, body) => kubeFetch(standin.url, method, path, body),
  };
  try {
    // The template every cluster of these tests uses.
    const template = await rig.api(
      "POST",
      `/apis/v1/namespaces/${NS}/compute_templates`,
      TEMPLATE,
    );
    assert.equal(template.status, 200);
    await run(rig);
  } finally {
    await corral.close();
    await proxy.close();
    await standin.close();
  }
}

const clusterPath = (name: string) =>
  `/apis/v1alpha2/namespaces/${NS}/clusters/${name}`;

async function createCluster(rig: Rig, name: string): Promise<void> {
  const created = await rig.api(
    "POST",
    `/apis/v1alpha2/namespaces/${NS}/clusters`,
    sampleCluster({ name }),
  );
  assert.equal(created.status, 200, JSON.stringify(created.body));
}

async function names(rig: Rig): Promise<string[]> {
  const listed = await rig.api(
    "GET",
    `/apis/v1alpha2/namespaces/${NS}/clusters`,
  );
  assert.equal(listed.status, 200);
  return (listed.body.clusters as { name: string }[]).map((c) => c.name);
}

Deno.test("changes made directly in Kubernetes show through Corral within a second", async () => {
  await withRig(async (rig) => {
    await createCluster(rig, "blue");
    await createCluster(rig, "green");

    // Another client sets the status.
    const patched = await rig.kube("PATCH", `${CLUSTERS}/blue/status`, {
      status: { state: "suspended" },
    });
    assert.equal(patched.status, 200, await patched.text());
    await eventually("the new state through Corral", async () => {
      const got = await rig.api("GET", clusterPath("blue"));
      return got.body.clusterState === "suspended" ? true : undefined;
    }, 1_000);

    // Another client adds an event about the cluster.
    const uid = (await (await rig.kube("GET", `${CLUSTERS}/blue`)).json())
      .metadata.uid;
    const event = await rig.kube("POST", `/api/v1/namespaces/${NS}/events`, {
      metadata: { name: "blue.direct" },
      involvedObject: { kind: "RayCluster", name: "blue", namespace: NS, uid },
      reason: "Direct",
      message: "added by another client",
      type: "Warning",
    });
    assert.equal(event.status, 201, await event.text());
    await eventually("the event through Corral", async () => {
      const got = await rig.api("GET", clusterPath("blue"));
      const events = got.body.events as { reason: string }[];
      return events.some((e) => e.reason === "Direct") ? true : undefined;
    }, 1_000);

    // Another client deletes a cluster.
    const deleted = await rig.kube("DELETE", `${CLUSTERS}/green`);
    assert.equal(deleted.status, 200);
    await eventually("the deletion through Corral", async () => {
      return (await names(rig)).includes("green") ? undefined : true;
    }, 1_000);
    assert.equal((await rig.api("GET", clusterPath("green"))).status, 404);
  });
});

Deno.test("reads cost no Kubernetes call in steady state; a miss costs one", async () => {
  await withRig(async (rig) => {
    await createCluster(rig, "blue");
    rig.calls.length = 0;
    for (
      const path of [
        clusterPath("blue"),
        `/apis/v1alpha2/namespaces/${NS}/clusters`,
        "/apis/v1alpha2/clusters",
        `/apis/v1/namespaces/${NS}/compute_templates/small`,
        `/apis/v1/namespaces/${NS}/compute_templates`,
        "/apis/v1/compute_templates",
      ]
    ) {
      assert.equal((await rig.api("GET", path)).status, 200, path);
    }
    assert.equal(rig.calls.length, 0, JSON.stringify(rig.calls));

    // A name the cache does not hold: Kubernetes is asked once, then 404.
    assert.equal((await rig.api("GET", clusterPath("absent"))).status, 404);
    assert.deepEqual(
      rig.calls.map((c) => `${c.verb} ${c.resource} ${c.outcome}`),
      ["get rayclusters NOT_FOUND"],
    );
  });
});

Deno.test("a cluster another client created a moment ago is found by a get, not reported missing", async () => {
  await withRig(async (rig) => {
    await createCluster(rig, "template-source");
    const source = await (await rig.kube("GET", `${CLUSTERS}/template-source`))
      .json();
    // Hold the watch back: nothing reaches the cache but by a live get.
    rig.proxy.inject({ kind: "delay", ms: 5_000 }, { path: /rayclusters$/ });
    const body = {
      ...source,
      metadata: { name: "other-replica", labels: source.metadata.labels },
      status: undefined,
    };
    const created = await rig.kube("POST", CLUSTERS, body);
    assert.equal(created.status, 201, await created.text());
    const got = await rig.api("GET", clusterPath("other-replica"));
    assert.equal(got.status, 200, JSON.stringify(got.body));
    assert.equal(got.body.name, "other-replica");
  });
});

Deno.test("Corral reads its own writes at once: create, update, delete", async () => {
  await withRig(async (rig) => {
    // The watch is held back, so only the write's own answer can show it.
    rig.proxy.inject({ kind: "delay", ms: 5_000 }, { path: /rayclusters$/ });
    for (let i = 0; i < 5; i++) {
      await createCluster(rig, `c${i}`);
      assert.equal((await rig.api("GET", clusterPath(`c${i}`))).status, 200);
      assert.ok((await names(rig)).includes(`c${i}`));
    }
    const cluster = (await rig.api("GET", clusterPath("c1"))).body;
    // deno-lint-ignore no-explicit-any
    const spec = cluster.clusterSpec as any;
    spec.workerGroupSpec[0].replicas = 3;
    spec.workerGroupSpec[0].maxReplicas = 3;
    const updated = await rig.api(
      "PATCH",
      `${clusterPath("c1")}?updateMask=cluster_spec.worker_group_spec`,
      { clusterSpec: spec, etag: cluster.etag },
    );
    assert.equal(updated.status, 200, JSON.stringify(updated.body));
    const read = (await rig.api("GET", clusterPath("c1"))).body;
    // deno-lint-ignore no-explicit-any
    assert.equal((read.clusterSpec as any).workerGroupSpec[0].replicas, 3);
    assert.equal(read.etag, updated.body.etag);

    const deleted = await rig.api("DELETE", clusterPath("c0"));
    assert.equal(deleted.status, 200);
    assert.equal((await names(rig)).includes("c0"), false);
  });
});

Deno.test("after its watch is dropped, the cache resumes and misses nothing", async () => {
  await withRig(async (rig) => {
    await createCluster(rig, "before");
    await rig.proxy.refuse(); // drops every open watch
    // Changes made while Corral cannot see Kubernetes.
    const deleted = await rig.kube("DELETE", `${CLUSTERS}/before`);
    assert.equal(deleted.status, 200);
    await rig.proxy.heal();
    await eventually("the deletion after the watch came back", async () => {
      return (await names(rig)).includes("before") ? undefined : true;
    });
    const state = rig.corral.orchestrator!.cacheState!();
    assert.ok(state.restarts.rayclusters >= 1, JSON.stringify(state));
  });
});

Deno.test("410 Expired: the cache lists again and objects deleted meanwhile disappear", async () => {
  await withRig(async (rig) => {
    await createCluster(rig, "doomed");
    await createCluster(rig, "kept");
    const relists = rig.corral.orchestrator!.cacheState!().relists.rayclusters;
    await rig.proxy.refuse();
    // More changes than the stand-in keeps: resuming is answered 410.
    assert.equal((await rig.kube("DELETE", `${CLUSTERS}/doomed`)).status, 200);
    for (let i = 0; i < 5; i++) {
      const patched = await rig.kube("PATCH", `${CLUSTERS}/kept`, {
        metadata: { annotations: { touch: String(i) } },
      });
      assert.equal(patched.status, 200);
    }
    await rig.proxy.heal();
    await eventually("a new list without the deleted cluster", async () => {
      const state = rig.corral.orchestrator!.cacheState!();
      if (state.relists.rayclusters <= relists) return undefined;
      return (await names(rig)).includes("doomed") ? undefined : true;
    });
    assert.deepEqual(await names(rig), ["kept"]);
  }, { watchHistory: 3 });
});

Deno.test("a restarted API server that lost every object: the cache converges to the empty truth", async () => {
  await withRig(async (rig) => {
    await createCluster(rig, "blue");
    const port = rig.standin.port;
    await rig.standin.close();
    rig.standin = startStandin({ hostname: "127.0.0.1", port });
    await eventually("an empty list of clusters and templates", async () => {
      const clusters = await names(rig);
      const templates = await rig.api("GET", "/apis/v1/compute_templates");
      const none = (templates.body.computeTemplates as unknown[]).length === 0;
      return clusters.length === 0 && none ? true : undefined;
    });
    assert.equal((await rig.api("GET", clusterPath("blue"))).status, 404);
  });
});

Deno.test("the cache is not in step while its watch is down longer than the stale limit, and reads then go to Kubernetes", async () => {
  await withRig(async (rig) => {
    const orchestrator = rig.corral.orchestrator!;
    assert.equal(orchestrator.cacheState!().inStep, true);
    await rig.proxy.refuse();
    // Not in step at once (the lost watch lists again when the API server
    // answers); stale, with reads no longer from memory, after the limit.
    const state = await eventually("the cache stale", () => {
      const state = orchestrator.cacheState!();
      const stale = /^cache stale/.test(state.reason ?? "");
      return Promise.resolve(stale ? state : undefined);
    });
    assert.match(state.reason!, /watch has been down/);
    // Reads no longer come from memory: Kubernetes is unreachable, so 503.
    const got = await rig.api(
      "GET",
      `/apis/v1alpha2/namespaces/${NS}/clusters`,
    );
    assert.equal(got.status, 503);
    await rig.proxy.heal();
    await eventually(
      "the cache in step again",
      () =>
        Promise.resolve(orchestrator.cacheState!().inStep ? true : undefined),
    );
  }, { staleAfterMs: 300 });
});

Deno.test("the cache keeps objects without metadata.managedFields, which Corral never reads", async () => {
  await withRig(async (rig) => {
    await createCluster(rig, "blue");
    const stored = await (await rig.kube("GET", `${CLUSTERS}/blue`)).json();
    const managedFields = [{
      manager: "another-client",
      operation: "Update",
      apiVersion: "ray.io/v1",
      fieldsType: "FieldsV1",
      fieldsV1: { "f:spec": { "f:rayVersion": {} } },
    }];
    const patched = await rig.kube("PATCH", `${CLUSTERS}/blue`, {
      metadata: { managedFields },
    });
    assert.equal(patched.status, 200, await patched.text());
    const again = await (await rig.kube("GET", `${CLUSTERS}/blue`)).json();
    assert.deepEqual(again.metadata.managedFields, managedFields);
    const cached = await eventually("the change in the cache", async () => {
      const [held] = await rig.corral.orchestrator!.clusters.list(NS);
      return held?.metadata.resourceVersion !==
          stored.metadata.resourceVersion
        ? held
        : undefined;
    }, 1_000);
    assert.equal(
      (cached.metadata as { managedFields?: unknown }).managedFields,
      undefined,
    );
    assert.equal(cached.metadata.name, "blue");
  });
});
