/**
 * DeleteComputeTemplate refuses a template that clusters of its namespace
 * use, through both transports against the stand-in.
 */
import assert from "node:assert/strict";
import { startCorral, TRANSPORTS } from "../harness.ts";
import { sampleCluster } from "./cases.ts";

const CT = "proto.ComputeTemplateService";
const CS = "proto.ClusterService";

for (const [transport, run] of TRANSPORTS) {
  Deno.test(`DeleteComputeTemplate over ${transport} refuses a template clusters use, naming five`, async () => {
    const corral = await startCorral();
    try {
      for (const namespace of ["team-a", "team-b"]) {
        for (const name of ["small", "spare"]) {
          const created = await run(corral, `${CT}/CreateComputeTemplate`, {
            namespace,
            computeTemplate: { name, cpu: 1, memory: 1 },
          });
          assert.equal(created.code, 0, created.message);
        }
      }
      // Eight clusters use "small": by the head, a worker group, or both.
      const names = ["a", "b", "c", "d", "e", "f", "g", "h"];
      for (const [i, name] of names.entries()) {
        const cluster = sampleCluster({ name });
        const spec = (cluster as Record<string, unknown>).clusterSpec as {
          headGroupSpec: { computeTemplate: string };
          workerGroupSpec: { computeTemplate: string }[];
        };
        if (i % 2 === 0) spec.headGroupSpec.computeTemplate = "spare";
        else spec.workerGroupSpec[0].computeTemplate = "spare";
        const created = await run(corral, `${CS}/CreateCluster`, {
          namespace: "team-a",
          cluster,
        });
        assert.equal(created.code, 0, created.message);
      }

      const refused = await run(corral, `${CT}/DeleteComputeTemplate`, {
        namespace: "team-a",
        name: "small",
      });
      assert.equal(refused.code, 9);
      assert.equal(
        refused.message,
        'Cannot delete compute template "team-a/small": clusters "a", "b", "c", "d", "e" and 3 more use it',
      );
      const spare = await run(corral, `${CT}/DeleteComputeTemplate`, {
        namespace: "team-a",
        name: "spare",
      });
      assert.equal(spare.code, 9);
      assert.match(spare.message, /: clusters "a", "b", "c", "d", "e" and 3/);

      // The same name in another namespace is no one's.
      const other = await run(corral, `${CT}/DeleteComputeTemplate`, {
        namespace: "team-b",
        name: "small",
      });
      assert.equal(other.code, 0, other.message);

      // Once the clusters are gone, the template may go.
      for (const name of names) {
        const deleted = await run(corral, `${CS}/DeleteCluster`, {
          namespace: "team-a",
          name,
        });
        assert.equal(deleted.code, 0, deleted.message);
      }
      const freed = await run(corral, `${CT}/DeleteComputeTemplate`, {
        namespace: "team-a",
        name: "small",
      });
      assert.equal(freed.code, 0, freed.message);
    } finally {
      await corral.close();
    }
  });
}
