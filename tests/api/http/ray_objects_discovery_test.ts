/**
 * What clients find the Kubernetes-shaped routes by (discovery, the
 * OpenAPI v3 index kubectl reads), the list-all routes across the
 * namespaces the caller may list, and Events in events.k8s.io/v1's shape.
 */
import assert from "node:assert/strict";
import { eventually } from "../../eventually.ts";
import { kubeFetch } from "../../standin/with_standin.ts";
import { ALICE, BOB, CAROL } from "../auth/access_fixtures.ts";
import {
  answer,
  call,
  pathOf,
  rayCluster,
  watchEvents,
  withWorld,
} from "./ray_objects_world.ts";

Deno.test("discovery names the three kinds with their verbs and categories, and Events, to any authenticated caller; none without credentials", async () => {
  await withWorld(async (world) => {
    const get = async (path: string) => {
      const got = await answer(await call(world, CAROL, "GET", path));
      assert.equal(got.status, 200, path);
      return got.body;
    };
    assert.deepEqual((await get("/api")).versions, ["v1"]);
    const groups = (await get("/apis")).groups as { name: string }[];
    assert.deepEqual(groups.map((g) => g.name), ["ray.io", "events.k8s.io"]);
    assert.equal(
      ((await get("/apis/ray.io")).preferredVersion as Record<string, string>)
        .groupVersion,
      "ray.io/v1",
    );
    const ray = (await get("/apis/ray.io/v1")).resources as {
      name: string;
      kind: string;
      verbs: string[];
      categories?: string[];
      namespaced: boolean;
    }[];
    assert.deepEqual(ray.map((r) => r.name), [
      "rayclusters",
      "rayclusters/status",
      "rayjobs",
      "rayjobs/status",
      "rayservices",
      "rayservices/status",
    ]);
    const clusters = ray[0];
    assert.equal(clusters.kind, "RayCluster");
    assert.ok(clusters.namespaced);
    assert.deepEqual(clusters.categories, ["all"]);
    assert.deepEqual(clusters.verbs, [
      "create",
      "delete",
      "get",
      "list",
      "patch",
      "update",
      "watch",
    ]);
    assert.deepEqual(ray[1].verbs, ["get"]);
    for (const path of ["/api/v1", "/apis/events.k8s.io/v1"]) {
      const resources = (await get(path)).resources as { name: string }[];
      assert.deepEqual(resources.map((r) => r.name), ["events"]);
    }
    const index = (await get("/openapi/v3")).paths as Record<
      string,
      { serverRelativeURL: string }
    >;
    const document = await get(index["apis/ray.io/v1"].serverRelativeURL);
    const paths = document.paths as Record<string, Record<string, unknown>>;
    const patch = paths[
      "/apis/ray.io/v1/namespaces/{namespace}/rayclusters/{name}"
    ].patch as Record<string, unknown>;
    assert.deepEqual(patch["x-kubernetes-group-version-kind"], {
      group: "ray.io",
      version: "v1",
      kind: "RayCluster",
    });

    const anonymous = await call(world, undefined, "GET", "/apis");
    assert.equal(anonymous.status, 401);
    await anonymous.body?.cancel();
  });
});

Deno.test("the list-all routes list and watch every namespace the caller may list, and nothing of the others", async () => {
  await withWorld(async (world) => {
    for (
      const [who, namespace, name] of [
        [ALICE, "team-a", "a1"],
        [ALICE, "team-q", "q1"],
        [BOB, "team-b", "b1"],
      ] as const
    ) {
      const created = await call(
        world,
        who,
        "POST",
        pathOf(namespace),
        rayCluster(name),
      );
      assert.equal(created.status, 201, await created.text());
    }
    const names = async (who: typeof ALICE) => {
      const listed = await answer(
        await call(world, who, "GET", "/apis/ray.io/v1/rayclusters"),
      );
      assert.equal(listed.status, 200, JSON.stringify(listed.body));
      assert.equal(listed.body.kind, "RayClusterList");
      return (listed.body.items as { metadata: { name: string } }[])
        .map((i) => i.metadata.name).sort();
    };
    assert.deepEqual(await names(ALICE), ["a1", "q1"]);
    assert.deepEqual(await names(BOB), ["b1"]);
    assert.deepEqual(await names(CAROL), ["a1"]);
    const watch = await call(
      world,
      ALICE,
      "GET",
      "/apis/ray.io/v1/rayclusters?watch=true",
    );
    assert.equal(watch.status, 200);
    const events = watchEvents(watch);
    try {
      const more = await call(
        world,
        BOB,
        "POST",
        pathOf("team-b"),
        rayCluster("b2"),
      );
      assert.equal(more.status, 201, await more.text());
      const mine = await call(
        world,
        ALICE,
        "POST",
        pathOf("team-a"),
        rayCluster("a2"),
      );
      assert.equal(mine.status, 201, await mine.text());
      // Up to alice's second create: every object's namespace is hers.
      const seen = new Set<string>();
      for (;;) {
        const event = await events.next();
        const { name, namespace } = (event?.object as {
          metadata: { name: string; namespace: string };
        }).metadata;
        seen.add(`${namespace}/${name}`);
        if (event?.type === "ADDED" && name === "a2") break;
      }
      assert.deepEqual([...seen].sort(), [
        "team-a/a1",
        "team-a/a2",
        "team-q/q1",
      ]);
    } finally {
      await events.close();
    }
    const jobs = await answer(
      await call(world, CAROL, "GET", "/apis/ray.io/v1/rayjobs"),
    );
    assert.equal(jobs.status, 403, "carol may list no jobs anywhere");
    assert.equal(jobs.body.kind, "Status");
  });
});

Deno.test("Events at /apis/events.k8s.io/v1 are the core route's in that group's shape, selected by regarding.*", async () => {
  await withWorld(async (world) => {
    const blue = await answer(
      await call(world, ALICE, "POST", pathOf("team-a"), rayCluster("blue")),
    );
    const uid = (blue.body.metadata as { uid: string }).uid;
    const created = await kubeFetch(
      world.kubeUrl,
      "POST",
      "/api/v1/namespaces/team-a/events",
      {
        apiVersion: "v1",
        kind: "Event",
        metadata: { name: "blue.1", namespace: "team-a" },
        involvedObject: {
          kind: "RayCluster",
          name: "blue",
          uid,
          namespace: "team-a",
        },
        reason: "Created",
        message: "blue happened",
        type: "Normal",
        count: 2,
        firstTimestamp: "2026-01-02T03:04:05Z",
      },
    );
    assert.equal(created.status, 201, await created.text());
    const EVENTS = "/apis/events.k8s.io/v1/namespaces/team-a/events";
    const listed = await eventually("the event", async () => {
      const got = await answer(await call(world, ALICE, "GET", EVENTS));
      return (got.body.items as unknown[]).length === 1 ? got : undefined;
    });
    assert.equal(listed.body.apiVersion, "events.k8s.io/v1");
    const [event] = listed.body.items as Record<string, unknown>[];
    assert.equal(event.apiVersion, "events.k8s.io/v1");
    assert.equal(event.note, "blue happened");
    assert.equal(event.reason, "Created");
    assert.equal(event.eventTime, "2026-01-02T03:04:05.000000Z");
    assert.equal(event.deprecatedCount, 2);
    assert.deepEqual(event.regarding, {
      kind: "RayCluster",
      name: "blue",
      uid,
      namespace: "team-a",
    });
    const selected = (selector: string) =>
      call(
        world,
        ALICE,
        "GET",
        `${EVENTS}?fieldSelector=${encodeURIComponent(selector)}`,
      );
    const jobs = await answer(await selected("regarding.kind=RayJob"));
    assert.deepEqual(jobs.body.items, []);
    const named = await answer(await selected("regarding.name=blue"));
    assert.equal((named.body.items as unknown[]).length, 1);
    const carol = await answer(
      await call(
        world,
        CAROL,
        "GET",
        `${EVENTS}?fieldSelector=${
          encodeURIComponent("regarding.kind=RayJob")
        }`,
      ),
    );
    assert.equal(carol.status, 403);
  });
});
