/**
 * Pod settings (service account, image pull secret, environment, pod labels
 * and annotations) and compute-template tolerations: objects the KubeRay API
 * server v0.6.0 wrote read back field for field, Corral's own writes read
 * back as given, and every rule of their validation.
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
import { ServiceError } from "../../domain/errors.ts";
import type { ConfigMap, RayCluster } from "../../domain/resources.ts";
import type { ComputeTemplate } from "../../domain/types.ts";
import { validateCreateCluster } from "../../domain/cluster_validation.ts";
import { validateCreateComputeTemplate } from "../../domain/template_validation.ts";
import { cluster, headGroup, NO_SPEC_FIELDS, workerGroup } from "./builders.ts";

async function readJson<T>(name: string): Promise<T> {
  return JSON.parse(
    await Deno.readTextFile(new URL(`../testdata/${name}`, import.meta.url)),
  );
}

function template(overrides: Partial<ComputeTemplate> = {}): ComputeTemplate {
  return {
    name: "small",
    namespace: "team-a",
    cpu: 2,
    memory: 4,
    gpu: 0,
    gpuAccelerator: "",
    tolerations: [],
    extendedResources: {},
    memoryUnit: "",
    ...overrides,
  };
}

Deno.test("a RayCluster the KubeRay API server v0.6.0 wrote with pod settings reads back field for field", async () => {
  const resource = await readJson<RayCluster>(
    "kuberay_v060_pod_settings_raycluster.json",
  );
  const read = clusterFromResource(resource, []);
  assert.deepEqual(read.envs, { AWS_REGION: "eu-west-1" });
  const head = read.clusterSpec!.headGroupSpec!;
  assert.deepEqual(
    {
      serviceAccount: head.serviceAccount,
      imagePullSecret: head.imagePullSecret,
      environment: head.environment,
      annotations: head.annotations,
      labels: head.labels,
      computeTemplate: head.computeTemplate,
    },
    {
      serviceAccount: "ray-head-sa",
      imagePullSecret: "registry-creds",
      environment: { HEAD_MODE: "driver" },
      annotations: { "prometheus.io/scrape": "true" },
      labels: { team: "vision" },
      computeTemplate: "head-template",
    },
  );
  const worker = read.clusterSpec!.workerGroupSpec[0];
  assert.deepEqual(
    {
      serviceAccount: worker.serviceAccount,
      imagePullSecret: worker.imagePullSecret,
      environment: worker.environment,
      annotations: worker.annotations,
      labels: worker.labels,
    },
    {
      serviceAccount: "ray-worker-sa",
      imagePullSecret: "registry-creds",
      // The API server's own variables (TYPE, CPU_REQUEST...) are not the
      // caller's, as KubeRay's own reader leaves them out.
      environment: { NCCL_DEBUG: "INFO" },
      annotations: { "cost-center": "ml-42" },
      labels: { team: "vision", accelerator: "a100" },
    },
  );
});

Deno.test("a compute-template ConfigMap with tolerations, as KubeRay v0.6.0 writes it, reads back", async () => {
  const configMap = await readJson<ConfigMap>(
    "kuberay_v060_tolerations_configmap.json",
  );
  const read = computeTemplateFromConfigMap(configMap);
  assert.deepEqual(read.tolerations, [
    {
      key: "nvidia.com/gpu",
      operator: "Exists",
      value: "",
      effect: "NoSchedule",
    },
    { key: "dedicated", operator: "Equal", value: "ray", effect: "NoExecute" },
  ]);
  // Written back the same way: the data value parses to the same array.
  const written = computeTemplateToConfigMap(read);
  assert.deepEqual(
    JSON.parse(written.data!.tolerations),
    JSON.parse(configMap.data!.tolerations),
  );
});

Deno.test("a template without tolerations writes no tolerations key; a malformed one reads as none", () => {
  const written = computeTemplateToConfigMap(template());
  assert.equal("tolerations" in written.data!, false);
  for (const bad of ["not json", '{"key":"x"}', "[1, null]"]) {
    const read = computeTemplateFromConfigMap({
      ...written,
      data: {
        ...written.data,
        tolerations: bad,
      },
    });
    assert.deepEqual(read.tolerations, [], bad);
  }
});

Deno.test("clusterToResource() writes pod settings as KubeRay v0.6.0 does, and they read back as given", () => {
  const gpu = template({
    name: "gpu",
    gpu: 1,
    tolerations: [
      { key: "nvidia.com/gpu", operator: "Exists", value: "", effect: "" },
    ],
  });
  const input = cluster({
    envs: { SHARED: "1" },
    clusterSpec: {
      ...NO_SPEC_FIELDS,
      headGroupSpec: headGroup({
        serviceAccount: "head-sa",
        imagePullSecret: "pull",
        environment: { HEAD_ONLY: "h" },
        annotations: { "example.com/a": "1" },
        labels: { team: "a" },
      }),
      workerGroupSpec: [workerGroup({
        computeTemplate: "gpu",
        serviceAccount: "worker-sa",
        environment: { WORKER_ONLY: "w" },
        labels: { pool: "gpu" },
      })],
    },
  });
  const resource = clusterToResource(
    input,
    new Map([["small", template()], ["gpu", gpu]]),
    { apiVersion: "ray.io/v1", now: new Date("2024-05-01T12:00:00Z") },
  );
  const head = resource.spec.headGroupSpec.template;
  assert.equal(head.spec.serviceAccountName, "head-sa");
  assert.deepEqual(head.spec.imagePullSecrets, [{ name: "pull" }]);
  assert.equal(head.spec.tolerations, undefined);
  assert.deepEqual(head.metadata?.labels, { team: "a" });
  assert.deepEqual(head.metadata?.annotations, {
    "example.com/a": "1",
    "ray.io/compute-template": "small",
    "ray.io/compute-image": "",
  });
  assert.deepEqual(
    head.spec.containers[0].env?.map((variable) => variable.name),
    ["MY_POD_IP", "SHARED", "HEAD_ONLY"],
  );
  const worker = resource.spec.workerGroupSpecs![0].template;
  assert.deepEqual(worker.spec.tolerations, [
    { key: "nvidia.com/gpu", operator: "Exists" },
  ]);
  assert.equal(worker.spec.imagePullSecrets, undefined);
  assert.deepEqual(
    worker.spec.containers[0].env?.map((variable) => variable.name),
    ["MY_POD_IP", "SHARED", "WORKER_ONLY"],
  );

  const back = clusterFromResource(resource, []);
  assert.deepEqual(back.envs, input.envs);
  assert.deepEqual(back.clusterSpec, input.clusterSpec);
});

Deno.test("the service's own pod annotations win over a caller's on a clash", () => {
  // Validation refuses such keys; the conversion still never lets them win.
  const resource = clusterToResource(
    cluster({
      clusterSpec: {
        ...NO_SPEC_FIELDS,
        headGroupSpec: headGroup({
          annotations: { "ray.io/compute-template": "other" },
        }),
        workerGroupSpec: [],
      },
    }),
    new Map([["small", template()]]),
    { apiVersion: "ray.io/v1", now: new Date() },
  );
  assert.equal(
    resource.spec.headGroupSpec.template.metadata?.annotations?.[
      "ray.io/compute-template"
    ],
    "small",
  );
});

function violationsOf(
  run: () => void,
): { field: string; description: string }[] {
  try {
    run();
  } catch (error) {
    assert.ok(error instanceof ServiceError);
    return error.details.flatMap((detail) =>
      "fieldViolations" in detail ? detail.fieldViolations : []
    );
  }
  return [];
}

Deno.test("validateCreateCluster() checks pod settings with field paths", async (t) => {
  const head = "cluster.clusterSpec.headGroupSpec";
  const worker = "cluster.clusterSpec.workerGroupSpec[0]";
  const cases: {
    name: string;
    head?: Parameters<typeof headGroup>[0];
    worker?: Parameters<typeof workerGroup>[0];
    envs?: Record<string, string>;
    want: RegExp[];
    field: string;
  }[] = [
    {
      name: "a reserved ray.io/ label key",
      head: { labels: { "ray.io/node-type": "x" } },
      field: `${head}.labels["ray.io/node-type"]`,
      want: [/reserved/],
    },
    {
      name: "a reserved app.kubernetes.io/ annotation key",
      worker: { annotations: { "app.kubernetes.io/name": "x" } },
      field: `${worker}.annotations["app.kubernetes.io/name"]`,
      want: [/reserved/],
    },
    {
      name: "a label key that is not a qualified name",
      head: { labels: { "bad key": "x" } },
      field: `${head}.labels["bad key"]`,
      want: [/not a valid label key/],
    },
    {
      name: "a label value too long",
      head: { labels: { team: "x".repeat(64) } },
      field: `${head}.labels["team"]`,
      want: [/valid label value/],
    },
    {
      name: "an annotation key that is not a qualified name",
      head: { annotations: { "-x": "1" } },
      field: `${head}.annotations["-x"]`,
      want: [/not a valid annotation key/],
    },
    {
      name: "annotations over 256 KiB",
      head: { annotations: { big: "x".repeat(256 * 1024) } },
      field: `${head}.annotations`,
      want: [/at most 262144 bytes/],
    },
    {
      name: "a service account that is not a Kubernetes name",
      worker: { serviceAccount: "Ray_SA" },
      field: `${worker}.serviceAccount`,
      want: [/Kubernetes object name/],
    },
    {
      name: "an image pull secret that is not a Kubernetes name",
      head: { imagePullSecret: "my secret" },
      field: `${head}.imagePullSecret`,
      want: [/Kubernetes object name/],
    },
    {
      name: "an environment variable name that is not valid",
      worker: { environment: { "1=x": "v" } },
      field: `${worker}.environment["1=x"]`,
      want: [/not a valid environment variable name/],
    },
    {
      name: "an environment variable also in envs",
      envs: { A: "1" },
      head: { environment: { A: "2" } },
      field: `${head}.environment["A"]`,
      want: [/also set in cluster.envs/],
    },
    {
      name: "MY_POD_IP in a group's environment",
      head: { environment: { MY_POD_IP: "1" } },
      field: `${head}.environment["MY_POD_IP"]`,
      want: [/reserved/],
    },
  ];
  for (const c of cases) {
    await t.step(c.name, () => {
      const violations = violationsOf(() =>
        validateCreateCluster({
          namespace: "team-a",
          cluster: cluster({
            envs: c.envs ?? {},
            clusterSpec: {
              ...NO_SPEC_FIELDS,
              headGroupSpec: headGroup(c.head),
              workerGroupSpec: [workerGroup(c.worker)],
            },
          }),
        })
      );
      const mine = violations.filter((v) => v.field === c.field);
      assert.equal(mine.length, c.want.length, JSON.stringify(violations));
      c.want.forEach((pattern, i) =>
        assert.match(mine[i].description, pattern)
      );
    });
  }
  await t.step("valid pod settings pass", () => {
    validateCreateCluster({
      namespace: "team-a",
      cluster: cluster({
        clusterSpec: {
          ...NO_SPEC_FIELDS,
          headGroupSpec: headGroup({
            serviceAccount: "ray-head",
            imagePullSecret: "registry.creds",
            environment: { HEAD: "1" },
            annotations: { "example.com/any": "any value at all" },
            labels: { "example.com/team": "a", empty: "" },
          }),
          workerGroupSpec: [workerGroup()],
        },
      }),
    });
  });
});

Deno.test("validateCreateComputeTemplate() checks tolerations as Kubernetes does", async (t) => {
  const cases: {
    name: string;
    toleration: Partial<ComputeTemplate["tolerations"][number]>;
    want: { field: string; description: RegExp }[];
  }[] = [
    {
      name: "an unknown operator",
      toleration: { key: "k", operator: "In", value: "v" },
      want: [{ field: "operator", description: /"Exists", "Equal"/ }],
    },
    {
      name: "an unknown effect",
      toleration: { key: "k", value: "v", effect: "NoRun" },
      want: [{ field: "effect", description: /"NoSchedule"/ }],
    },
    {
      name: "Exists with a value",
      toleration: { key: "k", operator: "Exists", value: "v" },
      want: [{
        field: "value",
        description: /empty when operator is "Exists"/,
      }],
    },
    {
      name: "an empty key with Equal",
      toleration: { operator: "Equal", value: "v" },
      want: [{ field: "operator", description: /"Exists" when key is empty/ }],
    },
    {
      name: "a key that is not a qualified name",
      toleration: { key: "bad key", operator: "Exists" },
      want: [{ field: "key", description: /not a valid taint key/ }],
    },
    {
      name: "a value that is not a label value",
      toleration: { key: "k", value: "a b" },
      want: [{ field: "value", description: /valid taint value/ }],
    },
  ];
  for (const c of cases) {
    await t.step(c.name, () => {
      const violations = violationsOf(() =>
        validateCreateComputeTemplate({
          namespace: "team-a",
          computeTemplate: template({
            tolerations: [{
              key: "",
              operator: "",
              value: "",
              effect: "",
              ...c.toleration,
            }],
          }),
        })
      );
      assert.equal(
        violations.length,
        c.want.length,
        JSON.stringify(violations),
      );
      c.want.forEach((want, i) => {
        assert.equal(
          violations[i].field,
          `computeTemplate.tolerations[0].${want.field}`,
        );
        assert.match(violations[i].description, want.description);
      });
    });
  }
  await t.step("valid tolerations pass", () => {
    validateCreateComputeTemplate({
      namespace: "team-a",
      computeTemplate: template({
        tolerations: [
          { key: "", operator: "Exists", value: "", effect: "" },
          {
            key: "nvidia.com/gpu",
            operator: "Exists",
            value: "",
            effect: "NoSchedule",
          },
          {
            key: "dedicated",
            operator: "",
            value: "ray",
            effect: "PreferNoSchedule",
          },
          {
            key: "dedicated",
            operator: "Equal",
            value: "ray",
            effect: "NoExecute",
          },
        ],
      }),
    });
  });
});
