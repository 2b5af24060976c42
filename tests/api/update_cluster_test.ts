/**
 * UpdateCluster (AIP-134) with etags (AIP-154): each updatable path, each
 * refused one, concurrent updates with one etag, validation, the RayCluster
 * written (against the real CRD), both transports alike, and who may update.
 */
import assert from "node:assert/strict";
import {
  type Corral,
  type Outcome,
  startCorral,
  TRANSPORTS,
  viaGrpc,
  viaHttp,
} from "../harness.ts";
import { RAY_CRD } from "../orchestrator/cluster_shapes.ts";
import {
  ALICE,
  bearer,
  BOB,
  CAROL,
  fileAccess,
} from "./auth/access_fixtures.ts";
import {
  allow,
  allowAll,
  groups,
  policyText,
  users,
} from "./auth/policy_fixtures.ts";

const NS = "team-a";
const CS = "proto.ClusterService";
type Json = Record<string, unknown>;

interface Worker {
  groupName: string;
  computeTemplate?: string;
  image?: string;
  replicas: number;
  minReplicas?: number;
  maxReplicas?: number;
  engineStartParams?: Record<string, string>;
  environment?: Record<string, string>;
}

const WORKERS: Worker = {
  groupName: "workers",
  computeTemplate: "small",
  replicas: 2,
  minReplicas: 0,
  maxReplicas: 4,
};

const CLUSTER = {
  name: "blue",
  namespace: NS,
  user: "ada",
  version: "2.9.0",
  clusterSpec: {
    headGroupSpec: {
      computeTemplate: "small",
      serviceType: "ClusterIP",
      environment: { HEAD_ONLY: "1" },
    },
    workerGroupSpec: [WORKERS],
  },
  envs: { SHARED: "a" },
};

async function withCluster(
  run: (corral: Corral) => Promise<void>,
  options: Parameters<typeof startCorral>[0] = {},
  call = viaHttp,
  callOptions = {},
  cluster: Json = CLUSTER,
): Promise<void> {
  const corral = await startCorral({ crds: [RAY_CRD], ...options });
  try {
    for (const name of ["small", "big"]) {
      const template = await call(
        corral,
        `proto.ComputeTemplateService/CreateComputeTemplate`,
        {
          namespace: NS,
          computeTemplate: { name, cpu: name === "big" ? 8 : 2, memory: 4 },
        },
        callOptions,
      );
      assert.equal(template.code, 0, template.message);
    }
    const created = await call(corral, `${CS}/CreateCluster`, {
      namespace: NS,
      cluster,
    }, callOptions);
    assert.equal(created.code, 0, created.message);
    await run(corral);
  } finally {
    await corral.close();
  }
}

async function rayCluster(corral: Corral, name = "blue"): Promise<Json> {
  const response = await fetch(
    `${corral.kubeUrl}/apis/ray.io/v1/namespaces/${NS}/rayclusters/${name}`,
  );
  assert.equal(response.status, 200);
  return await response.json();
}

function update(
  corral: Corral,
  cluster: Json,
  updateMask?: string,
  call = viaHttp,
): Promise<Outcome> {
  return call(corral, `${CS}/UpdateCluster`, {
    namespace: NS,
    name: "blue",
    cluster,
    ...(updateMask === undefined ? {} : { updateMask }),
  });
}

function ok(outcome: Outcome): Json {
  assert.equal(outcome.code, 0, outcome.message);
  return outcome.result!;
}

type Container = {
  name: string;
  image: string;
  env?: Json[];
  resources?: Json;
};
type Group = Json & { template: { spec: { containers: Container[] } } };

function workerGroups(object: Json): Group[] {
  return (object.spec as { workerGroupSpecs: Group[] }).workerGroupSpecs;
}

function headContainer(object: Json): Container {
  return (object.spec as { headGroupSpec: Group }).headGroupSpec.template.spec
    .containers[0];
}

function envNames(container: Container): string[] {
  return (container.env ?? []).map((e) => `${e.name}=${e.value ?? "(ref)"}`);
}

Deno.test("UpdateCluster replaces the worker groups: replicas, bounds, template, image, start parameters", async () => {
  await withCluster(async (corral) => {
    const before = await rayCluster(corral);
    const result = ok(
      await update(corral, {
        clusterSpec: {
          workerGroupSpec: [{
            ...WORKERS,
            computeTemplate: "big",
            image: "rayproject/ray:2.9.0-gpu",
            replicas: 5,
            minReplicas: 1,
            maxReplicas: 10,
            engineStartParams: { "num-cpus": "8" },
          }],
        },
      }, "clusterSpec.workerGroupSpec"),
    );
    const written = await rayCluster(corral);
    const [group] = workerGroups(written);
    assert.equal(group.replicas, 5);
    assert.equal(group.minReplicas, 1);
    assert.equal(group.maxReplicas, 10);
    assert.deepEqual(group.rayStartParams, { "num-cpus": "8" });
    const container = group.template.spec.containers[0];
    assert.equal(container.image, "rayproject/ray:2.9.0-gpu");
    assert.deepEqual(container.resources, {
      limits: { cpu: "8", memory: "4Gi" },
      requests: { cpu: "8", memory: "4Gi" },
    });
    // The cluster's envs stay in the new group's container.
    assert.ok(envNames(container).includes("SHARED=a"));
    // Labels, annotations and the head group are as they were.
    const meta = (o: Json) => o.metadata as Json;
    assert.deepEqual(meta(written).labels, meta(before).labels);
    assert.deepEqual(meta(written).annotations, meta(before).annotations);
    assert.deepEqual(
      (written.spec as Json).headGroupSpec,
      (before.spec as Json).headGroupSpec,
    );
    assert.notEqual(
      meta(written).resourceVersion,
      meta(before).resourceVersion,
    );
    assert.equal(result.etag, meta(written).resourceVersion);
    const spec = result.clusterSpec as { workerGroupSpec: Json[] };
    assert.equal(spec.workerGroupSpec[0].computeTemplate, "big");
  });
});

Deno.test("UpdateCluster adds and removes worker groups", async () => {
  await withCluster(async (corral) => {
    ok(
      await update(corral, {
        clusterSpec: {
          workerGroupSpec: [WORKERS, {
            groupName: "gpus",
            computeTemplate: "big",
            replicas: 1,
          }],
        },
      }, "clusterSpec.workerGroupSpec"),
    );
    assert.deepEqual(
      workerGroups(await rayCluster(corral)).map((g) => g.groupName),
      ["workers", "gpus"],
    );
    ok(
      await update(corral, {
        clusterSpec: {
          workerGroupSpec: [{
            groupName: "gpus",
            computeTemplate: "big",
            replicas: 1,
          }],
        },
      }, "clusterSpec.workerGroupSpec"),
    );
    assert.deepEqual(
      workerGroups(await rayCluster(corral)).map((g) => g.groupName),
      ["gpus"],
    );
    // Named in the mask and empty: every group removed.
    ok(await update(corral, {}, "clusterSpec.workerGroupSpec"));
    assert.deepEqual(workerGroups(await rayCluster(corral)), []);
  });
});

Deno.test("UpdateCluster replaces envs in every container and keeps each group's own variables", async () => {
  await withCluster(async (corral) => {
    const result = ok(
      await update(corral, { envs: { NEW: "b", OTHER: "c" } }, "envs"),
    );
    assert.deepEqual(result.envs, { NEW: "b", OTHER: "c" });
    const written = await rayCluster(corral);
    assert.deepEqual(envNames(headContainer(written)), [
      "MY_POD_IP=(ref)",
      "NEW=b",
      "OTHER=c",
      "HEAD_ONLY=1",
    ]);
    assert.deepEqual(
      envNames(workerGroups(written)[0].template.spec.containers[0]),
      ["MY_POD_IP=(ref)", "NEW=b", "OTHER=c"],
    );
    assert.equal(
      (written.metadata as { annotations: Json }).annotations["ray.io/envs"],
      JSON.stringify(["NEW", "OTHER"]),
    );
    // Read back: envs apart from the head's own environment.
    const got = ok(
      await viaHttp(corral, `${CS}/GetCluster`, {
        namespace: NS,
        name: "blue",
      }),
    );
    assert.deepEqual(got.envs, { NEW: "b", OTHER: "c" });
    const head = (got.clusterSpec as { headGroupSpec: Json }).headGroupSpec;
    assert.deepEqual(head.environment, { HEAD_ONLY: "1" });
    // Named in the mask and empty: cleared.
    ok(await update(corral, {}, "envs"));
    assert.deepEqual(envNames(headContainer(await rayCluster(corral))), [
      "MY_POD_IP=(ref)",
      "HEAD_ONLY=1",
    ]);
  });
});

Deno.test("UpdateCluster without updateMask updates the fields the cluster sets", async () => {
  await withCluster(async (corral) => {
    ok(
      await update(corral, {
        name: "blue",
        namespace: NS,
        clusterSpec: { workerGroupSpec: [{ ...WORKERS, replicas: 3 }] },
        // Output fields are ignored.
        clusterState: "failed",
      }),
    );
    const written = await rayCluster(corral);
    assert.equal(workerGroups(written)[0].replicas, 3);
    // envs were not set, so not touched.
    assert.ok(envNames(headContainer(written)).includes("SHARED=a"));
    const nothing = await update(corral, { envs: {} });
    assert.equal(nothing.code, 3);
    assert.equal(
      nothing.message,
      'Cannot update cluster "team-a/blue": updateMask: is required when the cluster sets none of "cluster_spec.worker_group_spec" and "envs" (to clear one, name it)',
    );
  });
});

Deno.test("UpdateCluster refuses every other path, naming it, and changes nothing", async (t) => {
  await withCluster(async (corral) => {
    const before = await rayCluster(corral);
    for (
      const path of [
        "name",
        "namespace",
        "user",
        "version",
        "environment",
        "clusterSpec",
        "clusterSpec.headGroupSpec",
        "clusterSpec.headGroupSpec.image",
        "clusterSpec.workerGroupSpec.replicas",
        "createdAt",
        "clusterState",
        "etag",
        "*",
      ]
    ) {
      await t.step(`updateMask=${path}`, async () => {
        for (const [transport, call] of TRANSPORTS) {
          const got = await update(corral, { envs: { A: "1" } }, path, call);
          assert.equal(got.code, 3, `${transport}: ${got.message}`);
          const proto = path.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
          assert.equal(
            got.message,
            `Cannot update cluster "team-a/blue": updateMask: path "${proto}" cannot be updated: only "cluster_spec.worker_group_spec" and "envs" can`,
            transport,
          );
        }
      });
    }
    await t.step("fields set without a mask", async () => {
      for (
        const [field, value] of [
          ["user", "eve"],
          ["version", "2.10.0"],
          ["environment", "PRODUCTION"],
        ] as const
      ) {
        const got = await update(corral, { [field]: value, envs: { A: "1" } });
        assert.equal(got.code, 3);
        assert.deepEqual(
          (got.details[0] as { fieldViolations: Json[] }).fieldViolations.map(
            (v) => v.field,
          ),
          [`cluster.${field}`],
        );
      }
    });
    await t.step(
      "a name or namespace in the body other than the path's",
      async () => {
        const got = await update(corral, {
          name: "green",
          namespace: "team-b",
          envs: { A: "1" },
        }, "envs");
        assert.equal(got.code, 3);
        assert.equal(
          got.message,
          'Cannot update cluster "team-a/blue": cluster.name: must be empty or equal the request\'s name "blue"; cluster.namespace: must be empty or equal the request\'s namespace "team-a"',
        );
      },
    );
    assert.deepEqual(await rayCluster(corral), before);
  });
});

Deno.test("UpdateCluster validates the new groups as create does, each violation with its field path", async () => {
  await withCluster(async (corral) => {
    const before = await rayCluster(corral);
    for (const [transport, call] of TRANSPORTS) {
      const got = await update(
        corral,
        {
          clusterSpec: {
            workerGroupSpec: [
              { ...WORKERS, replicas: 5, maxReplicas: 4 },
              {
                groupName: "workers",
                replicas: 1,
                engineStartParams: { "x": "$(reboot)" },
              },
              { groupName: "", replicas: 1 },
            ],
          },
          envs: { "1BAD": "x", MY_POD_IP: "y" },
        },
        "clusterSpec.workerGroupSpec,envs",
        call,
      );
      assert.equal(got.code, 3, transport);
      assert.deepEqual(
        (got.details[0] as { fieldViolations: Json[] }).fieldViolations.map(
          (v) => v.field,
        ),
        [
          'cluster.envs["1BAD"]',
          'cluster.envs["MY_POD_IP"]',
          "cluster.clusterSpec.workerGroupSpec[0].maxReplicas",
          'cluster.clusterSpec.workerGroupSpec[1].engineStartParams["x"]',
          "cluster.clusterSpec.workerGroupSpec[1].groupName",
          "cluster.clusterSpec.workerGroupSpec[2].groupName",
        ],
        `${transport}: ${got.message}`,
      );
    }
    // An envs entry the head's own environment also sets.
    const clash = await update(corral, { envs: { HEAD_ONLY: "2" } }, "envs");
    assert.equal(clash.code, 3);
    assert.match(
      clash.message,
      /cluster\.clusterSpec\.headGroupSpec\.environment\["HEAD_ONLY"\]: is also set in cluster\.envs/,
    );
    // A compute template that does not exist.
    const missing = await update(corral, {
      clusterSpec: {
        workerGroupSpec: [{ ...WORKERS, computeTemplate: "huge" }],
      },
    }, "clusterSpec.workerGroupSpec");
    assert.equal(missing.code, 9);
    assert.equal(
      missing.message,
      'Cannot update cluster "team-a/blue": compute template "huge" not found in namespace "team-a"',
    );
    assert.deepEqual(await rayCluster(corral), before);
  });
});

Deno.test("UpdateCluster with an etag: of N concurrent updates exactly one wins, the others are ABORTED (409)", async (t) => {
  await withCluster(async (corral) => {
    for (const [round, [transport, call]] of TRANSPORTS.entries()) {
      await t.step(transport, async () => {
        const got = ok(
          await call(corral, `${CS}/GetCluster`, {
            namespace: NS,
            name: "blue",
          }),
        );
        const etag = got.etag as string;
        assert.match(etag, /^\d+$/);
        const N = 8;
        const outcomes = await Promise.all(
          Array.from({ length: N }, (_, i) =>
            update(
              corral,
              {
                etag,
                clusterSpec: {
                  // Each a real change: a write that changes nothing keeps
                  // the resourceVersion, and would succeed beside the winner.
                  workerGroupSpec: [{
                    ...WORKERS,
                    replicas: 10 * (round + 1) + i,
                    maxReplicas: 40,
                  }],
                },
              },
              "clusterSpec.workerGroupSpec",
              call,
            )),
        );
        const winners = outcomes.flatMap((o, i) => o.code === 0 ? [i] : []);
        assert.equal(
          winners.length,
          1,
          outcomes.map((o) => o.message).join("\n"),
        );
        for (const [i, outcome] of outcomes.entries()) {
          if (i === winners[0]) continue;
          assert.equal(outcome.code, 10);
          assert.equal(
            outcome.message,
            `Cannot update cluster "team-a/blue": etag "${etag}" is not the cluster's current etag: get the cluster and try again`,
          );
        }
        const written = await rayCluster(corral);
        assert.equal(
          workerGroups(written)[0].replicas,
          10 * (round + 1) + winners[0],
        );
        assert.equal(
          outcomes[winners[0]].result!.etag,
          (written.metadata as Json).resourceVersion,
        );
      });
    }
  });
});

Deno.test("UpdateCluster without an etag: concurrent updates all apply, retried on conflict", async () => {
  await withCluster(async (corral) => {
    const outcomes = await Promise.all(
      Array.from(
        { length: 4 },
        (_, i) => update(corral, { envs: { [`V${i}`]: String(i) } }, "envs"),
      ),
    );
    for (const outcome of outcomes) {
      assert.equal(outcome.code, 0, outcome.message);
    }
    // Each replaced envs whole: the last write holds exactly one variable.
    const got = ok(
      await viaGrpc(corral, `${CS}/GetCluster`, {
        namespace: NS,
        name: "blue",
      }),
    );
    assert.equal(Object.keys(got.envs as Json).length, 1);
  });
});

Deno.test("UpdateCluster needs the update verb in the cluster's namespace", async () => {
  const access = await fileAccess({
    policy: policyText([
      allowAll(users("alice"), ["team-a"]),
      allow(users("carol"), ["team-a"], ["*"], [
        "get",
        "list",
        "create",
        "delete",
      ]),
      allowAll(groups("team-b"), ["team-b"]),
    ]),
  });
  try {
    await withCluster(
      async (corral) => {
        for (const [transport, call] of TRANSPORTS) {
          const send = (who: typeof ALICE) =>
            call(corral, `${CS}/UpdateCluster`, {
              namespace: NS,
              name: "blue",
              updateMask: "envs",
              cluster: { envs: { A: "1" } },
            }, { authorization: bearer(who) });
          const carol = await send(CAROL);
          assert.equal(carol.code, 7, transport);
          assert.equal(
            carol.message,
            'Cannot update cluster "team-a/blue": user "carol" may not update clusters in namespace "team-a"',
          );
          const bob = await send(BOB);
          assert.equal(bob.code, 7, transport);
          assert.equal(
            bob.message,
            'Cannot update cluster "team-a/blue": user "bob" may not update clusters in namespace "team-a"',
          );
          const anonymous = await call(corral, `${CS}/UpdateCluster`, {
            namespace: NS,
            name: "blue",
            cluster: { envs: { A: "1" } },
          });
          assert.equal(anonymous.code, 16, transport);
          assert.equal((await send(ALICE)).code, 0, transport);
        }
      },
      { access: access.access },
      viaHttp,
      { authorization: bearer(ALICE) },
      { ...CLUSTER, user: "alice" },
    );
  } finally {
    await access.close();
  }
});

Deno.test("UpdateCluster's updateMask on HTTP: the query parameter by either name, once; other parameters refused", async () => {
  await withCluster(async (corral) => {
    const patch = (query: string) =>
      corral.gateway(
        new Request(
          `http://corral.test/apis/v1alpha2/namespaces/${NS}/clusters/blue?${query}`,
          {
            method: "PATCH",
            body: JSON.stringify({ envs: { A: "1" } }),
            headers: { "content-type": "application/json" },
          },
        ),
      ).then(async (r) => ({ status: r.status, body: await r.json() }));
    for (const query of ["updateMask=envs", "update_mask=envs"]) {
      const got = await patch(query);
      assert.equal(got.status, 200, JSON.stringify(got.body));
      assert.deepEqual(got.body.envs, { A: "1" });
    }
    const twice = await patch("updateMask=envs&updateMask=envs");
    assert.equal(twice.status, 400);
    assert.equal(
      twice.body.message,
      "Invalid request: updateMask: given more than once",
    );
    const unknown = await patch("updateMask=envs&force=true");
    assert.equal(unknown.status, 400);
    assert.equal(
      unknown.body.message,
      "Invalid request: force: unknown query parameter",
    );
    // Path fields are the path's, not the query's.
    const bound = await patch("updateMask=envs&name=green");
    assert.equal(bound.status, 400);
    assert.equal(
      bound.body.message,
      "Invalid request: name: unknown query parameter",
    );
  });
});

Deno.test("UpdateCluster's updateMask on HTTP may come in the body, beside the cluster, but not in both places", async () => {
  await withCluster(async (corral) => {
    const patch = (body: Json, query = "") =>
      corral.gateway(
        new Request(
          `http://corral.test/apis/v1alpha2/namespaces/${NS}/clusters/blue${query}`,
          {
            method: "PATCH",
            body: JSON.stringify(body),
            headers: { "content-type": "application/json" },
          },
        ),
      ).then(async (r) => ({ status: r.status, body: await r.json() }));
    for (const key of ["updateMask", "update_mask"]) {
      const got = await patch({
        cluster: { envs: { B: key }, clusterSpec: { workerGroupSpec: [] } },
        [key]: "envs",
      });
      assert.equal(got.status, 200, JSON.stringify(got.body));
      assert.deepEqual(got.body.envs, { B: key });
      // Only the masked path changed: the workers are still there.
      assert.equal(
        (got.body.clusterSpec as { workerGroupSpec: unknown[] })
          .workerGroupSpec.length,
        1,
      );
    }
    const both = await patch(
      { cluster: { envs: { C: "1" } }, updateMask: "envs" },
      "?updateMask=envs",
    );
    assert.equal(both.status, 400);
    assert.equal(
      both.body.message,
      "Invalid request: updateMask: given in both the query and the body",
    );
    // Anything else beside the cluster is refused, named.
    const other = await patch({ cluster: { envs: { C: "1" } }, force: true });
    assert.equal(other.status, 400);
    assert.match(other.body.message, /force/);
  });
});
