/**
 * Putting back a scale-up that lost its quota re-check to another replica
 * (quota_guard.ts), with the other writers placed exactly where a race
 * would put them: between the scale-up's write and its put-back. Against
 * the stand-in, through the real orchestrator.
 */
import assert from "node:assert/strict";
import { callerOf } from "../../../api/auth/caller.ts";
import { allowGroups, policyOf } from "../../../api/auth/policy.ts";
import type { Quota } from "../../../api/auth/quota.ts";
import { clusterUsage } from "../../../api/auth/quota.ts";
import {
  holdingOf,
  putBack,
  QuotaGuard,
} from "../../../api/service/quota_guard.ts";
import { createLogger } from "../../../api/log.ts";
import { Code, ServiceError } from "../../../domain/errors.ts";
import type { Orchestrator } from "../../../domain/ports.ts";
import type { RayCluster } from "../../../domain/resources.ts";
import { type Corral, startCorral, viaHttp } from "../../harness.ts";

const NS = "q-back";
const CS = "proto.ClusterService";

/** Each cluster: a head and `workers` workers of 1 GPU each. */
async function cluster(corral: Corral, name: string, workers = 1) {
  const created = await viaHttp(corral, `${CS}/CreateCluster`, {
    namespace: NS,
    cluster: {
      name,
      namespace: NS,
      user: "root",
      version: "2.9.0",
      clusterSpec: {
        headGroupSpec: { computeTemplate: "t", rayStartParams: {} },
        workerGroupSpec: [{
          groupName: "w",
          computeTemplate: "t",
          replicas: workers,
          minReplicas: 0,
          maxReplicas: workers,
          rayStartParams: {},
        }],
      },
    },
  });
  assert.equal(created.code, Code.OK, created.message);
}

async function withCluster(
  fn: (
    corral: Corral,
    orchestrator: Orchestrator,
    read: RayCluster,
  ) => Promise<void>,
) {
  const corral = await startCorral();
  try {
    const template = await viaHttp(
      corral,
      "proto.ComputeTemplateService/CreateComputeTemplate",
      {
        namespace: NS,
        computeTemplate: {
          name: "t",
          namespace: NS,
          cpu: 1,
          memory: 1,
          gpu: 1,
        },
      },
    );
    assert.equal(template.code, Code.OK, template.message);
    await cluster(corral, "x");
    const orchestrator = corral.orchestrator!;
    const read = await orchestrator.clusters.get(NS, "x", { fresh: true });
    await fn(corral, orchestrator, read);
  } finally {
    await corral.close();
  }
}

/** `cluster` with its one worker group at `count` (replicas and max). */
function scaled(cluster: RayCluster, count: number, max = count): RayCluster {
  const [group] = cluster.spec.workerGroupSpecs!;
  return {
    ...cluster,
    spec: {
      ...cluster.spec,
      workerGroupSpecs: [{ ...group, replicas: count, maxReplicas: max }],
    },
  };
}

function maxReplicas(cluster: RayCluster): number | undefined {
  return cluster.spec.workerGroupSpecs![0].maxReplicas;
}

Deno.test("putBack() puts a scale-up back over the operator's status write, keeping the status", async () => {
  await withCluster(async (corral, orchestrator, read) => {
    const written = await orchestrator.clusters.update(scaled(read, 2), {});
    const status = await fetch(
      `${corral.kubeUrl}/apis/ray.io/v1/namespaces/${NS}/rayclusters/x/status`,
      {
        method: "PUT",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ ...written, status: { state: "ready" } }),
      },
    );
    const stored = await status.json();
    assert.equal(status.status, 200, JSON.stringify(stored));
    assert.notEqual(
      stored.metadata.resourceVersion,
      written.metadata.resourceVersion,
      "the status write moved the cluster on: the first put-back conflicts",
    );
    await putBack(orchestrator, "clusters", read, written, {});
    const now = await orchestrator.clusters.get(NS, "x", { fresh: true });
    assert.equal(maxReplicas(now), 1, "the scale-up is undone");
    assert.equal(now.status?.state, "ready", "the operator's status stays");
  });
});

Deno.test("putBack() overwrites no other writer's spec: ABORTED, the cluster left as they wrote it", async () => {
  await withCluster(async (_corral, orchestrator, read) => {
    const written = await orchestrator.clusters.update(scaled(read, 2), {});
    await orchestrator.clusters.update(scaled(written, 1, 2), {});
    await assert.rejects(
      putBack(orchestrator, "clusters", read, written, {}),
      (error: unknown) => {
        assert.ok(error instanceof ServiceError);
        assert.equal(error.code, Code.ABORTED);
        assert.equal(
          error.message,
          `Cannot put back cluster "${NS}/x": changed by another writer since the scale-up`,
        );
        return true;
      },
    );
    const now = await orchestrator.clusters.get(NS, "x", { fresh: true });
    assert.deepEqual(
      now.spec.workerGroupSpecs![0].replicas,
      1,
      "the other writer's replicas",
    );
    assert.equal(maxReplicas(now), 2, "the other writer's maxReplicas");
  });
});

Deno.test("QuotaGuard.write() refuses a scale-up that lost its re-check, puts it back, and logs a put-back it could not do", async (t) => {
  const quotas: Quota[] = [{
    namespaces: [NS],
    users: [],
    groups: [],
    limits: { gpu: 4 },
  }];
  const caller = callerOf(
    { user: "root", groups: ["all"], authenticator: "token-file" },
    policyOf(allowGroups(["all"]).rules(), { quotas }),
  );
  for (const otherWriter of [false, true]) {
    const name = otherWriter
      ? "and another writer changed the cluster since: left as it is"
      : "put back as it was read";
    await t.step(name, async () => {
      await withCluster(async (corral, orchestrator, read) => {
        const lines: Record<string, unknown>[] = [];
        const log = createLogger({
          write: (line) => lines.push(JSON.parse(line)),
        });
        const next = scaled(read, 2);
        const write = new QuotaGuard(orchestrator).write({
          caller,
          scope: { namespace: NS },
          action: `Cannot update cluster "${NS}/x"`,
          kube: {},
          log,
        }, {
          holding: holdingOf(next),
          what: "this update",
          before: clusterUsage(read.spec),
          // 2 GPUs -> 3 of 4 passes the check before the write; then
          // another replica's create of 2 GPUs lands before the re-check.
          write: async () => {
            const written = await orchestrator.clusters.update(next, {});
            await cluster(corral, "y");
            if (otherWriter) {
              await orchestrator.clusters.update(scaled(written, 1, 2), {});
            }
            return written;
          },
          restore: (written) =>
            putBack(orchestrator, "clusters", read, written, {}),
        });
        await assert.rejects(write, (error: unknown) => {
          assert.ok(error instanceof ServiceError);
          assert.equal(error.code, Code.RESOURCE_EXHAUSTED);
          assert.equal(
            error.message,
            `Cannot update cluster "${NS}/x": quota exceeded: ${NS}: GPUs 4 of 4 used, this update asks for 1 more`,
          );
          return true;
        });
        const now = await orchestrator.clusters.get(NS, "x", { fresh: true });
        assert.equal(maxReplicas(now), otherWriter ? 2 : 1);
        assert.deepEqual(
          lines.map(({ level, msg, object }) => ({ level, msg, object })),
          [
            otherWriter
              ? {
                level: "error",
                msg: "Failed to put back a scale-up over quota",
                object: "RayCluster/x",
              }
              : {
                level: "warn",
                msg: "Put back a scale-up over quota after a race",
                object: "RayCluster/x",
              },
          ],
        );
        if (otherWriter) {
          assert.match(
            String(lines[0].error),
            /changed by another writer since the scale-up/,
          );
        }
      });
    });
  }
});
