/**
 * The samples tests/grpc_stubs_round_trip_test.ts sends through Python
 * stubs, as proto3 JSON, per kind a list: between them they set every field
 * of the stubs' messages but those KubeRay marks OUTPUT_ONLY, with values
 * Corral's validation and admission take. KUBERAY_SAMPLES speak KubeRay's
 * current messages (proto/kuberay/), V060_SAMPLES the API's (proto/*.proto,
 * v0.6.0's numbering with Corral's additions).
 */

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
    memoryUnit: "Gi",
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
        POD_IP: { source: "FIELD", name: "status.podIP", key: "" },
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

/** The API's Volume (v0.6.0's), every field set across the two. */
const v060Volumes = [kuberayVolumes[0], kuberayVolumes[1]];

/** Fields a head group and a worker group share, the API's names. */
function v060Group(startParams: Record<string, string>) {
  return {
    computeTemplate: TEMPLATE,
    image: IMAGE,
    engineStartParams: startParams,
    volumes: v060Volumes,
    serviceAccount: "ray",
    imagePullSecret: "registry",
    environment: kuberayEnvironment.values,
    environmentValuesFrom: kuberayEnvironment.valuesFrom,
    annotations: { team: "rt" },
    labels: { app: "ray" },
  };
}

function v060ClusterSpec() {
  return {
    headGroupSpec: {
      ...v060Group({ "dashboard-host": "0.0.0.0" }),
      serviceType: "ClusterIP",
    },
    workerGroupSpec: [{
      ...v060Group({ "num-cpus": "2" }),
      groupName: "workers",
      replicas: 2,
      minReplicas: 1,
      maxReplicas: 3,
    }],
  };
}

/** Corral's additions every kind shares. */
const expiry = { ttl: "2h" };

export const V060_SAMPLES = {
  namespace: NS,
  // Corral's etag is the object's version, whatever a create sent; a ttl
  // sets the expiry time.
  serverSet: { always: ["etag"], unlessSent: ["expiresAt"] },
  template: [template],
  cluster: [{
    name: "rt-cluster",
    namespace: NS,
    user: "ada",
    version: "2.9.0",
    environment: "TESTING",
    clusterSpec: v060ClusterSpec(),
    envs: { REGION: "eu" },
    ...expiry,
  }, {
    name: "rt-cluster-queued",
    namespace: NS,
    user: "ada",
    version: "2.9.0",
    clusterSpec: v060ClusterSpec(),
    etag: "1",
    expiresAt: "2099-01-01T00:00:00Z",
    queue: "rt-queue",
  }],
  job: [
    {
      ...job,
      name: "rt-job",
      clusterSpec: v060ClusterSpec(),
      suspend: true,
      queue: "rt-queue",
      expiresAt: "2099-01-01T00:00:00Z",
    },
    {
      ...job,
      name: "rt-job-ttl",
      jobId: "rt-job-ttl-id",
      clusterSpec: v060ClusterSpec(),
      ...expiry,
    },
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
    clusterSpec: v060ClusterSpec(),
    ...expiry,
  }, {
    name: "rt-service-dated",
    namespace: NS,
    user: "ada",
    version: "2.9.0",
    serveConfigV2: SERVE_CONFIG,
    clusterSpec: v060ClusterSpec(),
    expiresAt: "2099-01-01T00:00:00Z",
    // Serve's first config format, which Corral refuses (as the operator
    // does since KubeRay 1.0): every field set, to be refused by name.
    serveDeploymentGraphSpec: {
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
    },
  }],
};
