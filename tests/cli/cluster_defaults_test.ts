import assert from "node:assert/strict";
import { templateToUse } from "../../cli/cluster_defaults.ts";

Deno.test("templateToUse() takes the only template, else the smallest by CPUs, memory (in one unit), GPUs, then name", async (t) => {
  const cases: [
    string,
    {
      name: string;
      cpu?: number;
      memory?: number;
      memoryUnit?: string;
      gpu?: number;
    }[],
    string | undefined,
  ][] = [
    ["none", [], undefined],
    [
      "the only one, however big",
      [{ name: "gpu", cpu: 8, memory: 64, gpu: 1 }],
      "gpu",
    ],
    ["fewest CPUs", [{ name: "a", cpu: 4, memory: 1 }, {
      name: "b",
      cpu: 2,
      memory: 8,
    }], "b"],
    ["then least memory", [{ name: "a", cpu: 2, memory: 8 }, {
      name: "b",
      cpu: 2,
      memory: 4,
    }], "b"],
    ["least memory whatever its unit: 512 Mi under 1 Gi", [
      { name: "a", cpu: 2, memory: 1 },
      { name: "b", cpu: 2, memory: 512, memoryUnit: "Mi" },
    ], "b"],
    ["least memory whatever its unit: 1000 M under 1 Gi", [
      { name: "a", cpu: 2, memory: 1, memoryUnit: "" },
      { name: "b", cpu: 2, memory: 1000, memoryUnit: "M" },
    ], "b"],
    ["then fewest GPUs", [{ name: "a", cpu: 2, memory: 4, gpu: 1 }, {
      name: "b",
      cpu: 2,
      memory: 4,
    }], "b"],
    ["then by name", [{ name: "z", cpu: 1, memory: 1 }, {
      name: "m",
      cpu: 1,
      memory: 1,
    }], "m"],
  ];
  for (const [what, templates, want] of cases) {
    await t.step(what, () => {
      assert.equal(templateToUse(templates)?.name, want);
    });
  }
});
