/**
 * Every field of KubeRay's current messages through both transports: a
 * compute template and a cluster setting each one are created, land in a
 * RayCluster the operator's CRD accepts, and read back field for field on
 * HTTP (Corral's JSON and, with --kuberay-json, KubeRay's, under KubeRay's
 * names) and on the main gRPC port (v0.6.0's numbers and Corral's own).
 */
import assert from "node:assert/strict";
import { type Corral, startCorral, TRANSPORTS } from "../harness.ts";
import { RAY_CRD } from "../orchestrator/cluster_shapes.ts";

const NS = "team-a";

const TEMPLATE = {
  name: "small",
  namespace: NS,
  cpu: 2,
  memory: 2048,
  gpu: 0,
  gpuAccelerator: "",
  tolerations: [],
  extendedResources: { "vpc.amazonaws.com/efa": 1 },
  memoryUnit: "Mi",
};

const UNSET_VOLUME = {
  source: "",
  readOnly: false,
  hostPathType: "DIRECTORY",
  mountPropagationMode: "NONE",
  storageClassName: "",
  accessMode: "RWO",
  storage: "",
  items: {},
};

const CONFIG_VOLUME = {
  ...UNSET_VOLUME,
  name: "code-sample",
  mountPath: "/home/ray/samples",
  volumeType: "CONFIGMAP",
  source: "ray-job-code-sample",
  items: { "sample_code.py": "sample_code.py" },
};

/** A cluster of every field Corral's JSON has, in its canonical form. */
function fullCluster(name: string) {
  const group = {
    computeTemplate: "small",
    image: "rayproject/ray:2.9.0",
    engineStartParams: {},
    serviceAccount: "",
    imagePullSecret: "",
    environment: {},
    annotations: {},
    labels: {},
    environmentValuesFrom: {},
  };
  return {
    name,
    namespace: NS,
    user: "kuberay",
    version: "2.9.0",
    environment: "DEV",
    envs: { PLAIN: "1" },
    envsValuesFrom: {
      SHARED: { source: "SECRET", name: "shared", key: "token" },
    },
    annotations: { "example.com/team": "vision" },
    clusterSpec: {
      headGroupSpec: {
        ...group,
        serviceType: "ClusterIP",
        enableIngress: true,
        imagePullPolicy: "Always",
        securityContext: {
          capabilities: { add: ["SYS_PTRACE"], drop: ["ALL"] },
          privileged: false,
        },
        volumes: [CONFIG_VOLUME, {
          ...UNSET_VOLUME,
          name: "scratch",
          mountPath: "/scratch",
          volumeType: "EPHEMERAL",
          storageClassName: "standard",
          accessMode: "RWX",
          storage: "5Gi",
        }],
      },
      workerGroupSpec: [{
        ...group,
        groupName: "small",
        replicas: 1,
        minReplicas: 0,
        maxReplicas: 2,
        imagePullPolicy: "IfNotPresent",
        securityContext: { capabilities: null, privileged: true },
        volumes: [{
          ...UNSET_VOLUME,
          name: "tmp",
          mountPath: "/tmp/ray",
          volumeType: "EMPTY_DIR",
          storage: "1Gi",
        }, {
          ...UNSET_VOLUME,
          name: "tls",
          mountPath: "/tls",
          volumeType: "SECRET",
          source: "tls",
          readOnly: true,
          items: { "tls.crt": "cert.pem" },
        }],
      }],
      enableInTreeAutoscaling: true,
      autoscalerOptions: {
        idleTimeoutSeconds: 90,
        upscalingMode: "Conservative",
        image: "rayproject/ray:2.9.0",
        imagePullPolicy: "Always",
        cpu: "500m",
        memory: "512Mi",
        envs: {
          values: { LOG: "debug" },
          valuesFrom: {
            TOKEN: { source: "CONFIGMAP", name: "scaler", key: "token" },
          },
        },
        volumes: [CONFIG_VOLUME],
      },
      headServiceAnnotations: { "example.com/lb": "internal" },
    },
  };
}

/** The fields a create gives that a read gives back. */
function given(cluster: Record<string, unknown>) {
  const { envs, envsValuesFrom, annotations, clusterSpec } = cluster;
  return { envs, envsValuesFrom, annotations, clusterSpec };
}

async function withCorral(
  run: (corral: Corral) => Promise<void>,
  kuberayJson = false,
): Promise<void> {
  const corral = await startCorral({ crds: [RAY_CRD], kuberayJson });
  try {
    await run(corral);
  } finally {
    await corral.close();
  }
}

for (const [transport, via] of TRANSPORTS) {
  Deno.test(`every field of KubeRay's current messages round-trips on ${transport}`, async () => {
    await withCorral(async (corral) => {
      const template = await via(
        corral,
        "proto.ComputeTemplateService/CreateComputeTemplate",
        { namespace: NS, computeTemplate: TEMPLATE },
      );
      assert.equal(template.code, 0, template.message);
      assert.deepEqual(template.result, TEMPLATE);

      const cluster = fullCluster("vision");
      const created = await via(corral, "proto.ClusterService/CreateCluster", {
        namespace: NS,
        cluster,
      });
      assert.equal(created.code, 0, created.message);
      assert.deepEqual(given(created.result!), given(cluster));
      for (const [, read] of TRANSPORTS) {
        const got = await read(corral, "proto.ClusterService/GetCluster", {
          namespace: NS,
          name: "vision",
        });
        assert.equal(got.code, 0, got.message);
        assert.deepEqual(given(got.result!), given(cluster));
      }
    });
  });
}

async function call(
  corral: Corral,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: Record<string, unknown> }> {
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
}

/** The cluster as a KubeRay client sends it: enums by number, its shapes. */
const KUBERAY_CLUSTER = {
  name: "kuberay",
  namespace: NS,
  user: "kuberay",
  version: "2.9.0",
  annotations: { "example.com/team": "vision" },
  envs: {
    values: { PLAIN: "1" },
    valuesFrom: { SHARED: { source: 1, name: "shared", key: "token" } },
  },
  clusterSpec: {
    headGroupSpec: {
      computeTemplate: "small",
      image: "rayproject/ray:2.9.0",
      enableIngress: true,
      imagePullPolicy: "Always",
      securityContext: { capabilities: { add: ["SYS_PTRACE"] } },
      rayStartParams: { "dashboard-host": "0.0.0.0" },
      environment: {
        values: { MODE: "head" },
        valuesFrom: { TOKEN: { source: 1, name: "ray-token", key: "t" } },
      },
      volumes: [{
        name: "scratch",
        mountPath: "/scratch",
        volumeType: 2,
        storageClassName: "standard",
        accessMode: 2,
        storage: "5Gi",
      }],
    },
    workerGroupSpec: [{
      groupName: "small",
      computeTemplate: "small",
      image: "rayproject/ray:2.9.0",
      replicas: 1,
      minReplicas: 1,
      maxReplicas: 2,
      rayStartParams: {},
      imagePullPolicy: "Always",
      volumes: [{
        name: "code-sample",
        mountPath: "/home/ray/samples",
        source: "ray-job-code-sample",
        volumeType: 3,
        items: { "sample_code.py": "sample_code.py" },
      }],
    }],
    enableInTreeAutoscaling: true,
    autoscalerOptions: {
      idleTimeoutSeconds: 90,
      upscalingMode: "Default",
      cpu: "500m",
      memory: "512Mi",
    },
    headServiceAnnotations: { "example.com/lb": "internal" },
  },
};

Deno.test("with --kuberay-json, a cluster KubeRay's way reads back under KubeRay's JSON names and shapes, enums by number", async () => {
  await withCorral(async (corral) => {
    const templates = `/apis/v1/namespaces/${NS}/compute_templates`;
    const template = await call(corral, "POST", templates, TEMPLATE);
    assert.equal(template.status, 200, JSON.stringify(template.body));
    assert.deepEqual(template.body.extendedResources, {
      "vpc.amazonaws.com/efa": 1,
    });
    assert.equal(template.body.memoryUnit, "Mi");

    const clusters = `/apis/v1/namespaces/${NS}/clusters`;
    const created = await call(corral, "POST", clusters, KUBERAY_CLUSTER);
    assert.equal(created.status, 200, JSON.stringify(created.body));
    const got = await call(corral, "GET", `${clusters}/kuberay`);
    assert.equal(got.status, 200);
    // deno-lint-ignore no-explicit-any
    const body = got.body as any;
    const spec = KUBERAY_CLUSTER.clusterSpec;
    assert.deepEqual(body.annotations, KUBERAY_CLUSTER.annotations);
    // KubeRay's EnvironmentVariables shape, as sent.
    assert.deepEqual(body.envs, KUBERAY_CLUSTER.envs);
    assert.equal(body.envsValuesFrom, undefined);
    assert.equal(body.clusterSpec.enableInTreeAutoscaling, true);
    assert.deepEqual(
      body.clusterSpec.autoscalerOptions,
      spec.autoscalerOptions,
    );
    assert.deepEqual(
      body.clusterSpec.headServiceAnnotations,
      spec.headServiceAnnotations,
    );
    const head = body.clusterSpec.headGroupSpec;
    assert.equal(head.enableIngress, true);
    assert.equal(head.imagePullPolicy, "Always");
    assert.deepEqual(head.securityContext, spec.headGroupSpec.securityContext);
    assert.deepEqual(head.volumes, spec.headGroupSpec.volumes);
    assert.deepEqual(head.rayStartParams, { "dashboard-host": "0.0.0.0" });
    assert.deepEqual(head.environment, spec.headGroupSpec.environment);
    assert.equal(head.environmentValuesFrom, undefined);
    const worker = body.clusterSpec.workerGroupSpec[0];
    assert.deepEqual(worker.volumes, spec.workerGroupSpec[0].volumes);
    assert.equal(worker.imagePullPolicy, "Always");
  }, true);
});

Deno.test("a ConfigMap volume (volumeType 3) is taken, no longer refused as an unknown type", async () => {
  await withCorral(async (corral) => {
    const templates = `/apis/v1/namespaces/${NS}/compute_templates`;
    assert.equal((await call(corral, "POST", templates, TEMPLATE)).status, 200);
    const clusters = `/apis/v1alpha2/namespaces/${NS}/clusters`;
    const created = await call(corral, "POST", clusters, {
      ...KUBERAY_CLUSTER,
      name: "configmap",
    });
    assert.equal(created.status, 200, JSON.stringify(created.body));
  });
});
