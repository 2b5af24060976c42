/**
 * The policies people copy keep the legitimate path open: under the
 * docs' two-team policy (docs/policy.md) and the deploy manifests' default one, a team
 * member creates the console's cluster (a compute template, the Ray image,
 * the docs' example with its NodePort and dashboard-host), changes its
 * envs and deletes it, through both transports.
 */
import assert from "node:assert/strict";
import { startCorral, TRANSPORTS } from "../../harness.ts";
import { sampleCluster } from "../cases.ts";
import {
  bearer,
  fileAccess,
  person,
  tokenFileText,
} from "./access_fixtures.ts";

const POLICY_PAGE = new URL("../../../docs/policy.md", import.meta.url);
const DEPLOY = new URL("../../../deploy/base/policy.yaml", import.meta.url);

/** The policy.yaml block of docs/policy.md's "Two teams" section. */
async function documentedPolicy(): Promise<string> {
  const text = await Deno.readTextFile(POLICY_PAGE);
  const section = text.slice(text.indexOf("## Two teams with a token file"));
  const block = section.match(/`policy.yaml`[^]*?```yaml\n([^]*?)```/);
  assert.ok(block, "docs/policy.md's two-team section has a policy.yaml block");
  return block[1];
}

const POLICIES: [string, () => Promise<string>][] = [
  ["docs/policy.md's two-team policy", documentedPolicy],
  ["deploy/base/policy.yaml", () => Deno.readTextFile(DEPLOY)],
];

const MEMBERS = [
  person("ann", "ann", ["team-a"]),
  person("ben", "ben", ["team-b"]),
];

for (const [name, read] of POLICIES) {
  Deno.test(`${name}: a team member creates, updates and deletes the console's cluster, alike over HTTP and gRPC`, async (t) => {
    const files = await fileAccess({
      tokens: tokenFileText(MEMBERS),
      policy: await read(),
    });
    try {
      for (const [transport, run] of TRANSPORTS) {
        const corral = await startCorral({ access: files.access });
        try {
          await t.step(transport, async () => {
            for (const member of MEMBERS) {
              const namespace = member.groups[0];
              const call = (rpc: string, request: Record<string, unknown>) =>
                run(corral, rpc, request, { authorization: bearer(member) });
              const steps: [string, Record<string, unknown>][] = [
                ["proto.ComputeTemplateService/CreateComputeTemplate", {
                  namespace,
                  computeTemplate: {
                    name: "small",
                    namespace,
                    cpu: 2,
                    memory: 4,
                  },
                }],
                ["proto.ClusterService/CreateCluster", {
                  namespace,
                  cluster: sampleCluster({ namespace, user: "" }),
                }],
                ["proto.ClusterService/UpdateCluster", {
                  namespace,
                  name: "blue",
                  cluster: { envs: { MODE: "fast" } },
                  updateMask: "envs",
                }],
                ["proto.ClusterService/DeleteCluster", {
                  namespace,
                  name: "blue",
                }],
              ];
              for (const [rpc, request] of steps) {
                const got = await call(rpc, request);
                assert.equal(
                  got.code,
                  0,
                  `${member.name} ${rpc}: ${got.message}`,
                );
              }
            }
          });
        } finally {
          await corral.close();
        }
      }
    } finally {
      await files.close();
    }
  });
}
