import assert from "node:assert/strict";
import {
  assertStatus,
  CM,
  configMap,
  create,
  EV,
  event,
  rayCluster,
  RC,
  send,
} from "./requests.ts";
import { withStandin } from "./with_standin.ts";

// ---------------------------------------------------------------------------
// Lists and selectors

Deno.test("stand-in lists carry kind, apiVersion and resourceVersion; built-in items omit their type", async () => {
  await withStandin(async (standin) => {
    await create(standin, CM, configMap("a"));
    await create(
      standin,
      "/api/v1/namespaces/team-b/configmaps",
      configMap("b"),
    );
    await create(standin, RC, rayCluster("blue"));

    const all = await send(standin, "GET", "/api/v1/configmaps");
    assert.equal(all.body.kind, "ConfigMapList");
    assert.equal(all.body.apiVersion, "v1");
    assert.match(all.body.metadata.resourceVersion, /^\d+$/);
    assert.deepEqual(
      all.body.items.map((
        i: { metadata: { namespace: string; name: string } },
      ) => `${i.metadata.namespace}/${i.metadata.name}`),
      ["team-a/a", "team-b/b"],
    );
    assert.equal(all.body.items[0].kind, undefined);

    const one = await send(standin, "GET", CM);
    assert.deepEqual(
      one.body.items.map((i: { metadata: { name: string } }) =>
        i.metadata.name
      ),
      ["a"],
    );

    const clusters = await send(standin, "GET", "/apis/ray.io/v1/rayclusters");
    assert.equal(clusters.body.kind, "RayClusterList");
    assert.equal(clusters.body.apiVersion, "ray.io/v1");
    assert.equal(clusters.body.items[0].kind, "RayCluster");
    assert.equal(clusters.body.items[0].apiVersion, "ray.io/v1");
  });
});

Deno.test("stand-in limit and continue page through a list", async () => {
  await withStandin(async (standin) => {
    for (const name of ["a", "b", "c", "d", "e"]) {
      await create(standin, CM, configMap(name));
    }
    const names: string[] = [];
    let token = "";
    for (let pages = 0; pages < 10; pages++) {
      const answer = await send(
        standin,
        "GET",
        `${CM}?limit=2${token ? `&continue=${encodeURIComponent(token)}` : ""}`,
      );
      assert.ok(answer.body.items.length <= 2);
      names.push(
        ...answer.body.items.map((i: { metadata: { name: string } }) =>
          i.metadata.name
        ),
      );
      token = answer.body.metadata.continue ?? "";
      if (!token) break;
      assert.equal(
        answer.body.metadata.remainingItemCount,
        5 - names.length,
      );
    }
    assert.deepEqual(names, ["a", "b", "c", "d", "e"]);
    assertStatus(await send(standin, "GET", `${CM}?continue=garbage`), {
      code: 400,
      reason: "BadRequest",
    });
  });
});

Deno.test("stand-in label selectors select as Kubernetes does", async (t) => {
  const objects: Record<string, Record<string, string>> = {
    web: { app: "web", tier: "front", size: "3" },
    db: { app: "db", tier: "back", size: "10" },
    cache: { app: "cache", tier: "back" },
    bare: {},
  };
  const cases: [selector: string, want: string[]][] = [
    ["", ["bare", "cache", "db", "web"]],
    ["app=web", ["web"]],
    ["app==web", ["web"]],
    ["app!=web", ["bare", "cache", "db"]],
    ["tier=back,app!=db", ["cache"]],
    ["app in (web,db)", ["db", "web"]],
    ["app notin (web,db)", ["bare", "cache"]],
    ["tier", ["cache", "db", "web"]],
    ["!tier", ["bare"]],
    ["size>5", ["db"]],
    ["size<5", ["web"]],
    [" app = web , tier ", ["web"]],
    ["app in (web, cache), !size", ["cache"]],
    // An empty value is valid: it matches an empty (not a missing) label.
    ["app=", []],
    ["app!=", ["bare", "cache", "db", "web"]],
  ];
  await withStandin(async (standin) => {
    for (const [name, labels] of Object.entries(objects)) {
      await create(standin, CM, {
        metadata: { name, labels },
      });
    }
    for (const [selector, want] of cases) {
      await t.step(`"${selector}"`, async () => {
        const answer = await send(
          standin,
          "GET",
          `${CM}?labelSelector=${encodeURIComponent(selector)}`,
        );
        assert.equal(answer.status, 200, answer.text);
        const got = answer.body.items.map((i: { metadata: { name: string } }) =>
          i.metadata.name
        );
        assert.deepEqual(got, want, `got ${got}, want ${want}`);
      });
    }
  });
});

Deno.test("stand-in answers malformed label selectors with 400 BadRequest", async (t) => {
  const cases = [
    "app in web",
    "app in (web",
    "=web",
    "app,",
    "!app=web",
    "bad key=1",
    "app=not ok",
    "size>abc",
  ];
  await withStandin(async (standin) => {
    for (const selector of cases) {
      await t.step(`"${selector}"`, async () => {
        const answer = await send(
          standin,
          "GET",
          `${CM}?labelSelector=${encodeURIComponent(selector)}`,
        );
        assertStatus(answer, { code: 400, reason: "BadRequest" });
      });
    }
  });
});

Deno.test("stand-in field selectors select Events by involvedObject, reason and type", async (t) => {
  const events = [
    event("blue-1", { kind: "RayCluster", name: "blue", uid: "u1" }),
    event("blue-2", { kind: "RayCluster", name: "blue", uid: "u0" }, {
      reason: "DeletedHeadPod",
    }),
    event("green-1", { kind: "RayCluster", name: "green", uid: "u2" }, {
      type: "Warning",
    }),
    event("pod-1", { kind: "Pod", name: "blue", uid: "u3" }),
  ];
  const cases: [selector: string, want: string[]][] = [
    ["involvedObject.kind=RayCluster", ["blue-1", "blue-2", "green-1"]],
    ["involvedObject.kind=RayCluster,involvedObject.name=blue", [
      "blue-1",
      "blue-2",
    ]],
    ["involvedObject.name==blue,involvedObject.kind!=RayCluster", ["pod-1"]],
    ["involvedObject.uid=u1", ["blue-1"]],
    ["involvedObject.namespace=team-a,type=Warning", ["green-1"]],
    ["reason=DeletedHeadPod", ["blue-2"]],
    ["source=raycluster-controller", ["blue-1"]],
    ["metadata.name=pod-1", ["pod-1"]],
    ["metadata.namespace=team-b", []],
  ];
  await withStandin(async (standin) => {
    for (const e of events) {
      const body = e.metadata.name === "blue-1"
        ? { ...e, source: { component: "raycluster-controller" } }
        : e;
      await create(standin, EV, body);
    }
    for (const [selector, want] of cases) {
      await t.step(`"${selector}"`, async () => {
        const answer = await send(
          standin,
          "GET",
          `/api/v1/events?fieldSelector=${encodeURIComponent(selector)}`,
        );
        assert.equal(answer.status, 200, answer.text);
        const got = answer.body.items.map((i: { metadata: { name: string } }) =>
          i.metadata.name
        );
        assert.deepEqual(got, want, `got ${got}, want ${want}`);
      });
    }
  });
});

Deno.test("stand-in answers unsupported or malformed field selectors as the real server does", async (t) => {
  const cases: [path: string, selector: string, message: string][] = [
    [
      CM,
      "data.cpu=2",
      '"data.cpu" is not a known field selector: only "metadata.name", "metadata.namespace"',
    ],
    [
      RC,
      "status.state=ready",
      '"status.state" is not a known field selector: only "metadata.name", "metadata.namespace"',
    ],
    [EV, "message=hi", "field label not supported: message"],
    [
      "/api/v1/namespaces",
      "metadata.namespace=x",
      "field label not supported: metadata.namespace",
    ],
    [
      CM,
      "metadata.name",
      "invalid selector: 'metadata.name'; can't understand 'metadata.name'",
    ],
  ];
  await withStandin(async (standin) => {
    for (const [path, selector, message] of cases) {
      await t.step(`${path} "${selector}"`, async () => {
        assertStatus(
          await send(
            standin,
            "GET",
            `${path}?fieldSelector=${encodeURIComponent(selector)}`,
          ),
          { code: 400, reason: "BadRequest", message },
        );
      });
    }
    const byName = await send(
      standin,
      "GET",
      `${CM}?fieldSelector=metadata.name%3Dnone`,
    );
    assert.equal(byName.status, 200, "supported labels are accepted");
  });
});
