/**
 * The fields of KubeRay's current messages, from a cluster to the
 * RayCluster KubeRay's API server would write (apiserver/pkg/util
 * cluster.go at v1.7.0) and back: each lands where KubeRay puts it, and
 * what stands reads back as it was given.
 */
import assert from "node:assert/strict";
import {
  clusterFromResource,
  clusterToResource,
} from "../../domain/conversions.ts";
import {
  computeTemplateFromConfigMap,
  computeTemplateToConfigMap,
} from "../../domain/template_conversions.ts";
import type { ComputeTemplate } from "../../domain/types.ts";
import { cluster, headGroup, volume, workerGroup } from "./builders.ts";

const TEMPLATE: ComputeTemplate = {
  name: "small",
  namespace: "team-a",
  cpu: 2,
  memory: 512,
  gpu: 0,
  gpuAccelerator: "",
  tolerations: [],
  extendedResources: { "vpc.amazonaws.com/efa": 2 },
  memoryUnit: "Mi",
};
const TEMPLATES = new Map([["small", TEMPLATE]]);
const OPTIONS = {
  apiVersion: "ray.io/v1",
  now: new Date("2026-12-01T00:00:00Z"),
};

const HEAD_VOLUMES = [
  volume({
    name: "code",
    mountPath: "/code",
    volumeType: "CONFIGMAP",
    source: "code",
    items: { "a.py": "a.py" },
  }),
  volume({
    name: "scratch",
    mountPath: "/scratch",
    volumeType: "EPHEMERAL",
    source: "",
    storage: "5Gi",
    storageClassName: "fast",
    accessMode: "ROX",
  }),
];

/** A cluster setting every field KubeRay added after v0.6.0. */
function fullCluster() {
  return cluster({
    annotations: {
      "ray.io/enable-serve-service": "true",
      "example.com/team": "a",
    },
    envs: { PLAIN: "1" },
    envsValuesFrom: {
      SHARED_TOKEN: { source: "SECRET", name: "shared", key: "token" },
    },
    clusterSpec: {
      headGroupSpec: headGroup({
        enableIngress: true,
        imagePullPolicy: "Always",
        securityContext: {
          capabilities: { add: ["SYS_PTRACE"], drop: ["ALL"] },
          privileged: undefined,
        },
        volumes: HEAD_VOLUMES,
      }),
      workerGroupSpec: [workerGroup({
        imagePullPolicy: "IfNotPresent",
        securityContext: { capabilities: undefined, privileged: true },
        volumes: [
          volume({
            name: "tmp",
            mountPath: "/tmp/ray",
            volumeType: "EMPTY_DIR",
            source: "",
            storage: "1Gi",
          }),
          volume({
            name: "tls",
            mountPath: "/tls",
            volumeType: "SECRET",
            source: "tls",
            readOnly: true,
          }),
        ],
      })],
      enableInTreeAutoscaling: true,
      autoscalerOptions: {
        idleTimeoutSeconds: 90,
        upscalingMode: "Aggressive",
        image: "rayproject/ray:2.9.0",
        imagePullPolicy: "Always",
        cpu: "250m",
        memory: "256Mi",
        envs: {
          values: { LOG: "debug" },
          valuesFrom: {
            TOKEN: { source: "CONFIGMAP", name: "scaler", key: "token" },
          },
        },
        volumes: [{ ...HEAD_VOLUMES[0], mountPath: "/scaler-code" }],
      },
      headServiceAnnotations: { "example.com/lb": "internal" },
    },
  });
}

Deno.test("clusterToResource() writes KubeRay's current fields where its API server does", () => {
  const resource = clusterToResource(fullCluster(), TEMPLATES, OPTIONS);
  assert.equal(resource.metadata.annotations!["example.com/team"], "a");
  const spec = resource.spec;
  assert.equal(spec.headGroupSpec.enableIngress, true);
  assert.deepEqual(spec.headServiceAnnotations, {
    "example.com/lb": "internal",
  });
  assert.equal(spec.enableInTreeAutoscaling, true);
  assert.deepEqual(spec.autoscalerOptions, {
    idleTimeoutSeconds: 90,
    upscalingMode: "Aggressive",
    image: "rayproject/ray:2.9.0",
    imagePullPolicy: "Always",
    env: [
      { name: "LOG", value: "debug" },
      {
        name: "TOKEN",
        valueFrom: { configMapKeyRef: { name: "scaler", key: "token" } },
      },
    ],
    volumeMounts: [{ name: "code", mountPath: "/scaler-code" }],
    resources: {
      limits: { cpu: "250m", memory: "256Mi" },
      requests: { cpu: "250m", memory: "256Mi" },
    },
  });
  const head = spec.headGroupSpec.template.spec.containers[0];
  assert.equal(head.imagePullPolicy, "Always");
  assert.deepEqual(head.securityContext, {
    capabilities: { add: ["SYS_PTRACE"], drop: ["ALL"] },
  });
  // The template's memory in its unit, its extended resources beside it.
  assert.deepEqual(head.resources!.limits, {
    cpu: "2",
    memory: "512Mi",
    "vpc.amazonaws.com/efa": "2",
  });
  // ray.io/enable-serve-service: the serve ports, as KubeRay adds them.
  assert.deepEqual(head.ports!.slice(-2), [
    { name: "dashboard-agent", containerPort: 52365 },
    { name: "serve", containerPort: 8000 },
  ]);
  // The cluster's valuesFrom in every container, after its envs.
  const worker = spec.workerGroupSpecs![0].template.spec.containers[0];
  for (const container of [head, worker]) {
    assert.deepEqual(
      container.env!.slice(1, 3),
      [
        { name: "PLAIN", value: "1" },
        {
          name: "SHARED_TOKEN",
          valueFrom: { secretKeyRef: { name: "shared", key: "token" } },
        },
      ],
    );
  }
  assert.deepEqual(worker.securityContext, { privileged: true });
  assert.equal(worker.imagePullPolicy, "IfNotPresent");
});

Deno.test("clusterFromResource() reads every field of KubeRay's current messages back as it was given", () => {
  const given = fullCluster();
  const resource = clusterToResource(given, TEMPLATES, OPTIONS);
  const read = clusterFromResource(resource, []);
  assert.deepEqual(read.clusterSpec, given.clusterSpec);
  assert.deepEqual(read.annotations, given.annotations);
  assert.deepEqual(read.envs, given.envs);
  assert.deepEqual(read.envsValuesFrom, given.envsValuesFrom);
});

Deno.test("an autoscaler given only cpu gets KubeRay's default memory, and reads back with it", () => {
  const given = cluster({
    clusterSpec: {
      ...fullCluster().clusterSpec!,
      autoscalerOptions: {
        idleTimeoutSeconds: 0,
        upscalingMode: "",
        image: "",
        imagePullPolicy: "",
        cpu: "1",
        memory: "",
        envs: undefined,
        volumes: [],
      },
    },
  });
  const resource = clusterToResource(given, TEMPLATES, OPTIONS);
  assert.deepEqual(resource.spec.autoscalerOptions, {
    resources: {
      limits: { cpu: "1", memory: "512Mi" },
      requests: { cpu: "1", memory: "512Mi" },
    },
  });
  const read = clusterFromResource(resource, []);
  assert.equal(read.clusterSpec!.autoscalerOptions!.memory, "512Mi");
});

Deno.test("a compute template's extended resources and memory unit are kept in its ConfigMap under KubeRay's keys", () => {
  const configMap = computeTemplateToConfigMap(TEMPLATE);
  assert.equal(
    configMap.data!.extended_resources,
    '{"vpc.amazonaws.com/efa":2}',
  );
  assert.equal(configMap.data!.memory_unit, "Mi");
  assert.deepEqual(computeTemplateFromConfigMap(configMap), TEMPLATE);
  // KubeRay writes "Gi" when none was given: read back as none.
  const kuberays = computeTemplateFromConfigMap({
    ...configMap,
    data: { ...configMap.data, memory_unit: "Gi", extended_resources: "{}" },
  });
  assert.equal(kuberays.memoryUnit, "");
  assert.deepEqual(kuberays.extendedResources, {});
});

Deno.test("clusterFromResource() reads back the caller's annotations only: not Corral's, the operator's or kubectl's", () => {
  const resource = clusterToResource(fullCluster(), TEMPLATES, OPTIONS);
  resource.metadata.annotations = {
    ...resource.metadata.annotations,
    "kubectl.kubernetes.io/last-applied-configuration": "{}",
    "corral.dev/expires-at": "2026-12-02T00:00:00Z",
  };
  assert.deepEqual(clusterFromResource(resource, []).annotations, {
    "ray.io/enable-serve-service": "true",
    "example.com/team": "a",
  });
});
