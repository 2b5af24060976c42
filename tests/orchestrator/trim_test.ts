import assert from "node:assert/strict";
import { clusterFromResource } from "../../domain/conversions.ts";
import { computeTemplateFromConfigMap } from "../../domain/template_conversions.ts";
import type {
  ConfigMap,
  KubeEvent,
  RayCluster,
} from "../../domain/resources.ts";
import {
  LAST_APPLIED_ANNOTATION,
  trimCluster,
  trimConfigMap,
  trimEvent,
} from "../../orchestrator/trim.ts";
import { SharedParts } from "../../domain/shared_parts.ts";

const TESTDATA = new URL("../testdata/", import.meta.url);

async function readJson<T>(name: string): Promise<T> {
  return JSON.parse(await Deno.readTextFile(new URL(name, TESTDATA))) as T;
}

const MANAGED_FIELDS = [{
  manager: "kubectl-client-side-apply",
  operation: "Update",
  apiVersion: "ray.io/v1",
  time: "2023-09-25T10:48:35Z",
  fieldsType: "FieldsV1",
  fieldsV1: { "f:spec": { "f:rayVersion": {} } },
}];

/**
 * `cluster` as a real API server answers it after `kubectl apply` and the
 * operator's work: managed fields, the last-applied copy, owners,
 * finalizers, and status beyond what the API returns.
 */
function asServed(cluster: RayCluster): RayCluster {
  return {
    ...cluster,
    metadata: {
      ...cluster.metadata,
      annotations: {
        ...cluster.metadata.annotations,
        [LAST_APPLIED_ANNOTATION]: JSON.stringify(cluster),
      },
      managedFields: MANAGED_FIELDS,
      finalizers: ["ray.io/gcs-ft-redis-cleanup-finalizer"],
      ownerReferences: [{ kind: "RayJob", name: "job", uid: "u" }],
    } as RayCluster["metadata"],
    status: {
      ...cluster.status,
      conditions: [{ type: "HeadPodReady", status: "True" }],
      head: { podIP: "10.244.0.6", serviceIP: "10.96.114.22" },
      observedGeneration: 1,
    },
  };
}

Deno.test("trimCluster() keeps the spec, the metadata reads use, and the status state and endpoints", async () => {
  const cluster = await readJson<RayCluster>("kuberay_raycluster.json");
  const trimmed = trimCluster(asServed(cluster));
  assert.deepEqual(trimmed, {
    apiVersion: cluster.apiVersion,
    kind: cluster.kind,
    metadata: cluster.metadata,
    spec: cluster.spec,
    status: {
      state: cluster.status!.state,
      endpoints: cluster.status!.endpoints,
    },
  });
  // The spec is shared, not copied: the store never changes it.
  assert.equal(trimmed.spec, cluster.spec);
});

Deno.test("trimCluster() leaves out annotations that held only last-applied, and a status it was not given", () => {
  const trimmed = trimCluster({
    apiVersion: "ray.io/v1",
    kind: "RayCluster",
    metadata: {
      name: "blue",
      namespace: "team-a",
      annotations: { [LAST_APPLIED_ANNOTATION]: "{}" },
    },
    spec: {
      headGroupSpec: {
        rayStartParams: {},
        template: { spec: { containers: [] } },
      },
    },
  });
  assert.deepEqual(trimmed.metadata, { name: "blue", namespace: "team-a" });
  assert.equal("status" in trimmed, false);
});

Deno.test("trimEvent() keeps what a ClusterEvent is made of and the cluster it is about", async () => {
  const [event] = await readJson<KubeEvent[]>("kuberay_events.json");
  const served = {
    ...event,
    metadata: { ...event.metadata, managedFields: MANAGED_FIELDS },
    reportingComponent: "raycluster-controller",
    related: { kind: "Pod", name: "head" },
  } as KubeEvent;
  const { apiVersion: _, resourceVersion: __, ...about } = event
    .involvedObject as KubeEvent["involvedObject"] & {
      resourceVersion?: string;
    };
  assert.deepEqual(trimEvent(served), {
    apiVersion: "v1",
    kind: "Event",
    metadata: event.metadata,
    involvedObject: about,
    reason: event.reason,
    message: event.message,
    type: event.type,
    count: event.count,
    firstTimestamp: event.firstTimestamp,
    lastTimestamp: event.lastTimestamp,
    eventTime: event.eventTime,
  });
});

Deno.test("trimConfigMap() keeps a compute template's data and metadata without managed fields", async () => {
  const [configMap] = await readJson<ConfigMap[]>(
    "kuberay_compute_templates.json",
  );
  const served = {
    ...configMap,
    metadata: {
      ...configMap.metadata,
      managedFields: MANAGED_FIELDS,
      annotations: { [LAST_APPLIED_ANNOTATION]: "{}" },
    },
  } as ConfigMap;
  const trimmed = trimConfigMap(served);
  assert.deepEqual(trimmed, {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: configMap.metadata,
    data: configMap.data,
  });
  assert.deepEqual(
    computeTemplateFromConfigMap(trimmed),
    computeTemplateFromConfigMap(served),
  );
});

Deno.test("a trimmed cluster with trimmed events reads back as the object the API server served", async (t) => {
  const events = await readJson<KubeEvent[]>("kuberay_events.json");
  for (
    const name of [
      "kuberay_raycluster.json",
      "kuberay_v060_pod_settings_raycluster.json",
    ]
  ) {
    await t.step(name, async () => {
      const served = asServed(await readJson<RayCluster>(name));
      const servedEvents = events.map((event) => ({
        ...event,
        involvedObject: { ...event.involvedObject, uid: served.metadata.uid },
      }));
      assert.deepEqual(
        clusterFromResource(trimCluster(served), servedEvents.map(trimEvent)),
        clusterFromResource(served, servedEvents),
      );
    });
  }
});

Deno.test("SharedParts holds one frozen copy of equal groups; trimCluster() shares a cluster's groups through it", async () => {
  const cluster = await readJson<RayCluster>("kuberay_raycluster.json");
  const shared = new SharedParts();
  const a = trimCluster(structuredClone(cluster), shared);
  const b = trimCluster(structuredClone(cluster), shared);
  assert.equal(a.spec.headGroupSpec, b.spec.headGroupSpec);
  assert.equal(a.spec.workerGroupSpecs![0], b.spec.workerGroupSpecs![0]);
  assert.equal(Object.isFrozen(a.spec.headGroupSpec.template.spec), true);
  assert.deepEqual(a.spec, cluster.spec);
  // Trimmed again (as the store does), the same groups.
  assert.equal(trimCluster(a, shared).spec.headGroupSpec, a.spec.headGroupSpec);
  const other = structuredClone(cluster);
  other.spec.headGroupSpec.rayStartParams = { "num-cpus": "64" };
  const c = trimCluster(other, shared);
  assert.notEqual(c.spec.headGroupSpec, a.spec.headGroupSpec);
  assert.deepEqual(c.spec.headGroupSpec, other.spec.headGroupSpec);
});
