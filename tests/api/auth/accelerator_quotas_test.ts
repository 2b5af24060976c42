/**
 * Issue 35, finding 3, on both transports: accelerators are a configured
 * list (the policy's `accelerators:`, by default NVIDIA's GPUs and MIG
 * slices, AMD's, Intel's, TPUs, Neuron, Gaudi), not the letters "gpu". A
 * template of 8 `nvidia.com/mig-7g.80gb` was accepted under a 2-GPU quota
 * and counted as 0 GPUs; now it counts 8 and is refused (403, code 8). A
 * quota may limit one accelerator by name. An extended resource neither
 * listed nor allowed by a rule (`extendedResources`) is refused with code
 * 3 naming the field: a template's gpuAccelerator, a cluster's
 * computeTemplate.
 */
import assert from "node:assert/strict";
import { Code, type FieldViolation } from "../../../domain/errors.ts";
import {
  type Corral,
  type Outcome,
  startCorral,
  TRANSPORTS,
} from "../../harness.ts";
import {
  bearer,
  fileAccess,
  PEOPLE,
  person,
  ROOT,
  RULES,
  tokenFileText,
} from "./access_fixtures.ts";
import {
  allowAll,
  groups,
  policyText,
  type Sections,
} from "./policy_fixtures.ts";

const CS = "proto.ClusterService";
const CT = "proto.ComputeTemplateService";

/** Fay's rule allows the FPGAs of q-acc, which are no accelerator. */
const FAY = person("fay", "fay", ["fpga-team"]);

const RULES_WITH_FPGA = [
  ...RULES,
  allowAll(groups("fpga-team"), ["q-acc"], {
    extendedResources: ["example.com/fpga"],
  }),
];

const QUOTAS: Sections = {
  quotas: [
    { namespaces: ["q-acc"], gpu: 2 },
    { namespaces: ["q-mig"], "nvidia.com/mig-1g.10gb": 4 },
  ],
};

const root = { authorization: bearer(ROOT) };
const fay = { authorization: bearer(FAY) };

async function corralWith(sections: Sections) {
  const access = await fileAccess({
    tokens: tokenFileText([...PEOPLE, FAY]),
    policy: policyText(RULES_WITH_FPGA, sections),
  });
  let corral: Corral;
  try {
    corral = await startCorral({ access: access.access });
  } catch (error) {
    await access.close();
    throw error;
  }
  return {
    corral,
    async [Symbol.asyncDispose]() {
      await corral.close();
      await access.close();
    },
  };
}

function fields(outcome: Outcome): string[] {
  return outcome.details.flatMap((d) =>
    (d as { fieldViolations?: FieldViolation[] }).fieldViolations ?? []
  ).map((v) => v.field);
}

async function ok(got: Promise<Outcome>, what: string): Promise<Outcome> {
  const outcome = await got;
  assert.equal(outcome.code, Code.OK, `${what}: ${outcome.message}`);
  return outcome;
}

function template(
  name: string,
  namespace: string,
  gpu: number,
  gpuAccelerator: string,
) {
  return {
    namespace,
    computeTemplate: {
      name,
      namespace,
      cpu: 1,
      memory: 1,
      gpu,
      gpuAccelerator,
    },
  };
}

/** A cluster of a head of `head` and `workers` workers of it. */
function cluster(namespace: string, name: string, head: string, workers = 0) {
  return {
    namespace,
    cluster: {
      name,
      namespace,
      user: "",
      version: "2.9.0",
      clusterSpec: {
        headGroupSpec: { computeTemplate: head, rayStartParams: {} },
        workerGroupSpec: workers === 0 ? [] : [{
          groupName: "w",
          computeTemplate: head,
          replicas: workers,
          minReplicas: 0,
          maxReplicas: workers,
          rayStartParams: {},
        }],
      },
    },
  };
}

Deno.test("quotas: a MIG template counts as GPUs, refused under a 2-GPU quota, on both transports", async (t) => {
  await using c = await corralWith(QUOTAS);
  const [, viaHttp] = TRANSPORTS[0];
  await ok(
    viaHttp(
      c.corral,
      `${CT}/CreateComputeTemplate`,
      template("mig", "q-acc", 8, "nvidia.com/mig-7g.80gb"),
      root,
    ),
    "a MIG slice is an accelerator",
  );
  for (const [transport, via] of TRANSPORTS) {
    await t.step(transport, async () => {
      const name = `${transport}-mig`;
      const got = await via(
        c.corral,
        `${CS}/CreateCluster`,
        cluster("q-acc", name, "mig"),
        root,
      );
      assert.equal(got.code, Code.RESOURCE_EXHAUSTED, got.message);
      assert.equal(
        got.message,
        `Cannot create cluster "q-acc/${name}": quota exceeded: q-acc: GPUs 0 of 2 used, this cluster asks for 8`,
      );
    });
  }
});

Deno.test("An extended resource neither an accelerator nor allowed by a rule is refused with code 3 naming the field, on both transports", async (t) => {
  await using c = await corralWith(QUOTAS);
  for (const [transport, via] of TRANSPORTS) {
    await t.step(transport, async () => {
      const fpga = `${transport}-fpga`;
      const refused = await via(
        c.corral,
        `${CT}/CreateComputeTemplate`,
        template(fpga, "q-acc", 1, "example.com/fpga"),
        root,
      );
      assert.equal(refused.code, Code.INVALID_ARGUMENT, refused.message);
      assert.deepEqual(fields(refused), ["computeTemplate.gpuAccelerator"]);
      assert.equal(
        refused.message,
        `Cannot create compute template "q-acc/${fpga}": computeTemplate.gpuAccelerator: "example.com/fpga" is neither an accelerator of the policy (accelerators) nor allowed by a rule (extendedResources)`,
      );
      // Fay's rule allows it: her template is written, and root's cluster
      // of it is refused, Fay's admitted, its FPGA no GPU.
      await ok(
        via(
          c.corral,
          `${CT}/CreateComputeTemplate`,
          template(fpga, "q-acc", 1, "example.com/fpga"),
          fay,
        ),
        "Fay's template",
      );
      const roots = await via(
        c.corral,
        `${CS}/CreateCluster`,
        cluster("q-acc", `${transport}-roots`, fpga),
        root,
      );
      assert.equal(roots.code, Code.INVALID_ARGUMENT, roots.message);
      assert.deepEqual(fields(roots), [
        "cluster.clusterSpec.headGroupSpec.computeTemplate",
      ]);
      assert.match(
        roots.message,
        /: cluster\.clusterSpec\.headGroupSpec\.computeTemplate: compute template "[a-z]+-fpga" asks for "example\.com\/fpga", which is neither an accelerator of the policy \(accelerators\) nor allowed by a rule \(extendedResources\) \(RayCluster spec\.headGroupSpec\.template\.spec\.containers\[0\]\.resources\.limits\["example\.com\/fpga"\]\)$/,
      );
      const name = `${transport}-fays`;
      await ok(
        via(c.corral, `${CS}/CreateCluster`, cluster("q-acc", name, fpga), fay),
        "Fay's cluster",
      );
      const usage = await ok(
        via(c.corral, "proto.QuotaService/GetQuotaUsage", {
          namespace: "q-acc",
        }, root),
        "usage",
      );
      assert.equal((usage.result?.used as { gpu: number }).gpu, 0);
      await ok(
        via(
          c.corral,
          `${CS}/DeleteCluster`,
          { namespace: "q-acc", name },
          root,
        ),
        "cleanup",
      );
    });
  }
});

Deno.test("quotas: a quota naming one accelerator counts that one alone, on both transports", async (t) => {
  await using c = await corralWith(QUOTAS);
  const [, viaHttp] = TRANSPORTS[0];
  for (
    const [name, accelerator] of [
      ["mig1", "nvidia.com/mig-1g.10gb"],
      ["gpu1", "nvidia.com/gpu"],
    ]
  ) {
    await ok(
      viaHttp(
        c.corral,
        `${CT}/CreateComputeTemplate`,
        template(name, "q-mig", 2, accelerator),
        root,
      ),
      name,
    );
  }
  for (const [transport, via] of TRANSPORTS) {
    await t.step(transport, async () => {
      const create = (name: string, head: string, workers = 0) =>
        via(
          c.corral,
          `${CS}/CreateCluster`,
          cluster("q-mig", `${transport}-${name}`, head, workers),
          root,
        );
      await ok(create("slices", "mig1", 1), "4 MIG slices");
      await ok(create("gpus", "gpu1"), "GPUs are not the MIG slices");
      const over = await create("more", "mig1");
      assert.equal(over.code, Code.RESOURCE_EXHAUSTED, over.message);
      assert.match(
        over.message,
        /quota exceeded: q-mig: nvidia\.com\/mig-1g\.10gb 4 of 4 used, this cluster asks for 2$/,
      );
      const usage = await ok(
        via(c.corral, "proto.QuotaService/GetQuotaUsage", {
          namespace: "q-mig",
        }, root),
        "usage",
      );
      const result = usage.result as {
        used: { gpu: number; accelerators: Record<string, number> };
        quotas: {
          limited: string[];
          limits: { accelerators: Record<string, number> };
          used: { accelerators: Record<string, number> };
        }[];
      };
      assert.equal(result.used.gpu, 6);
      assert.deepEqual(result.used.accelerators, {
        "nvidia.com/gpu": 2,
        "nvidia.com/mig-1g.10gb": 4,
      });
      assert.deepEqual(result.quotas[0].limited, ["nvidia.com/mig-1g.10gb"]);
      assert.deepEqual(result.quotas[0].limits.accelerators, {
        "nvidia.com/mig-1g.10gb": 4,
      });
      assert.deepEqual(result.quotas[0].used.accelerators, {
        "nvidia.com/mig-1g.10gb": 4,
      });
      for (const name of ["slices", "gpus"]) {
        await ok(
          via(c.corral, `${CS}/DeleteCluster`, {
            namespace: "q-mig",
            name: `${transport}-${name}`,
          }, root),
          "cleanup",
        );
      }
    });
  }
});

Deno.test("accelerators: the policy's own list decides what gpu counts and what needs a rule, on both transports", async (t) => {
  // Its quotas may name only its own accelerators (MIG slices are none).
  await using c = await corralWith({
    quotas: [{ namespaces: ["q-acc"], gpu: 2 }],
    accelerators: [{ names: ["example.com/fpga"] }],
  });
  for (const [transport, via] of TRANSPORTS) {
    await t.step(transport, async () => {
      const fpga = `${transport}-fpga`;
      await ok(
        via(
          c.corral,
          `${CT}/CreateComputeTemplate`,
          template(fpga, "q-acc", 4, "example.com/fpga"),
          root,
        ),
        "an FPGA is an accelerator of this policy",
      );
      const over = await via(
        c.corral,
        `${CS}/CreateCluster`,
        cluster("q-acc", `${transport}-fpgas`, fpga),
        root,
      );
      assert.equal(over.code, Code.RESOURCE_EXHAUSTED, over.message);
      assert.match(
        over.message,
        /quota exceeded: q-acc: GPUs 0 of 2 used, this cluster asks for 4$/,
      );
      const mig = await via(
        c.corral,
        `${CT}/CreateComputeTemplate`,
        template(`${transport}-mig`, "q-acc", 1, "nvidia.com/mig-1g.10gb"),
        root,
      );
      assert.equal(mig.code, Code.INVALID_ARGUMENT, mig.message);
      assert.deepEqual(fields(mig), ["computeTemplate.gpuAccelerator"]);
      // GPUs without a name are nvidia.com/gpu's, no accelerator here.
      const plain = await via(
        c.corral,
        `${CT}/CreateComputeTemplate`,
        template(`${transport}-gpu`, "q-acc", 1, ""),
        root,
      );
      assert.equal(plain.code, Code.INVALID_ARGUMENT, plain.message);
      assert.match(
        plain.message,
        /: computeTemplate\.gpuAccelerator: "nvidia\.com\/gpu" \(the default\) is neither an accelerator/,
      );
    });
  }
});
