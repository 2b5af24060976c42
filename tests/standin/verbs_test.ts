import assert from "node:assert/strict";
import type { Standin } from "../../standin/server.ts";
import { hasKubectl, kubectlIn, withKubeconfig } from "./kubectl.ts";
import { withStandin } from "./with_standin.ts";

// ---------------------------------------------------------------------------
// Helpers

interface Answer {
  status: number;
  // deno-lint-ignore no-explicit-any
  body: any;
  text: string;
}

async function send(
  standin: Standin,
  method: string,
  path: string,
  body?: unknown,
  contentType = "application/json",
): Promise<Answer> {
  const response = await fetch(`${standin.url}${path}`, {
    method,
    headers: body === undefined ? {} : { "content-type": contentType },
    body: body === undefined
      ? undefined
      : typeof body === "string"
      ? body
      : JSON.stringify(body),
  });
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  return { status: response.status, body: parsed, text };
}

const CM = "/api/v1/namespaces/team-a/configmaps";
const RC = "/apis/ray.io/v1/namespaces/team-a/rayclusters";
const EV = "/api/v1/namespaces/team-a/events";

function configMap(name: string, labels?: Record<string, string>) {
  return {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name, ...(labels ? { labels } : {}) },
    data: { cpu: "2" },
  };
}

function rayCluster(name: string, extra: Record<string, unknown> = {}) {
  return {
    apiVersion: "ray.io/v1",
    kind: "RayCluster",
    metadata: { name },
    spec: { rayVersion: "2.9.0", headGroupSpec: { rayStartParams: {} } },
    ...extra,
  };
}

function event(
  name: string,
  involved: Record<string, string>,
  extra: Record<string, unknown> = {},
) {
  return {
    apiVersion: "v1",
    kind: "Event",
    metadata: { name, namespace: involved.namespace ?? "team-a" },
    involvedObject: { namespace: "team-a", ...involved },
    reason: "CreatedHeadPod",
    type: "Normal",
    ...extra,
  };
}

async function create(
  standin: Standin,
  path: string,
  body: unknown,
): Promise<Answer> {
  const answer = await send(standin, "POST", path, body);
  assert.equal(answer.status, 201, `create at ${path}: ${answer.text}`);
  return answer;
}

function assertStatus(
  answer: Answer,
  want: { code: number; reason: string; message?: string | RegExp },
): void {
  assert.equal(answer.status, want.code, `status code, body: ${answer.text}`);
  assert.equal(answer.body?.kind, "Status", `kind, body: ${answer.text}`);
  assert.equal(answer.body.apiVersion, "v1");
  assert.equal(answer.body.status, "Failure");
  assert.equal(answer.body.code, want.code, "Status.code");
  assert.equal(answer.body.reason, want.reason, "Status.reason");
  if (typeof want.message === "string") {
    assert.equal(answer.body.message, want.message, "Status.message");
  } else if (want.message) {
    assert.match(answer.body.message, want.message, "Status.message");
  }
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const RFC3339_SECONDS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/;

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
      ["configmaps:true", "events:true", "namespaces:false"],
    );
    const ray = await send(standin, "GET", "/apis/ray.io/v1");
    assert.deepEqual(
      ray.body.resources.map((r: { name: string }) => r.name),
      ["rayclusters", "rayclusters/status"],
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
