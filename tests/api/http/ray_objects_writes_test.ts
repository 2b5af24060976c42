/**
 * The writes of the Kubernetes-shaped routes beyond create, replace and
 * merge patch (ray_objects_test.ts): JSON patches, generateName,
 * DeleteOptions' preconditions, the status subresource (read only), and
 * dry runs refused rather than made.
 */
import assert from "node:assert/strict";
import { ALICE, CAROL } from "../auth/access_fixtures.ts";
import {
  answer,
  call,
  createdCluster,
  pathOf,
  rayCluster,
  withWorld,
} from "./ray_objects_world.ts";

const CLUSTERS = pathOf("team-a");

function patch(
  base: string,
  path: string,
  type: string,
  body: unknown,
): Promise<Response> {
  return fetch(`${base}${path}`, {
    method: "PATCH",
    headers: {
      authorization: `Bearer ${ALICE.token}`,
      "content-type": type,
    },
    body: JSON.stringify(body),
  });
}

Deno.test("a JSON patch is applied to the object as stored and written as a replace is; one that does not apply is 422 and changes nothing", async () => {
  await withWorld(async (world) => {
    await createdCluster(world, "blue");
    const JSON_PATCH = "application/json-patch+json";
    const patched = await answer(
      await patch(world.base, `${CLUSTERS}/blue`, JSON_PATCH, [
        { op: "add", path: "/metadata/labels/team", value: "ml" },
        { op: "replace", path: "/metadata/labels/ray.io~1user", value: "eve" },
        { op: "replace", path: "/spec/workerGroupSpecs/0/replicas", value: 0 },
        {
          op: "replace",
          path: "/spec/workerGroupSpecs/0/minReplicas",
          value: 0,
        },
      ]),
    );
    assert.equal(patched.status, 200, JSON.stringify(patched.body));
    const { labels } = patched.body.metadata as {
      labels: Record<string, string>;
    };
    assert.equal(labels.team, "ml");
    assert.equal(labels["ray.io/user"], "alice", "the owner Corral decided");
    const spec = patched.body.spec as {
      workerGroupSpecs: { replicas: number }[];
    };
    assert.equal(spec.workerGroupSpecs[0].replicas, 0);

    const failed = await answer(
      await patch(world.base, `${CLUSTERS}/blue`, JSON_PATCH, [
        { op: "add", path: "/metadata/labels/more", value: "x" },
        { op: "test", path: "/metadata/labels/team", value: "web" },
      ]),
    );
    assert.equal(failed.status, 422);
    assert.equal(failed.body.kind, "Status");
    const read = await answer(
      await call(world, ALICE, "GET", `${CLUSTERS}/blue`),
    );
    const after = (read.body.metadata as { labels: Record<string, string> })
      .labels;
    assert.equal(after.more, undefined);

    const malformed = await answer(
      await patch(world.base, `${CLUSTERS}/blue`, JSON_PATCH, { op: "add" }),
    );
    assert.equal(malformed.status, 400);

    const stale = await answer(
      await patch(world.base, `${CLUSTERS}/blue`, JSON_PATCH, [
        { op: "test", path: "/metadata/resourceVersion", value: "1" },
        { op: "add", path: "/metadata/labels/late", value: "x" },
      ]),
    );
    assert.equal(stale.status, 422, "the test of an old version fails");
  });
});

Deno.test("a create with generateName and no name is named by it, the name authorized and audited", async () => {
  await withWorld(async (world) => {
    const body = rayCluster("");
    const created = await answer(
      await call(world, ALICE, "POST", CLUSTERS, {
        ...body,
        metadata: { generateName: "gen-" },
      }),
    );
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const { name } = created.body.metadata as { name: string };
    assert.match(name, /^gen-[a-z0-9]{5}$/);
    const audited = (await world.audit()).find((r) =>
      r.verb === "create" && r.status === 201
    );
    assert.equal(audited?.name, name);
  });
});

Deno.test("a delete's preconditions are checked: another uid or resourceVersion is 409 and the object stays; a dry run or a propagation policy not served is 400", async () => {
  await withWorld(async (world) => {
    const created = await answer(
      await call(world, ALICE, "POST", CLUSTERS, rayCluster("blue")),
    );
    const { uid, resourceVersion } = created.body.metadata as Record<
      string,
      string
    >;
    const del = (body: unknown, query = "") =>
      call(world, ALICE, "DELETE", `${CLUSTERS}/blue${query}`, body);
    for (
      const preconditions of [
        { uid: "another" },
        { uid, resourceVersion: "1" },
      ]
    ) {
      const refused = await answer(
        await del({ kind: "DeleteOptions", apiVersion: "v1", preconditions }),
      );
      assert.equal(refused.status, 409, JSON.stringify(refused.body));
      assert.equal(refused.body.reason, "Conflict");
    }
    for (
      const [body, query] of [
        [{ propagationPolicy: "Orphan" }, ""],
        [{ dryRun: ["All"] }, ""],
        [undefined, "?dryRun=All"],
      ] as const
    ) {
      const refused = await answer(await del(body, query));
      assert.equal(refused.status, 400, JSON.stringify(refused.body));
    }
    const stays = await call(world, ALICE, "GET", `${CLUSTERS}/blue`);
    assert.equal(stays.status, 200, await stays.text());

    const deleted = await answer(
      await del({
        propagationPolicy: "Background",
        preconditions: { uid, resourceVersion },
      }),
    );
    assert.equal(deleted.status, 200, JSON.stringify(deleted.body));
    assert.equal(deleted.body.status, "Success");
  });
});

Deno.test("a create, replace or patch asked as a dry run is refused 400 and nothing is written", async () => {
  await withWorld(async (world) => {
    const refused = await answer(
      await call(
        world,
        ALICE,
        "POST",
        `${CLUSTERS}?dryRun=All`,
        rayCluster("blue"),
      ),
    );
    assert.equal(refused.status, 400);
    assert.equal(refused.body.kind, "Status");
    const none = await call(world, ALICE, "GET", `${CLUSTERS}/blue`);
    assert.equal(none.status, 404);
    await none.body?.cancel();

    const created = await answer(
      await call(world, ALICE, "POST", CLUSTERS, rayCluster("blue")),
    );
    assert.equal(created.status, 201);
    const replaced = await call(
      world,
      ALICE,
      "PUT",
      `${CLUSTERS}/blue?dryRun=All`,
      { ...created.body, metadata: { name: "blue", labels: { a: "b" } } },
    );
    assert.equal(replaced.status, 400);
    await replaced.body?.cancel();
    const patched = await patch(
      world.base,
      `${CLUSTERS}/blue?dryRun=All`,
      "application/merge-patch+json",
      { metadata: { labels: { a: "b" } } },
    );
    assert.equal(patched.status, 400);
    await patched.body?.cancel();
    const read = await answer(
      await call(world, ALICE, "GET", `${CLUSTERS}/blue`),
    );
    const labels = (read.body.metadata as { labels: Record<string, string> })
      .labels;
    assert.equal(labels.a, undefined);
  });
});

Deno.test("an object's status subresource reads as the object, and is never written through Corral: 403 with the reason", async () => {
  await withWorld(async (world) => {
    await createdCluster(world, "blue");
    const status = `${CLUSTERS}/blue/status`;
    const read = await answer(await call(world, CAROL, "GET", status));
    assert.equal(read.status, 200);
    assert.equal(read.body.kind, "RayCluster");
    assert.equal((read.body.metadata as { name: string }).name, "blue");

    const put = await answer(
      await call(world, ALICE, "PUT", status, read.body),
    );
    assert.equal(put.status, 403);
    assert.match(String(put.body.message), /KubeRay operator/);
    const patched = await answer(
      await patch(world.base, status, "application/merge-patch+json", {
        status: { state: "ready" },
      }),
    );
    assert.equal(patched.status, 403);
    const carol = await answer(
      await call(world, CAROL, "PUT", status, read.body),
    );
    assert.equal(carol.status, 403, "no update row: refused by the policy");
  });
});
