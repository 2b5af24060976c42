import assert from "node:assert/strict";
import {
  messageFromJson,
  messageToJson,
  suggestField,
} from "../../domain/codec.ts";
import { messageToGatewayJson } from "../../domain/kuberay_json.ts";
import type { Message } from "../../domain/message_form.ts";
import {
  messageFromProto,
  messageToProto,
} from "../../domain/proto_objects.ts";
import protobuf from "protobufjs";
import type { FieldViolation } from "../../domain/errors.ts";
import { loadApiSchema } from "../../api/schema.ts";
import { NO_VOLUME_FIELDS } from "./builders.ts";

const { root } = await loadApiSchema();
const Cluster = root.lookupType("proto.Cluster");
const WorkerGroupSpec = root.lookupType("proto.WorkerGroupSpec");
const ComputeTemplate = root.lookupType("proto.ComputeTemplate");
const CreateClusterRequest = root.lookupType("proto.CreateClusterRequest");

function decode(type = Cluster, json: unknown) {
  const violations: FieldViolation[] = [];
  const message = messageFromJson(type, json, "cluster", violations);
  return { message, violations };
}

Deno.test("messageFromJson() accepts lowerCamelCase and snake_case names", () => {
  for (const key of ["clusterState", "cluster_state"]) {
    const { message, violations } = decode(Cluster, { [key]: "ready" });
    assert.deepEqual(violations, [], `key ${key}`);
    assert.equal(message.clusterState, "ready", `key ${key}`);
  }
});

Deno.test("messageFromJson() fills every absent field with its default", () => {
  const { message, violations } = decode(Cluster, {});
  assert.deepEqual(violations, []);
  assert.deepEqual(message, {
    name: "",
    namespace: "",
    user: "",
    version: "",
    environment: "DEV",
    clusterSpec: undefined,
    createdAt: undefined,
    deletedAt: undefined,
    clusterState: "",
    events: [],
    serviceEndpoint: {},
    envs: {},
    etag: "",
    clientUrl: "",
    dashboardUrl: "",
    dashboardProxyUrl: "",
    ttl: "",
    queue: "",
    expiresAt: undefined,
    annotations: {},
    envsValuesFrom: {},
  });
});

Deno.test("messageFromJson() reports bad input with field paths", async (t) => {
  const cases: {
    name: string;
    type?: typeof Cluster;
    json: unknown;
    want: FieldViolation[];
  }[] = [
    {
      name: "the start parameters given under both spellings",
      json: {
        clusterSpec: {
          headGroupSpec: { engineStartParams: {}, rayStartParams: {} },
        },
      },
      want: [{
        field: "cluster.clusterSpec.headGroupSpec.engineStartParams",
        description: 'given twice, as "engineStartParams" and "rayStartParams"',
      }],
    },
    {
      name: "unknown field with a near miss",
      json: { nmae: "x" },
      want: [{
        field: "cluster.nmae",
        description: 'unknown field; did you mean "name"?',
      }],
    },
    {
      name: "unknown field with nothing close",
      json: { tolerations: [] },
      want: [{ field: "cluster.tolerations", description: "unknown field" }],
    },
    {
      name: "wrong scalar type",
      json: { name: 5 },
      want: [{
        field: "cluster.name",
        description: "must be a string, got the number 5",
      }],
    },
    {
      name: "bad enum name",
      json: { environment: "PROD" },
      want: [{
        field: "cluster.environment",
        description:
          'must be one of "DEV", "TESTING", "STAGING", "PRODUCTION", got "PROD"',
      }],
    },
    {
      name: "bad enum number",
      json: { environment: 9 },
      want: [{
        field: "cluster.environment",
        description:
          'must be one of "DEV", "TESTING", "STAGING", "PRODUCTION", got 9',
      }],
    },
    {
      name: "map of the wrong type",
      json: { envs: ["A=1"] },
      want: [{
        field: "cluster.envs",
        description: "must be an object, got an array",
      }],
    },
    {
      name: "map value of the wrong type",
      json: { envs: { A: 1 } },
      want: [{
        field: 'cluster.envs["A"]',
        description: "must be a string, got the number 1",
      }],
    },
    {
      name: "repeated field not an array",
      json: { clusterSpec: { workerGroupSpec: {} } },
      want: [{
        field: "cluster.clusterSpec.workerGroupSpec",
        description: "must be an array, got an object",
      }],
    },
    {
      name: "int32 out of range",
      json: { clusterSpec: { workerGroupSpec: [{ replicas: 2 ** 31 }] } },
      want: [{
        field: "cluster.clusterSpec.workerGroupSpec[0].replicas",
        description:
          "must be an integer from -2147483648 to 2147483647, got 2147483648",
      }],
    },
    {
      name: "fractional integer",
      json: { clusterSpec: { workerGroupSpec: [{ replicas: 1.5 }] } },
      want: [{
        field: "cluster.clusterSpec.workerGroupSpec[0].replicas",
        description: "must be an integer, got 1.5",
      }],
    },
    {
      name: "negative uint32",
      type: ComputeTemplate,
      json: { cpu: -1 },
      want: [{
        field: "cluster.cpu",
        description: "must be an integer from 0 to 4294967295, got -1",
      }],
    },
    {
      name: "nested message not an object",
      json: { clusterSpec: "big" },
      want: [{
        field: "cluster.clusterSpec",
        description: 'must be a JSON object, got the string "big"',
      }],
    },
    {
      name: "bad timestamp",
      json: { createdAt: "yesterday" },
      want: [{
        field: "cluster.createdAt",
        description: 'must be an RFC 3339 timestamp, got "yesterday"',
      }],
    },
    {
      name: "both spellings of one field",
      json: { cluster_state: "a", clusterState: "b" },
      want: [{
        field: "cluster.clusterState",
        description: 'given twice, as "cluster_state" and "clusterState"',
      }],
    },
    {
      name: "several problems at once",
      json: { name: 1, user: true, bogus: 1 },
      want: [
        {
          field: "cluster.name",
          description: "must be a string, got the number 1",
        },
        { field: "cluster.user", description: "must be a string, got true" },
        { field: "cluster.bogus", description: "unknown field" },
      ],
    },
  ];
  for (const c of cases) {
    await t.step(c.name, () => {
      const { violations } = decode(c.type ?? Cluster, c.json);
      assert.deepEqual(violations, c.want, `got ${JSON.stringify(violations)}`);
    });
  }
});

Deno.test("messageFromJson() takes integers as strings and enums as numbers", () => {
  const { message, violations } = decode(WorkerGroupSpec, {
    replicas: "3",
    min_replicas: 0,
  });
  assert.deepEqual(violations, []);
  assert.equal(message.replicas, 3);
  assert.equal(message.minReplicas, 0);
  assert.equal(message.maxReplicas, undefined);
  const env = decode(Cluster, { environment: 3 });
  assert.equal(env.message.environment, "PRODUCTION");
});

Deno.test("messageFromJson() treats null as the default value", () => {
  const { message, violations } = decode(Cluster, {
    name: null,
    clusterSpec: null,
  });
  assert.deepEqual(violations, []);
  assert.equal(message.name, "");
  assert.equal(message.clusterSpec, undefined);
});

const fullCluster: Message = {
  name: "blue",
  namespace: "team-a",
  user: "ada",
  version: "2.9.0",
  environment: "STAGING",
  clusterSpec: {
    headGroupSpec: {
      computeTemplate: "small",
      image: "",
      serviceType: "NodePort",
      engineStartParams: { "dashboard-host": "0.0.0.0" },
      volumes: [{
        mountPath: "/data",
        volumeType: "HOST_PATH",
        name: "data",
        source: "/mnt/data",
        readOnly: true,
        hostPathType: "FILE",
        mountPropagationMode: "BIDIRECTIONAL",
        ...NO_VOLUME_FIELDS,
      }, {
        ...NO_VOLUME_FIELDS,
        mountPath: "/scratch",
        volumeType: "EPHEMERAL",
        name: "scratch",
        source: "",
        readOnly: false,
        hostPathType: "DIRECTORY",
        mountPropagationMode: "NONE",
        storageClassName: "fast",
        accessMode: "RWX",
        storage: "10Gi",
      }, {
        ...NO_VOLUME_FIELDS,
        mountPath: "/etc/app",
        volumeType: "CONFIGMAP",
        name: "app",
        source: "app-config",
        readOnly: true,
        hostPathType: "DIRECTORY",
        mountPropagationMode: "NONE",
        items: { "app.yaml": "config/app.yaml" },
      }],
      serviceAccount: "ray-head",
      imagePullSecret: "registry",
      environment: { HEAD_ONLY: "1" },
      annotations: { "example.com/cost-center": "42" },
      labels: { team: "a" },
      environmentValuesFrom: {
        TOKEN: { source: "SECRET", name: "ray-token", key: "token" },
      },
      imagePullPolicy: "Always",
      securityContext: {
        capabilities: { add: ["SYS_PTRACE"], drop: ["ALL"] },
        privileged: false,
      },
      enableIngress: true,
    },
    workerGroupSpec: [{
      groupName: "workers",
      computeTemplate: "small",
      image: "rayproject/ray:2.9.0",
      replicas: 2,
      minReplicas: 0,
      maxReplicas: 5,
      engineStartParams: {},
      volumes: [],
      serviceAccount: "",
      imagePullSecret: "",
      environment: {},
      annotations: {},
      labels: {},
      environmentValuesFrom: {},
      imagePullPolicy: "",
      securityContext: undefined,
    }, {
      groupName: "secure",
      computeTemplate: "small",
      image: "",
      replicas: 1,
      minReplicas: undefined,
      maxReplicas: undefined,
      engineStartParams: {},
      volumes: [{
        ...NO_VOLUME_FIELDS,
        mountPath: "/tmp/ray",
        volumeType: "EMPTY_DIR",
        name: "tmp",
        source: "",
        readOnly: false,
        hostPathType: "DIRECTORY",
        mountPropagationMode: "NONE",
        storage: "1Gi",
      }, {
        ...NO_VOLUME_FIELDS,
        mountPath: "/etc/tls",
        volumeType: "SECRET",
        name: "tls",
        source: "ray-tls",
        readOnly: true,
        hostPathType: "DIRECTORY",
        mountPropagationMode: "NONE",
      }],
      serviceAccount: "",
      imagePullSecret: "",
      environment: {},
      annotations: {},
      labels: {},
      environmentValuesFrom: {},
      imagePullPolicy: "IfNotPresent",
      securityContext: { capabilities: undefined, privileged: true },
    }],
    enableInTreeAutoscaling: true,
    autoscalerOptions: {
      idleTimeoutSeconds: 120,
      upscalingMode: "Conservative",
      image: "rayproject/ray:2.9.0",
      imagePullPolicy: "Always",
      cpu: "1",
      memory: "1Gi",
      envs: {
        values: { AUTOSCALER_LOG: "debug" },
        valuesFrom: {
          AUTOSCALER_TOKEN: { source: "SECRET", name: "scaler", key: "token" },
        },
      },
      volumes: [{
        ...NO_VOLUME_FIELDS,
        mountPath: "/data",
        volumeType: "HOST_PATH",
        name: "data",
        source: "/mnt/data",
        readOnly: true,
        hostPathType: "FILE",
        mountPropagationMode: "NONE",
      }],
    },
    headServiceAnnotations: { "example.com/lb": "internal" },
  },
  createdAt: new Date("2026-11-22T01:02:03Z"),
  deletedAt: new Date("2026-11-22T01:02:04.5Z"),
  clusterState: "ready",
  events: [{
    id: "e1",
    name: "blue.1",
    createdAt: new Date("2026-11-22T01:02:05Z"),
    firstTimestamp: undefined,
    lastTimestamp: new Date("2026-11-22T01:02:06Z"),
    reason: "CreatedService",
    message: "Created service",
    type: "Normal",
    count: 2,
  }],
  serviceEndpoint: { dashboard: "30265" },
  envs: { A: "1" },
  envsValuesFrom: {
    B: { source: "CONFIGMAP", name: "shared", key: "b" },
  },
  annotations: { "example.com/team": "a" },
  etag: "4711",
  clientUrl: "ray://blue-head-svc.team-a.svc:10001",
  dashboardUrl: "http://blue-head-svc.team-a.svc:8265",
  dashboardProxyUrl:
    "/apis/v1alpha2/namespaces/team-a/clusters/blue/dashboard/",
  ttl: "8h",
  queue: "default",
  expiresAt: new Date("2026-11-22T09:02:03Z"),
};

Deno.test("messageToJson() writes camelCase, enum names and RFC 3339 times", () => {
  const json = messageToJson(Cluster, fullCluster) as Record<string, unknown>;
  assert.equal(json.createdAt, "2026-11-22T01:02:03Z");
  assert.equal(json.deletedAt, "2026-11-22T01:02:04.500Z");
  assert.equal(json.environment, "STAGING");
  assert.equal(
    (json.events as Record<string, unknown>[])[0].firstTimestamp,
    null,
  );
  assert.deepEqual(json.serviceEndpoint, { dashboard: "30265" });
});

Deno.test("messageToJson() emits unpopulated fields", () => {
  const json = messageToJson(Cluster, {});
  assert.deepEqual(json, {
    name: "",
    namespace: "",
    user: "",
    version: "",
    environment: "DEV",
    clusterSpec: null,
    createdAt: null,
    deletedAt: null,
    clusterState: "",
    events: [],
    serviceEndpoint: {},
    envs: {},
    etag: "",
    clientUrl: "",
    dashboardUrl: "",
    dashboardProxyUrl: "",
    ttl: "",
    queue: "",
    expiresAt: null,
    annotations: {},
    envsValuesFrom: {},
  });
});

Deno.test("JSON -> message -> JSON is the identity on a full cluster", () => {
  const json = messageToJson(Cluster, fullCluster);
  const { message, violations } = decode(Cluster, json);
  assert.deepEqual(violations, []);
  assert.deepEqual(message, fullCluster);
  assert.deepEqual(messageToJson(Cluster, message), json);
});

Deno.test("message -> protobuf bytes -> message is the identity", () => {
  for (
    const [type, message] of [[Cluster, fullCluster], [CreateClusterRequest, {
      cluster: fullCluster,
      namespace: "team-a",
    }]] as const
  ) {
    const bytes = type.encode(type.fromObject(messageToProto(type, message)))
      .finish();
    const violations: FieldViolation[] = [];
    const back = messageFromProto(
      type,
      type.decode(bytes) as unknown as Record<string, unknown>,
      "",
      violations,
    );
    assert.deepEqual(violations, []);
    const want = type === Cluster
      ? fullCluster
      : { cluster: fullCluster, namespace: "team-a" };
    assert.deepEqual(back, want);
  }
});

Deno.test("messageFromProto() keeps an explicit 0 apart from an absent optional", () => {
  const bytes = WorkerGroupSpec.encode(
    WorkerGroupSpec.fromObject({ groupName: "w", minReplicas: 0 }),
  ).finish();
  const violations: FieldViolation[] = [];
  const message = messageFromProto(
    WorkerGroupSpec,
    WorkerGroupSpec.decode(bytes) as unknown as Record<string, unknown>,
    "",
    violations,
  );
  assert.equal(message.minReplicas, 0);
  assert.equal(message.maxReplicas, undefined);
});

Deno.test("messageFromProto() reports an enum number the definition lacks", () => {
  const bytes = Cluster.encode(Cluster.fromObject({ environment: 7 })).finish();
  const violations: FieldViolation[] = [];
  messageFromProto(
    Cluster,
    Cluster.decode(bytes) as unknown as Record<string, unknown>,
    "cluster",
    violations,
  );
  assert.deepEqual(violations, [{
    field: "cluster.environment",
    description:
      'must be one of "DEV", "TESTING", "STAGING", "PRODUCTION", got 7',
  }]);
});

Deno.test("suggestField() proposes only close names", () => {
  const HeadGroupSpec = root.lookupType("proto.HeadGroupSpec");
  assert.equal(
    suggestField(HeadGroupSpec, "ray_start_params"),
    "engineStartParams",
  );
  assert.equal(
    suggestField(HeadGroupSpec, "computeTemplte"),
    "computeTemplate",
  );
  assert.equal(suggestField(HeadGroupSpec, "replicas"), undefined);
});

Deno.test("messageFromJson() keeps a map key named __proto__ as an entry", () => {
  const { message, violations } = decode(
    Cluster,
    JSON.parse('{"envs": {"__proto__": "x", "B": "2"}}'),
  );
  assert.deepEqual(violations, []);
  const envs = message.envs as Record<string, string>;
  assert.deepEqual(Object.keys(envs), ["__proto__", "B"]);
  assert.equal(Object.getPrototypeOf(envs), Object.prototype);
});

Deno.test("messageFromJson() takes KubeRay's spelling of the start parameters", () => {
  for (const key of ["rayStartParams", "ray_start_params"]) {
    const { message, violations } = decode(Cluster, {
      clusterSpec: {
        headGroupSpec: { [key]: { "num-cpus": "0" } },
        workerGroupSpec: [{ groupName: "w", [key]: { "num-gpus": "1" } }],
      },
    });
    assert.deepEqual(violations, []);
    const spec = message.clusterSpec as Record<string, Message[] & Message>;
    assert.deepEqual(spec.headGroupSpec.engineStartParams, { "num-cpus": "0" });
    assert.deepEqual(spec.workerGroupSpec[0].engineStartParams, {
      "num-gpus": "1",
    });
  }
});

Deno.test("messageFromProto() refuses field numbers the message does not have", () => {
  // A HeadGroupSpec with compute_template (1) = "small" and a field 42 the
  // definition lacks, inside a Cluster's cluster_spec (6) head_group_spec
  // (1), as a newer client would send it.
  const head = protobuf.Writer.create()
    .uint32((1 << 3) | 2).string("small")
    .uint32((42 << 3) | 0).uint32(7)
    .finish();
  const spec = protobuf.Writer.create().uint32((1 << 3) | 2).bytes(head)
    .finish();
  const bytes = protobuf.Writer.create()
    .uint32((1 << 3) | 2).string("blue")
    .uint32((6 << 3) | 2).bytes(spec)
    .uint32((99 << 3) | 2).string("x")
    .finish();
  const reader = protobuf.Reader.create(bytes);
  (reader as { discardUnknown?: boolean }).discardUnknown = false;
  const violations: FieldViolation[] = [];
  const message = messageFromProto(
    Cluster,
    Cluster.decode(reader) as unknown as Record<string, unknown>,
    "cluster",
    violations,
  );
  assert.deepEqual(violations, [
    {
      field: "cluster.#99",
      description: "unknown field number 99 of message proto.Cluster",
    },
    {
      field: "cluster.clusterSpec.headGroupSpec.#42",
      description: "unknown field number 42 of message proto.HeadGroupSpec",
    },
  ]);
  assert.equal(message.name, "blue");
});

Deno.test("messageToGatewayJson() writes KubeRay's JSON: enum numbers, no unpopulated fields", () => {
  const json = messageToGatewayJson(Cluster, fullCluster);
  assert.equal(json.environment, 2);
  assert.equal(json.createdAt, "2026-11-22T01:02:03Z");
  const spec = json.clusterSpec as Record<string, Record<string, unknown>[]>;
  const worker = spec.workerGroupSpec[0];
  // minReplicas 0 is set (proto3 optional): kept; empty maps and strings go.
  assert.deepEqual(Object.keys(worker).sort(), [
    "computeTemplate",
    "groupName",
    "image",
    "maxReplicas",
    "minReplicas",
    "replicas",
  ]);
  const head = spec.headGroupSpec as unknown as Record<string, unknown>;
  assert.equal(head.image, undefined);
  assert.deepEqual((head.volumes as Record<string, unknown>[])[0], {
    mountPath: "/data",
    volumeType: 1,
    name: "data",
    source: "/mnt/data",
    readOnly: true,
    hostPathType: 1,
    mountPropagationMode: 2,
  });
  assert.deepEqual(
    (json.events as Record<string, unknown>[])[0].firstTimestamp,
    undefined,
  );
  assert.deepEqual(messageToGatewayJson(Cluster, { environment: "DEV" }), {});
});

Deno.test("messageToGatewayJson() writes a group's start parameters as rayStartParams, as KubeRay's API server names them", () => {
  const json = messageToGatewayJson(Cluster, {
    clusterSpec: {
      headGroupSpec: { engineStartParams: { "num-cpus": "0" } },
      workerGroupSpec: [{ groupName: "w", engineStartParams: { a: "1" } }],
    },
  });
  assert.deepEqual(json.clusterSpec, {
    headGroupSpec: { rayStartParams: { "num-cpus": "0" } },
    workerGroupSpec: [{ groupName: "w", rayStartParams: { a: "1" } }],
  });
  // The default dialect keeps Corral's name.
  const plain = messageToJson(WorkerGroupSpec, { engineStartParams: {} });
  assert.deepEqual((plain as Record<string, unknown>).engineStartParams, {});
});

Deno.test("a FieldMask is one string of lowerCamelCase paths in JSON, snake_case in message form", () => {
  const Update = root.lookupType("proto.UpdateClusterRequest");
  for (
    const text of [
      "clusterSpec.workerGroupSpec,envs",
      "cluster_spec.worker_group_spec, envs",
    ]
  ) {
    const { message, violations } = decode(Update, { updateMask: text });
    assert.deepEqual(violations, []);
    assert.deepEqual(message.updateMask, {
      paths: ["cluster_spec.worker_group_spec", "envs"],
    });
    assert.equal(
      (messageToJson(Update, message) as Record<string, unknown>).updateMask,
      "clusterSpec.workerGroupSpec,envs",
    );
  }
  const { violations } = decode(Update, { updateMask: ["envs"] });
  assert.deepEqual(violations, [{
    field: "cluster.updateMask",
    description:
      "must be a string of comma-separated field paths, got an array",
  }]);
});
