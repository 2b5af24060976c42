/**
 * Compute templates named in a whole object's groups, on the
 * Kubernetes-shaped routes, as KubeRay's API server applies them there: a
 * group's `computeTemplate` becomes its pod's resources (cpu and memory
 * on every container, GPUs on the Ray container), tolerations and
 * `ray.io/compute-template` annotation, on create and replace, for a
 * RayCluster, a RayJob's own cluster and a RayService's, then admitted as
 * if sent; a template the namespace lacks is 422 naming the group.
 */
import assert from "node:assert/strict";
import { ALICE } from "../auth/access_fixtures.ts";
import {
  answer,
  call,
  pathOf,
  rayCluster,
  withWorld,
  type World,
} from "./ray_objects_world.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

const TOLERATION = { key: "gpu", operator: "Exists", effect: "NoSchedule" };

async function createTemplate(
  world: World,
  name = "gpu",
  tolerations: unknown[] = [],
): Promise<void> {
  const created = await call(
    world,
    ALICE,
    "POST",
    "/apis/v1alpha2/namespaces/team-a/compute_templates",
    { name, cpu: 4, memory: 16, gpu: 1, tolerations },
  );
  assert.equal(created.status, 200, await created.text());
}

/** A RayCluster whose head names the template, with a sidecar beside Ray. */
function templated(name: string) {
  const cluster: Json = rayCluster(name);
  cluster.spec.headGroupSpec.computeTemplate = "gpu";
  cluster.spec.headGroupSpec.template.spec.containers.push({
    name: "sidecar",
    image: "busybox:1.36",
  });
  return cluster;
}

Deno.test("a group's computeTemplate on the Kubernetes-shaped routes becomes its pod's resources, tolerations and annotation, as KubeRay's API server writes them", async () => {
  await withWorld(async (world) => {
    await createTemplate(world);
    const created = await answer(
      await call(world, ALICE, "POST", pathOf("team-a"), templated("blue")),
    );
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const head = (created.body.spec as Json).headGroupSpec;
    assert.equal(head.computeTemplate, undefined, "no field of the CRD");
    assert.equal(
      head.template.metadata.annotations["ray.io/compute-template"],
      "gpu",
    );
    const [ray, sidecar] = head.template.spec.containers;
    const everything = { cpu: "4", memory: "16Gi", "nvidia.com/gpu": "1" };
    assert.deepEqual(ray.resources, {
      limits: everything,
      requests: everything,
    });
    assert.deepEqual(sidecar.resources, {
      limits: { cpu: "4", memory: "16Gi" },
      requests: { cpu: "4", memory: "16Gi" },
    });
    // The worker group named none: as it was sent.
    const worker = (created.body.spec as Json).workerGroupSpecs[0];
    assert.equal(
      worker.template.metadata?.annotations?.["ray.io/compute-template"],
      undefined,
    );

    const replaced: Json = templated("blue");
    replaced.metadata.resourceVersion = (created.body.metadata as Json)
      .resourceVersion;
    replaced.spec.workerGroupSpecs[0].computeTemplate = "gpu";
    const put = await answer(
      await call(world, ALICE, "PUT", `${pathOf("team-a")}/blue`, replaced),
    );
    assert.equal(put.status, 200, JSON.stringify(put.body));
    const workerAfter = (put.body.spec as Json).workerGroupSpecs[0];
    assert.equal(workerAfter.computeTemplate, undefined);
    assert.deepEqual(workerAfter.template.spec.containers[0].resources.limits, {
      cpu: "4",
      memory: "16Gi",
      "nvidia.com/gpu": "1",
    });
  });
});

Deno.test("a RayJob's own cluster and a RayService's take their groups' compute templates too", async () => {
  await withWorld(async (world) => {
    await createTemplate(world);
    const cluster = templated("ignored").spec;
    const job = await answer(
      await call(world, ALICE, "POST", pathOf("team-a", "rayjobs"), {
        apiVersion: "ray.io/v1",
        kind: "RayJob",
        metadata: { name: "train" },
        spec: { entrypoint: "python train.py", rayClusterSpec: cluster },
      }),
    );
    assert.equal(job.status, 201, JSON.stringify(job.body));
    const jobHead = (job.body.spec as Json).rayClusterSpec.headGroupSpec;
    assert.equal(jobHead.computeTemplate, undefined);
    assert.equal(jobHead.template.spec.containers[0].resources.limits.cpu, "4");
    const service = await answer(
      await call(world, ALICE, "POST", pathOf("team-a", "rayservices"), {
        apiVersion: "ray.io/v1",
        kind: "RayService",
        metadata: { name: "fruit" },
        spec: {
          serveConfigV2: "applications: []\n",
          rayClusterConfig: cluster,
        },
      }),
    );
    assert.equal(service.status, 201, JSON.stringify(service.body));
    const serviceHead = (service.body.spec as Json).rayClusterConfig
      .headGroupSpec;
    assert.equal(serviceHead.computeTemplate, undefined);
    assert.equal(
      serviceHead.template.spec.containers[0].resources
        .limits["nvidia.com/gpu"],
      "1",
    );
  });
});

Deno.test("what a template brings is admitted as if it were sent: its tolerations need a rule that allows them (403)", async () => {
  await withWorld(async (world) => {
    await createTemplate(world, "tainted", [TOLERATION]);
    const cluster: Json = rayCluster("blue");
    cluster.spec.headGroupSpec.computeTemplate = "tainted";
    const refused = await answer(
      await call(world, ALICE, "POST", pathOf("team-a"), cluster),
    );
    assert.equal(refused.status, 403, JSON.stringify(refused.body));
    assert.match(
      String(refused.body.message),
      /may not tolerate the taint "gpu" \(NoSchedule\)/,
    );
  });
});

Deno.test("a computeTemplate the namespace does not have is 422 naming the group, and nothing is written", async () => {
  await withWorld(async (world) => {
    const cluster: Json = rayCluster("blue");
    cluster.spec.workerGroupSpecs[0].computeTemplate = "huge";
    const refused = await answer(
      await call(world, ALICE, "POST", pathOf("team-a"), cluster),
    );
    assert.equal(refused.status, 422, JSON.stringify(refused.body));
    assert.equal(refused.body.reason, "Invalid");
    assert.match(
      String(refused.body.message),
      /spec\.workerGroupSpecs\[0\]\.computeTemplate: names no compute template of the namespace: "huge"/,
    );
    const read = await call(world, ALICE, "GET", `${pathOf("team-a")}/blue`);
    assert.equal(read.status, 404);
    await read.body?.cancel();
  });
});
