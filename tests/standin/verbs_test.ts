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
  RFC3339_SECONDS,
  send,
  UUID,
} from "./requests.ts";
import { withStandin } from "./with_standin.ts";

// ---------------------------------------------------------------------------
// Create and read

Deno.test("stand-in POST creates a ConfigMap with uid, resourceVersion and creationTimestamp set by the server", async () => {
  await withStandin(async (standin) => {
    const answer = await create(standin, CM, {
      ...configMap("big"),
      metadata: { name: "big", uid: "client-uid", generation: 7 },
    });
    const meta = answer.body.metadata;
    assert.equal(answer.body.kind, "ConfigMap");
    assert.equal(answer.body.apiVersion, "v1");
    assert.equal(meta.namespace, "team-a", "namespace comes from the path");
    assert.match(meta.uid, UUID);
    assert.notEqual(meta.uid, "client-uid");
    assert.match(meta.resourceVersion, /^\d+$/);
    assert.match(meta.creationTimestamp, RFC3339_SECONDS);
    assert.equal(meta.generation, undefined, "built-in kinds have none");

    const got = await send(standin, "GET", `${CM}/big`);
    assert.equal(got.status, 200);
    assert.deepEqual(got.body, answer.body);
  });
});

Deno.test("stand-in POST gives a custom resource generation 1 and drops the status it was sent", async () => {
  await withStandin(async (standin) => {
    const answer = await create(
      standin,
      RC,
      rayCluster("blue", { status: { state: "ready" } }),
    );
    assert.equal(answer.body.metadata.generation, 1);
    assert.equal(answer.body.status, undefined);
  });
});

Deno.test("stand-in POST with generateName completes the name with a random suffix", async () => {
  await withStandin(async (standin) => {
    const answer = await create(standin, CM, {
      metadata: { generateName: "tmpl-" },
    });
    assert.match(
      answer.body.metadata.name,
      /^tmpl-[bcdfghjklmnpqrstvwxz2456789]{5}$/,
    );
  });
});

Deno.test("stand-in resourceVersion grows with every write, across kinds", async () => {
  await withStandin(async (standin) => {
    const versions: number[] = [];
    const a = await create(standin, CM, configMap("a"));
    versions.push(Number(a.body.metadata.resourceVersion));
    const b = await create(standin, RC, rayCluster("b"));
    versions.push(Number(b.body.metadata.resourceVersion));
    const updated = await send(standin, "PUT", `${CM}/a`, {
      ...a.body,
      data: { cpu: "4" },
    });
    versions.push(Number(updated.body.metadata.resourceVersion));
    await send(standin, "DELETE", `${RC}/b`);
    const list = await send(standin, "GET", CM);
    versions.push(Number(list.body.metadata.resourceVersion));
    for (let i = 1; i < versions.length; i++) {
      assert.ok(
        versions[i] > versions[i - 1],
        `got versions ${versions}, want strictly increasing`,
      );
    }
  });
});

Deno.test("stand-in answers a missing object with a NotFound Status naming the resource", async () => {
  await withStandin(async (standin) => {
    const core = await send(standin, "GET", `${CM}/nope`);
    assertStatus(core, {
      code: 404,
      reason: "NotFound",
      message: 'configmaps "nope" not found',
    });
    assert.deepEqual(core.body.details, { name: "nope", kind: "configmaps" });

    const custom = await send(standin, "GET", `${RC}/nope`);
    assertStatus(custom, {
      code: 404,
      reason: "NotFound",
      message: 'rayclusters.ray.io "nope" not found',
    });
    assert.deepEqual(custom.body.details, {
      name: "nope",
      group: "ray.io",
      kind: "rayclusters",
    });
  });
});

Deno.test("stand-in POST of a taken name answers AlreadyExists", async () => {
  await withStandin(async (standin) => {
    await create(standin, CM, configMap("big"));
    assertStatus(await send(standin, "POST", CM, configMap("big")), {
      code: 409,
      reason: "AlreadyExists",
      message: 'configmaps "big" already exists',
    });
    await create(standin, RC, rayCluster("blue"));
    assertStatus(await send(standin, "POST", RC, rayCluster("blue")), {
      code: 409,
      reason: "AlreadyExists",
      message: 'rayclusters.ray.io "blue" already exists',
    });
  });
});

Deno.test("stand-in POST validates names as the real server does (422 Invalid with causes)", async (t) => {
  const cases: {
    name: string;
    path: string;
    body: unknown;
    field: string;
    reason: string;
    message: RegExp;
  }[] = [
    {
      name: "an upper-case ConfigMap name",
      path: CM,
      body: configMap("Bad_Name"),
      field: "metadata.name",
      reason: "FieldValueInvalid",
      message:
        /^ConfigMap "Bad_Name" is invalid: metadata\.name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain/,
    },
    {
      name: "a RayCluster name with a slash-free but invalid dot",
      path: RC,
      body: rayCluster("a..b"),
      field: "metadata.name",
      reason: "FieldValueInvalid",
      message: /^RayCluster\.ray\.io "a\.\.b" is invalid: metadata\.name:/,
    },
    {
      name: "a name over 253 characters",
      path: CM,
      body: configMap("a".repeat(254)),
      field: "metadata.name",
      reason: "FieldValueInvalid",
      message: /must be no more than 253 characters/,
    },
    {
      name: "no name and no generateName",
      path: CM,
      body: { metadata: {} },
      field: "metadata.name",
      reason: "FieldValueRequired",
      message:
        /^ConfigMap "" is invalid: metadata\.name: Required value: name or generateName is required$/,
    },
    {
      name: "an invalid label value",
      path: RC,
      body: {
        ...rayCluster("blue"),
        metadata: { name: "blue", labels: { "ray.io/user": "not ok" } },
      },
      field: "metadata.labels",
      reason: "FieldValueInvalid",
      message: /a valid label must be an empty string/,
    },
    {
      name: "an invalid ConfigMap data key",
      path: CM,
      body: { metadata: { name: "x" }, data: { "bad key": "v" } },
      field: "data[bad key]",
      reason: "FieldValueInvalid",
      message: /a valid config key must consist of/,
    },
    {
      name: "an Event about an object of another namespace",
      path: EV,
      body: event("e", { namespace: "team-b", kind: "RayCluster", name: "x" }, {
        metadata: { name: "e" },
      }),
      field: "involvedObject.namespace",
      reason: "FieldValueInvalid",
      message: /does not match event\.namespace/,
    },
  ];
  await withStandin(async (standin) => {
    for (const c of cases) {
      await t.step(c.name, async () => {
        const answer = await send(standin, "POST", c.path, c.body);
        assertStatus(answer, {
          code: 422,
          reason: "Invalid",
          message: c.message,
        });
        const causes = answer.body.details.causes;
        assert.ok(
          causes.some((x: { field: string; reason: string }) =>
            x.field === c.field && x.reason === c.reason
          ),
          `got causes ${
            JSON.stringify(causes)
          }, want ${c.reason} on ${c.field}`,
        );
      });
    }
  });
});

Deno.test("stand-in rejects malformed requests with 400 BadRequest (never a crash)", async (t) => {
  const cases: {
    name: string;
    path: string;
    body: string;
    message: RegExp;
    code?: number;
    reason?: string;
  }[] = [
    {
      name: "invalid JSON",
      path: CM,
      body: "{not json",
      message:
        /^the object provided is unrecognized \(must be of type ConfigMap\): couldn't get version\/kind; json parse error/,
    },
    {
      name: "a JSON array",
      path: CM,
      body: "[]",
      message: /unrecognized \(must be of type ConfigMap\)/,
    },
    {
      name: "a body namespace other than the path's",
      path: CM,
      body: JSON.stringify({ metadata: { name: "x", namespace: "team-b" } }),
      message:
        /^the namespace of the provided object does not match the namespace sent on the request$/,
    },
    {
      name: "another API version",
      path: CM,
      body: JSON.stringify({ apiVersion: "apps/v1", metadata: { name: "x" } }),
      message:
        /^the API version in the data \(apps\/v1\) does not match the expected API version \(v1\)$/,
    },
    {
      name: "another kind",
      path: CM,
      body: JSON.stringify({ kind: "Secret", metadata: { name: "x" } }),
      message: /must be of type ConfigMap/,
    },
    {
      name: "a custom resource without kind",
      path: RC,
      body: JSON.stringify({
        apiVersion: "ray.io/v1",
        metadata: { name: "x" },
      }),
      message: /^Object 'Kind' is missing in/,
    },
    {
      name: "a non-string label",
      path: CM,
      body: JSON.stringify({ metadata: { name: "x", labels: { a: 1 } } }),
      message: /cannot unmarshal number/,
    },
    {
      name: "a non-string data value",
      path: CM,
      body: JSON.stringify({ metadata: { name: "x" }, data: { cpu: 2 } }),
      message: /cannot unmarshal number/,
    },
    {
      name: "a resourceVersion on create (the real server answers 500)",
      path: CM,
      body: JSON.stringify({ metadata: { name: "x", resourceVersion: "5" } }),
      code: 500,
      reason: "InternalError",
      message: /resourceVersion should not be set on objects to be created/,
    },
  ];
  await withStandin(async (standin) => {
    for (const c of cases) {
      await t.step(c.name, async () => {
        assertStatus(await send(standin, "POST", c.path, c.body), {
          code: c.code ?? 400,
          reason: c.reason ?? "BadRequest",
          message: c.message,
        });
      });
    }
    const list = await send(standin, "GET", CM);
    assert.deepEqual(list.body.items, [], "nothing malformed was stored");
  });
});

Deno.test("stand-in answers a body over the size limit with 413 RequestEntityTooLarge", async () => {
  await withStandin(async (standin) => {
    const answer = await send(standin, "POST", CM, {
      metadata: { name: "x" },
      data: { big: "x".repeat(2048) },
    });
    assertStatus(answer, {
      code: 413,
      reason: "RequestEntityTooLarge",
      message: "Request entity too large: limit is 1024",
    });
  }, { maxBodyBytes: 1024 });
});

// ---------------------------------------------------------------------------
// Update, patch, status

Deno.test("stand-in PUT replaces an object only at its current resourceVersion", async () => {
  await withStandin(async (standin) => {
    const created = await create(standin, CM, configMap("big"));
    const first = await send(standin, "PUT", `${CM}/big`, {
      ...created.body,
      data: { cpu: "4" },
    });
    assert.equal(first.status, 200, first.text);
    assert.equal(first.body.data.cpu, "4");
    assert.equal(first.body.metadata.uid, created.body.metadata.uid);
    assert.equal(
      first.body.metadata.creationTimestamp,
      created.body.metadata.creationTimestamp,
    );

    const stale = await send(standin, "PUT", `${CM}/big`, {
      ...created.body,
      data: { cpu: "8" },
    });
    assertStatus(stale, {
      code: 409,
      reason: "Conflict",
      message:
        'Operation cannot be fulfilled on configmaps "big": the object has been modified; please apply your changes to the latest version and try again',
    });

    const unconditional = await send(standin, "PUT", `${CM}/big`, {
      metadata: { name: "big" },
      data: { cpu: "16" },
    });
    assert.equal(unconditional.status, 200, "built-in kinds allow it");

    assertStatus(
      await send(standin, "PUT", `${CM}/other`, configMap("other")),
      {
        code: 404,
        reason: "NotFound",
        message: 'configmaps "other" not found',
      },
    );
    assertStatus(
      await send(standin, "PUT", `${CM}/big`, configMap("renamed")),
      {
        code: 400,
        reason: "BadRequest",
        message:
          "the name of the object (renamed) does not match the name on the URL (big)",
      },
    );
  });
});

Deno.test("stand-in PUT of a custom resource requires a resourceVersion, keeps status and bumps generation on spec changes", async () => {
  await withStandin(async (standin) => {
    const created = await create(standin, RC, rayCluster("blue"));
    const withoutVersion = rayCluster("blue");
    assertStatus(await send(standin, "PUT", `${RC}/blue`, withoutVersion), {
      code: 422,
      reason: "Invalid",
      message:
        'RayCluster.ray.io "blue" is invalid: metadata.resourceVersion: Invalid value: 0x0: must be specified for an update',
    });

    const labelled = await send(standin, "PUT", `${RC}/blue`, {
      ...created.body,
      metadata: { ...created.body.metadata, labels: { a: "b" } },
      status: { state: "ready" },
    });
    assert.equal(labelled.status, 200, labelled.text);
    assert.equal(labelled.body.metadata.generation, 1, "metadata only");
    assert.equal(labelled.body.status, undefined, "status ignored");

    const respecced = await send(standin, "PUT", `${RC}/blue`, {
      ...labelled.body,
      spec: { ...labelled.body.spec, rayVersion: "2.10.0" },
    });
    assert.equal(respecced.body.metadata.generation, 2);
  });
});

Deno.test("stand-in keeps the resourceVersion on a write that changes nothing", async () => {
  await withStandin(async (standin) => {
    const created = await create(standin, CM, configMap("big"));
    const same = await send(standin, "PUT", `${CM}/big`, created.body);
    assert.equal(same.status, 200);
    assert.equal(
      same.body.metadata.resourceVersion,
      created.body.metadata.resourceVersion,
    );
  });
});

Deno.test("stand-in status subresource changes status and nothing else", async () => {
  await withStandin(async (standin) => {
    const created = await create(standin, RC, rayCluster("blue"));
    const put = await send(standin, "PUT", `${RC}/blue/status`, {
      ...created.body,
      spec: { rayVersion: "9.9.9" },
      metadata: { ...created.body.metadata, labels: { sneaky: "yes" } },
      status: { state: "ready", endpoints: { head: "10001" } },
    });
    assert.equal(put.status, 200, put.text);
    assert.deepEqual(put.body.status, {
      state: "ready",
      endpoints: { head: "10001" },
    });
    assert.equal(put.body.spec.rayVersion, "2.9.0", "spec unchanged");
    assert.equal(put.body.metadata.labels, undefined, "labels unchanged");
    assert.equal(put.body.metadata.generation, 1, "generation unchanged");

    const patched = await send(
      standin,
      "PATCH",
      `${RC}/blue/status`,
      { status: { state: "unhealthy" } },
      "application/merge-patch+json",
    );
    assert.equal(patched.status, 200, patched.text);
    assert.deepEqual(patched.body.status, {
      state: "unhealthy",
      endpoints: { head: "10001" },
    });

    const got = await send(standin, "GET", `${RC}/blue/status`);
    assert.equal(got.body.status.state, "unhealthy");

    assertStatus(await send(standin, "GET", `${CM}/x/status`), {
      code: 404,
      reason: "NotFound",
      message: "the server could not find the requested resource",
    });
  });
});

Deno.test("stand-in PATCH applies merge patches and JSON patches", async (t) => {
  await withStandin(async (standin) => {
    const created = await create(standin, CM, {
      metadata: { name: "big", labels: { a: "1", b: "2" } },
      data: { cpu: "2", memory: "4" },
    });

    await t.step("a merge patch sets and deletes keys", async () => {
      const answer = await send(
        standin,
        "PATCH",
        `${CM}/big`,
        { metadata: { labels: { b: null, c: "3" } }, data: { cpu: "8" } },
        "application/merge-patch+json",
      );
      assert.equal(answer.status, 200, answer.text);
      assert.deepEqual(answer.body.metadata.labels, { a: "1", c: "3" });
      assert.deepEqual(answer.body.data, { cpu: "8", memory: "4" });
    });

    await t.step(
      "a strategic merge patch on a built-in kind merges",
      async () => {
        const answer = await send(
          standin,
          "PATCH",
          `${CM}/big`,
          { data: { gpu: "1" } },
          "application/strategic-merge-patch+json",
        );
        assert.equal(answer.status, 200, answer.text);
        assert.equal(answer.body.data.gpu, "1");
      },
    );

    await t.step("a JSON patch applies its operations in order", async () => {
      const answer = await send(
        standin,
        "PATCH",
        `${CM}/big`,
        [
          {
            op: "test",
            path: "/metadata/uid",
            value: created.body.metadata.uid,
          },
          { op: "replace", path: "/data/cpu", value: "16" },
          { op: "remove", path: "/data/memory" },
          { op: "add", path: "/metadata/labels/d~1e", value: "4" },
        ],
        "application/json-patch+json",
      );
      assert.equal(answer.status, 200, answer.text);
      assert.deepEqual(answer.body.data, { cpu: "16", gpu: "1" });
      assert.equal(answer.body.metadata.labels["d/e"], "4");
    });

    await t.step("a failed JSON patch test changes nothing (422)", async () => {
      const before = await send(standin, "GET", `${CM}/big`);
      const answer = await send(
        standin,
        "PATCH",
        `${CM}/big`,
        [
          { op: "replace", path: "/data/cpu", value: "32" },
          { op: "test", path: "/metadata/uid", value: "someone-else" },
        ],
        "application/json-patch+json",
      );
      assertStatus(answer, { code: 422, reason: "Invalid" });
      const after = await send(standin, "GET", `${CM}/big`);
      assert.deepEqual(after.body, before.body);
    });

    await t.step(
      "a patch carrying a stale resourceVersion conflicts",
      async () => {
        assertStatus(
          await send(
            standin,
            "PATCH",
            `${CM}/big`,
            { metadata: { resourceVersion: "1" }, data: { cpu: "1" } },
            "application/merge-patch+json",
          ),
          { code: 409, reason: "Conflict" },
        );
      },
    );

    await t.step(
      "a strategic merge patch on a custom resource is 415",
      async () => {
        await create(standin, RC, rayCluster("blue"));
        assertStatus(
          await send(
            standin,
            "PATCH",
            `${RC}/blue`,
            { spec: {} },
            "application/strategic-merge-patch+json",
          ),
          {
            code: 415,
            reason: "UnsupportedMediaType",
            message:
              "the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json",
          },
        );
      },
    );

    await t.step("a patch of a missing object is 404", async () => {
      assertStatus(
        await send(
          standin,
          "PATCH",
          `${CM}/missing`,
          { data: {} },
          "application/merge-patch+json",
        ),
        { code: 404, reason: "NotFound" },
      );
    });
  });
});

// ---------------------------------------------------------------------------
// Delete

Deno.test("stand-in DELETE answers a Success Status and honours preconditions", async () => {
  await withStandin(async (standin) => {
    const created = await create(standin, RC, rayCluster("blue"));
    const { uid, resourceVersion } = created.body.metadata;

    assertStatus(
      await send(standin, "DELETE", `${RC}/blue`, {
        preconditions: { uid: "someone-else" },
      }),
      {
        code: 409,
        reason: "Conflict",
        message:
          `Operation cannot be fulfilled on rayclusters.ray.io "blue": Precondition failed: UID in precondition: someone-else, UID in object meta: ${uid}`,
      },
    );
    assertStatus(
      await send(standin, "DELETE", `${RC}/blue`, {
        kind: "DeleteOptions",
        apiVersion: "v1",
        preconditions: { resourceVersion: "1" },
      }),
      {
        code: 409,
        reason: "Conflict",
        message:
          `Operation cannot be fulfilled on rayclusters.ray.io "blue": Precondition failed: ResourceVersion in precondition: 1, ResourceVersion in object meta: ${resourceVersion}`,
      },
    );
    assertStatus(await send(standin, "DELETE", `${RC}/blue`, "{oops"), {
      code: 400,
      reason: "BadRequest",
    });

    const deleted = await send(standin, "DELETE", `${RC}/blue`, {
      preconditions: { uid, resourceVersion },
    });
    assert.equal(deleted.status, 200, deleted.text);
    assert.deepEqual(deleted.body, {
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Success",
      details: { name: "blue", group: "ray.io", kind: "rayclusters", uid },
    });
    assertStatus(await send(standin, "GET", `${RC}/blue`), {
      code: 404,
      reason: "NotFound",
    });
    assertStatus(await send(standin, "DELETE", `${RC}/blue`), {
      code: 404,
      reason: "NotFound",
      message: 'rayclusters.ray.io "blue" not found',
    });
  });
});

Deno.test("stand-in DELETE of an object with finalizers marks it; removing the last finalizer deletes it", async () => {
  await withStandin(async (standin) => {
    await create(standin, RC, {
      ...rayCluster("blue"),
      metadata: { name: "blue", finalizers: ["ray.io/cleanup"] },
    });
    const marked = await send(standin, "DELETE", `${RC}/blue`);
    assert.equal(marked.status, 200, marked.text);
    assert.equal(marked.body.kind, "RayCluster", "the object, not a Status");
    assert.match(marked.body.metadata.deletionTimestamp, RFC3339_SECONDS);

    const still = await send(standin, "GET", `${RC}/blue`);
    assert.equal(still.status, 200);
    assert.equal(
      still.body.metadata.deletionTimestamp,
      marked.body.metadata.deletionTimestamp,
    );

    const released = await send(
      standin,
      "PATCH",
      `${RC}/blue`,
      { metadata: { finalizers: null } },
      "application/merge-patch+json",
    );
    assert.equal(released.status, 200, released.text);
    assert.equal((await send(standin, "GET", `${RC}/blue`)).status, 404);
  });
});
