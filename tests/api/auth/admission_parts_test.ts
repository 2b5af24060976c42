import assert from "node:assert/strict";
import { workloadRefusals } from "../../../api/auth/admission.ts";
import {
  securityContextRefusals,
  sizedVolumeRefusals,
} from "../../../api/auth/admission_parts.ts";
import { parsePolicy, PolicyError } from "../../../api/auth/policy_document.ts";
import { clusterUsage } from "../../../api/auth/quota_usage.ts";
import {
  anyGrants,
  DEFAULT_VOLUME_MAX_BYTES,
  defaultGrants,
} from "../../../api/auth/workload_grants.ts";
import { grantsOf } from "../../../api/auth/workload_decision.ts";
import type { RayCluster } from "../../../domain/resources.ts";

const RULE = "users: [a], namespaces: [a], resources: ['*'], verbs: ['*']";

Deno.test("a rule's volumes.maxSize and securityContext are read into its grants, defaults otherwise", () => {
  const [rule, plain] = parsePolicy(
    `rules:\n  - {${RULE}, volumes: {maxSize: 50Gi}, securityContext: {privileged: true, capabilities: [SYS_PTRACE, "NET_*"]}}\n  - {${RULE}}\n`,
  );
  const grants = grantsOf(rule);
  assert.equal(grants.volumeMaxBytes, 50 * 2 ** 30);
  assert.equal(grants.privileged, true);
  assert.deepEqual(grants.capabilities, ["SYS_PTRACE", "NET_*"]);
  const defaults = grantsOf(plain);
  assert.equal(defaults.volumeMaxBytes, DEFAULT_VOLUME_MAX_BYTES);
  assert.equal(defaults.privileged, false);
  assert.deepEqual(defaults.capabilities, []);
});

Deno.test("a rule's volumes.maxSize and securityContext are refused when malformed, each at its path", () => {
  const text =
    `rules:\n  - {${RULE}, volumes: {maxSize: lots}, securityContext: {privileged: "yes", capabilities: [""], runAsRoot: true}}\n`;
  assert.throws(() => parsePolicy(text), (error: PolicyError) => {
    assert.equal(
      error.message,
      [
        'rules[0].volumes.maxSize: must be a Kubernetes quantity such as "50Gi"',
        "rules[0].securityContext.runAsRoot: unknown key",
        "rules[0].securityContext.privileged: must be true or false",
        "rules[0].securityContext.capabilities: must be a list of non-empty strings",
      ].join("; "),
    );
    return true;
  });
});

Deno.test("securityContextRefusals(): privileged and added capabilities by the grants, dropping always, other fields only with the whole context opened", () => {
  const context = {
    privileged: true,
    runAsUser: 0,
    capabilities: { add: ["SYS_ADMIN"], drop: ["ALL"] },
  };
  assert.deepEqual(
    securityContextRefusals(context, defaultGrants()).map((r) => r.at),
    [".runAsUser", ".privileged", ".capabilities.add[0]"],
  );
  assert.deepEqual(
    securityContextRefusals(context, {
      ...defaultGrants(),
      containerFields: ["securityContext"],
    }),
    [],
  );
  assert.deepEqual(securityContextRefusals(context, anyGrants()), []);
  assert.deepEqual(
    securityContextRefusals(
      { capabilities: { drop: ["ALL"] }, privileged: false },
      defaultGrants(),
    ),
    [],
  );
});

Deno.test("sizedVolumeRefusals(): sizes within the bound, an emptyDir in memory and a claim's other fields refused", () => {
  const grants = defaultGrants();
  assert.deepEqual(sizedVolumeRefusals("emptyDir", {}, grants), []);
  assert.deepEqual(
    sizedVolumeRefusals("emptyDir", { sizeLimit: "10Gi" }, grants),
    [],
  );
  assert.deepEqual(
    sizedVolumeRefusals(
      "emptyDir",
      { sizeLimit: "11Gi", medium: "Memory" },
      grants,
    )
      .map((r) => r.at),
    [".medium", ".sizeLimit"],
  );
  assert.deepEqual(
    sizedVolumeRefusals("ephemeral", {
      volumeClaimTemplate: {
        spec: {
          accessModes: ["ReadWriteOnce"],
          resources: { requests: { storage: "1Ti" } },
          dataSource: { kind: "VolumeSnapshot", name: "x" },
        },
      },
    }, grants).map((r) => r.at),
    [
      ".volumeClaimTemplate.spec.dataSource",
      ".volumeClaimTemplate.spec.resources.requests.storage",
    ],
  );
});

/** A RayCluster as a Kubernetes-shaped route would be given it. */
function rayCluster(spec: Record<string, unknown>): RayCluster {
  return {
    apiVersion: "ray.io/v1",
    kind: "RayCluster",
    metadata: { name: "c", namespace: "a" },
    spec: {
      headGroupSpec: {
        rayStartParams: {},
        template: {
          spec: { containers: [{ name: "ray-head", image: "rayproject/ray" }] },
        },
      },
      ...spec,
    },
  };
}

Deno.test("workloadRefusals() walks a whole object's autoscaler: fields it does not know refused unless podFields opens them", () => {
  const resource = rayCluster({
    enableInTreeAutoscaling: true,
    autoscalerOptions: {
      image: "rayproject/ray",
      command: ["sh"],
      resources: { limits: { "example.com/fpga": "1" } },
      envFrom: [{ secretRef: { name: "all" } }],
    },
  });
  assert.deepEqual(
    workloadRefusals(resource, defaultGrants()).map((r) => r.path),
    [
      "spec.autoscalerOptions.command",
      'spec.autoscalerOptions.resources.limits["example.com/fpga"]',
      "spec.autoscalerOptions.envFrom[0].secretRef",
    ],
  );
  assert.deepEqual(
    workloadRefusals(resource, {
      ...defaultGrants(),
      podFields: ["autoscalerOptions.command"],
      extendedResources: ["example.com/*"],
      secrets: ["all"],
    }),
    [],
  );
});

Deno.test("clusterUsage() counts the autoscaler container the operator adds: its resources, else KubeRay's 500m and 512Mi", () => {
  const without = clusterUsage(rayCluster({}).spec);
  const defaults = clusterUsage(
    rayCluster({ enableInTreeAutoscaling: true }).spec,
  );
  assert.equal(defaults.cpu - without.cpu, 0.5);
  assert.equal(defaults.memory - without.memory, 0.5);
  const given = clusterUsage(
    rayCluster({
      enableInTreeAutoscaling: true,
      autoscalerOptions: {
        resources: { limits: { cpu: "2", memory: "4Gi" } },
      },
    }).spec,
  );
  assert.equal(given.cpu - without.cpu, 2);
  assert.equal(given.memory - without.memory, 4);
  // Options without enableInTreeAutoscaling run no autoscaler.
  const off = clusterUsage(
    rayCluster({
      autoscalerOptions: { resources: { limits: { cpu: "2" } } },
    }).spec,
  );
  assert.equal(off.cpu, without.cpu);
});
