/**
 * Environment variables whose values come from a Secret's or ConfigMap's
 * key, or from the pod (a group's `environmentValuesFrom`): KubeRay's JSON
 * shape of `environment` decoded, the container's `valueFrom` written as
 * the KubeRay API server's later releases write it, read back as given, and
 * every rule of their validation.
 */
import assert from "node:assert/strict";
import { messageFromJson } from "../../domain/codec.ts";
import {
  clusterFromResource,
  clusterToResource,
} from "../../domain/conversions.ts";
import { type FieldViolation, ServiceError } from "../../domain/errors.ts";
import type { EnvVar, RayCluster } from "../../domain/resources.ts";
import type {
  Cluster,
  ComputeTemplate,
  EnvValueFrom,
} from "../../domain/types.ts";
import { validateCreateCluster } from "../../domain/cluster_validation.ts";
import { loadApiSchema } from "../../api/schema.ts";
import { cluster, headGroup, NO_SPEC_FIELDS, workerGroup } from "./builders.ts";

const { root } = await loadApiSchema();
const ClusterType = root.lookupType("proto.Cluster");

function decode(json: unknown) {
  const violations: FieldViolation[] = [];
  const message = messageFromJson(ClusterType, json, "cluster", violations);
  return { message: message as unknown as Cluster, violations };
}

const TEMPLATES: ReadonlyMap<string, ComputeTemplate> = new Map([[
  "small",
  {
    name: "small",
    namespace: "team-a",
    cpu: 1,
    memory: 2,
    gpu: 0,
    gpuAccelerator: "",
    tolerations: [],
    extendedResources: {},
    memoryUnit: "",
  },
]]);
const OPTIONS = { apiVersion: "ray.io/v1", now: new Date("2024-05-01") };

function secret(name: string, key: string): EnvValueFrom {
  return { source: "SECRET", name, key };
}

// ---------------------------------------------------------------- JSON in

Deno.test("messageFromJson() takes KubeRay's {values, valuesFrom} shape of a group's environment", () => {
  const { message, violations } = decode({
    clusterSpec: {
      headGroupSpec: {
        environment: {
          values: { MODE: "head" },
          // As KubeRay's Python client sends it: the source by number.
          valuesFrom: { TOKEN: { source: 1, name: "ray-token", key: "t" } },
        },
      },
      workerGroupSpec: [{
        groupName: "w",
        environment: {
          valuesFrom: { CONF: { name: "conf", key: "k" } },
        },
      }],
    },
  });
  assert.deepEqual(violations, []);
  const head = message.clusterSpec!.headGroupSpec!;
  assert.deepEqual(head.environment, { MODE: "head" });
  assert.deepEqual(head.environmentValuesFrom, {
    TOKEN: secret("ray-token", "t"),
  });
  const worker = message.clusterSpec!.workerGroupSpec[0];
  assert.deepEqual(worker.environment, {});
  // CONFIGMAP is KubeRay's zero value, so an omitted source.
  assert.deepEqual(worker.environmentValuesFrom, {
    CONF: { source: "CONFIGMAP", name: "conf", key: "k" },
  });
});

Deno.test("messageFromJson() keeps a plain environment map, variables named values or valuesFrom included", async (t) => {
  const cases: { name: string; environment: unknown; want: unknown }[] = [
    { name: "plain map", environment: { A: "1" }, want: { A: "1" } },
    {
      name: "variables named values and valuesFrom",
      environment: { values: "v", valuesFrom: "w" },
      want: { values: "v", valuesFrom: "w" },
    },
    { name: "empty", environment: {}, want: {} },
  ];
  for (const c of cases) {
    await t.step(c.name, () => {
      const { message, violations } = decode({
        clusterSpec: {
          headGroupSpec: { environment: c.environment },
        },
      });
      assert.deepEqual(violations, []);
      const head = message.clusterSpec!.headGroupSpec!;
      assert.deepEqual(head.environment, c.want);
      assert.deepEqual(head.environmentValuesFrom, {});
    });
  }
});

Deno.test("messageFromJson() refuses valuesFrom given twice and a bad source, naming the field", async (t) => {
  const cases: { name: string; head: unknown; want: FieldViolation[] }[] = [
    {
      name: "valuesFrom and environmentValuesFrom",
      head: {
        environmentValuesFrom: { A: { name: "a", key: "k" } },
        environment: { valuesFrom: { B: { name: "b", key: "k" } } },
      },
      want: [{
        field: "cluster.clusterSpec.headGroupSpec.environmentValuesFrom",
        description:
          'given twice, as "environmentValuesFrom" and "environment.valuesFrom"',
      }],
    },
    {
      name: "environmentValuesFrom after valuesFrom",
      head: {
        environment: { valuesFrom: { B: { name: "b", key: "k" } } },
        environmentValuesFrom: { A: { name: "a", key: "k" } },
      },
      want: [{
        field: "cluster.clusterSpec.headGroupSpec.environmentValuesFrom",
        description:
          'given twice, as "environment.valuesFrom" and "environmentValuesFrom"',
      }],
    },
    {
      name: "unknown source",
      head: {
        environment: { valuesFrom: { A: { source: "VAULT", name: "a" } } },
      },
      want: [{
        field:
          'cluster.clusterSpec.headGroupSpec.environmentValuesFrom["A"].source',
        description:
          'must be one of "CONFIGMAP", "SECRET", "RESOURCEFIELD", "FIELD", got "VAULT"',
      }],
    },
  ];
  for (const c of cases) {
    await t.step(c.name, () => {
      const { violations } = decode({
        clusterSpec: { headGroupSpec: c.head },
      });
      assert.deepEqual(violations, c.want);
    });
  }
});

// ---------------------------------------------------------- RayCluster

/** Fixtures: a source, the container variable it becomes. */
const RENDERED: { name: string; from: EnvValueFrom; want: EnvVar }[] = [
  {
    name: "a Secret's key as secretKeyRef",
    from: secret("ray-token", "token"),
    want: {
      name: "V",
      valueFrom: { secretKeyRef: { name: "ray-token", key: "token" } },
    },
  },
  {
    name: "a ConfigMap's key as configMapKeyRef",
    from: { source: "CONFIGMAP", name: "settings", key: "level" },
    want: {
      name: "V",
      valueFrom: { configMapKeyRef: { name: "settings", key: "level" } },
    },
  },
  {
    name: "a resource as resourceFieldRef",
    from: { source: "RESOURCEFIELD", name: "", key: "limits.memory" },
    want: {
      name: "V",
      valueFrom: { resourceFieldRef: { resource: "limits.memory" } },
    },
  },
  {
    name: "a resource of the named container",
    from: { source: "RESOURCEFIELD", name: "ray-head", key: "requests.cpu" },
    want: {
      name: "V",
      valueFrom: {
        resourceFieldRef: {
          containerName: "ray-head",
          resource: "requests.cpu",
        },
      },
    },
  },
  {
    name: "a pod field as fieldRef",
    from: { source: "FIELD", name: "", key: "metadata.name" },
    want: {
      name: "V",
      valueFrom: { fieldRef: { fieldPath: "metadata.name" } },
    },
  },
];

Deno.test("clusterToResource() writes environmentValuesFrom as valueFrom, and it reads back as given", async (t) => {
  for (const c of RENDERED) {
    await t.step(c.name, () => {
      const input = cluster({
        clusterSpec: {
          ...NO_SPEC_FIELDS,
          headGroupSpec: headGroup({ environmentValuesFrom: { V: c.from } }),
          workerGroupSpec: [],
        },
      });
      validateCreateCluster({ cluster: input, namespace: "team-a" });
      const resource = clusterToResource(input, TEMPLATES, OPTIONS);
      const env = resource.spec.headGroupSpec.template.spec.containers[0].env!;
      assert.deepEqual(env.at(-1), c.want);
      // As the orchestrator sends and reads it back: plain JSON.
      const back = clusterFromResource(
        JSON.parse(JSON.stringify(resource)),
        [],
      );
      assert.deepEqual(back.clusterSpec, input.clusterSpec);
    });
  }
});

Deno.test("clusterFromResource() reads back a group's variables apart: envs, environment, environmentValuesFrom", () => {
  const input = cluster({
    envs: { SHARED: "1" },
    clusterSpec: {
      ...NO_SPEC_FIELDS,
      headGroupSpec: headGroup({
        environment: { MODE: "head" },
        environmentValuesFrom: { TOKEN: secret("ray-token", "token") },
      }),
      workerGroupSpec: [
        workerGroup({
          groupName: "a",
          environmentValuesFrom: {
            // A name the KubeRay API server also writes: Corral's own
            // objects say which variables are the caller's.
            MY_POD_NAME: { source: "FIELD", name: "", key: "metadata.name" },
          },
        }),
        workerGroup({ groupName: "b" }),
      ],
    },
  });
  validateCreateCluster({ cluster: input, namespace: "team-a" });
  const resource = clusterToResource(input, TEMPLATES, OPTIONS);
  const back = clusterFromResource(resource, []);
  assert.deepEqual(back.envs, input.envs);
  assert.deepEqual(back.clusterSpec, input.clusterSpec);
  const names = resource.spec.headGroupSpec.template.spec.containers[0].env!
    .map((variable) => variable.name);
  assert.deepEqual(names, ["MY_POD_IP", "SHARED", "MODE", "TOKEN"]);
});

Deno.test("clusterFromResource() reads valueFrom variables of an object another writer made, less MY_POD_IP", () => {
  const resource = clusterToResource(cluster(), TEMPLATES, OPTIONS);
  const container = resource.spec.headGroupSpec.template.spec.containers[0];
  container.env!.push(
    { name: "RAY_IP", valueFrom: { fieldRef: { fieldPath: "status.podIP" } } },
    {
      name: "PASSWORD",
      valueFrom: {
        secretKeyRef: { name: "db", key: "password", optional: true },
      },
    },
    {
      name: "NODE",
      valueFrom: { fieldRef: { apiVersion: "v1", fieldPath: "spec.nodeName" } },
    },
  );
  const back = clusterFromResource(resource as RayCluster, []);
  assert.deepEqual(back.clusterSpec!.headGroupSpec!.environmentValuesFrom, {
    PASSWORD: secret("db", "password"),
    NODE: { source: "FIELD", name: "", key: "spec.nodeName" },
  });
});

// ---------------------------------------------------------- validation

const HEAD = "cluster.clusterSpec.headGroupSpec.environmentValuesFrom";
const WORKER = "cluster.clusterSpec.workerGroupSpec[0].environmentValuesFrom";

Deno.test("validateCreateCluster() refuses each bad environmentValuesFrom, naming the field", async (t) => {
  const cases: {
    name: string;
    values: Record<string, EnvValueFrom>;
    worker?: boolean;
    envs?: Record<string, string>;
    environment?: Record<string, string>;
    field: string;
    description: RegExp;
  }[] = [
    {
      name: "a Secret without a name",
      values: { T: secret("", "token") },
      field: `${HEAD}["T"].name`,
      description: /is required: the Secret's name/,
    },
    {
      name: "a Secret without a key",
      values: { T: secret("ray-token", "") },
      field: `${HEAD}["T"].key`,
      description: /is required: the key in the Secret/,
    },
    {
      name: "a Secret name that is not a DNS subdomain",
      values: { T: secret("Ray_Token", "token") },
      field: `${HEAD}["T"].name`,
      description: /must be a Secret's name/,
    },
    {
      name: "a ConfigMap key with a slash",
      values: { T: { source: "CONFIGMAP", name: "conf", key: "a/b" } },
      field: `${HEAD}["T"].key`,
      description: /must be a ConfigMap's key/,
    },
    {
      name: "a key of ..",
      values: { T: secret("conf", "..") },
      field: `${HEAD}["T"].key`,
      description: /must be a Secret's key/,
    },
    {
      name: "an invalid variable name",
      values: { "1BAD": secret("s", "k") },
      field: `${HEAD}["1BAD"]`,
      description: /is not a valid environment variable name/,
    },
    {
      name: "the reserved MY_POD_IP",
      values: { MY_POD_IP: secret("s", "k") },
      field: `${HEAD}["MY_POD_IP"]`,
      description: /is reserved/,
    },
    {
      name: "a name also in envs",
      values: { T: secret("s", "k") },
      envs: { T: "x" },
      field: `${HEAD}["T"]`,
      description: /is also set in cluster.envs/,
    },
    {
      name: "a name also in the group's environment",
      values: { T: secret("s", "k") },
      environment: { T: "x" },
      field: `${HEAD}["T"]`,
      description: /is also set in .*headGroupSpec.environment/,
    },
    {
      name: "a resource that is not one",
      values: { R: { source: "RESOURCEFIELD", name: "", key: "limits.gpu" } },
      field: `${HEAD}["R"].key`,
      description: /must be a resource of the container/,
    },
    {
      name: "another container's resource",
      values: {
        R: { source: "RESOURCEFIELD", name: "ray-head", key: "limits.cpu" },
      },
      worker: true,
      field: `${WORKER}["R"].name`,
      description: /must be empty or "ray-worker"/,
    },
    {
      name: "a pod field that is not one",
      values: { F: { source: "FIELD", name: "", key: "spec.containers" } },
      field: `${HEAD}["F"].key`,
      description: /must be a field of the pod/,
    },
    {
      name: "a pod field given as the name (the Python client's doc)",
      values: { F: { source: "FIELD", name: "metadata.name", key: "" } },
      field: `${HEAD}["F"].name`,
      description: /must be empty for FIELD/,
    },
  ];
  for (const c of cases) {
    await t.step(c.name, () => {
      const settings = {
        environmentValuesFrom: c.values,
        environment: c.environment ?? {},
      };
      const input = cluster({
        envs: c.envs ?? {},
        clusterSpec: c.worker
          ? {
            ...NO_SPEC_FIELDS,
            headGroupSpec: headGroup(),
            workerGroupSpec: [workerGroup(settings)],
          }
          : {
            ...NO_SPEC_FIELDS,
            headGroupSpec: headGroup(settings),
            workerGroupSpec: [],
          },
      });
      let error: unknown;
      try {
        validateCreateCluster({ cluster: input, namespace: "team-a" });
      } catch (e) {
        error = e;
      }
      assert.ok(error instanceof ServiceError, "want INVALID_ARGUMENT");
      const found = error.fieldViolations.find((d) => d.field === c.field);
      assert.ok(
        found && c.description.test(found.description),
        `got ${
          JSON.stringify(error.details)
        }, want ${c.field}: ${c.description}`,
      );
    });
  }
});

Deno.test("validateCreateCluster() accepts the sources Kubernetes accepts", () => {
  const input = cluster({
    clusterSpec: {
      ...NO_SPEC_FIELDS,
      headGroupSpec: headGroup({
        environmentValuesFrom: {
          A: secret("ray-token", "token.txt"),
          B: { source: "CONFIGMAP", name: "conf.v2", key: "LEVEL_1" },
          C: { source: "RESOURCEFIELD", name: "", key: "limits.hugepages-2Mi" },
          D: { source: "RESOURCEFIELD", name: "ray-head", key: "requests.cpu" },
          E: {
            source: "FIELD",
            name: "",
            key: "metadata.labels['ray.io/cluster']",
          },
          F: { source: "FIELD", name: "", key: "status.hostIP" },
        },
      }),
      workerGroupSpec: [],
    },
  });
  validateCreateCluster({ cluster: input, namespace: "team-a" });
});
