import assert from "node:assert/strict";
import { KubeConfig } from "@kubernetes/client-node";
import { Code, ServiceError } from "../../domain/errors.ts";
import type { Orchestrator } from "../../domain/ports.ts";
import {
  APP_NAME,
  COMPUTE_TEMPLATE_CONFIG_TYPE,
  type ConfigMap,
  LABEL,
  MANAGED_BY,
  type RayCluster,
} from "../../domain/resources.ts";
import {
  createKubernetesOrchestrator,
  loadKubeConfig,
} from "../../orchestrator/mod.ts";
import {
  kubeconfigFor,
  type Standin,
  type StandinOptions,
  startStandin,
} from "../../standin/mod.ts";

// ---------------------------------------------------------------------------
// Fixtures and helpers

function kubeConfigFor(url: string): KubeConfig {
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromString(kubeconfigFor(url));
  return kubeConfig;
}

async function withOrchestrator(
  fn: (orchestrator: Orchestrator, standin: Standin) => Promise<void>,
  options: {
    standin?: StandinOptions;
    group?: string;
    version?: string;
    plural?: string;
  } = {},
): Promise<void> {
  const standin = startStandin(options.standin);
  try {
    const orchestrator = createKubernetesOrchestrator({
      kubeConfig: kubeConfigFor(standin.url),
      group: options.group,
      version: options.version,
      plural: options.plural,
    });
    await fn(orchestrator, standin);
  } finally {
    await standin.close();
  }
}

/** Writes straight to the stand-in, as another client of the cluster would. */
async function put(
  standin: Standin,
  path: string,
  body: unknown,
): Promise<{ metadata: { uid: string } }> {
  const response = await fetch(`${standin.url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const answer = await response.json();
  assert.equal(response.status, 201, JSON.stringify(answer));
  return answer;
}

async function exists(standin: Standin, path: string): Promise<boolean> {
  const response = await fetch(`${standin.url}${path}`);
  await response.body?.cancel();
  return response.status === 200;
}

function managedCluster(namespace: string, name: string): RayCluster {
  return {
    apiVersion: "ray.io/v1",
    kind: "RayCluster",
    metadata: {
      name,
      namespace,
      labels: {
        [LABEL.clusterName]: name,
        [LABEL.user]: "alice",
        [LABEL.appName]: APP_NAME,
        [LABEL.managedBy]: MANAGED_BY,
      },
    },
    spec: {
      rayVersion: "2.9.0",
      headGroupSpec: {
        rayStartParams: {},
        template: {
          spec: {
            containers: [{ name: "ray-head", image: "rayproject/ray:2.9.0" }],
          },
        },
      },
    },
  };
}

function unmanagedCluster(namespace: string, name: string): RayCluster {
  const cluster = managedCluster(namespace, name);
  cluster.metadata.labels = { [LABEL.clusterName]: name };
  return cluster;
}

function template(namespace: string, name: string): ConfigMap {
  return {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: {
      name,
      namespace,
      labels: {
        [LABEL.configType]: COMPUTE_TEMPLATE_CONFIG_TYPE,
        [LABEL.computeTemplate]: name,
      },
    },
    data: {
      name,
      namespace,
      cpu: "2",
      memory: "4",
      gpu: "0",
      gpu_accelerator: "",
    },
  };
}

async function rejection(
  promise: Promise<unknown>,
): Promise<ServiceError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(
      error instanceof ServiceError,
      `got ${error}, want a ServiceError`,
    );
    return error;
  }
  assert.fail("got success, want a ServiceError");
}

async function assertRejects(
  promise: Promise<unknown>,
  want: { code: Code; message: string },
): Promise<ServiceError> {
  const error = await rejection(promise);
  assert.deepEqual(
    { code: error.code, message: error.message },
    want,
    `got ${error.code} "${error.message}", want ${want.code} "${want.message}"`,
  );
  return error;
}

const names = (items: { metadata: { namespace?: string; name: string } }[]) =>
  items.map((i) => `${i.metadata.namespace}/${i.metadata.name}`).sort();

// ---------------------------------------------------------------------------
// Clusters

Deno.test("clusters.create() stores the RayCluster and returns it with its server-set metadata", async () => {
  await withOrchestrator(async (orchestrator) => {
    const created = await orchestrator.clusters.create(
      managedCluster("team-a", "blue"),
    );
    assert.equal(created.kind, "RayCluster");
    assert.equal(created.metadata.namespace, "team-a");
    assert.match(created.metadata.uid ?? "", /^[0-9a-f-]{36}$/);
    assert.match(created.metadata.creationTimestamp ?? "", /Z$/);
    assert.equal(created.spec.rayVersion, "2.9.0");
    const got = await orchestrator.clusters.get("team-a", "blue");
    assert.deepEqual(got, created);
  });
});

Deno.test("clusters.create() of a taken name fails ALREADY_EXISTS", async () => {
  await withOrchestrator(async (orchestrator) => {
    await orchestrator.clusters.create(managedCluster("team-a", "blue"));
    await assertRejects(
      orchestrator.clusters.create(managedCluster("team-a", "blue")),
      {
        code: Code.ALREADY_EXISTS,
        message:
          'Cannot create cluster "team-a/blue": a cluster with that name already exists',
      },
    );
  });
});

Deno.test("clusters.create() of an object Kubernetes finds invalid fails INVALID_ARGUMENT with its fields", async () => {
  await withOrchestrator(async (orchestrator) => {
    const error = await rejection(
      orchestrator.clusters.create(managedCluster("team-a", "Not_Valid")),
    );
    assert.equal(error.code, Code.INVALID_ARGUMENT);
    assert.match(
      error.message,
      /^Cannot create cluster "team-a\/Not_Valid": metadata\.name: Invalid value: "Not_Valid": a lowercase RFC 1123 subdomain/,
    );
    assert.deepEqual(error.fieldViolations.map((v) => v.field), [
      "metadata.name",
    ]);
  });
});

Deno.test("clusters.create() in a namespace that does not exist fails NOT_FOUND naming it", async () => {
  await withOrchestrator(async (orchestrator) => {
    await assertRejects(
      orchestrator.clusters.create(managedCluster("nowhere", "blue")),
      {
        code: Code.NOT_FOUND,
        message:
          'Cannot create cluster "nowhere/blue": namespace "nowhere" not found',
      },
    );
  }, { standin: { implicitNamespaces: false } });
});

Deno.test("clusters.update() replaces the RayCluster at its resourceVersion; a stale one is ABORTED and changes nothing", async () => {
  await withOrchestrator(async (orchestrator) => {
    const created = await orchestrator.clusters.create(
      managedCluster("team-a", "blue"),
    );
    const changed = structuredClone(created);
    changed.spec.rayVersion = "2.10.0";
    const updated = await orchestrator.clusters.update(changed);
    assert.equal(updated.spec.rayVersion, "2.10.0");
    assert.notEqual(
      updated.metadata.resourceVersion,
      created.metadata.resourceVersion,
    );
    assert.equal(updated.metadata.generation, 2);
    // Written again at the first read's resourceVersion: too late.
    const stale = structuredClone(created);
    stale.spec.rayVersion = "2.11.0";
    await assertRejects(orchestrator.clusters.update(stale), {
      code: Code.ABORTED,
      message:
        'Cannot update cluster "team-a/blue": the cluster was changed concurrently; try again',
    });
    assert.deepEqual(
      await orchestrator.clusters.get("team-a", "blue"),
      updated,
    );
    await orchestrator.clusters.delete("team-a", "blue");
    await assertRejects(orchestrator.clusters.update(updated), {
      code: Code.NOT_FOUND,
      message: 'Cannot update cluster "team-a/blue": not found',
    });
  });
});

Deno.test("clusters.get() answers NOT_FOUND for a missing cluster and for one without the managed-by label", async () => {
  await withOrchestrator(async (orchestrator, standin) => {
    await put(
      standin,
      "/apis/ray.io/v1/namespaces/team-a/rayclusters",
      unmanagedCluster("team-a", "theirs"),
    );
    await assertRejects(orchestrator.clusters.get("team-a", "missing"), {
      code: Code.NOT_FOUND,
      message: 'Cannot get cluster "team-a/missing": not found',
    });
    await assertRejects(orchestrator.clusters.get("team-a", "theirs"), {
      code: Code.NOT_FOUND,
      message: 'Cannot get cluster "team-a/theirs": not found',
    });
  });
});

Deno.test("clusters.list() lists managed clusters of one namespace or of all, never unmanaged ones", async () => {
  await withOrchestrator(async (orchestrator, standin) => {
    await orchestrator.clusters.create(managedCluster("team-a", "blue"));
    await orchestrator.clusters.create(managedCluster("team-a", "green"));
    await orchestrator.clusters.create(managedCluster("team-b", "blue"));
    await put(
      standin,
      "/apis/ray.io/v1/namespaces/team-a/rayclusters",
      unmanagedCluster("team-a", "theirs"),
    );

    assert.deepEqual(names(await orchestrator.clusters.list("team-a")), [
      "team-a/blue",
      "team-a/green",
    ]);
    assert.deepEqual(names(await orchestrator.clusters.list()), [
      "team-a/blue",
      "team-a/green",
      "team-b/blue",
    ]);
    assert.deepEqual(await orchestrator.clusters.list("team-c"), []);
  });
});

Deno.test("clusters.delete() deletes a managed cluster and answers NOT_FOUND for missing or unmanaged ones, leaving them be", async () => {
  await withOrchestrator(async (orchestrator, standin) => {
    await orchestrator.clusters.create(managedCluster("team-a", "blue"));
    await put(
      standin,
      "/apis/ray.io/v1/namespaces/team-a/rayclusters",
      unmanagedCluster("team-a", "theirs"),
    );

    await orchestrator.clusters.delete("team-a", "blue");
    assert.equal(
      await exists(
        standin,
        "/apis/ray.io/v1/namespaces/team-a/rayclusters/blue",
      ),
      false,
    );
    await assertRejects(orchestrator.clusters.delete("team-a", "blue"), {
      code: Code.NOT_FOUND,
      message: 'Cannot delete cluster "team-a/blue": not found',
    });
    await assertRejects(orchestrator.clusters.delete("team-a", "theirs"), {
      code: Code.NOT_FOUND,
      message: 'Cannot delete cluster "team-a/theirs": not found',
    });
    assert.equal(
      await exists(
        standin,
        "/apis/ray.io/v1/namespaces/team-a/rayclusters/theirs",
      ),
      true,
    );
  });
});

Deno.test("the orchestrator uses the configured RayCluster group, version and plural", async () => {
  const coordinates = {
    group: "example.dev",
    version: "v1beta1",
    plural: "rayclusterz",
  };
  await withOrchestrator(async (orchestrator, standin) => {
    const cluster = {
      ...managedCluster("team-a", "blue"),
      apiVersion: "example.dev/v1beta1",
    };
    await orchestrator.clusters.create(cluster);
    assert.equal(
      await exists(
        standin,
        "/apis/example.dev/v1beta1/namespaces/team-a/rayclusterz/blue",
      ),
      true,
    );
    assert.deepEqual(names(await orchestrator.clusters.list()), [
      "team-a/blue",
    ]);
    await orchestrator.clusters.delete("team-a", "blue");
  }, { standin: { rayCluster: coordinates }, ...coordinates });
});

// ---------------------------------------------------------------------------
// Events

Deno.test("clusters.events() returns RayCluster events only, narrowed by namespace and name", async () => {
  await withOrchestrator(async (orchestrator, standin) => {
    const event = (
      namespace: string,
      name: string,
      kind: string,
      involved: string,
    ) =>
      put(standin, `/api/v1/namespaces/${namespace}/events`, {
        metadata: { name },
        involvedObject: {
          apiVersion: "v1",
          kind,
          namespace,
          name: involved,
          uid: `${involved}-uid`,
        },
        reason: "Created",
        message: "made",
        type: "Normal",
        count: 1,
        firstTimestamp: "2024-05-01T10:00:00Z",
        lastTimestamp: "2024-05-01T10:00:05Z",
        source: { component: "raycluster-controller" },
      });
    await event("team-a", "blue.1", "RayCluster", "blue");
    await event("team-a", "green.1", "RayCluster", "green");
    await event("team-b", "blue.2", "RayCluster", "blue");
    await event("team-a", "blue.3", "Pod", "blue");

    assert.deepEqual(
      names(await orchestrator.clusters.events("team-a", "blue")),
      [
        "team-a/blue.1",
      ],
    );
    assert.deepEqual(names(await orchestrator.clusters.events("team-a")), [
      "team-a/blue.1",
      "team-a/green.1",
    ]);
    assert.deepEqual(names(await orchestrator.clusters.events()), [
      "team-a/blue.1",
      "team-a/green.1",
      "team-b/blue.2",
    ]);
    assert.deepEqual(
      names(await orchestrator.clusters.events(undefined, "blue")),
      [
        "team-a/blue.1",
        "team-b/blue.2",
      ],
    );

    const [one] = await orchestrator.clusters.events("team-a", "blue");
    assert.equal(one.kind, "Event");
    assert.deepEqual(one.involvedObject, {
      apiVersion: "v1",
      kind: "RayCluster",
      namespace: "team-a",
      name: "blue",
      uid: "blue-uid",
    });
    assert.equal(
      one.firstTimestamp,
      "2024-05-01T10:00:00Z",
      "JSON timestamps, not Dates",
    );
    assert.equal(one.lastTimestamp, "2024-05-01T10:00:05Z");
    assert.equal(typeof one.metadata.creationTimestamp, "string");
    assert.equal(one.count, 1);
    assert.equal(one.source?.component, "raycluster-controller");
  });
});

// ---------------------------------------------------------------------------
// Compute templates

Deno.test("templates.create() stores the ConfigMap and templates.get() reads it back", async () => {
  await withOrchestrator(async (orchestrator) => {
    const created = await orchestrator.templates.create(
      template("team-a", "big"),
    );
    assert.equal(created.kind, "ConfigMap");
    assert.equal(created.apiVersion, "v1");
    assert.deepEqual(created.data, template("team-a", "big").data);
    assert.match(
      created.metadata.creationTimestamp ?? "",
      /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/,
    );
    const got = await orchestrator.templates.get("team-a", "big");
    assert.deepEqual(got, created);
  });
});

Deno.test("templates.create() of a taken name fails ALREADY_EXISTS, saying when a plain ConfigMap holds it", async () => {
  await withOrchestrator(async (orchestrator, standin) => {
    await orchestrator.templates.create(template("team-a", "big"));
    await assertRejects(
      orchestrator.templates.create(template("team-a", "big")),
      {
        code: Code.ALREADY_EXISTS,
        message:
          'Cannot create compute template "team-a/big": a compute template with that name already exists',
      },
    );
    await put(standin, "/api/v1/namespaces/team-a/configmaps", {
      metadata: { name: "settings" },
      data: { a: "b" },
    });
    await assertRejects(
      orchestrator.templates.create(template("team-a", "settings")),
      {
        code: Code.ALREADY_EXISTS,
        message:
          'Cannot create compute template "team-a/settings": a ConfigMap that is not a compute template already has that name',
      },
    );
  });
});

Deno.test("templates.get() and templates.delete() never touch a ConfigMap without the template label", async () => {
  await withOrchestrator(async (orchestrator, standin) => {
    await put(standin, "/api/v1/namespaces/team-a/configmaps", {
      metadata: { name: "settings" },
      data: { a: "b" },
    });
    await assertRejects(orchestrator.templates.get("team-a", "settings"), {
      code: Code.NOT_FOUND,
      message: 'Cannot get compute template "team-a/settings": not found',
    });
    await assertRejects(
      orchestrator.templates.delete("team-a", "settings"),
      {
        code: Code.NOT_FOUND,
        message: 'Cannot delete compute template "team-a/settings": not found',
      },
    );
    assert.equal(
      await exists(standin, "/api/v1/namespaces/team-a/configmaps/settings"),
      true,
    );
  });
});

Deno.test("templates.update() replaces the ConfigMap at its resourceVersion; a stale one is ABORTED and changes nothing", async () => {
  await withOrchestrator(async (orchestrator) => {
    const created = await orchestrator.templates.create(
      template("team-a", "big"),
    );
    const changed = structuredClone(created);
    changed.data = { ...changed.data, cpu: "4" };
    const updated = await orchestrator.templates.update(changed);
    assert.equal(updated.data?.cpu, "4");
    assert.equal(updated.kind, "ConfigMap");
    assert.notEqual(
      updated.metadata.resourceVersion,
      created.metadata.resourceVersion,
    );
    const stale = structuredClone(created);
    stale.data = { ...stale.data, cpu: "8" };
    await assertRejects(orchestrator.templates.update(stale), {
      code: Code.ABORTED,
      message:
        'Cannot update compute template "team-a/big": the compute template was changed concurrently; try again',
    });
    assert.deepEqual(
      await orchestrator.templates.get("team-a", "big"),
      updated,
    );
  });
});

Deno.test("templates.delete() deletes the template; NOT_FOUND when it is missing", async () => {
  await withOrchestrator(async (orchestrator, standin) => {
    await orchestrator.templates.create(template("team-a", "big"));
    await orchestrator.templates.delete("team-a", "big");
    assert.equal(
      await exists(standin, "/api/v1/namespaces/team-a/configmaps/big"),
      false,
    );
    await assertRejects(orchestrator.templates.delete("team-a", "big"), {
      code: Code.NOT_FOUND,
      message: 'Cannot delete compute template "team-a/big": not found',
    });
  });
});

Deno.test("templates.list() selects templates by namespace and names", async (t) => {
  await withOrchestrator(async (orchestrator, standin) => {
    await orchestrator.templates.create(template("team-a", "small"));
    await orchestrator.templates.create(template("team-a", "big"));
    await orchestrator.templates.create(template("team-b", "big"));
    await put(standin, "/api/v1/namespaces/team-a/configmaps", {
      metadata: { name: "settings" },
      data: {},
    });
    const cases: [
      name: string,
      namespace: string | undefined,
      filter: string[] | undefined,
      want: string[],
    ][] = [
      ["one namespace", "team-a", undefined, ["team-a/big", "team-a/small"]],
      ["all namespaces", undefined, undefined, [
        "team-a/big",
        "team-a/small",
        "team-b/big",
      ]],
      ["named ones", "team-a", ["big"], ["team-a/big"]],
      ["named ones everywhere", undefined, ["big", "small"], [
        "team-a/big",
        "team-a/small",
        "team-b/big",
      ]],
      ["a name with no template", "team-a", ["huge"], []],
      ["no names", "team-a", [], []],
      ["a name that cannot be a label value", "team-a", ["no way", "big"], [
        "team-a/big",
      ]],
      ["a namespace without templates", "team-c", undefined, []],
    ];
    for (const [name, namespace, filter, want] of cases) {
      await t.step(name, async () => {
        const got = names(
          await orchestrator.templates.list(namespace, { names: filter }),
        );
        assert.deepEqual(got, want, `got ${got}, want ${want}`);
      });
    }
    const [one] = await orchestrator.templates.list("team-a", {
      names: ["big"],
    });
    assert.equal(one.kind, "ConfigMap", "list items get their kind back");
    assert.equal(one.apiVersion, "v1");
  });
});

// ---------------------------------------------------------------------------
// Failures

Deno.test("every method fails UNAVAILABLE when the Kubernetes API cannot be reached", async (t) => {
  const standin = startStandin();
  const url = standin.url;
  await standin.close();
  const orchestrator = createKubernetesOrchestrator({
    kubeConfig: kubeConfigFor(url),
  });
  const calls: [string, () => Promise<unknown>][] = [
    [
      "clusters.create",
      () => orchestrator.clusters.create(managedCluster("team-a", "blue")),
    ],
    ["clusters.get", () => orchestrator.clusters.get("team-a", "blue")],
    ["clusters.list", () => orchestrator.clusters.list()],
    ["clusters.delete", () => orchestrator.clusters.delete("team-a", "blue")],
    [
      "clusters.update",
      () =>
        orchestrator.clusters.update({
          ...managedCluster("team-a", "blue"),
          metadata: { name: "blue", namespace: "team-a", resourceVersion: "1" },
        }),
    ],
    [
      "clusters.events",
      () => orchestrator.clusters.events("team-a", "blue"),
    ],
    [
      "templates.create",
      () => orchestrator.templates.create(template("team-a", "big")),
    ],
    [
      "templates.get",
      () => orchestrator.templates.get("team-a", "big"),
    ],
    [
      "templates.list",
      () => orchestrator.templates.list("team-a", { names: ["big"] }),
    ],
    [
      "templates.update",
      () =>
        orchestrator.templates.update({
          ...template("team-a", "big"),
          metadata: { name: "big", namespace: "team-a", resourceVersion: "1" },
        }),
    ],
    [
      "templates.delete",
      () => orchestrator.templates.delete("team-a", "big"),
    ],
  ];
  for (const [name, run] of calls) {
    await t.step(name, async () => {
      const error = await rejection(run());
      assert.equal(error.code, Code.UNAVAILABLE, `${name}: ${error.message}`);
      assert.match(
        error.message,
        /: Kubernetes API unavailable: connection refused$/,
      );
      assert.ok(error.cause !== undefined, "the cause is kept for the logs");
    });
  }
  await assertRejects(orchestrator.clusters.list(), {
    code: Code.UNAVAILABLE,
    message:
      "Cannot list clusters: Kubernetes API unavailable: connection refused",
  });
});

Deno.test("a call the Kubernetes API does not answer in time fails DEADLINE_EXCEEDED", async () => {
  const { promise: released, resolve: release } = Promise.withResolvers<void>();
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    async () => {
      await released;
      return new Response("{}", {
        headers: { "content-type": "application/json" },
      });
    },
  );
  try {
    const orchestrator = createKubernetesOrchestrator({
      kubeConfig: kubeConfigFor(`http://127.0.0.1:${server.addr.port}`),
      timeoutMs: 100,
    });
    await assertRejects(orchestrator.clusters.get("team-a", "blue"), {
      code: Code.DEADLINE_EXCEEDED,
      message:
        'Cannot get cluster "team-a/blue": Kubernetes API did not answer in time',
    });
  } finally {
    release();
    await server.shutdown();
  }
});

// ---------------------------------------------------------------------------
// Configuration

Deno.test("loadKubeConfig() reads a kubeconfig file and fails clearly for a missing one", async () => {
  const dir = await Deno.makeTempDir({ prefix: "corral-kubeconfig-" });
  try {
    const path = `${dir}/config`;
    await Deno.writeTextFile(
      path,
      kubeconfigFor("http://127.0.0.1:1234", "team-a"),
    );
    const kubeConfig = loadKubeConfig({ path });
    assert.equal(
      kubeConfig.getCurrentCluster()?.server,
      "http://127.0.0.1:1234",
    );
    assert.equal(
      kubeConfig.getContextObject(kubeConfig.getCurrentContext())?.namespace,
      "team-a",
    );

    assert.throws(
      () => loadKubeConfig({ path: `${dir}/missing` }),
      (error: Error) =>
        error.message.startsWith(`Cannot load kubeconfig "${dir}/missing": `),
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a kubeconfig from loadKubeConfig() drives the orchestrator against the stand-in", async () => {
  const standin = startStandin();
  const dir = await Deno.makeTempDir({ prefix: "corral-kubeconfig-" });
  try {
    const path = `${dir}/config`;
    await Deno.writeTextFile(path, kubeconfigFor(standin.url));
    const orchestrator = createKubernetesOrchestrator({
      kubeConfig: loadKubeConfig({ path }),
    });
    await orchestrator.templates.create(template("team-a", "big"));
    assert.deepEqual(names(await orchestrator.templates.list()), [
      "team-a/big",
    ]);
  } finally {
    await Deno.remove(dir, { recursive: true });
    await standin.close();
  }
});
