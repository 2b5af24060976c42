import assert from "node:assert/strict";
import { validateCreateCluster } from "../../domain/cluster_validation.ts";
import { updatePaths } from "../../domain/cluster_update.ts";
import { Code, ServiceError } from "../../domain/errors.ts";
import { validateCreateComputeTemplate } from "../../domain/template_validation.ts";
import type {
  AutoscalerOptions,
  Cluster,
  ComputeTemplate,
} from "../../domain/types.ts";
import { cluster, headGroup, volume, workerGroup } from "./builders.ts";

/** The fields an INVALID_ARGUMENT error names; [] when `validate` passes. */
function fieldsOf(validate: () => void): string[] {
  try {
    validate();
  } catch (error) {
    assert.ok(error instanceof ServiceError, `got ${error}`);
    assert.equal(error.code, Code.INVALID_ARGUMENT);
    return error.fieldViolations.map((v) => v.field);
  }
  return [];
}

function clusterFields(input: Cluster): string[] {
  return fieldsOf(() =>
    validateCreateCluster({ namespace: "team-a", cluster: input })
  );
}

const OPTIONS: AutoscalerOptions = {
  idleTimeoutSeconds: 0,
  upscalingMode: "",
  image: "",
  imagePullPolicy: "",
  cpu: "",
  memory: "",
  envs: undefined,
  volumes: [],
};

const HEAD = "cluster.clusterSpec.headGroupSpec";

Deno.test("validateCreateCluster() takes every volume type with the fields it uses", () => {
  const input = cluster({
    clusterSpec: {
      ...cluster().clusterSpec!,
      headGroupSpec: headGroup({
        volumes: [
          volume({
            name: "a",
            mountPath: "/a",
            volumeType: "EPHEMERAL",
            source: "",
            storage: "10Gi",
            storageClassName: "fast",
            accessMode: "RWX",
          }),
          volume({
            name: "b",
            mountPath: "/b",
            volumeType: "CONFIGMAP",
            source: "code",
            items: { "run.py": "bin/run.py" },
          }),
          volume({
            name: "c",
            mountPath: "/c",
            volumeType: "SECRET",
            source: "tls",
          }),
          volume({
            name: "d",
            mountPath: "/d",
            volumeType: "EMPTY_DIR",
            source: "",
          }),
          volume({
            name: "e",
            mountPath: "/e",
            volumeType: "EMPTY_DIR",
            source: "",
            storage: "1Gi",
          }),
        ],
      }),
    },
  });
  assert.deepEqual(clusterFields(input), []);
});

Deno.test("validateCreateCluster() refuses a volume's fields its type does not use or gives wrong, naming each", async (t) => {
  const cases: [string, Partial<Parameters<typeof volume>[0]>, string[]][] = [
    ["an ephemeral volume without storage", {
      volumeType: "EPHEMERAL",
      source: "",
    }, ["storage"]],
    ["a storage that is no quantity", {
      volumeType: "EMPTY_DIR",
      source: "",
      storage: "ten",
    }, ["storage"]],
    ["a source on an emptyDir", { volumeType: "EMPTY_DIR", source: "x" }, [
      "source",
    ]],
    ["a ConfigMap without its name", { volumeType: "CONFIGMAP", source: "" }, [
      "source",
    ]],
    ["storage on a claim", { storage: "1Gi" }, ["storage"]],
    ["a storage class on a Secret", {
      volumeType: "SECRET",
      source: "s",
      storageClassName: "fast",
    }, ["storageClassName"]],
    ["an access mode on a host path", {
      volumeType: "HOST_PATH",
      source: "/x",
      accessMode: "RWX",
    }, ["accessMode"]],
    ["items on an emptyDir", {
      volumeType: "EMPTY_DIR",
      source: "",
      items: { a: "a" },
    }, ["items"]],
    ["an item's path going up", {
      volumeType: "SECRET",
      source: "s",
      items: { a: "../a" },
    }, ['items["a"]']],
    ["a bad storage class", {
      volumeType: "EPHEMERAL",
      source: "",
      storage: "1Gi",
      storageClassName: "Fast!",
    }, ["storageClassName"]],
  ];
  for (const [name, overrides, fields] of cases) {
    await t.step(name, () => {
      const input = cluster({
        clusterSpec: {
          ...cluster().clusterSpec!,
          headGroupSpec: headGroup({ volumes: [volume(overrides)] }),
        },
      });
      assert.deepEqual(
        clusterFields(input),
        fields.map((field) => `${HEAD}.volumes[0].${field}`),
      );
    });
  }
});

Deno.test("validateCreateCluster() refuses a bad pull policy, capability, autoscaler and annotation, naming each field", () => {
  const input = cluster({
    annotations: { "ray.io/overwrite-container-cmd": "true", "a/b/c": "x" },
    envsValuesFrom: {
      X: { source: "RESOURCEFIELD", name: "ray-head", key: "limits.cpu" },
    },
    clusterSpec: {
      headGroupSpec: headGroup({ imagePullPolicy: "always" }),
      workerGroupSpec: [workerGroup({
        securityContext: {
          capabilities: { add: ["net admin"], drop: [] },
          privileged: undefined,
        },
      })],
      enableInTreeAutoscaling: false,
      autoscalerOptions: {
        ...OPTIONS,
        idleTimeoutSeconds: -1,
        upscalingMode: "Fast",
        cpu: "2000",
        memory: "lots",
        volumes: [volume({ name: "nowhere" })],
      },
      headServiceAnnotations: { "not a key": "x" },
    },
  });
  assert.deepEqual(clusterFields(input).sort(), [
    'cluster.annotations["a/b/c"]',
    'cluster.annotations["ray.io/overwrite-container-cmd"]',
    "cluster.clusterSpec.autoscalerOptions",
    "cluster.clusterSpec.autoscalerOptions.cpu",
    "cluster.clusterSpec.autoscalerOptions.idleTimeoutSeconds",
    "cluster.clusterSpec.autoscalerOptions.memory",
    "cluster.clusterSpec.autoscalerOptions.upscalingMode",
    "cluster.clusterSpec.autoscalerOptions.volumes[0].name",
    `${HEAD}.imagePullPolicy`,
    'cluster.clusterSpec.headServiceAnnotations["not a key"]',
    "cluster.clusterSpec.workerGroupSpec[0].securityContext.capabilities.add[0]",
    'cluster.envsValuesFrom["X"].name',
  ]);
});

Deno.test("validateCreateCluster() takes KubeRay's serve annotation and a cluster variable from a Secret", () => {
  const input = cluster({
    annotations: { "ray.io/enable-serve-service": "true" },
    envsValuesFrom: { T: { source: "SECRET", name: "s", key: "t" } },
  });
  assert.deepEqual(clusterFields(input), []);
  const twice = cluster({
    envs: { T: "1" },
    envsValuesFrom: { T: { source: "SECRET", name: "s", key: "t" } },
  });
  assert.deepEqual(clusterFields(twice), ['cluster.envsValuesFrom["T"]']);
});

Deno.test("validateCreateComputeTemplate() checks the memory unit, bounds memory in it, and names extended resources", () => {
  const template = (overrides: Partial<ComputeTemplate>): ComputeTemplate => ({
    name: "t",
    namespace: "",
    cpu: 1,
    memory: 1,
    gpu: 0,
    gpuAccelerator: "",
    tolerations: [],
    extendedResources: {},
    memoryUnit: "",
    ...overrides,
  });
  const fields = (t: ComputeTemplate) =>
    fieldsOf(() =>
      validateCreateComputeTemplate({ namespace: "a", computeTemplate: t })
    );
  assert.deepEqual(fields(template({ memory: 4096, memoryUnit: "Mi" })), []);
  assert.deepEqual(fields(template({ memoryUnit: "GB" })), [
    "computeTemplate.memoryUnit",
  ]);
  assert.deepEqual(fields(template({ memory: 17_000_000, memoryUnit: "Mi" })), [
    "computeTemplate.memory",
  ]);
  assert.deepEqual(
    fields(template({ extendedResources: { "no slash!": 1, "x.io/y": 2 } })),
    ['computeTemplate.extendedResources["no slash!"]'],
  );
});

Deno.test("updatePaths() refuses KubeRay's later fields in an update without a mask rather than ignoring them", () => {
  const { paths, violations } = updatePaths({
    namespace: "team-a",
    name: "blue",
    updateMask: undefined,
    cluster: cluster({
      name: "",
      namespace: "",
      user: "",
      version: "",
      annotations: { "example.com/a": "b" },
      envs: { A: "1" },
      clusterSpec: {
        headGroupSpec: undefined,
        workerGroupSpec: [],
        enableInTreeAutoscaling: true,
        autoscalerOptions: OPTIONS,
        headServiceAnnotations: { "example.com/lb": "x" },
      },
    }),
  });
  assert.deepEqual(paths, ["envs"]);
  assert.deepEqual(violations.map((v) => v.field), [
    "cluster.annotations",
    "cluster.clusterSpec.enableInTreeAutoscaling",
    "cluster.clusterSpec.autoscalerOptions",
    "cluster.clusterSpec.headServiceAnnotations",
  ]);
});
