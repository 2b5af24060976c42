/**
 * Quotas (api/auth/quota.ts, quota_guard.ts) enforced by Corral over the
 * stand-in: creates and scale-ups refused at each limit
 * with 403 code 8 on both transports; deletes free quota; a suspended
 * job keeps its quota, so resuming it is never refused. Replicas racing:
 * quota_replicas_test.ts.
 */
import assert from "node:assert/strict";
import { Code } from "../../../domain/errors.ts";
import { TRANSPORTS } from "../../harness.ts";
import { SERVE_CONFIG } from "../service_cases.ts";
import { ALICE, bearer } from "./access_fixtures.ts";
import {
  clusterBody,
  CS,
  ok,
  quotaCorral,
  root,
  withTemplates,
  workers,
} from "./quota_corrals.ts";

/** Each cluster below: a head and one worker of `t` (2 CPUs, 4 GiB, 1 GPU). */
const LIMITS: [namespace: string, refusal: string][] = [
  ["q-clusters", "q-clusters: clusters 2 of 2 used, this cluster asks for 1"],
  ["q-workers", "q-workers: workers 2 of 2 used, this cluster asks for 1"],
  ["q-cpu", "q-cpu: CPUs 8 of 8 used, this cluster asks for 4"],
  ["q-gpu", "q-gpu: GPUs 4 of 4 used, this cluster asks for 2"],
  [
    "q-memory",
    "q-memory: memory 16 of 16 GiB used, this cluster asks for 8 GiB",
  ],
];

Deno.test("quotas: each dimension refused at its limit with 403 code 8 on both transports; deletes free quota", async (t) => {
  await using c = await quotaCorral();
  await withTemplates(c.corral, LIMITS.map(([namespace]) => namespace));
  for (const [transport, via] of TRANSPORTS) {
    for (const [namespace, refusal] of LIMITS) {
      await t.step(`${transport}: ${namespace}`, async () => {
        const create = (name: string) =>
          via(
            c.corral,
            `${CS}/CreateCluster`,
            clusterBody(namespace, `${transport}-${name}`, "root"),
            root,
          );
        await ok(create("one"), "first");
        await ok(create("two"), "second");
        const over = await create("three");
        assert.equal(over.code, Code.RESOURCE_EXHAUSTED, over.message);
        assert.equal(
          over.message,
          `Cannot create cluster "${namespace}/${transport}-three": quota exceeded: ${refusal}`,
        );
        const del = (name: string) =>
          via(c.corral, `${CS}/DeleteCluster`, {
            namespace,
            name: `${transport}-${name}`,
          }, root);
        await ok(del("one"), "delete");
        await ok(create("three"), "after a delete");
        await ok(del("two"), "cleanup");
        await ok(del("three"), "cleanup");
      });
    }
  }
  await t.step("HTTP answers 403", async () => {
    const namespace = "q-clusters";
    const body = (name: string) =>
      JSON.stringify(clusterBody(namespace, name, "root").cluster);
    const post = (name: string) =>
      c.corral.gateway(
        new Request(
          `http://corral/apis/v1alpha2/namespaces/${namespace}/clusters`,
          {
            method: "POST",
            headers: {
              authorization: root.authorization,
              "content-type": "application/json",
            },
            body: body(name),
          },
        ),
      );
    for (const name of ["h1", "h2"]) {
      const response = await post(name);
      await response.body?.cancel();
      assert.equal(response.status, 200, name);
    }
    const over = await post("h3");
    const answer = await over.json();
    assert.equal(over.status, 403);
    assert.equal(answer.code, Code.RESOURCE_EXHAUSTED);
  });
});

Deno.test("quotas: a scale-up is counted, a scale-down always passes", async (t) => {
  await using c = await quotaCorral();
  await withTemplates(c.corral, ["q-gpu"]);
  for (const [transport, via] of TRANSPORTS) {
    await t.step(transport, async () => {
      const name = `${transport}-s`;
      await ok(
        via(
          c.corral,
          `${CS}/CreateCluster`,
          clusterBody("q-gpu", name, "root"),
          root,
        ),
        "create",
      );
      const scale = (count: number) =>
        via(c.corral, `${CS}/UpdateCluster`, {
          namespace: "q-gpu",
          name,
          updateMask: "clusterSpec.workerGroupSpec",
          cluster: { clusterSpec: { workerGroupSpec: [workers(count)] } },
        }, root);
      const over = await scale(4);
      assert.equal(over.code, Code.RESOURCE_EXHAUSTED, over.message);
      assert.equal(
        over.message,
        `Cannot update cluster "q-gpu/${name}": quota exceeded: q-gpu: GPUs 2 of 4 used, this update asks for 3 more`,
      );
      await ok(scale(3), "up to the limit");
      await ok(scale(1), "down");
      await ok(
        via(
          c.corral,
          `${CS}/DeleteCluster`,
          { namespace: "q-gpu", name },
          root,
        ),
        "cleanup",
      );
    });
  }
});

Deno.test("quotas: a per-user quota counts the user's own clusters", async (t) => {
  await using c = await quotaCorral();
  await withTemplates(c.corral, ["team-a"]);
  const alice = { authorization: bearer(ALICE) };
  for (const [transport, via] of TRANSPORTS) {
    await t.step(transport, async () => {
      const create = (name: string, who: typeof alice, user: string) =>
        via(
          c.corral,
          `${CS}/CreateCluster`,
          clusterBody("team-a", `${transport}-${name}`, user),
          who,
        );
      await ok(create("mine", alice, "alice"), "alice's first");
      // Root's cluster is not alice's: her quota does not count it.
      await ok(create("roots", root, "root"), "root's");
      const over = await create("more", alice, "alice");
      assert.equal(over.code, Code.RESOURCE_EXHAUSTED, over.message);
      assert.match(
        over.message,
        /quota exceeded: user "alice" in team-a: clusters 1 of 1 used, this cluster asks for 1$/,
      );
      for (const name of ["mine", "roots"]) {
        await ok(
          via(c.corral, `${CS}/DeleteCluster`, {
            namespace: "team-a",
            name: `${transport}-${name}`,
          }, root),
          "cleanup",
        );
      }
    });
  }
});

Deno.test("GetQuotaUsage answers the quotas that apply and what they count, on both transports", async (t) => {
  await using c = await quotaCorral();
  await withTemplates(c.corral, ["q-gpu"]);
  const [, viaHttp] = TRANSPORTS[0];
  await ok(
    viaHttp(
      c.corral,
      `${CS}/CreateCluster`,
      clusterBody("q-gpu", "held", "root"),
      root,
    ),
    "create",
  );
  for (const [transport, via] of TRANSPORTS) {
    await t.step(transport, async () => {
      const got = await via(c.corral, "proto.QuotaService/GetQuotaUsage", {
        namespace: "q-gpu",
      }, root);
      assert.equal(got.code, Code.OK, got.message);
      const used = { clusters: 1, workers: 1, cpu: 4, gpu: 2, memoryGib: 8 };
      assert.deepEqual(got.result, {
        namespace: "q-gpu",
        // The namespace's accelerators by name; a quota's, those it names.
        used: { ...used, accelerators: { "nvidia.com/gpu": 2 } },
        quotas: [{
          scope: "q-gpu",
          limits: {
            clusters: 0,
            workers: 0,
            cpu: 0,
            gpu: 4,
            memoryGib: 0,
            accelerators: {},
          },
          limited: ["gpu"],
          used: { ...used, accelerators: {} },
        }],
      });
      // Alice may do anything in team-a, nothing in q-gpu.
      const denied = await via(c.corral, "proto.QuotaService/GetQuotaUsage", {
        namespace: "q-gpu",
      }, { authorization: bearer(ALICE) });
      assert.equal(denied.code, Code.PERMISSION_DENIED, denied.message);
    });
  }
  await t.step("HTTP route", async () => {
    const response = await c.corral.gateway(
      new Request("http://corral/apis/v1alpha2/namespaces/q-gpu/quota", {
        headers: { authorization: root.authorization },
      }),
    );
    assert.equal(response.status, 200);
    assert.equal((await response.json()).used.gpu, 2);
  });
});

Deno.test("quotas count jobs' and services' clusters, and refuse them the same way, on both transports", async (t) => {
  await using c = await quotaCorral();
  const namespace = "q-gpu";
  await withTemplates(c.corral, [namespace]);
  const spec = { ...clusterBody(namespace, "x", "root").cluster.clusterSpec };
  for (const [transport, via] of TRANSPORTS) {
    await t.step(transport, async () => {
      const jobName = `${transport}-job`;
      await ok(
        via(c.corral, "proto.RayJobService/CreateRayJob", {
          namespace,
          job: {
            name: jobName,
            user: "root",
            version: "2.9.0",
            entrypoint: "python train.py",
            clusterSpec: spec,
          },
        }, root),
        "a job with its own cluster (2 GPUs)",
      );
      const service = await via(
        c.corral,
        "proto.RayServeService/CreateRayService",
        {
          namespace,
          service: {
            name: `${transport}-svc`,
            user: "root",
            version: "2.9.0",
            serveConfigV2: SERVE_CONFIG,
            clusterSpec: {
              headGroupSpec: { computeTemplate: "t" },
              workerGroupSpec: [{ ...workers(1), maxReplicas: 2 }],
            },
          },
        },
        root,
      );
      assert.equal(service.code, Code.RESOURCE_EXHAUSTED, service.message);
      assert.equal(
        service.message,
        `Cannot create service "${namespace}/${transport}-svc": quota exceeded: q-gpu: GPUs 2 of 4 used, this service's cluster asks for 3`,
      );
      await ok(
        via(c.corral, "proto.RayJobService/DeleteRayJob", {
          namespace,
          name: jobName,
        }, root),
        "delete the job",
      );
      await ok(
        via(c.corral, "proto.RayServeService/CreateRayService", {
          namespace,
          service: {
            name: `${transport}-svc`,
            user: "root",
            version: "2.9.0",
            serveConfigV2: SERVE_CONFIG,
            clusterSpec: {
              headGroupSpec: { computeTemplate: "t" },
              workerGroupSpec: [{ ...workers(1), maxReplicas: 2 }],
            },
          },
        }, root),
        "the service, once the job is gone",
      );
      await ok(
        via(c.corral, "proto.RayServeService/DeleteRayService", {
          namespace,
          name: `${transport}-svc`,
        }, root),
        "cleanup",
      );
    });
  }
});

Deno.test("quotas: a suspended job keeps its cluster's quota, so its resume needs none more, on both transports", async (t) => {
  await using c = await quotaCorral();
  const namespace = "q-gpu";
  await withTemplates(c.corral, [namespace]);
  const spec = { ...clusterBody(namespace, "x", "root").cluster.clusterSpec };
  for (const [transport, via] of TRANSPORTS) {
    await t.step(transport, async () => {
      const name = `${transport}-paused`;
      const suspend = (suspended: boolean) =>
        via(c.corral, "proto.RayJobService/UpdateRayJob", {
          namespace,
          name,
          job: { suspend: suspended },
        }, root);
      const cluster = (clusterName: string) =>
        via(
          c.corral,
          `${CS}/CreateCluster`,
          clusterBody(namespace, `${transport}-${clusterName}`, "root"),
          root,
        );
      await ok(
        via(c.corral, "proto.RayJobService/CreateRayJob", {
          namespace,
          job: {
            name,
            user: "root",
            version: "2.9.0",
            entrypoint: "python train.py",
            clusterSpec: spec,
            shutdownAfterJobFinishes: true,
          },
        }, root),
        "a job with its own cluster (2 GPUs)",
      );
      await ok(suspend(true), "suspend");
      // Suspended, the job still holds its 2 GPUs of the 4.
      await ok(cluster("fits"), "a cluster of the 2 GPUs left");
      const over = await cluster("over");
      assert.equal(over.code, Code.RESOURCE_EXHAUSTED, over.message);
      assert.match(
        over.message,
        /q-gpu: GPUs 4 of 4 used, this cluster asks for 2$/,
      );
      // The namespace is at its quota, and the resume adds nothing to it.
      await ok(suspend(false), "resume");
      await ok(
        via(c.corral, "proto.RayJobService/DeleteRayJob", {
          namespace,
          name,
        }, root),
        "cleanup",
      );
      await ok(
        via(c.corral, `${CS}/DeleteCluster`, {
          namespace,
          name: `${transport}-fits`,
        }, root),
        "cleanup",
      );
    });
  }
});
