/**
 * Issue 35, finding 2, on both transports: a job's submitter pod no longer
 * escapes quotas and limits. Three jobs with 1000-CPU / 4 Ti submitters on
 * an existing cluster were accepted while the quota read 6 of 16 CPUs;
 * now the submitter counts (CPUs and memory, on an existing cluster too,
 * the operator's default one when the job names none), is checked by the
 * quota at create (403, code 8), and is bounded as a compute template is
 * (--max-template-cpu, --max-template-memory: 400, code 3, naming the
 * field), however its quantity is written.
 */
import assert from "node:assert/strict";
import { Code, type FieldViolation } from "../../../domain/errors.ts";
import {
  type Corral,
  type Outcome,
  startCorral,
  TRANSPORTS,
} from "../../harness.ts";
import { bearer, fileAccess, ROOT, RULES } from "./access_fixtures.ts";
import { policyText } from "./policy_fixtures.ts";

const NS = "q-submit";
const CS = "proto.ClusterService";
const JS = "proto.RayJobService";

const POLICY = policyText(RULES, {
  quotas: [{ namespaces: [NS], cpu: 16, memory: 64 }],
});

const root = { authorization: bearer(ROOT) };

/** A template of 2 CPUs and 4 GiB; the shared cluster: 3 pods of it. */
const TEMPLATE = { name: "t", namespace: NS, cpu: 2, memory: 4, gpu: 0 };

function clusterSpec(workers: number) {
  return {
    headGroupSpec: { computeTemplate: "t", rayStartParams: {} },
    workerGroupSpec: workers === 0 ? [] : [{
      groupName: "w",
      computeTemplate: "t",
      replicas: workers,
      minReplicas: 0,
      maxReplicas: workers,
      rayStartParams: {},
    }],
  };
}

/** A job on the cluster `on`, or with a cluster of its own, and a submitter. */
function job(
  name: string,
  submitter: { cpu: string; memory: string } | undefined,
  where: { on: string } | { own: true },
) {
  return {
    name,
    user: "root",
    version: "2.9.0",
    entrypoint: "python train.py",
    ...("on" in where
      ? { clusterSelector: { "ray.io/cluster": where.on } }
      : { clusterSpec: clusterSpec(0) }),
    ...(submitter
      ? { jobSubmitter: { image: "rayproject/ray:2.9.0", ...submitter } }
      : {}),
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

async function quotaCorral() {
  const access = await fileAccess({ policy: POLICY });
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

Deno.test("quotas: a job's submitter counts and is checked at create, on an existing cluster too, on both transports", async (t) => {
  await using c = await quotaCorral();
  const [, viaHttp] = TRANSPORTS[0];
  await ok(
    viaHttp(c.corral, "proto.ComputeTemplateService/CreateComputeTemplate", {
      namespace: NS,
      computeTemplate: TEMPLATE,
    }, root),
    "template",
  );
  for (const [transport, via] of TRANSPORTS) {
    await t.step(transport, async () => {
      const shared = `${transport}-shared`;
      const create = (body: ReturnType<typeof job>) =>
        via(c.corral, `${JS}/CreateRayJob`, { namespace: NS, job: body }, root);
      const refused = async (
        body: ReturnType<typeof job>,
        why: string,
      ) => {
        const got = await create(body);
        assert.equal(got.code, Code.RESOURCE_EXHAUSTED, got.message);
        assert.equal(
          got.message,
          `Cannot create job "${NS}/${body.name}": quota exceeded: ${NS}: ${why}`,
        );
      };
      await ok(
        via(c.corral, `${CS}/CreateCluster`, {
          namespace: NS,
          cluster: {
            name: shared,
            namespace: NS,
            user: "root",
            version: "2.9.0",
            clusterSpec: clusterSpec(2),
          },
        }, root),
        "the shared cluster: 6 CPUs, 12 GiB",
      );
      const on = { on: shared };
      // The finding: 1000 CPUs and 4 Ti, accepted while the quota read 6/16.
      await refused(
        job(`${transport}-big`, { cpu: "1000", memory: "4Ti" }, on),
        "CPUs 6 of 16 used, this job asks for 1000",
      );
      await refused(
        job(`${transport}-kilo`, { cpu: "1k", memory: "1Gi" }, on),
        "CPUs 6 of 16 used, this job asks for 1000",
      );
      await refused(
        job(`${transport}-tebi`, { cpu: "1", memory: "4Ti" }, on),
        "memory 12 of 64 GiB used, this job asks for 4096 GiB",
      );
      await ok(
        create(job(`${transport}-small`, { cpu: "4", memory: "8Gi" }, on)),
        "a submitter of 4 CPUs",
      );
      await ok(
        create(job(`${transport}-default`, undefined, on)),
        "the operator's default submitter: 1 CPU, 1 GiB",
      );
      const usage = await ok(
        via(
          c.corral,
          "proto.QuotaService/GetQuotaUsage",
          { namespace: NS },
          root,
        ),
        "usage",
      );
      const used = usage.result?.used as Record<string, number>;
      assert.deepEqual(
        [used.clusters, used.cpu, used.memoryGib],
        [1, 11, 21],
        "the cluster and both submitters",
      );
      await refused(
        job(`${transport}-six`, { cpu: "6", memory: "1Gi" }, on),
        "CPUs 11 of 16 used, this job asks for 6",
      );
      // A job with a cluster of its own counts both: 2 CPUs and 5.
      await refused(
        job(`${transport}-own`, { cpu: "5", memory: "1Gi" }, { own: true }),
        "CPUs 11 of 16 used, this job asks for 7",
      );
      for (const name of ["small", "default"]) {
        await ok(
          via(c.corral, `${JS}/DeleteRayJob`, {
            namespace: NS,
            name: `${transport}-${name}`,
          }, root),
          "cleanup",
        );
      }
      await ok(
        create(job(`${transport}-after`, { cpu: "10", memory: "1Gi" }, on)),
        "the submitters' quota is free once their jobs are gone",
      );
      await ok(
        via(c.corral, `${JS}/DeleteRayJob`, {
          namespace: NS,
          name: `${transport}-after`,
        }, root),
        "cleanup",
      );
      await ok(
        via(
          c.corral,
          `${CS}/DeleteCluster`,
          { namespace: NS, name: shared },
          root,
        ),
        "cleanup",
      );
    });
  }
});

Deno.test("Jobs: a submitter over the compute template limits is refused with code 3 naming the field, on both transports", async (t) => {
  await using c = await quotaCorral();
  const [, viaHttp] = TRANSPORTS[0];
  // Without a quota, so that only the bounds can refuse the job.
  await ok(
    viaHttp(c.corral, "proto.ComputeTemplateService/CreateComputeTemplate", {
      namespace: "team-b",
      computeTemplate: { ...TEMPLATE, namespace: "team-b" },
    }, root),
    "template",
  );
  for (const [transport, via] of TRANSPORTS) {
    await t.step(transport, async () => {
      const create = (name: string, cpu: string, memory: string) =>
        via(c.corral, `${JS}/CreateRayJob`, {
          namespace: "team-b",
          job: job(`${transport}-${name}`, { cpu, memory }, { own: true }),
        }, root);
      const cpu = await create("cpu", "2000", "1Gi");
      assert.equal(cpu.code, Code.INVALID_ARGUMENT, cpu.message);
      assert.deepEqual(fields(cpu), ["job.jobSubmitter.cpu"]);
      assert.match(
        cpu.message,
        /job\.jobSubmitter\.cpu: must be at most 1024 \(--max-template-cpu\), got "2000"$/,
      );
      const memory = await create("memory", "1", "32Ti");
      assert.equal(memory.code, Code.INVALID_ARGUMENT, memory.message);
      assert.deepEqual(fields(memory), ["job.jobSubmitter.memory"]);
      const exponent = await create("exponent", "2e3", "1Gi");
      assert.deepEqual(fields(exponent), ["job.jobSubmitter.cpu"]);
    });
  }
});
