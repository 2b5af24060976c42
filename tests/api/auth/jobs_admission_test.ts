/**
 * A job's submitter pod goes through the workload admission a cluster's
 * pods go through, on both transports: an image the caller's rule does not
 * allow is refused naming job.jobSubmitter.image and the RayJob's path,
 * whether the job brings its own cluster or runs on an existing one; an
 * allowed image is written. Nothing is written when refused.
 */
import assert from "node:assert/strict";
import { startCorral, TRANSPORTS } from "../../harness.ts";
import {
  bearer,
  fileAccess,
  person,
  tokenFileText,
} from "./access_fixtures.ts";
import { allow, policyText, users } from "./policy_fixtures.ts";

const NS = "team-a";
const JO = person("jo", "jo");

const POLICY = policyText([
  allow(users("jo"), ["team-a"], ["jobs", "clusters"], ["*"], {
    images: ["rayproject/ray:*"],
  }),
]);

const SPEC = {
  headGroupSpec: { computeTemplate: "", image: "", engineStartParams: {} },
  workerGroupSpec: [{ groupName: "cpu", replicas: 1, engineStartParams: {} }],
};

const EVIL = "registry.example.com/miner:1";

function job(name: string, fields: Record<string, unknown>) {
  return {
    name,
    version: "2.9.0",
    entrypoint: "python main.py",
    ...fields,
  };
}

for (const [transport, via] of TRANSPORTS) {
  Deno.test(`Jobs (${transport}): the submitter pod is admitted as a cluster's pods (its image by the caller's rule)`, async () => {
    const access = await fileAccess({
      tokens: tokenFileText([JO]),
      policy: POLICY,
    });
    const corral = await startCorral({ access: access.access });
    const as = { authorization: bearer(JO) };
    const create = (job: Record<string, unknown>) =>
      via(
        corral,
        "proto.RayJobService/CreateRayJob",
        { namespace: NS, job },
        as,
      );
    const refusal =
      /^Cannot create job "team-a\/[a-z-]+": job\.jobSubmitter\.image: user "jo" may not use the image "registry\.example\.com\/miner:1" \(RayJob spec\.submitterPodTemplate\.spec\.containers\[0\]\.image\)$/;
    try {
      const own = await create(job("own-evil", {
        clusterSpec: SPEC,
        jobSubmitter: { image: EVIL },
      }));
      assert.equal(own.code, 7, own.message);
      assert.match(own.message, refusal);

      const cluster = await via(corral, "proto.ClusterService/CreateCluster", {
        namespace: NS,
        cluster: { name: "blue", version: "2.9.0", clusterSpec: SPEC },
      }, as);
      assert.equal(cluster.code, 0, cluster.message);
      const onBlue = await create(job("blue-evil", {
        clusterSelector: { "ray.io/cluster": "blue" },
        jobSubmitter: { image: EVIL },
      }));
      assert.equal(onBlue.code, 7, onBlue.message);
      assert.match(onBlue.message, refusal);

      const listed = await via(
        corral,
        "proto.RayJobService/ListRayJobs",
        { namespace: NS },
        as,
      );
      assert.equal(listed.code, 0, listed.message);
      assert.deepEqual(listed.result!.jobs ?? [], []);

      const allowed = await create(job("blue-ok", {
        clusterSelector: { "ray.io/cluster": "blue" },
        jobSubmitter: { image: "rayproject/ray:2.9.0" },
      }));
      assert.equal(allowed.code, 0, allowed.message);
      const submitter = allowed.result!.jobSubmitter as { image: string };
      assert.equal(submitter.image, "rayproject/ray:2.9.0");
    } finally {
      await corral.close();
      await access.close();
    }
  });
}
