/**
 * The Kubernetes-shaped routes give a CRD client Corral's security, which
 * KubeRay's own proxy does not: every route refuses a caller without
 * credentials (401) or without a rule for the namespace (403), with a
 * Kubernetes Status body; the whole object is admitted as a workload (a
 * host path no rule allows is 403, and nothing is written); quotas refuse
 * what would go over them; objects Corral does not manage cannot be seen
 * or touched; Events are only those of objects the caller may see. RayJobs
 * and RayServices go the same way as RayClusters.
 */
import assert from "node:assert/strict";
import { kubeFetch } from "../../standin/with_standin.ts";
import { eventually } from "../../eventually.ts";
import { ALICE, BOB, CAROL, DAVE, ROOT } from "../auth/access_fixtures.ts";
import {
  answer,
  call,
  foreignCluster,
  pathOf,
  rayCluster,
  watchEvents,
  withWorld,
} from "./ray_objects_world.ts";

const CLUSTERS = pathOf("team-a");

/** Every route of the clusters, with a body where it takes one. */
const ROUTES: [string, string, unknown?][] = [
  ["GET", CLUSTERS],
  ["GET", `${CLUSTERS}?watch=1`],
  ["POST", CLUSTERS, rayCluster("blue")],
  ["GET", `${CLUSTERS}/blue`],
  ["PUT", `${CLUSTERS}/blue`, rayCluster("blue")],
  ["DELETE", `${CLUSTERS}/blue`],
  ["GET", pathOf("team-a", "rayjobs")],
  ["POST", pathOf("team-a", "rayservices"), rayCluster("blue")],
  ["GET", "/api/v1/namespaces/team-a/events"],
];

Deno.test("every V2 route answers a caller without credentials 401, and one without a rule for the namespace 403, with a Status body", async () => {
  await withWorld(async (world) => {
    for (const [method, path, body] of ROUTES) {
      const anonymous = await call(world, undefined, method, path, body);
      const refused = await answer(anonymous);
      assert.equal(refused.status, 401, `${method} ${path}`);
      assert.equal(refused.body.kind, "Status", `${method} ${path}`);
      assert.equal(refused.body.reason, "Unauthorized");
      assert.equal(refused.body.code, 401);
      assert.match(anonymous.headers.get("www-authenticate") ?? "", /Bearer/);
      for (const who of [BOB, DAVE]) {
        const denied = await answer(await call(world, who, method, path, body));
        assert.equal(denied.status, 403, `${who.name}: ${method} ${path}`);
        assert.equal(denied.body.reason, "Forbidden");
      }
    }
    const audited = await world.audit();
    assert.ok(
      audited.some((r) => r.user === "bob" && r.verb === "create"),
      "a refused create is audited",
    );
  });
});

Deno.test("a RayCluster with a hostPath volume no rule allows is refused 403 with a Status naming the field, and nothing is written; a rule that allows host paths lets it", async () => {
  await withWorld(async (world) => {
    const withHostPath = rayCluster("blue", {
      pods: { volumes: [{ name: "data", hostPath: { path: "/var/data" } }] },
    });
    const refused = await answer(
      await call(world, ALICE, "POST", CLUSTERS, withHostPath),
    );
    assert.equal(refused.status, 403, JSON.stringify(refused.body));
    assert.equal(refused.body.kind, "Status");
    assert.equal(refused.body.reason, "Forbidden");
    assert.match(
      String(refused.body.message),
      /spec\.headGroupSpec\.template\.spec\.volumes\[0\]/,
    );
    const stored = await kubeFetch(
      world.kubeUrl,
      "GET",
      `${CLUSTERS}/blue`,
    );
    assert.equal(stored.status, 404);
    await stored.body?.cancel();

    const allowed = await call(world, ROOT, "POST", CLUSTERS, withHostPath);
    assert.equal(allowed.status, 201, await allowed.text());
  });
});

Deno.test("KubeRay's current fields are admitted on the V2 routes as on the RPCs: a ConfigMap volume, a privileged container and an autoscaler field Corral does not decide each refused 403 naming its field, nothing written", async () => {
  await withWorld(async (world) => {
    const cases: [string, ReturnType<typeof rayCluster>, RegExp][] = [
      [
        "a ConfigMap volume",
        rayCluster("cm", {
          pods: { volumes: [{ name: "c", configMap: { name: "code" } }] },
        }),
        /spec\.headGroupSpec\.template\.spec\.volumes\[0\]\.configMap/,
      ],
      [
        "a privileged container",
        (() => {
          const cluster = rayCluster("priv");
          const head = cluster.spec.headGroupSpec.template.spec
            .containers[0] as Record<string, unknown>;
          head.securityContext = { privileged: true };
          return cluster;
        })(),
        /containers\[0\]\.securityContext\.privileged/,
      ],
      [
        "an autoscaler's unknown field",
        (() => {
          const cluster = rayCluster("scaler") as
            & ReturnType<
              typeof rayCluster
            >
            & { spec: Record<string, unknown> };
          cluster.spec.enableInTreeAutoscaling = true;
          cluster.spec.autoscalerOptions = { command: ["sh"] };
          return cluster;
        })(),
        /spec\.autoscalerOptions\.command/,
      ],
    ];
    for (const [name, body, field] of cases) {
      const refused = await answer(
        await call(world, ALICE, "POST", CLUSTERS, body),
      );
      assert.equal(
        refused.status,
        403,
        `${name}: ${JSON.stringify(refused.body)}`,
      );
      assert.equal(refused.body.reason, "Forbidden");
      assert.match(String(refused.body.message), field, name);
    }
    const stored = await kubeFetch(world.kubeUrl, "GET", `${CLUSTERS}/cm`);
    assert.equal(stored.status, 404);
    await stored.body?.cancel();
  });
});

Deno.test("a create over a quota is refused 403 with a Status, before anything is written", async () => {
  await withWorld(async (world) => {
    const quoted = pathOf("team-q");
    const first = await call(world, ALICE, "POST", quoted, rayCluster("one"));
    assert.equal(first.status, 201, await first.text());
    const second = await answer(
      await call(world, ALICE, "POST", quoted, rayCluster("two")),
    );
    assert.equal(second.status, 403, JSON.stringify(second.body));
    assert.equal(second.body.reason, "Forbidden");
    assert.match(String(second.body.message), /quota exceeded/);
    const stored = await kubeFetch(world.kubeUrl, "GET", `${quoted}/two`);
    assert.equal(stored.status, 404);
    await stored.body?.cancel();
  });
});

Deno.test("a RayCluster Corral does not manage cannot be read, listed, watched, replaced or deleted through the routes", async () => {
  await withWorld(async (world) => {
    await foreignCluster(world, "team-a", "theirs");
    const mine = await call(world, ALICE, "POST", CLUSTERS, rayCluster("mine"));
    assert.equal(mine.status, 201, await mine.text());
    for (
      const [method, body] of [
        ["GET"],
        ["PUT", rayCluster("theirs")],
        ["DELETE"],
      ] as [string, unknown?][]
    ) {
      const refused = await answer(
        await call(world, ALICE, method, `${CLUSTERS}/theirs`, body),
      );
      assert.equal(
        refused.status,
        404,
        `${method}: ${JSON.stringify(refused.body)}`,
      );
      assert.equal(refused.body.reason, "NotFound");
    }
    const listed = await answer(await call(world, ALICE, "GET", CLUSTERS));
    assert.deepEqual(
      (listed.body.items as { metadata: { name: string } }[]).map((i) =>
        i.metadata.name
      ),
      ["mine"],
    );
    // With bookmarks, the state ends with one: all of it is before.
    const watch = watchEvents(
      await call(
        world,
        ALICE,
        "GET",
        `${CLUSTERS}?watch=1&allowWatchBookmarks=true`,
      ),
    );
    const watched: string[] = [];
    for (;;) {
      const event = await watch.next();
      if (!event || event.type === "BOOKMARK") break;
      watched.push(
        (event.object as { metadata: { name: string } }).metadata.name,
      );
    }
    assert.deepEqual(watched, ["mine"]);
    await watch.close();
    const still = await kubeFetch(world.kubeUrl, "GET", `${CLUSTERS}/theirs`);
    assert.equal(still.status, 200);
    await still.body?.cancel();
  });
});

/** A core/v1 Event about `kind` `name` (of `uid`), written to the stand-in. */
async function event(
  kubeUrl: string,
  name: string,
  about: { kind: string; name: string; uid: string },
): Promise<void> {
  const created = await kubeFetch(
    kubeUrl,
    "POST",
    "/api/v1/namespaces/team-a/events",
    {
      apiVersion: "v1",
      kind: "Event",
      metadata: { name, namespace: "team-a" },
      involvedObject: { ...about, namespace: "team-a" },
      reason: "Created",
      message: `${name} happened`,
      type: "Normal",
    },
  );
  if (created.status !== 201) throw new Error(await created.text());
}

Deno.test("Events are those of Corral's objects the caller may list: not of a foreign cluster, not of jobs for a caller who may list only clusters", async () => {
  await withWorld(async (world) => {
    const blue = await answer(
      await call(world, ALICE, "POST", CLUSTERS, rayCluster("blue")),
    );
    const job = await answer(
      await call(world, ALICE, "POST", pathOf("team-a", "rayjobs"), {
        apiVersion: "ray.io/v1",
        kind: "RayJob",
        metadata: { name: "train" },
        spec: {
          entrypoint: "python train.py",
          shutdownAfterJobFinishes: true,
          rayClusterSpec: rayCluster("train").spec,
        },
      }),
    );
    assert.equal(job.status, 201, JSON.stringify(job.body));
    await foreignCluster(world, "team-a", "theirs");
    const theirs = await (await kubeFetch(
      world.kubeUrl,
      "GET",
      `${CLUSTERS}/theirs`,
    )).json();
    const uid = (body: Record<string, unknown>) =>
      (body.metadata as { uid: string }).uid;
    await event(world.kubeUrl, "blue.1", {
      kind: "RayCluster",
      name: "blue",
      uid: uid(blue.body),
    });
    await event(world.kubeUrl, "theirs.1", {
      kind: "RayCluster",
      name: "theirs",
      uid: uid(theirs),
    });
    await event(world.kubeUrl, "train.1", {
      kind: "RayJob",
      name: "train",
      uid: uid(job.body),
    });
    const EVENTS = "/api/v1/namespaces/team-a/events";
    const names = (body: Record<string, unknown>) =>
      (body.items as { metadata: { name: string } }[])
        .map((i) => i.metadata.name).sort();
    const seen = await eventually("alice's two events", async () => {
      const listed = await answer(await call(world, ALICE, "GET", EVENTS));
      return names(listed.body).length === 2 ? listed : undefined;
    });
    assert.equal(seen.body.kind, "EventList");
    assert.deepEqual(names(seen.body), ["blue.1", "train.1"]);

    const carol = await answer(await call(world, CAROL, "GET", EVENTS));
    assert.equal(carol.status, 200);
    assert.deepEqual(names(carol.body), ["blue.1"]);

    const jobsOnly = `${EVENTS}?fieldSelector=${
      encodeURIComponent("involvedObject.kind=RayJob")
    }`;
    const forAlice = await answer(await call(world, ALICE, "GET", jobsOnly));
    assert.deepEqual(names(forAlice.body), ["train.1"]);
    const forCarol = await answer(await call(world, CAROL, "GET", jobsOnly));
    assert.equal(forCarol.status, 403);
    assert.equal(forCarol.body.kind, "Status");
  });
});

Deno.test("RayJobs and RayServices go through the same routes and steps: created as Corral's, a RayService field no cluster has refused, a job on a cluster that is not there refused", async () => {
  await withWorld(async (world) => {
    const JOBS = pathOf("team-a", "rayjobs");
    const SERVICES = pathOf("team-a", "rayservices");
    const service = {
      apiVersion: "ray.io/v1",
      kind: "RayService",
      metadata: { name: "serve" },
      spec: {
        serveConfigV2: "applications: []\n",
        rayClusterConfig: rayCluster("serve").spec,
      },
    };
    const created = await answer(
      await call(world, ALICE, "POST", SERVICES, service),
    );
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const labels = (created.body.metadata as {
      labels: Record<string, string>;
    }).labels;
    assert.equal(labels["app.kubernetes.io/managed-by"], "kuberay-apiserver");
    assert.equal(labels["ray.io/user"], "alice");

    const exposed = await answer(
      await call(world, ALICE, "POST", SERVICES, {
        ...service,
        metadata: { name: "exposed" },
        spec: {
          ...service.spec,
          serveService: { spec: { type: "LoadBalancer" } },
        },
      }),
    );
    assert.equal(exposed.status, 403, JSON.stringify(exposed.body));
    assert.match(String(exposed.body.message), /spec\.serveService/);

    const listed = await answer(await call(world, ALICE, "GET", SERVICES));
    assert.equal(listed.body.kind, "RayServiceList");
    assert.equal((listed.body.items as unknown[]).length, 1);

    const onMissing = await answer(
      await call(world, ALICE, "POST", JOBS, {
        apiVersion: "ray.io/v1",
        kind: "RayJob",
        metadata: { name: "lost" },
        spec: {
          entrypoint: "python lost.py",
          clusterSelector: { "ray.io/cluster": "nowhere" },
        },
      }),
    );
    assert.equal(onMissing.status, 400, JSON.stringify(onMissing.body));
    assert.match(String(onMissing.body.message), /cluster "nowhere" not found/);

    const deleted = await answer(
      await call(world, ALICE, "DELETE", `${SERVICES}/serve`),
    );
    assert.equal(deleted.status, 200);
    assert.equal(deleted.body.status, "Success");
  });
});
