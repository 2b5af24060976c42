/**
 * Quotas (api/auth/quota.ts), in process: the policy file's section, what a
 * cluster counts, and how a refusal names the quota. Enforced by Corral, on
 * both transports and across replicas: quota_enforcement_test.ts.
 */
import assert from "node:assert/strict";
import {
  clusterUsage,
  holdingsOf,
  type Quota,
  quotaExcess,
  quotasFor,
  quotaViolations,
  usageUnder,
} from "../../../api/auth/quota.ts";
import { parsePolicyDocument } from "../../../api/auth/policy_document.ts";
import type { RayCluster } from "../../../domain/resources.ts";
import { POLICY } from "./access_fixtures.ts";
import { POLICY_WITH_QUOTAS } from "./quota_fixtures.ts";

Deno.test("quotas: the section is checked, each problem named by its field", () => {
  assert.deepEqual(
    quotaViolations([{ namespaces: ["a"], gpu: -1, cpus: 3 }]).map((v) =>
      v.field
    ),
    ["quotas[0].cpus", "quotas[0].gpu", "quotas[0]"],
  );
  assert.deepEqual(quotaViolations([{ maxClusters: 1 }]).map((v) => v.field), [
    "quotas[0].namespaces",
  ]);
  const document = parsePolicyDocument(POLICY_WITH_QUOTAS);
  assert.equal(document.quotas.length, 9);
  assert.throws(
    () => parsePolicyDocument(`${POLICY}\nquotas: 3\n`),
    /quotas: must be a list/,
  );
});

Deno.test("clusterUsage() counts the head and each worker group at maxReplicas", () => {
  const pod = (cpu: string, memory: string, gpu?: string) => ({
    spec: {
      containers: [{
        name: "ray",
        image: "rayproject/ray:2.9.0",
        resources: {
          limits: { cpu, memory, ...(gpu ? { "nvidia.com/gpu": gpu } : {}) },
        },
      }],
    },
  });
  const spec: RayCluster["spec"] = {
    headGroupSpec: { rayStartParams: {}, template: pod("500m", "512Mi") },
    workerGroupSpecs: [{
      groupName: "g",
      replicas: 1,
      maxReplicas: 3,
      rayStartParams: {},
      template: pod("2", "4Gi", "1"),
    }],
  };
  assert.deepEqual(clusterUsage(spec), {
    maxClusters: 1,
    maxWorkers: 3,
    cpu: 6.5,
    gpu: 3,
    memory: 12.5,
    extended: { "nvidia.com/gpu": 3 },
  });
});

Deno.test("quotaExcess() names the quota, its usage and the request; a per-user quota counts the user's own", () => {
  const quotas: Quota[] = [
    { namespaces: ["team-a"], users: [], groups: [], limits: { gpu: 8 } },
    { namespaces: ["*"], users: [], groups: ["interns"], limits: { cpu: 4 } },
  ];
  const usage = (gpu: number, cpu = 0) => ({
    maxClusters: 1,
    maxWorkers: 0,
    cpu,
    gpu,
    memory: 0,
  });
  const held = [
    { key: "RayCluster/a", owner: "bob", usage: usage(6, 4) },
  ];
  const ada = { user: "ada", groups: ["interns"], authenticator: "oidc" };
  const applied = quotasFor(quotas, "team-a", ada as never);
  assert.equal(
    quotaExcess(applied, held, {
      key: "RayCluster/b",
      owner: "ada",
      usage: usage(4),
    }, "this cluster"),
    "team-a: GPUs 6 of 8 used, this cluster asks for 4",
  );
  // Bob's 4 CPUs are not Ada's: her own quota has room for 4.
  assert.equal(
    quotaExcess(applied, held, {
      key: "RayCluster/b",
      owner: "ada",
      usage: usage(0, 4),
    }, "this cluster"),
    undefined,
  );
  assert.equal(
    quotaExcess(applied, held, {
      key: "RayCluster/b",
      owner: "ada",
      usage: usage(0, 5),
    }, "this cluster"),
    'user "ada" in team-a: CPUs 0 of 4 used, this cluster asks for 5',
  );
  // A scale-down is never refused, even over a lowered quota.
  assert.equal(
    quotaExcess(applied, held, {
      key: "RayCluster/a",
      owner: "bob",
      usage: usage(5, 4),
    }, "this update"),
    undefined,
  );
  // A RayCluster a RayJob owns counts once, through the job.
  const owned = {
    apiVersion: "ray.io/v1",
    kind: "RayCluster",
    metadata: { name: "j-x", ownerReferences: [{ kind: "RayJob", name: "j" }] },
    spec: {
      headGroupSpec: {
        rayStartParams: {},
        template: { spec: { containers: [] } },
      },
    },
  } as unknown as RayCluster;
  assert.deepEqual(holdingsOf([owned], [], []), []);
});

Deno.test("quotas: an accelerator's name is a dimension; a key that is not an accelerator is refused", () => {
  assert.deepEqual(
    quotaViolations([
      { namespaces: ["a"], "nvidia.com/mig-7g.80gb": 2 },
      { namespaces: ["a"], "example.com/fpga": 1, "nvidia.com/mig-*": 1 },
      { namespaces: ["a"], "nvidia.com/gpu": "two", "nvidia.com/gpus": 1 },
    ]).map((v) => `${v.field}: ${v.description}`),
    [
      'quotas[1]["example.com/fpga"]: is not an accelerator of the policy (accelerators): a quota counts accelerators only',
      'quotas[1]["nvidia.com/mig-*"]: must name one accelerator resource, not a pattern',
      "quotas[1]: limits nothing: give one of maxClusters, maxWorkers, cpu, gpu, memory or an accelerator resource's name",
      'quotas[2]["nvidia.com/gpu"]: must be a number, 0 or more',
      'quotas[2]["nvidia.com/gpus"]: is not an accelerator of the policy (accelerators): a quota counts accelerators only',
      "quotas[2]: limits nothing: give one of maxClusters, maxWorkers, cpu, gpu, memory or an accelerator resource's name",
    ],
  );
  // Under the policy's own list, its accelerators may be named.
  assert.deepEqual(
    quotaViolations([{ namespaces: ["a"], "example.com/fpga": 1 }], [
      "example.com/*",
    ]),
    [],
  );
  const document = parsePolicyDocument(`${POLICY}
accelerators:
  - names: ["example.com/fpga"]
quotas:
  - namespaces: ["a"]
    gpu: 2
    "example.com/fpga": 1
`);
  assert.deepEqual(document.quotas[0].limits, {
    gpu: 2,
    extended: { "example.com/fpga": 1 },
  });
  assert.deepEqual(document.quotas[0].accelerators, ["example.com/fpga"]);
});

Deno.test("quotaExcess() counts every accelerator as gpu, and one by name where a quota names it", () => {
  const ada = { user: "ada", groups: [], authenticator: "oidc" } as never;
  const mig = (slices: number, cpu = 0) => ({
    maxClusters: 1,
    maxWorkers: 0,
    cpu,
    gpu: slices,
    memory: 0,
    extended: { "nvidia.com/mig-7g.80gb": slices },
  });
  const gpuQuota: Quota = {
    namespaces: ["*"],
    users: [],
    groups: [],
    limits: { gpu: 2 },
  };
  assert.equal(
    quotaExcess(
      quotasFor([gpuQuota], "team-a", ada),
      [],
      { key: "RayCluster/big", owner: "ada", usage: mig(8) },
      "this cluster",
    ),
    "team-a: GPUs 0 of 2 used, this cluster asks for 8",
  );
  const named: Quota = {
    namespaces: ["*"],
    users: [],
    groups: [],
    limits: { gpu: 16, extended: { "nvidia.com/mig-7g.80gb": 2 } },
  };
  const held = [{ key: "RayCluster/a", owner: "bob", usage: mig(1) }];
  assert.equal(
    quotaExcess(
      quotasFor([named], "team-a", ada),
      held,
      { key: "RayCluster/b", owner: "ada", usage: mig(2) },
      "this cluster",
    ),
    "team-a: nvidia.com/mig-7g.80gb 1 of 2 used, this cluster asks for 2",
  );
  // Other accelerators do not count towards a named one.
  const other = {
    ...mig(0),
    gpu: 4,
    extended: { "nvidia.com/gpu": 4 },
  };
  assert.equal(
    quotaExcess(
      quotasFor([named], "team-a", ada),
      held,
      { key: "RayCluster/c", owner: "ada", usage: other },
      "this cluster",
    ),
    undefined,
  );
});

Deno.test("quotaExcess() counts gpu under the quota's accelerators, whatever the holdings were counted with", () => {
  const ada = { user: "ada", groups: [], authenticator: "oidc" } as never;
  const fpga = (n: number) => ({
    maxClusters: 1,
    maxWorkers: 0,
    cpu: 0,
    // Counted under the defaults, which do not name it.
    gpu: 0,
    memory: 0,
    extended: { "example.com/fpga": n },
  });
  const quota: Quota = {
    namespaces: ["*"],
    users: [],
    groups: [],
    limits: { gpu: 4 },
    accelerators: ["nvidia.com/gpu", "example.com/fpga"],
  };
  const applied = quotasFor([quota], "team-a", ada);
  assert.equal(
    quotaExcess(
      applied,
      [{ key: "RayCluster/a", owner: "ada", usage: fpga(3) }],
      { key: "RayCluster/b", owner: "ada", usage: fpga(2) },
      "this cluster",
    ),
    "team-a: GPUs 3 of 4 used, this cluster asks for 2",
  );
  assert.equal(
    usageUnder(applied[0], [{ key: "x", owner: "", usage: fpga(3) }]).gpu,
    3,
  );
});
