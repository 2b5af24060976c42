/**
 * CustomResourceDefinitions in the stand-in: the CRD API, discovery, and
 * custom objects pruned, defaulted and validated as a real API server does,
 * with the operator's real RayCluster CRD (a vendored copy in testdata);
 * what Corral writes under that CRD is tested in
 * tests/orchestrator/kuberay_crd_test.ts.
 */
import { type Answer, send } from "./requests.ts";
import assert from "node:assert/strict";
import { type Standin, startStandin } from "../../standin/mod.ts";
import { NAMESPACE, RAY_CRD } from "../orchestrator/cluster_shapes.ts";
import { hasKubectl, kubectlCommand, withKubeconfig } from "./kubectl.ts";
import { withStandin } from "./with_standin.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

const CRDS = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";
const WIDGETS = "/apis/example.dev/v1/namespaces/team-a/widgets";
const RC = `/apis/ray.io/v1/namespaces/${NAMESPACE}/rayclusters`;

/** A small CRD using the schema features the stand-in validates. */
function widgetCrd(extra: Record<string, unknown> = {}) {
  const schema = {
    type: "object",
    properties: {
      apiVersion: { type: "string" },
      kind: { type: "string" },
      metadata: { type: "object" },
      spec: {
        type: "object",
        required: ["size"],
        properties: {
          size: { type: "integer", format: "int32", minimum: 1 },
          color: { type: "string", enum: ["red", "blue"], default: "red" },
          owner: {
            type: "string",
            "x-kubernetes-validations": [{
              rule: "self == oldSelf",
              message: "owner is immutable",
            }],
          },
        },
      },
      status: {
        type: "object",
        properties: { phase: { type: "string", maxLength: 8 } },
      },
    },
  };
  return {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: "widgets.example.dev" },
    spec: {
      group: "example.dev",
      names: { kind: "Widget", plural: "widgets", shortNames: ["wg"] },
      scope: "Namespaced",
      versions: [
        {
          name: "v1beta1",
          served: true,
          storage: false,
          deprecated: true,
          schema: { openAPIV3Schema: schema },
          subresources: { status: {} },
        },
        {
          name: "v1",
          served: true,
          storage: true,
          schema: { openAPIV3Schema: schema },
          subresources: { status: {} },
        },
      ],
      ...extra,
    },
  };
}

function widget(name: string, spec: Record<string, unknown>) {
  return {
    apiVersion: "example.dev/v1",
    kind: "Widget",
    metadata: { name },
    spec,
  };
}

async function installWidgets(standin: Standin): Promise<Answer> {
  const answer = await send(standin, "POST", CRDS, widgetCrd());
  assert.equal(answer.status, 201, JSON.stringify(answer.body));
  return answer;
}

// ---------------------------------------------------------------------------
// The CRD API

Deno.test("a POSTed CustomResourceDefinition is established and serves its kind, in discovery too", async () => {
  await withStandin(async (standin) => {
    assert.equal((await send(standin, "GET", WIDGETS)).status, 404);
    const created = await installWidgets(standin);
    const conditions = created.body.status.conditions.map((
      c: Json,
    ) => `${c.type}=${c.status}`);
    assert.deepEqual(conditions, ["NamesAccepted=True", "Established=True"]);
    assert.deepEqual(created.body.status.storedVersions, ["v1"]);
    assert.equal(created.body.spec.names.listKind, "WidgetList");
    assert.equal(created.body.spec.names.singular, "widget");

    const apis = await send(standin, "GET", "/apis");
    const group = apis.body.groups.find((g: Json) => g.name === "example.dev");
    assert.deepEqual(group.versions.map((v: Json) => v.version), [
      "v1",
      "v1beta1",
    ]);
    assert.equal(group.preferredVersion.version, "v1");
    const resources = await send(standin, "GET", "/apis/example.dev/v1");
    assert.deepEqual(
      resources.body.resources.map((r: Json) => r.name),
      ["widgets", "widgets/status"],
    );
    assert.deepEqual(resources.body.resources[0].shortNames, ["wg"]);
    assert.ok(resources.body.resources[0].verbs.includes("watch"));

    const made = await send(standin, "POST", WIDGETS, widget("w", { size: 1 }));
    assert.equal(made.status, 201, JSON.stringify(made.body));
    const old = await send(
      standin,
      "GET",
      "/apis/example.dev/v1beta1/namespaces/team-a/widgets/w",
    );
    assert.equal(
      old.body.apiVersion,
      "example.dev/v1beta1",
      "versions share storage",
    );
    assert.deepEqual(old.warnings, [
      "example.dev/v1beta1 Widget is deprecated",
    ]);

    const listed = await send(standin, "GET", CRDS);
    assert.equal(listed.body.kind, "CustomResourceDefinitionList");
    assert.deepEqual(listed.body.items.map((i: Json) => i.metadata.name), [
      "widgets.example.dev",
    ]);
    const one = await send(standin, "GET", `${CRDS}/widgets.example.dev`);
    assert.equal(one.body.kind, "CustomResourceDefinition");
  });
});

Deno.test("deleting a CRD deletes its objects and its discovery entries", async () => {
  await withStandin(async (standin) => {
    await installWidgets(standin);
    await send(standin, "POST", WIDGETS, widget("w", { size: 1 }));
    const watching = await fetch(`${standin.url}${WIDGETS}?watch=true`);
    const deleted = await send(
      standin,
      "DELETE",
      `${CRDS}/widgets.example.dev`,
    );
    const events = (await watching.text()).trim().split("\n").map((line) =>
      JSON.parse(line).type
    );
    assert.deepEqual(
      events,
      ["ADDED", "DELETED"],
      "the watch ends with the kind",
    );
    assert.equal(deleted.status, 200);
    assert.equal(deleted.body.kind, "CustomResourceDefinition");
    assert.ok(deleted.body.metadata.deletionTimestamp);
    assert.equal(deleted.body.status.conditions.at(-1).type, "Terminating");
    assert.equal((await send(standin, "GET", WIDGETS)).status, 404);
    const apis = await send(standin, "GET", "/apis");
    assert.ok(!apis.body.groups.some((g: Json) => g.name === "example.dev"));
    await installWidgets(standin);
    const empty = await send(standin, "GET", WIDGETS);
    assert.deepEqual(empty.body.items, [], "the objects went with the CRD");
  });
});

Deno.test("a CRD replacing a served kind takes its schema over; deleting it brings the unvalidated kind back", async () => {
  await withStandin(async (standin) => {
    const loose = {
      apiVersion: "ray.io/v1",
      kind: "RayCluster",
      metadata: { name: "loose" },
      spec: { anything: true },
    };
    assert.equal((await send(standin, "POST", RC, loose)).status, 201);
    const crd = widgetCrd();
    crd.metadata.name = "rayclusters.ray.io";
    crd.spec.group = "ray.io";
    crd.spec.names = {
      kind: "RayCluster",
      plural: "rayclusters",
      shortNames: [],
    };
    assert.equal((await send(standin, "POST", CRDS, crd)).status, 201);
    const pruned = await send(standin, "POST", RC, {
      ...loose,
      metadata: { name: "loose-2" },
      spec: { anything: true, size: 1 },
    });
    assert.equal(pruned.status, 201, JSON.stringify(pruned.body));
    assert.deepEqual(pruned.warnings, ['unknown field "spec.anything"']);
    assert.deepEqual(pruned.body.spec, { size: 1, color: "red" });
    const stale = await send(standin, "GET", `${RC}/loose`);
    assert.deepEqual(
      stale.body.spec,
      { anything: true },
      "stored objects stay",
    );

    await send(standin, "DELETE", `${CRDS}/rayclusters.ray.io`);
    assert.deepEqual((await send(standin, "GET", RC)).body.items, []);
    const back = await send(standin, "POST", RC, loose);
    assert.equal(back.status, 201);
    assert.deepEqual(back.body.spec, { anything: true });
    assert.deepEqual(back.warnings, []);
  });
});

Deno.test("an invalid CRD is refused with 422 Invalid naming the fields", async (t) => {
  const cases: [string, Json, string[]][] = [
    [
      "a name that is not plural.group",
      { ...widgetCrd(), metadata: { name: "widgets.other.dev" } },
      ["metadata.name"],
    ],
    ["a bad scope", widgetCrd({ scope: "Global" }), ["spec.scope"]],
    [
      "two storage versions",
      widgetCrd({
        versions: widgetCrd().spec.versions.map((v: Json) => ({
          ...v,
          storage: true,
        })),
      }),
      ["spec.versions"],
    ],
    [
      "a version without a schema",
      widgetCrd({
        versions: [{ name: "v1", served: true, storage: true }],
      }),
      ["spec.versions[0].schema.openAPIV3Schema"],
    ],
    [
      "a schema that is not structural",
      widgetCrd({
        versions: [{
          name: "v1",
          served: true,
          storage: true,
          schema: {
            openAPIV3Schema: { type: "object", properties: { spec: {} } },
          },
        }],
      }),
      ["spec.versions[0].schema.openAPIV3Schema.properties[spec].type"],
    ],
  ];
  await withStandin(async (standin) => {
    for (const [name, body, fields] of cases) {
      await t.step(name, async () => {
        const answer = await send(standin, "POST", CRDS, body);
        assert.equal(answer.status, 422, JSON.stringify(answer.body));
        assert.equal(answer.body.reason, "Invalid");
        assert.match(
          answer.body.message,
          /^CustomResourceDefinition\.apiextensions\.k8s\.io ".*" is invalid: /,
        );
        assert.deepEqual(
          answer.body.details.causes.map((c: Json) => c.field),
          fields,
        );
      });
    }
  });
});

// ---------------------------------------------------------------------------
// Custom objects against a schema

Deno.test("custom objects are pruned with unknown-field warnings, defaulted and validated", async () => {
  await withStandin(async (standin) => {
    await installWidgets(standin);
    const made = await send(
      standin,
      "POST",
      WIDGETS,
      {
        ...widget("w", { size: 2, shape: "round" }),
        metadata: { name: "w", color: "x" },
        extra: 1,
      },
    );
    assert.equal(made.status, 201, JSON.stringify(made.body));
    assert.deepEqual(made.warnings, [
      'unknown field "extra"',
      'unknown field "metadata.color"',
      'unknown field "spec.shape"',
    ]);
    assert.deepEqual(made.body.spec, { size: 2, color: "red" });
    assert.equal(made.body.extra, undefined);

    const strict = await send(
      standin,
      "POST",
      `${WIDGETS}?fieldValidation=Strict`,
      widget("s", { size: 2, shape: "round", weight: 3 }),
    );
    assert.equal(strict.status, 400);
    assert.equal(
      strict.body.message,
      'Widget in version "v1" cannot be handled as a Widget: strict decoding error: unknown field "spec.shape", unknown field "spec.weight"',
    );
    const ignored = await send(
      standin,
      "POST",
      `${WIDGETS}?fieldValidation=Ignore`,
      widget("i", { size: 2, shape: "round" }),
    );
    assert.equal(ignored.status, 201);
    assert.deepEqual(ignored.warnings, []);

    const invalid = await send(
      standin,
      "POST",
      WIDGETS,
      widget("bad", { size: 0, color: "green" }),
    );
    assert.equal(invalid.status, 422);
    assert.deepEqual(invalid.body, {
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message:
        'Widget.example.dev "bad" is invalid: [spec.size: Invalid value: 0: spec.size in body should be greater than or equal to 1, spec.color: Unsupported value: "green": supported values: "red", "blue"]',
      reason: "Invalid",
      details: {
        name: "bad",
        group: "example.dev",
        kind: "Widget",
        causes: [
          {
            reason: "FieldValueInvalid",
            message:
              "Invalid value: 0: spec.size in body should be greater than or equal to 1",
            field: "spec.size",
          },
          {
            reason: "FieldValueNotSupported",
            message:
              'Unsupported value: "green": supported values: "red", "blue"',
            field: "spec.color",
          },
        ],
      },
      code: 422,
    });
    const missing = await send(standin, "POST", WIDGETS, widget("m", {}));
    assert.equal(
      missing.body.message,
      'Widget.example.dev "m" is invalid: spec.size: Required value',
    );
  });
});

Deno.test("updates, patches and status writes are validated too; unchanged invalid values are ratcheted", async () => {
  await withStandin(async (standin) => {
    await installWidgets(standin);
    const made = await send(
      standin,
      "POST",
      WIDGETS,
      widget("w", { size: 2, owner: "ops" }),
    );
    const put = await send(standin, "PUT", `${WIDGETS}/w`, {
      ...made.body,
      spec: { size: -1, owner: "dev" },
    });
    assert.equal(put.status, 422);
    assert.deepEqual(put.body.details.causes.map((c: Json) => c.message), [
      "Invalid value: -1: spec.size in body should be greater than or equal to 1",
      'Invalid value: "string": owner is immutable',
    ]);
    const patched = await send(
      standin,
      "PATCH",
      `${WIDGETS}/w`,
      { spec: { size: 5, color: null, bogus: 1 } },
      "application/merge-patch+json",
    );
    assert.equal(patched.status, 200, JSON.stringify(patched.body));
    assert.deepEqual(patched.warnings, ['unknown field "spec.bogus"']);
    assert.deepEqual(patched.body.spec, {
      size: 5,
      owner: "ops",
      color: "red",
    });
    const status = await send(standin, "PUT", `${WIDGETS}/w/status`, {
      ...patched.body,
      status: { phase: "much-too-long" },
    });
    assert.equal(status.status, 422);
    assert.equal(status.body.details.causes[0].field, "status.phase");
  });
  // An object stored before its CRD stays writable where it did not change.
  await withStandin(async (standin) => {
    const made = await send(standin, "POST", WIDGETS, widget("w", { size: 0 }));
    assert.equal(made.status, 201);
    await installWidgets(standin);
    const status = await send(standin, "PUT", `${WIDGETS}/w/status`, {
      ...made.body,
      status: { phase: "ok" },
    });
    assert.equal(status.status, 200, JSON.stringify(status.body));
  }, {
    resources: [{
      group: "example.dev",
      version: "v1",
      kind: "Widget",
      plural: "widgets",
      singular: "widget",
      namespaced: true,
      custom: true,
      subresources: ["status"],
    }, {
      group: "apiextensions.k8s.io",
      version: "v1",
      kind: "CustomResourceDefinition",
      plural: "customresourcedefinitions",
      singular: "customresourcedefinition",
      namespaced: false,
    }],
  });
});

// ---------------------------------------------------------------------------
// The crds option

Deno.test("the crds option installs every CRD of YAML and JSON files", async () => {
  const dir = await Deno.makeTempDir({ prefix: "corral-crds-" });
  try {
    const gadgets = widgetCrd();
    gadgets.metadata.name = "gadgets.example.dev";
    gadgets.spec.names = { kind: "Gadget", plural: "gadgets", shortNames: [] };
    const yaml = `---\n# two documents\n${
      JSON.stringify(widgetCrd())
    }\n---\n---\n${JSON.stringify(gadgets)}\n`;
    await Deno.writeTextFile(`${dir}/two.yaml`, yaml);
    await Deno.writeTextFile(
      `${dir}/list.json`,
      JSON.stringify({ apiVersion: "v1", kind: "List", items: [] }),
    );
    await withStandin(async (standin) => {
      const listed = await send(standin, "GET", CRDS);
      assert.deepEqual(
        listed.body.items.map((i: Json) => i.metadata.name).sort(),
        ["gadgets.example.dev", "rayclusters.ray.io", "widgets.example.dev"],
      );
      const gadget = await send(
        standin,
        "POST",
        "/apis/example.dev/v1/namespaces/team-a/gadgets",
        { ...widget("g", { size: 1 }), kind: "Gadget" },
      );
      assert.equal(gadget.status, 201, JSON.stringify(gadget.body));
    }, { crds: [RAY_CRD, `${dir}/two.yaml`] });

    await Deno.writeTextFile(
      `${dir}/cm.yaml`,
      "apiVersion: v1\nkind: ConfigMap\n",
    );
    await Deno.writeTextFile(`${dir}/broken.yaml`, "a: [\n");
    await Deno.writeTextFile(
      `${dir}/twice.yaml`,
      `${JSON.stringify(widgetCrd())}\n---\n${JSON.stringify(widgetCrd())}`,
    );
    const failures: [string, RegExp][] = [
      [
        `${dir}/missing.yaml`,
        /^Cannot read CRD file ".*missing\.yaml": no such file$/,
      ],
      [
        `${dir}/cm.yaml`,
        /^Cannot install CRDs from ".*cm\.yaml": document 1 is a ConfigMap \(v1\), not an apiextensions\.k8s\.io\/v1 CustomResourceDefinition$/,
      ],
      [`${dir}/broken.yaml`, /^Cannot parse CRD file ".*broken\.yaml": /],
      [
        `${dir}/list.json`,
        /^Cannot install CRDs from ".*list\.json": the file holds no documents$/,
      ],
      [
        `${dir}/twice.yaml`,
        /^Cannot install CRDs from ".*twice\.yaml": document 2: customresourcedefinitions\.apiextensions\.k8s\.io "widgets\.example\.dev" already exists$/,
      ],
    ];
    for (const [path, message] of failures) {
      assert.throws(() => startStandin({ crds: [path] }), { message });
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

// ---------------------------------------------------------------------------
// kubectl

Deno.test({
  name:
    "kubectl create, apply and explain use the CRD: strict field validation, the real error messages",
  ignore: !hasKubectl(),
  async fn() {
    await withStandin(
      (standin) =>
        withKubeconfig(
          standin.url,
          "corral-kubectl-crd-",
          async (kubeconfig, dir) => {
            const kubectl = async (stdin: string, ...args: string[]) => {
              const child = kubectlCommand(kubeconfig, dir, args, {
                stdin: "piped",
                stdout: "piped",
                stderr: "piped",
              }).spawn();
              const writer = child.stdin.getWriter();
              await writer.write(new TextEncoder().encode(stdin));
              await writer.close();
              const output = await child.output();
              const decode = (b: Uint8Array) => new TextDecoder().decode(b);
              return {
                success: output.success,
                stdout: decode(output.stdout),
                stderr: decode(output.stderr),
              };
            };
            const cluster = (name: string, spec: Record<string, unknown>) =>
              JSON.stringify({
                apiVersion: "ray.io/v1",
                kind: "RayCluster",
                metadata: { name },
                spec: {
                  rayVersion: "2.9.0",
                  headGroupSpec: {
                    rayStartParams: {},
                    template: {
                      spec: {
                        containers: [{ name: "ray-head", image: "ray" }],
                      },
                    },
                  },
                  ...spec,
                },
              });

            const created = await kubectl(
              cluster("blue", {}),
              "create",
              "-f",
              "-",
            );
            assert.ok(created.success, created.stderr);
            assert.match(created.stdout, /raycluster\.ray\.io\/blue created/);

            const unknown = await kubectl(
              cluster("red", { bogus: 1 }),
              "create",
              "-f",
              "-",
            );
            assert.ok(!unknown.success);
            assert.match(
              unknown.stderr,
              /Error from server \(BadRequest\): error when creating "STDIN": RayCluster in version "v1" cannot be handled as a RayCluster: strict decoding error: unknown field "spec\.bogus"/,
            );

            const invalid = await kubectl(
              cluster("green", { rayVersion: 5 }),
              "create",
              "-f",
              "-",
            );
            assert.ok(!invalid.success);
            assert.match(
              invalid.stderr,
              /The RayCluster "green" is invalid: spec\.rayVersion: Invalid value: "integer": spec\.rayVersion in body must be of type string: "integer"/,
            );

            const applied = await kubectl(
              cluster("blue", { enableInTreeAutoscaling: true }),
              "apply",
              "-f",
              "-",
            );
            assert.ok(applied.success, applied.stderr);
            assert.match(
              applied.stdout,
              /raycluster\.ray\.io\/blue configured/,
            );

            const explained = await kubectl(
              "",
              "explain",
              "rayclusters.spec.workerGroupSpecs.replicas",
            );
            assert.ok(explained.success, explained.stderr);
            assert.match(explained.stdout, /FIELD: replicas <integer>/);

            const crds = await kubectl("", "get", "crd", "-o", "name");
            assert.equal(
              crds.stdout.trim(),
              "customresourcedefinition.apiextensions.k8s.io/rayclusters.ray.io",
            );
          },
        ),
      { crds: [RAY_CRD] },
    );
  },
});
