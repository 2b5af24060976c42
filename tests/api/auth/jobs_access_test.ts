/**
 * Who may do what with jobs, through both transports over access built
 * from real files: the verbs on `jobs` per namespace; a job's own cluster
 * admitted exactly as a cluster (a host path is refused, naming the job's
 * field); a job on an existing cluster only for a caller who may update
 * that cluster.
 */
import assert from "node:assert/strict";
import { startCorral, TRANSPORTS } from "../../harness.ts";
import {
  bearer,
  fileAccess,
  person,
  tokenFileText,
} from "./access_fixtures.ts";
import { allow, allowAll, policyText, users } from "./policy_fixtures.ts";

const NS = "team-a";
const ALICE = person("alice", "alice");
const JO = person("jo", "jo");
const RITA = person("rita", "rita");

const POLICY = policyText([
  allowAll(users("alice"), ["team-a"]),
  allow(users("jo"), ["team-a"], ["jobs"], ["*"]),
  allow(users("rita"), ["team-a"], ["jobs"], ["get", "list"]),
]);

const SPEC = {
  headGroupSpec: { computeTemplate: "", image: "", engineStartParams: {} },
  workerGroupSpec: [{ groupName: "cpu", replicas: 1, engineStartParams: {} }],
};

function job(name: string, fields: Record<string, unknown> = {}) {
  const all: Record<string, unknown> = {
    name,
    version: "2.9.0",
    entrypoint: "python main.py",
    clusterSpec: SPEC,
    ...fields,
  };
  // Left out, not null: the gRPC case's JSON must be a valid message.
  return Object.fromEntries(
    Object.entries(all).filter(([, value]) => value !== undefined),
  );
}

for (const [transport, via] of TRANSPORTS) {
  Deno.test(`Jobs (${transport}): verbs per namespace, a job's cluster admitted as a cluster, clusterSelector only to a cluster the caller may update`, async () => {
    const access = await fileAccess({
      tokens: tokenFileText([ALICE, JO, RITA]),
      policy: POLICY,
    });
    const corral = await startCorral({ access: access.access });
    const as = (who: typeof ALICE) => ({ authorization: bearer(who) });
    const create = (request: Record<string, unknown>, who: typeof ALICE) =>
      via(corral, "proto.RayJobService/CreateRayJob", request, as(who));
    try {
      const own = await create({ namespace: NS, job: job("jo-own") }, JO);
      assert.equal(own.code, 0, own.message);
      assert.equal(own.result!.user, "jo");

      const elsewhere = await create(
        { namespace: "team-b", job: job("x") },
        JO,
      );
      assert.equal(elsewhere.code, 7, elsewhere.message);

      const reader = await create({ namespace: NS, job: job("r") }, RITA);
      assert.equal(reader.code, 7, reader.message);
      const read = await via(
        corral,
        "proto.RayJobService/ListRayJobs",
        { namespace: NS },
        as(RITA),
      );
      assert.equal(read.code, 0, read.message);
      const deleted = await via(
        corral,
        "proto.RayJobService/DeleteRayJob",
        { namespace: NS, name: "jo-own" },
        as(RITA),
      );
      assert.equal(deleted.code, 7, deleted.message);

      const hostPath = await create({
        namespace: NS,
        job: job("logs", {
          clusterSpec: {
            ...SPEC,
            headGroupSpec: {
              ...SPEC.headGroupSpec,
              volumes: [{
                name: "logs",
                mountPath: "/logs",
                source: "/var/log",
                volumeType: "HOST_PATH",
                hostPathType: "DIRECTORY",
              }],
            },
          },
        }),
      }, JO);
      assert.equal(hostPath.code, 7, hostPath.message);
      assert.match(
        hostPath.message,
        /^Cannot create job "team-a\/logs": job\.clusterSpec\.headGroupSpec\.volumes\[0\]/,
      );

      const cluster = await via(corral, "proto.ClusterService/CreateCluster", {
        namespace: NS,
        cluster: { name: "blue", version: "2.9.0", clusterSpec: SPEC },
      }, as(ALICE));
      assert.equal(cluster.code, 0, cluster.message);
      const onBlue = (name: string) => ({
        namespace: NS,
        job: job(name, {
          clusterSpec: undefined,
          clusterSelector: { "ray.io/cluster": "blue" },
        }),
      });
      const noUpdate = await create(onBlue("jo-on-blue"), JO);
      assert.equal(noUpdate.code, 7, noUpdate.message);
      assert.match(
        noUpdate.message,
        /job\.clusterSelector\["ray\.io\/cluster"\]/,
      );
      const allowed = await create(onBlue("alice-on-blue"), ALICE);
      assert.equal(allowed.code, 0, allowed.message);
    } finally {
      await corral.close();
      await access.close();
    }
  });
}
