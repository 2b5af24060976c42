/**
 * KubeRay's Kubernetes-shaped routes through Corral, as a client written
 * against the CRDs uses them (the Python client's CustomObjectsApi:
 * create_namespaced_custom_object, get_, list_ with limit and continue,
 * watch.stream over list_ with watch=True, replace_, delete_), with a
 * bearer token, against the real listener: the object itself comes back,
 * labelled as Corral's and its owner's, lists carry a resourceVersion a
 * watch resumes from, a stale replace is a 409 Status, and a delete
 * answers a Status Success.
 */
import assert from "node:assert/strict";
import { ALICE } from "../auth/access_fixtures.ts";
import {
  answer,
  call,
  createdCluster,
  pathOf,
  rayCluster,
  watchEvents,
  withWorld,
} from "./ray_objects_world.ts";

const CLUSTERS = pathOf("team-a");

Deno.test("a RayCluster created at /apis/ray.io/v1 comes back as stored: 201, labelled as Corral's and its creator's, with the namespace's default expiry", async () => {
  await withWorld(async (world) => {
    const created = await answer(
      await call(world, ALICE, "POST", CLUSTERS, rayCluster("blue")),
    );
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const metadata = created.body.metadata as Record<string, never>;
    assert.equal(created.body.kind, "RayCluster");
    assert.equal(created.body.apiVersion, "ray.io/v1");
    assert.equal(metadata.namespace, "team-a");
    assert.ok(metadata.uid && metadata.resourceVersion);
    const labels = metadata.labels as Record<string, string>;
    assert.equal(labels["app.kubernetes.io/managed-by"], "kuberay-apiserver");
    assert.equal(labels["ray.io/user"], "alice");
    assert.equal(labels["ray.io/cluster-name"], "blue");
    const annotations = metadata.annotations as Record<string, string>;
    assert.match(annotations["corral.dev/expires-at"], /^\d{4}-.*Z$/);

    const read = await answer(
      await call(world, ALICE, "GET", `${CLUSTERS}/blue`),
    );
    assert.equal(read.status, 200);
    assert.deepEqual(
      (read.body.spec as Record<string, unknown>).headGroupSpec,
      (rayCluster("blue").spec as Record<string, unknown>).headGroupSpec,
    );

    const audited = (await world.audit()).find((r) =>
      r.verb === "create" && r.name === "blue"
    );
    assert.equal(audited?.resource, "clusters");
    assert.equal(audited?.user, "alice");
    assert.equal(audited?.status, 201);
  });
});

Deno.test("a list of RayClusters is a RayClusterList with a resourceVersion, paged by limit and continue", async () => {
  await withWorld(async (world) => {
    for (const name of ["c", "a", "b"]) {
      const created = await call(
        world,
        ALICE,
        "POST",
        CLUSTERS,
        rayCluster(name),
      );
      assert.equal(created.status, 201, await created.text());
    }
    const all = await answer(await call(world, ALICE, "GET", CLUSTERS));
    assert.equal(all.status, 200);
    assert.equal(all.body.kind, "RayClusterList");
    assert.equal(all.body.apiVersion, "ray.io/v1");
    const metadata = all.body.metadata as Record<string, string>;
    assert.match(metadata.resourceVersion, /^\d+/);
    assert.equal(metadata.continue, undefined);
    const names = (items: unknown) =>
      (items as { metadata: { name: string }; kind: string }[]).map((i) =>
        `${i.kind}/${i.metadata.name}`
      );
    assert.deepEqual(names(all.body.items), [
      "RayCluster/a",
      "RayCluster/b",
      "RayCluster/c",
    ]);

    const first = await answer(
      await call(world, ALICE, "GET", `${CLUSTERS}?limit=2`),
    );
    assert.deepEqual(names(first.body.items), ["RayCluster/a", "RayCluster/b"]);
    const token = (first.body.metadata as Record<string, string>).continue;
    assert.ok(token);
    const second = await answer(
      await call(
        world,
        ALICE,
        "GET",
        `${CLUSTERS}?limit=2&continue=${encodeURIComponent(token)}`,
      ),
    );
    assert.deepEqual(names(second.body.items), ["RayCluster/c"]);
    assert.equal(
      (second.body.metadata as Record<string, string>).continue,
      undefined,
    );

    const selected = await answer(
      await call(
        world,
        ALICE,
        "GET",
        `${CLUSTERS}?labelSelector=${
          encodeURIComponent("ray.io/cluster-name in (a,c)")
        }`,
      ),
    );
    assert.deepEqual(names(selected.body.items), [
      "RayCluster/a",
      "RayCluster/c",
    ]);

    const named = await answer(
      await call(
        world,
        ALICE,
        "GET",
        `${CLUSTERS}?fieldSelector=${encodeURIComponent("metadata.name=b")}`,
      ),
    );
    assert.deepEqual(names(named.body.items), ["RayCluster/b"]);

    const bad = await answer(
      await call(world, ALICE, "GET", `${CLUSTERS}?continue=nonsense`),
    );
    assert.equal(bad.status, 400);
    assert.equal(bad.body.kind, "Status");
    assert.equal(bad.body.reason, "BadRequest");
  });
});

Deno.test("a watch with ?watch=1 sends the state as ADDED, then each change as MODIFIED and DELETED, and resumes from a list's resourceVersion", async () => {
  await withWorld(async (world) => {
    await createdCluster(world, "blue");
    const listed = await answer(await call(world, ALICE, "GET", CLUSTERS));
    const from =
      (listed.body.metadata as Record<string, string>).resourceVersion;

    const watch = await call(world, ALICE, "GET", `${CLUSTERS}?watch=1`);
    assert.equal(watch.status, 200);
    assert.equal(watch.headers.get("content-type"), "application/json");
    const events = watchEvents(watch);
    const added = await events.next();
    assert.equal(added?.type, "ADDED");
    assert.equal(
      (added?.object as { metadata: { name: string } }).metadata.name,
      "blue",
    );

    const resumed = await call(
      world,
      ALICE,
      "GET",
      `${CLUSTERS}?watch=true&resourceVersion=${from}`,
    );
    assert.equal(resumed.status, 200);
    const resumedEvents = watchEvents(resumed);

    const current = (await answer(
      await call(world, ALICE, "GET", `${CLUSTERS}/blue`),
    )).body as { metadata: Record<string, unknown>; spec: unknown };
    current.metadata.labels = {
      ...current.metadata.labels as Record<string, string>,
      team: "ml",
    };
    const replaced = await call(
      world,
      ALICE,
      "PUT",
      `${CLUSTERS}/blue`,
      current,
    );
    assert.equal(replaced.status, 200, await replaced.text());
    for (const reader of [events, resumedEvents]) {
      const modified = await reader.next();
      assert.equal(modified?.type, "MODIFIED");
      const labels = (modified?.object as {
        metadata: { labels: Record<string, string> };
      }).metadata.labels;
      assert.equal(labels.team, "ml");
      // What Corral decided stays: the owner and that it is Corral's.
      assert.equal(labels["ray.io/user"], "alice");
    }

    const deleted = await answer(
      await call(world, ALICE, "DELETE", `${CLUSTERS}/blue`),
    );
    assert.equal(deleted.status, 200);
    assert.equal(deleted.body.status, "Success");
    assert.deepEqual(
      { ...(deleted.body.details as Record<string, unknown>), uid: "" },
      { name: "blue", group: "ray.io", kind: "rayclusters", uid: "" },
    );
    assert.equal((await events.next())?.type, "DELETED");
    await events.close();
    await resumedEvents.close();

    const gone = await answer(
      await call(world, ALICE, "GET", `${CLUSTERS}/blue`),
    );
    assert.equal(gone.status, 404);
    assert.equal(gone.body.kind, "Status");
    assert.equal(gone.body.reason, "NotFound");
    assert.deepEqual(gone.body.details, {
      name: "blue",
      group: "ray.io",
      kind: "rayclusters",
    });
  });
});

Deno.test("a replace with a resourceVersion the cluster has moved on from is a 409 Conflict Status, and changes nothing", async () => {
  await withWorld(async (world) => {
    const created = (await answer(
      await call(world, ALICE, "POST", CLUSTERS, rayCluster("blue")),
    )).body as { metadata: Record<string, unknown> };
    const stale = structuredClone(created);
    created.metadata.labels = { ...created.metadata.labels as object, a: "1" };
    assert.equal(
      (await call(world, ALICE, "PUT", `${CLUSTERS}/blue`, created)).status,
      200,
    );
    stale.metadata.labels = { ...stale.metadata.labels as object, b: "2" };
    const refused = await answer(
      await call(world, ALICE, "PUT", `${CLUSTERS}/blue`, stale),
    );
    assert.equal(refused.status, 409);
    assert.equal(refused.body.reason, "Conflict");
    const read = (await answer(
      await call(world, ALICE, "GET", `${CLUSTERS}/blue`),
    )).body as { metadata: { labels: Record<string, string> } };
    assert.equal(read.metadata.labels.a, "1");
    assert.equal(read.metadata.labels.b, undefined);
  });
});

Deno.test("a create asks for a queue and a ttl in the object's metadata, decided by the policy; an object of another's user, or another's name on the path, is refused", async () => {
  await withWorld(async (world) => {
    const created = await answer(
      await call(
        world,
        ALICE,
        "POST",
        CLUSTERS,
        rayCluster("blue", {
          metadata: { annotations: { "corral.dev/ttl": "2h" } },
        }),
      ),
    );
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const annotations = (created.body.metadata as {
      annotations: Record<string, string>;
    }).annotations;
    assert.equal(annotations["corral.dev/ttl"], undefined);
    const expiresAt = Date.parse(annotations["corral.dev/expires-at"]);
    const hours = (expiresAt - Date.now()) / 3_600_000;
    assert.ok(hours > 1.9 && hours <= 2, `expires in ${hours}h`);

    const tooLong = await answer(
      await call(
        world,
        ALICE,
        "POST",
        CLUSTERS,
        rayCluster("green", {
          metadata: { annotations: { "corral.dev/ttl": "48h" } },
        }),
      ),
    );
    assert.equal(tooLong.status, 422, JSON.stringify(tooLong.body));
    assert.equal(tooLong.body.reason, "Invalid");
    assert.deepEqual(
      (tooLong.body.details as { causes: { field: string }[] }).causes.map((
        c,
      ) => c.field),
      ['metadata.annotations["corral.dev/ttl"]'],
    );

    const forBob = await answer(
      await call(
        world,
        ALICE,
        "POST",
        CLUSTERS,
        rayCluster("red", { metadata: { labels: { "ray.io/user": "bob" } } }),
      ),
    );
    assert.equal(forBob.status, 403);
    assert.equal(forBob.body.reason, "Forbidden");
    assert.match(
      String(forBob.body.message),
      /may not create clusters for "bob"/,
    );

    // kubectl create --raw -f sends its body without a Content-Type.
    const untyped = await fetch(`${world.base}${CLUSTERS}`, {
      method: "POST",
      headers: { authorization: `Bearer ${ALICE.token}` },
      body: new Blob([JSON.stringify(rayCluster("plain"))]),
    });
    assert.equal(untyped.status, 201, await untyped.text());

    const elsewhere = await answer(
      await call(world, ALICE, "PUT", `${CLUSTERS}/other`, rayCluster("blue")),
    );
    assert.equal(elsewhere.status, 400);
    assert.equal(elsewhere.body.reason, "BadRequest");
  });
});

Deno.test("a PATCH is a JSON merge patch of the object as stored, written as a replace is; what Corral decided stays, and strategic merge patches and server-side apply are 415", async () => {
  await withWorld(async (world) => {
    await createdCluster(world, "blue");
    const patch = (type: string, body: unknown) =>
      fetch(`${world.base}${CLUSTERS}/blue`, {
        method: "PATCH",
        headers: {
          authorization: `Bearer ${ALICE.token}`,
          "content-type": type,
        },
        body: JSON.stringify(body),
      });
    const patched = await answer(
      await patch("application/merge-patch+json", {
        metadata: { labels: { team: "ml", "ray.io/user": "mallory" } },
        spec: {
          workerGroupSpecs: [{
            ...rayCluster("blue").spec.workerGroupSpecs[0],
            replicas: 0,
            minReplicas: 0,
          }],
        },
      }),
    );
    assert.equal(patched.status, 200, JSON.stringify(patched.body));
    const labels = (patched.body.metadata as {
      labels: Record<string, string>;
    }).labels;
    assert.equal(labels.team, "ml");
    assert.equal(labels["ray.io/user"], "alice");
    const workers = (patched.body.spec as {
      workerGroupSpecs: { replicas: number }[];
    }).workerGroupSpecs;
    assert.equal(workers[0].replicas, 0);

    for (
      const type of [
        "application/strategic-merge-patch+json",
        "application/apply-patch+yaml",
      ]
    ) {
      const refused = await answer(await patch(type, []));
      assert.equal(refused.status, 415, type);
      assert.equal(refused.body.kind, "Status");
    }
  });
});
