/**
 * Accelerators (api/auth/accelerators.ts): which extended resources are
 * accelerators, by default and as the policy file's `accelerators:` lists
 * them, and how that section's problems are told.
 */
import assert from "node:assert/strict";
import {
  acceleratorsOf,
  DEFAULT_ACCELERATORS,
  isAccelerator,
  isExtendedResource,
} from "../../../api/auth/accelerators.ts";
import {
  parsePolicyDocument,
  PolicyError,
} from "../../../api/auth/policy_document.ts";
import { POLICY } from "./access_fixtures.ts";

Deno.test("isAccelerator() knows the common accelerators by default, and no resource by the letters gpu", async (t) => {
  const cases: [string, boolean][] = [
    ["nvidia.com/gpu", true],
    ["nvidia.com/mig-7g.80gb", true],
    ["nvidia.com/mig-1g.10gb", true],
    ["amd.com/gpu", true],
    ["gpu.intel.com/i915", true],
    ["gpu.intel.com/xe", true],
    ["google.com/tpu", true],
    ["aws.amazon.com/neuron", true],
    ["aws.amazon.com/neuroncore", true],
    ["aws.amazon.com/neurondevice", true],
    ["habana.ai/gaudi", true],
    ["example.com/gpu", false],
    ["my-gpu.example.com/card", false],
    ["nvidia.com/gpu-shared", false],
    ["rdma/hca", false],
  ];
  for (const [name, want] of cases) {
    await t.step(name, () => assert.equal(isAccelerator(name), want));
  }
});

Deno.test("isExtendedResource() tells extended resources from Kubernetes' own", () => {
  for (const name of ["nvidia.com/gpu", "example.com/fpga", "rdma/hca"]) {
    assert.ok(isExtendedResource(name), name);
  }
  for (
    const name of [
      "cpu",
      "memory",
      "ephemeral-storage",
      "hugepages-2Mi",
      "kubernetes.io/something",
      "node.kubernetes.io/thing",
    ]
  ) {
    assert.ok(!isExtendedResource(name), name);
  }
});

Deno.test("accelerators: the section replaces the defaults, which hold without it", () => {
  assert.equal(parsePolicyDocument(POLICY).accelerators, DEFAULT_ACCELERATORS);
  const document = parsePolicyDocument(`${POLICY}
accelerators:
  - names: ["nvidia.com/gpu", "nvidia.com/mig-*"]
  - names: ["example.com/fpga"]
`);
  assert.deepEqual(document.accelerators, [
    "nvidia.com/gpu",
    "nvidia.com/mig-*",
    "example.com/fpga",
  ]);
  assert.ok(isAccelerator("example.com/fpga", document.accelerators));
  assert.ok(!isAccelerator("amd.com/gpu", document.accelerators));
  // None at all: every extended resource then needs a rule.
  assert.deepEqual(
    parsePolicyDocument(`${POLICY}\naccelerators: []\n`).accelerators,
    [],
  );
});

Deno.test("accelerators: each problem is named by its field and line", () => {
  const text = `${POLICY}
accelerators:
  - names: ["nvidia.com/gpu", "gpu", "kubernetes.io/gpu", "*"]
  - names: []
  - resources: ["amd.com/gpu"]
  - "amd.com/gpu"
`;
  // The line of `accelerators:`; its entries follow.
  const line = POLICY.split("\n").length + 1;
  let error: unknown;
  try {
    parsePolicyDocument(text);
  } catch (thrown) {
    error = thrown;
  }
  assert.ok(error instanceof PolicyError);
  assert.deepEqual(
    error.violations.map((v) => `${v.field}: ${v.description}`),
    [
      `accelerators[0].names[1]: "gpu" must be an extended resource name: a domain prefix outside kubernetes.io, "/" and a name, such as "nvidia.com/gpu" (line ${
        line + 1
      })`,
      `accelerators[0].names[2]: "kubernetes.io/gpu" must be an extended resource name: a domain prefix outside kubernetes.io, "/" and a name, such as "nvidia.com/gpu" (line ${
        line + 1
      })`,
      `accelerators[0].names[3]: "*" must be an extended resource name: a domain prefix outside kubernetes.io, "/" and a name, such as "nvidia.com/gpu" (line ${
        line + 1
      })`,
      `accelerators[1].names: must be a non-empty list of extended resource names or patterns, such as "nvidia.com/mig-*" (line ${
        line + 2
      })`,
      `accelerators[2].resources: unknown key (line ${line + 3})`,
      `accelerators[2].names: must be a non-empty list of extended resource names or patterns, such as "nvidia.com/mig-*"`,
      `accelerators[3]: must be a mapping with names (line ${line + 4})`,
    ],
  );
  assert.throws(
    () => parsePolicyDocument(`${POLICY}\naccelerators: {names: []}\n`),
    /accelerators: must be a list of \{names\}/,
  );
  assert.deepEqual(acceleratorsOf(undefined, () => {}), DEFAULT_ACCELERATORS);
});
