import assert from "node:assert/strict";
import { hasKubectl, kubectlIn, withKubeconfig } from "./kubectl.ts";
import {
  assertStatus,
  CM,
  configMap,
  create,
  rayCluster,
  RC,
  send,
} from "./requests.ts";
import { withStandin } from "./with_standin.ts";

// ---------------------------------------------------------------------------
// Paths, methods, namespaces, discovery

Deno.test("stand-in answers unknown paths with 404 and known paths with a wrong method with 405", async (t) => {
  const cases: [method: string, path: string, code: number][] = [
    ["GET", "/nothing", 404],
    ["GET", "/api/v2/configmaps", 404],
    ["GET", "/api/v1/widgets", 404],
    ["GET", "/api/v1/configmaps/big", 404],
    ["GET", "/apis/unknown.io/v1/things", 404],
    ["GET", "/apis/ray.io/v2/rayclusters", 404],
    ["GET", `${CM}/big/extra`, 404],
    ["GET", `${RC}/blue/scale`, 404],
    ["POST", "/api/v1/configmaps", 405],
    ["POST", `${CM}/big`, 405],
    ["PUT", CM, 405],
    ["DELETE", `${RC}/blue/status`, 405],
    ["POST", "/api/v1", 405],
  ];
  await withStandin(async (standin) => {
    for (const [method, path, code] of cases) {
      await t.step(`${method} ${path}`, async () => {
        const answer = await send(standin, method, path);
        assert.equal(
          answer.status,
          code,
          `got ${answer.status} ${answer.text}`,
        );
        if (path === "/nothing") {
          assert.equal(answer.text, "404 page not found\n");
        } else {
          assertStatus(answer, {
            code,
            reason: code === 404 ? "NotFound" : "MethodNotAllowed",
          });
        }
      });
    }
  });
});

Deno.test("stand-in creates a namespace on first write unless namespaces are explicit", async () => {
  await withStandin(async (standin) => {
    await create(
      standin,
      "/api/v1/namespaces/fresh/configmaps",
      configMap("a"),
    );
    const ns = await send(standin, "GET", "/api/v1/namespaces/fresh");
    assert.equal(ns.status, 200, ns.text);
    assert.equal(ns.body.kind, "Namespace");
    assert.equal(ns.body.status.phase, "Active");
    assertStatus(
      await send(
        standin,
        "POST",
        "/api/v1/namespaces/Not_Valid/configmaps",
        configMap("a"),
      ),
      { code: 422, reason: "Invalid" },
    );
  });
  await withStandin(async (standin) => {
    assertStatus(
      await send(
        standin,
        "POST",
        "/api/v1/namespaces/fresh/configmaps",
        configMap("a"),
      ),
      {
        code: 404,
        reason: "NotFound",
        message: 'namespaces "fresh" not found',
      },
    );
    await create(standin, "/api/v1/namespaces", {
      metadata: { name: "fresh" },
    });
    await create(
      standin,
      "/api/v1/namespaces/fresh/configmaps",
      configMap("a"),
    );
  }, { implicitNamespaces: false });
});

Deno.test("stand-in deleting a namespace deletes what it holds; default may not be deleted", async () => {
  await withStandin(async (standin) => {
    await create(standin, CM, configMap("a"));
    await create(standin, RC, rayCluster("blue"));
    await create(
      standin,
      "/api/v1/namespaces/team-b/configmaps",
      configMap("b"),
    );
    const deleted = await send(standin, "DELETE", "/api/v1/namespaces/team-a");
    assert.equal(deleted.status, 200, deleted.text);
    assert.equal(deleted.body.status.phase, "Terminating");
    assert.equal((await send(standin, "GET", `${CM}/a`)).status, 404);
    assert.equal((await send(standin, "GET", `${RC}/blue`)).status, 404);
    assert.equal(
      (await send(standin, "GET", "/api/v1/namespaces/team-b/configmaps/b"))
        .status,
      200,
    );
    assertStatus(await send(standin, "DELETE", "/api/v1/namespaces/default"), {
      code: 403,
      reason: "Forbidden",
      message:
        'namespaces "default" is forbidden: this namespace may not be deleted',
    });
  });
});

Deno.test("stand-in serves RayClusters at a configured group, version and plural", async () => {
  await withStandin(async (standin) => {
    const path = "/apis/example.dev/v1beta1/namespaces/team-a/rayclusterz";
    const created = await create(standin, path, {
      ...rayCluster("blue"),
      apiVersion: "example.dev/v1beta1",
    });
    assert.equal(created.body.apiVersion, "example.dev/v1beta1");
    assertStatus(await send(standin, "GET", `${path}/nope`), {
      code: 404,
      reason: "NotFound",
      message: 'rayclusterz.example.dev "nope" not found',
    });
    assert.equal((await send(standin, "GET", RC)).status, 404);
  }, {
    rayCluster: {
      group: "example.dev",
      version: "v1beta1",
      plural: "rayclusterz",
    },
  });
});

Deno.test("stand-in discovery documents describe the served groups and resources", async () => {
  await withStandin(async (standin) => {
    const api = await send(standin, "GET", "/api");
    assert.deepEqual(api.body.versions, ["v1"]);
    const apis = await send(standin, "GET", "/apis");
    assert.deepEqual(apis.body.groups, [{
      name: "authentication.k8s.io",
      versions: [{
        groupVersion: "authentication.k8s.io/v1",
        version: "v1",
      }],
      preferredVersion: {
        groupVersion: "authentication.k8s.io/v1",
        version: "v1",
      },
    }, {
      name: "apiextensions.k8s.io",
      versions: [{
        groupVersion: "apiextensions.k8s.io/v1",
        version: "v1",
      }],
      preferredVersion: {
        groupVersion: "apiextensions.k8s.io/v1",
        version: "v1",
      },
    }, {
      // Leases, for Corral's leader election.
      name: "coordination.k8s.io",
      versions: [{
        groupVersion: "coordination.k8s.io/v1",
        version: "v1",
      }],
      preferredVersion: {
        groupVersion: "coordination.k8s.io/v1",
        version: "v1",
      },
    }, {
      // The RayJob submitter's Job.
      name: "batch",
      versions: [{ groupVersion: "batch/v1", version: "v1" }],
      preferredVersion: { groupVersion: "batch/v1", version: "v1" },
    }, {
      name: "ray.io",
      versions: [{ groupVersion: "ray.io/v1", version: "v1" }],
      preferredVersion: { groupVersion: "ray.io/v1", version: "v1" },
    }]);
    const core = await send(standin, "GET", "/api/v1");
    assert.equal(core.body.kind, "APIResourceList");
    assert.deepEqual(
      core.body.resources.map((r: { name: string; namespaced: boolean }) =>
        `${r.name}:${r.namespaced}`
      ),
      [
        "configmaps:true",
        "events:true",
        "namespaces:false",
        "pods:true",
        "pods/status:true",
        "pods/log:true",
        "serviceaccounts:true",
        "serviceaccounts/token:true",
        "services:true",
      ],
    );
    const ray = await send(standin, "GET", "/apis/ray.io/v1");
    assert.deepEqual(
      ray.body.resources.map((r: { name: string }) => r.name),
      [
        "rayclusters",
        "rayclusters/status",
        "rayjobs",
        "rayjobs/status",
        "rayservices",
        "rayservices/status",
      ],
    );
    assert.deepEqual(
      ray.body.resources.filter((r: { name: string }) => !r.name.includes("/"))
        .map((
          r: { kind: string; namespaced: boolean },
        ) => [r.kind, r.namespaced]),
      [["RayCluster", true], ["RayJob", true], ["RayService", true]],
    );
    const version = await send(standin, "GET", "/version");
    assert.equal(version.body.major, "1");
  });
});

// ---------------------------------------------------------------------------
// kubectl

Deno.test({
  name:
    "kubectl lists, shows and deletes through the kubeconfig of kubeconfigFor()",
  ignore: !hasKubectl(),
  async fn() {
    await withStandin((standin) =>
      withKubeconfig(
        standin.url,
        "corral-kubectl-",
        async (kubeconfig, dir) => {
          const kubectl = kubectlIn(kubeconfig, dir);
          await create(
            standin,
            CM,
            configMap("big", { "ray.io/config-type": "compute-template" }),
          );
          await create(standin, CM, configMap("other"));
          await create(standin, RC, rayCluster("blue"));

          const all = await kubectl("get", "configmaps", "-A");
          assert.match(all, /^NAMESPACE\s+NAME\s+AGE/m);
          assert.match(all, /^team-a\s+big\s/m);
          assert.match(all, /^team-a\s+other\s/m);

          const templates = await kubectl(
            "get",
            "configmaps",
            "-l",
            "ray.io/config-type=compute-template",
            "-o",
            "name",
          );
          assert.equal(templates.trim(), "configmap/big");

          const clusters = JSON.parse(
            await kubectl("get", "rayclusters", "-A", "-o", "json"),
          );
          assert.deepEqual(
            clusters.items.map((i: { metadata: { name: string } }) =>
              i.metadata.name
            ),
            ["blue"],
          );
          const yaml = await kubectl("get", "raycluster", "blue", "-o", "yaml");
          assert.match(yaml, /^kind: RayCluster$/m);
          assert.match(yaml, /^ {2}rayVersion: 2\.9\.0$/m);

          const deleted = await kubectl("delete", "raycluster", "blue");
          assert.match(deleted, /raycluster\.ray\.io "blue" deleted/);
          assert.equal((await send(standin, "GET", `${RC}/blue`)).status, 404);
        },
      )
    );
  },
});
