/**
 * workloadRefusals() over RayClusters as Corral writes them: the decided
 * fields against a rule's grants, each case a pod of one worker group.
 */
import assert from "node:assert/strict";
import { rayClusterWith } from "./ray_cluster_fixture.ts";
import { workloadRefusals } from "../../../api/auth/admission.ts";
import {
  defaultGrants,
  type WorkloadGrants,
} from "../../../api/auth/workload_grants.ts";
import { summarizeWorkload } from "../../../api/auth/workload_summary.ts";
import { ANNOTATION, type RayCluster } from "../../../domain/resources.ts";

/** A RayCluster whose one worker's pod spec and container get `pod`, `container`. */
function cluster(
  { pod = {}, container = {} }: {
    pod?: Record<string, unknown>;
    container?: Record<string, unknown>;
  },
): RayCluster {
  return rayClusterWith([{
    groupName: "workers",
    rayStartParams: {},
    template: {
      spec: {
        containers: [{
          name: "ray-worker",
          image: "rayproject/ray:2.9.0",
          ...container,
        }],
        ...pod,
      },
    },
  }]);
}

const secretEnv = (name: string, kind = "secretKeyRef") => ({
  env: [{ name: "TOKEN", valueFrom: { [kind]: { name, key: "token" } } }],
});

Deno.test("workloadRefusals() decides each field against the rule's grants", async (t) => {
  const cases: [string, RayCluster, Partial<WorkloadGrants>, string[]][] = [
    [
      "a Secret key in env needs the secret granted",
      cluster({ container: secretEnv("db") }),
      {},
      [
        "spec.workerGroupSpecs[0].template.spec.containers[0].env[0].valueFrom.secretKeyRef",
      ],
    ],
    ["a granted Secret is allowed", cluster({ container: secretEnv("db") }), {
      secrets: ["db"],
    }, []],
    [
      "a ConfigMap key is gated alike",
      cluster({ container: secretEnv("settings", "configMapKeyRef") }),
      { secrets: ["db"] },
      ["spec.workerGroupSpecs[0].template.spec.containers[0].env[0].valueFrom.configMapKeyRef"],
    ],
    [
      "envFrom a Secret is gated alike",
      cluster({ container: { envFrom: [{ secretRef: { name: "all" } }] } }),
      {},
      ["spec.workerGroupSpecs[0].template.spec.containers[0].envFrom[0].secretRef"],
    ],
    [
      "the pod's own IP (fieldRef) needs no grant",
      cluster({
        container: {
          env: [{
            name: "IP",
            valueFrom: { fieldRef: { fieldPath: "status.podIP" } },
          }],
        },
      }),
      {},
      [],
    ],
    [
      'a toleration of every key (operator Exists, no key) needs key "*"',
      cluster({ pod: { tolerations: [{ operator: "Exists" }] } }),
      { tolerations: [{ key: "nvidia.com/*" }] },
      ["spec.workerGroupSpecs[0].template.spec.tolerations[0]"],
    ],
    [
      "a toleration of a granted key and effect",
      cluster({
        pod: {
          tolerations: [{
            key: "nvidia.com/gpu",
            operator: "Exists",
            effect: "NoSchedule",
          }],
        },
      }),
      { tolerations: [{ key: "nvidia.com/*", effects: ["NoSchedule"] }] },
      [],
    ],
    [
      "a toleration of a granted key but another effect",
      cluster({
        pod: { tolerations: [{ key: "nvidia.com/gpu", effect: "NoExecute" }] },
      }),
      { tolerations: [{ key: "nvidia.com/*", effects: ["NoSchedule"] }] },
      ["spec.workerGroupSpecs[0].template.spec.tolerations[0]"],
    ],
    [
      "a toleration whose effect matches a granted effect pattern",
      cluster({
        pod: { tolerations: [{ key: "nvidia.com/gpu", effect: "NoSchedule" }] },
      }),
      { tolerations: [{ key: "nvidia.com/*", effects: ["No*"] }] },
      [],
    ],
    [
      "a host path under a granted one",
      cluster({
        pod: { volumes: [{ name: "d", hostPath: { path: "/data/cache" } }] },
      }),
      { hostPaths: ["/data/*"] },
      [],
    ],
    [
      "a host path climbing out of a granted one",
      cluster({
        pod: { volumes: [{ name: "d", hostPath: { path: "/data/../etc" } }] },
      }),
      { hostPaths: ["/data/*"] },
      ["spec.workerGroupSpecs[0].template.spec.volumes[0].hostPath"],
    ],
    [
      "a volume of another kind",
      cluster({
        pod: { volumes: [{ name: "s", nfs: { server: "x", path: "/" } }] },
      }),
      {},
      ["spec.workerGroupSpecs[0].template.spec.volumes[0]"],
    ],
    [
      "a Secret volume the rule's secrets do not name",
      cluster({
        pod: { volumes: [{ name: "s", secret: { secretName: "x" } }] },
      }),
      {},
      ["spec.workerGroupSpecs[0].template.spec.volumes[0].secret"],
    ],
    [
      "the deprecated serviceAccount field is a service account too",
      cluster({ pod: { serviceAccount: "corral" } }),
      {},
      ["spec.workerGroupSpecs[0].template.spec.serviceAccount"],
    ],
    [
      "the namespace's default service account needs no grant",
      cluster({ pod: { serviceAccountName: "default" } }),
      {},
      [],
    ],
    [
      "a node selector",
      cluster({ pod: { nodeSelector: { pool: "gpu" } } }),
      { nodeSelectors: ["pool=cpu"] },
      ['spec.workerGroupSpecs[0].template.spec.nodeSelector["pool"]'],
    ],
    [
      "a host port",
      cluster({ container: { ports: [{ containerPort: 80, hostPort: 80 }] } }),
      {},
      ["spec.workerGroupSpecs[0].template.spec.containers[0].ports[0].hostPort"],
    ],
  ];
  for (const [name, resource, grants, want] of cases) {
    await t.step(name, () => {
      const got = workloadRefusals(resource, { ...defaultGrants(), ...grants });
      assert.deepEqual(got.map((refusal) => refusal.path), want);
    });
  }
});

/** A worker's container asking for `limits` (and `requests`). */
function asking(
  limits: Record<string, string>,
  requests: Record<string, string> = {},
): RayCluster {
  const resource = cluster({ container: { resources: { limits, requests } } });
  resource.spec.workerGroupSpecs![0].template.metadata = {
    annotations: { [ANNOTATION.computeTemplate]: "fpga" },
  };
  return resource;
}

Deno.test("workloadRefusals() lets a pod ask for accelerators, and another extended resource only where the rule allows it", async (t) => {
  const path = "spec.workerGroupSpecs[0].template.spec.containers[0].resources";
  const cases: [
    string,
    RayCluster,
    Partial<WorkloadGrants>,
    readonly string[] | undefined,
    string[],
  ][] = [
    [
      "cpu, memory and a default accelerator",
      asking({
        cpu: "2",
        memory: "4Gi",
        "ephemeral-storage": "1Gi",
        "nvidia.com/mig-7g.80gb": "8",
      }),
      {},
      undefined,
      [],
    ],
    [
      "an extended resource no rule allows",
      asking({
        "example.com/fpga": "1",
      }),
      {},
      undefined,
      [`${path}.limits["example.com/fpga"]`],
    ],
    [
      "one asked for as a request only",
      asking({}, {
        "example.com/fpga": "1",
      }),
      {},
      undefined,
      [`${path}.requests["example.com/fpga"]`],
    ],
    [
      "one the rule allows",
      asking({ "example.com/fpga": "1" }),
      {
        extendedResources: ["example.com/*"],
      },
      undefined,
      [],
    ],
    [
      "one the policy's accelerators list",
      asking({
        "example.com/fpga": "1",
      }),
      {},
      ["example.com/fpga"],
      [],
    ],
    [
      "a default accelerator the policy's list leaves out",
      asking({
        "nvidia.com/gpu": "1",
      }),
      {},
      ["example.com/fpga"],
      [`${path}.limits["nvidia.com/gpu"]`],
    ],
  ];
  for (const [name, resource, grants, accelerators, want] of cases) {
    await t.step(name, () => {
      const got = workloadRefusals(
        resource,
        { ...defaultGrants(), ...grants },
        "cluster",
        accelerators,
      );
      assert.deepEqual(got.map((refusal) => refusal.path), want);
    });
  }
  await t.step("the refusal names the compute template's field", () => {
    const [refusal] = workloadRefusals(
      asking({ "example.com/fpga": "1" }),
      defaultGrants(),
    );
    assert.deepEqual(refusal, {
      path: `${path}.limits["example.com/fpga"]`,
      field: "cluster.clusterSpec.workerGroupSpec[0].computeTemplate",
      what:
        'compute template "fpga" asks for "example.com/fpga", which is neither an accelerator of the policy (accelerators) nor allowed by a rule (extendedResources)',
      reason: "extended-resource",
    });
  });
});

Deno.test("summarizeWorkload() lists images, service accounts, volumes and tolerations once each", () => {
  const resource = cluster({
    pod: {
      serviceAccountName: "ray",
      volumes: [
        { name: "d", hostPath: { path: "/data" } },
        { name: "c", configMap: { name: "code" } },
        { name: "t", secret: { secretName: "tls" } },
        { name: "e", emptyDir: {} },
      ],
      tolerations: [{ operator: "Exists" }],
    },
  });
  resource.spec.headGroupSpec.serviceType = "NodePort";
  resource.spec.autoscalerOptions = { image: "rayproject/autoscaler:1" };
  assert.deepEqual(summarizeWorkload(resource, ["envs"]), {
    images: ["rayproject/autoscaler:1", "rayproject/ray:2.9.0"],
    serviceAccounts: ["ray"],
    volumes: ["configMap:code", "emptyDir", "hostPath:/data", "secret:tls"],
    tolerations: ["*"],
    serviceType: "NodePort",
    mask: ["envs"],
  });
});
