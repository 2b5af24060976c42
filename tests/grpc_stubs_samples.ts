/**
 * The samples tests/grpc_stubs_round_trip_test.ts sends through Python
 * stubs, as proto3 JSON, per kind a list: between them they set every field
 * of the stubs' messages but those marked OUTPUT_ONLY, with values Corral's
 * validation and admission take. KUBERAY_SAMPLES speak KubeRay's current
 * messages (proto/kuberay/); v060Samples() makes the main port's of them,
 * in the API's messages (proto/*.proto: v0.6.0's numbering with Corral's
 * additions).
 */
import type protobuf from "protobufjs";
import { fieldByJsonKey } from "../domain/codec.ts";
import { environmentSibling } from "../domain/kuberay_json.ts";
import {
  enumOf,
  isMap,
  isPlainObject,
  messageTypeOf,
} from "../domain/message_form.ts";

type Json = Record<string, unknown>;

const NS = "team-rt";
const TEMPLATE = "rt-small";
const IMAGE = "rayproject/ray:2.9.0";

const template = {
  name: TEMPLATE,
  namespace: NS,
  cpu: 2,
  memory: 4,
  gpu: 1,
  gpuAccelerator: "nvidia.com/gpu",
  tolerations: [
    { key: "ray", operator: "Equal", value: "yes", effect: "NoSchedule" },
  ],
};

/** KubeRay's current Volume, one of each type, every field set. */
const kuberayVolumes = [
  {
    mountPath: "/data",
    volumeType: "PERSISTENT_VOLUME_CLAIM",
    name: "data",
    source: "data-claim",
    readOnly: true,
  },
  {
    mountPath: "/host",
    volumeType: "HOST_PATH",
    name: "host",
    source: "/tmp/host",
    hostPathType: "FILE",
    mountPropagationMode: "HOSTTOCONTAINER",
  },
  {
    mountPath: "/scratch",
    volumeType: "EPHEMERAL",
    name: "scratch",
    storageClassName: "standard",
    accessMode: "RWX",
    storage: "5Gi",
  },
  {
    mountPath: "/config",
    volumeType: "CONFIGMAP",
    name: "config",
    source: "ray-config",
    items: { "app.yaml": "app.yaml" },
  },
  {
    mountPath: "/secret",
    volumeType: "SECRET",
    name: "secret",
    source: "ray-secret",
    items: { token: "token" },
  },
  {
    mountPath: "/cache",
    volumeType: "EMPTY_DIR",
    name: "cache",
    storage: "1Gi",
  },
];

const kuberayEnvironment = {
  values: { LOG_LEVEL: "debug" },
  valuesFrom: {
    TOKEN: { source: "SECRET", name: "ray-secret", key: "token" },
  },
};

const securityContext = {
  capabilities: { add: ["SYS_PTRACE"], drop: ["ALL"] },
  privileged: false,
};

/** Fields a head group and a worker group share, KubeRay's names. */
function kuberayGroup(startParams: Record<string, string>) {
  return {
    computeTemplate: TEMPLATE,
    image: IMAGE,
    rayStartParams: startParams,
    volumes: kuberayVolumes,
    serviceAccount: "ray",
    imagePullSecret: "registry",
    environment: kuberayEnvironment,
    annotations: { team: "rt" },
    labels: { app: "ray" },
    imagePullPolicy: "IfNotPresent",
    securityContext,
  };
}

function kuberayClusterSpec() {
  return {
    headGroupSpec: {
      ...kuberayGroup({ "dashboard-host": "0.0.0.0" }),
      serviceType: "ClusterIP",
      enableIngress: true,
    },
    workerGroupSpec: [{
      ...kuberayGroup({ "num-cpus": "2" }),
      groupName: "workers",
      replicas: 2,
      minReplicas: 1,
      maxReplicas: 3,
    }],
    enableInTreeAutoscaling: true,
    autoscalerOptions: {
      idleTimeoutSeconds: 60,
      upscalingMode: "Default",
      image: IMAGE,
      imagePullPolicy: "IfNotPresent",
      cpu: "500m",
      memory: "512Mi",
      envs: kuberayEnvironment,
      volumes: [kuberayVolumes[0]],
    },
    headServiceAnnotations: { "example.com/lb": "internal" },
  };
}

/** Fields a job with a cluster of its own and one with a selector share. */
const job = {
  namespace: NS,
  user: "ada",
  version: "2.9.0",
  entrypoint: "python -c 'print(1)'",
  metadata: { purpose: "round-trip" },
  runtimeEnv: "pip:\n- requests\n",
  jobId: "rt-job-id",
  shutdownAfterJobFinishes: true,
  ttlSecondsAfterFinished: 60,
  jobSubmitter: { image: IMAGE, cpu: "1", memory: "1Gi" },
  entrypointNumCpus: 1.5,
  entrypointNumGpus: 0.5,
  entrypointResources: '{"custom": 1}',
  activeDeadlineSeconds: 600,
};

const SERVE_CONFIG = [
  "applications:",
  "- name: app",
  "  import_path: app:graph",
  "",
].join("\n");

export const KUBERAY_SAMPLES = {
  namespace: NS,
  template: [{
    ...template,
    extendedResources: { "vpc.amazonaws.com/efa": 1 },
    // Not "Gi": that is KubeRay's default, which reads back as "".
    memoryUnit: "Mi",
  }],
  cluster: [{
    name: "rt-cluster",
    namespace: NS,
    user: "ada",
    version: "2.9.0",
    environment: "TESTING",
    clusterSpec: kuberayClusterSpec(),
    annotations: { note: "round-trip" },
    // Not the groups' variables: a variable set in both is refused.
    envs: {
      values: { REGION: "eu" },
      valuesFrom: {
        POD_IP: { source: "FIELD", key: "status.podIP" },
      },
    },
  }],
  job: [
    { ...job, name: "rt-job", clusterSpec: kuberayClusterSpec() },
    {
      ...job,
      name: "rt-job-selector",
      jobId: "rt-job-selector-id",
      clusterSelector: { "ray.io/cluster": "rt-cluster" },
    },
  ],
  service: [{
    name: "rt-service",
    namespace: NS,
    user: "ada",
    version: "2.9.0",
    serveConfigV2: SERVE_CONFIG,
    serviceUnhealthySecondThreshold: 30,
    deploymentUnhealthySecondThreshold: 40,
    clusterSpec: kuberayClusterSpec(),
  }],
};

/**
 * `json`, KubeRay's sample of a message of `type`'s name, as far as the
 * API's `type` (proto/*.proto) has it, under the API's names: a KubeRay
 * field it lacks left out, KubeRay's `{values, valuesFrom}` split into
 * the API's map of variables and the field beside it, and an item of a list
 * with an enum value the API lacks (a volume type) left out, as the
 * whole object is (undefined). So the main port's samples hold every field
 * KubeRay's do that Corral's protos have, whatever they come to have.
 */
function apiSample(type: protobuf.Type, json: Json): Json | undefined {
  const out: Json = {};
  for (const [key, value] of Object.entries(json)) {
    const field = fieldByJsonKey(type, key);
    if (!field) continue;
    const e = enumOf(field);
    if (e && !field.repeated && e.values[value as string] === undefined) {
      return undefined;
    }
    const inner = messageTypeOf(field);
    if (isMap(field) && !inner && isEnvironmentVariables(value)) {
      out[jsonName(field)] = value.values ?? {};
      const sibling = environmentSibling(type, field);
      if (sibling && value.valuesFrom) {
        out[jsonName(sibling)] = value.valuesFrom;
      }
    } else if (inner && field.repeated && !isMap(field)) {
      out[jsonName(field)] = (value as Json[]).map((v) => apiSample(inner, v))
        .filter((v) => v !== undefined);
    } else if (inner && !isMap(field) && !isWellKnown(inner)) {
      const converted = apiSample(inner, value as Json);
      if (converted) out[jsonName(field)] = converted;
    } else {
      out[jsonName(field)] = value;
    }
  }
  return out;
}

function isEnvironmentVariables(
  value: unknown,
): value is { values?: Json; valuesFrom?: Json } {
  return isPlainObject(value) &&
    Object.keys(value).every((k) => k === "values" || k === "valuesFrom");
}

/** The field's proto3 JSON name, which Python's json_format reads. */
function jsonName(field: protobuf.Field): string {
  return field.jsonName ?? field.name;
}

function isWellKnown(type: protobuf.Type): boolean {
  return type.fullName.startsWith(".google.protobuf.");
}

/** Corral's additions every kind shares. */
const expiry = { ttl: "2h" };
const dated = { expiresAt: "2099-01-01T00:00:00Z" };

/**
 * The samples of the main port, v0.6.0's numbering (proto/*.proto): each
 * of KubeRay's as far as the API's protos have it (apiSample), and more
 * with Corral's additions: expiry (a ttl, or a time), queues, a suspended
 * job, and Serve's first config format of v0.6.0 (every field set), which
 * Corral refuses.
 */
export function v060Samples(api: protobuf.Root) {
  const as = (type: string, json: Json, extra: Json = {}) => ({
    ...apiSample(api.lookupType(type), json),
    ...extra,
  });
  const [cluster] = KUBERAY_SAMPLES.cluster;
  const [ownCluster, onCluster] = KUBERAY_SAMPLES.job;
  const [service] = KUBERAY_SAMPLES.service;
  return {
    namespace: NS,
    // Corral's etag is the object's version, whatever a create sent; a ttl
    // sets the expiry time.
    serverSet: { always: ["etag"], unlessSent: ["expiresAt"] },
    template: KUBERAY_SAMPLES.template.map((t) =>
      as("proto.ComputeTemplate", t)
    ),
    cluster: [
      as("proto.Cluster", cluster, expiry),
      as("proto.Cluster", cluster, {
        name: "rt-cluster-queued",
        etag: "1",
        queue: "rt-queue",
        ...dated,
      }),
    ],
    job: [
      as("proto.RayJob", ownCluster, {
        suspend: true,
        queue: "rt-queue",
        ...dated,
      }),
      as("proto.RayJob", ownCluster, {
        name: "rt-job-ttl",
        jobId: "rt-job-ttl-id",
        ...expiry,
      }),
      as("proto.RayJob", onCluster),
    ],
    service: [
      as("proto.RayService", service, expiry),
      as("proto.RayService", service, {
        name: "rt-service-dated",
        ...dated,
        serveDeploymentGraphSpec,
      }),
    ],
  };
}

/** Serve's first config format, v0.6.0's, every field set. */
const serveDeploymentGraphSpec = {
  importPath: "app:graph",
  runtimeEnv: "working_dir: /app\n",
  serveConfigs: [{
    deploymentName: "app",
    replicas: 1,
    routePrefix: "/",
    maxConcurrentQueries: 10,
    userConfig: "{}",
    autoscalingConfig: "{}",
    actorOptions: {
      runtimeEnv: "{}",
      cpusPerActor: 1,
      gpusPerActor: 1,
      memoryPerActor: 1024,
      objectStoreMemoryPerActor: 1024,
      customResource: "{}",
      accceleratorType: "T4",
    },
  }],
};
