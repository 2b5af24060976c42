/**
 * deploy/: every kustomize variant renders offline with `kubectl kustomize`,
 * and the rendered objects are what the README and the Containerfile
 * promise: ports and NodePorts, probes on /healthz and /readyz, exactly the
 * least-privilege RBAC verbs per resource, a locked-down security context,
 * and for the namespaced variant a Role, a RoleBinding and `--namespaces`.
 */
import assert from "node:assert/strict";
import YAML from "yaml";

const ROOT = new URL("../", import.meta.url);

// deno-lint-ignore no-explicit-any
type Obj = Record<string, any>;

/**
 * The verbs Corral needs per "group/resource": exactly the calls
 * orchestrator/kubernetes.ts makes (its CustomObjectsPort and CoreV1Port).
 */
const LEAST_PRIVILEGE: Record<string, string[]> = {
  "ray.io/rayclusters": ["create", "delete", "get", "list"],
  "/configmaps": ["create", "delete", "get", "list"],
  "/events": ["list"],
};

const CLUSTER_SCOPED = new Set([
  "Namespace",
  "ClusterRole",
  "ClusterRoleBinding",
  "CustomResourceDefinition",
]);

async function onPath(program: string): Promise<boolean> {
  for (const dir of (Deno.env.get("PATH") ?? "").split(":")) {
    try {
      if ((await Deno.stat(`${dir}/${program}`)).isFile) return true;
    } catch {
      // not in this directory
    }
  }
  return false;
}

/** deploy/base and every overlay under deploy/overlays. */
function variants(): string[] {
  const overlays = [...Deno.readDirSync(new URL("deploy/overlays/", ROOT))]
    .filter((e) => e.isDirectory).map((e) => `deploy/overlays/${e.name}`)
    .sort();
  return ["deploy/base", ...overlays];
}

async function render(dir: string): Promise<Obj[]> {
  const output = await new Deno.Command("kubectl", {
    args: ["kustomize", dir],
    cwd: ROOT,
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(
    output.code,
    0,
    `kubectl kustomize ${dir}: ${new TextDecoder().decode(output.stderr)}`,
  );
  return YAML.parseAllDocuments(new TextDecoder().decode(output.stdout))
    .map((doc) => doc.toJS()).filter(Boolean);
}

function only(objects: Obj[], kind: string): Obj {
  const found = objects.filter((o) => o.kind === kind);
  assert.equal(found.length, 1, `exactly one ${kind}`);
  return found[0];
}

/** Rules as {"group/resource": sorted verbs}, refusing anything broader. */
function permissions(rules: Obj[]): Record<string, string[]> {
  const result: Record<string, string[]> = {};
  for (const rule of rules) {
    assert.equal(rule.nonResourceURLs, undefined, "no nonResourceURLs");
    assert.equal(rule.resourceNames, undefined, "no resourceNames");
    for (const group of rule.apiGroups) {
      for (const resource of rule.resources) {
        for (const value of [group, resource, ...rule.verbs]) {
          assert.notEqual(value, "*", "no wildcards");
        }
        const key = `${group}/${resource}`;
        result[key] = [...new Set([...(result[key] ?? []), ...rule.verbs])]
          .sort();
      }
    }
  }
  return result;
}

/** The Containerfile's USER uid and ENV DENO_DIR. */
async function imageFacts(): Promise<{ uid: number; denoDir: string }> {
  const text = await Deno.readTextFile(new URL("Containerfile", ROOT));
  const users = [...text.matchAll(/^USER\s+(\d+)/gm)];
  const denoDir = /^ENV\s+(?:.*\s)?DENO_DIR=(\S+)/m.exec(text)?.[1];
  assert.ok(users.length > 0 && denoDir, "Containerfile USER and DENO_DIR");
  return { uid: Number(users.at(-1)![1]), denoDir };
}

/** Checks shared by every variant; returns the Deployment's namespace. */
async function checkWorkload(objects: Obj[]): Promise<string> {
  const deployment = only(objects, "Deployment");
  const namespace = deployment.metadata.namespace;
  assert.ok(namespace, "the Deployment has a namespace");
  const pod = deployment.spec.template.spec;
  const podLabels = deployment.spec.template.metadata.labels;
  assert.equal(deployment.spec.replicas, 2);
  assert.deepEqual(deployment.spec.selector.matchLabels, podLabels);

  const image = await imageFacts();
  assert.equal(pod.serviceAccountName, "corral");
  assert.equal(pod.securityContext.runAsNonRoot, true);
  assert.equal(pod.securityContext.runAsUser, image.uid, "the image's uid");
  assert.deepEqual(pod.securityContext.seccompProfile, {
    type: "RuntimeDefault",
  });

  assert.equal(pod.containers.length, 1);
  const [container] = pod.containers;
  assert.deepEqual(
    container.ports.map((p: Obj) => [p.name, p.containerPort]),
    [["http", 8888], ["grpc", 8887]],
  );
  for (
    const [probe, path] of [
      ["livenessProbe", "/healthz"],
      ["readinessProbe", "/readyz"],
    ]
  ) {
    // HTTPS where the HTTP port serves TLS.
    const tls = container.env.some((e: Obj) =>
      e.name === "CORRAL_TLS_CERT_FILE"
    );
    assert.deepEqual(
      container[probe].httpGet,
      { path, port: "http", ...(tls ? { scheme: "HTTPS" } : {}) },
      `${probe} is GET ${path} on the HTTP port`,
    );
  }
  for (const kind of ["requests", "limits"]) {
    assert.ok(
      container.resources[kind]?.cpu && container.resources[kind]?.memory,
      `cpu and memory ${kind}`,
    );
  }
  assert.deepEqual(container.securityContext, {
    runAsNonRoot: true,
    allowPrivilegeEscalation: false,
    readOnlyRootFilesystem: true,
    privileged: false,
    capabilities: { drop: ["ALL"] },
  });
  const denoDir = container.env.find((e: Obj) => e.name === "DENO_DIR");
  assert.equal(denoDir?.value, image.denoDir, "DENO_DIR is the image's cache");

  const service = only(objects, "Service");
  assert.equal(service.metadata.namespace, namespace);
  assert.equal(service.spec.type, "NodePort");
  assert.deepEqual(service.spec.selector, podLabels);
  assert.deepEqual(
    service.spec.ports.map((
      p: Obj,
    ) => [p.name, p.port, p.targetPort, p.nodePort]),
    [["http", 8888, "http", 31888], ["grpc", 8887, "grpc", 31887]],
  );

  const budget = only(objects, "PodDisruptionBudget");
  assert.equal(budget.metadata.namespace, namespace);
  assert.equal(budget.spec.minAvailable, 1);
  assert.deepEqual(budget.spec.selector.matchLabels, podLabels);

  const account = only(objects, "ServiceAccount");
  assert.equal(account.metadata.name, "corral");
  assert.equal(account.metadata.namespace, namespace);
  return namespace;
}

function checkBinding(
  binding: Obj,
  roleKind: string,
  namespace: string,
): void {
  assert.deepEqual(binding.roleRef, {
    apiGroup: "rbac.authorization.k8s.io",
    kind: roleKind,
    name: "corral",
  });
  assert.deepEqual(binding.subjects, [
    { kind: "ServiceAccount", name: "corral", namespace },
  ]);
}

/** The local kustomization files' resources: no remote base to fetch. */
async function remoteResources(dir: string): Promise<string[]> {
  const kustomization = YAML.parse(
    await Deno.readTextFile(new URL(`${dir}/kustomization.yaml`, ROOT)),
  );
  const remote = (kustomization.resources ?? []).filter((r: string) =>
    /:\/\/|^github\.com\//.test(r)
  );
  for (const r of kustomization.resources ?? []) {
    if (!r.endsWith(".yaml") && !/:\/\//.test(r)) {
      remote.push(...await remoteResources(`${dir}/${r}`));
    }
  }
  return remote;
}

if (!(await onPath("kubectl"))) {
  Deno.test({
    name:
      "deploy/ renders with kubectl kustomize (ignored: kubectl is not on PATH)",
    ignore: true,
    fn() {},
  });
} else {
  Deno.test("every deploy/ variant renders offline with kubectl kustomize", async (t) => {
    assert.deepEqual(variants(), [
      "deploy/base",
      "deploy/overlays/namespaced",
      "deploy/overlays/tls",
    ]);
    for (const dir of variants()) {
      await t.step(dir, async () => {
        assert.deepEqual(await remoteResources(dir), [], "only local files");
        const objects = await render(dir);
        assert.ok(objects.length > 0);
        await checkWorkload(objects);
      });
    }
  });

  Deno.test("deploy/base: a ClusterRole with exactly the least-privilege verbs, bound to Corral", async () => {
    const objects = await render("deploy/base");
    const namespace = await checkWorkload(objects);
    const namespaceObject = only(objects, "Namespace");
    assert.equal(namespaceObject.metadata.name, namespace);
    assert.deepEqual(
      permissions(only(objects, "ClusterRole").rules),
      LEAST_PRIVILEGE,
    );
    checkBinding(only(objects, "ClusterRoleBinding"), "ClusterRole", namespace);
    assert.deepEqual(
      objects.filter((o) => o.kind === "Role" || o.kind === "RoleBinding"),
      [],
    );
    const container =
      only(objects, "Deployment").spec.template.spec.containers[0];
    assert.equal(container.args, undefined, "serves every namespace");
  });

  Deno.test("deploy/overlays/tls: the TLS Secret mounted where the image may read it, the flags pointing into it, probes over HTTPS", async () => {
    const objects = await render("deploy/overlays/tls");
    await checkWorkload(objects);
    const pod = only(objects, "Deployment").spec.template.spec;
    const [container] = pod.containers;
    const volume = (name: string) =>
      pod.volumes.find((v: Obj) => v.name === name);
    assert.equal(volume("tls").secret.secretName, "corral-tls");
    assert.equal(
      volume("tls").secret.optional,
      undefined,
      "no Secret, no start: never plaintext by accident",
    );
    assert.equal(volume("client-ca").configMap.optional, true);
    assert.equal(pod.securityContext.fsGroup, pod.securityContext.runAsGroup);
    const env = Object.fromEntries(
      container.env.map((e: Obj) => [e.name, e.value]),
    );
    const mounts = Object.fromEntries(
      container.volumeMounts.map((m: Obj) => [m.name, m.mountPath]),
    );
    assert.equal(env.CORRAL_TLS_CERT_FILE, `${mounts.tls}/tls.crt`);
    assert.equal(env.CORRAL_TLS_PRIVATE_KEY_FILE, `${mounts.tls}/tls.key`);
    // `deno task start`'s, which tests/containerfile_test.ts checks is the
    // image's.
    const denoJson = JSON.parse(
      await Deno.readTextFile(new URL("deno.json", ROOT)),
    );
    const read = /--allow-read=(\S+)/.exec(denoJson.tasks.start)![1]
      .split(",");
    for (const path of Object.values(mounts) as string[]) {
      assert.ok(
        read.some((allowed) =>
          path === allowed || path.startsWith(`${allowed}/`)
        ),
        `--allow-read reaches ${path}`,
      );
    }
  });

  Deno.test("deploy/overlays/namespaced: a Role and RoleBinding, --namespaces, nothing cluster-scoped", async () => {
    const objects = await render("deploy/overlays/namespaced");
    const namespace = await checkWorkload(objects);
    assert.deepEqual(
      objects.filter((o) => CLUSTER_SCOPED.has(o.kind)).map((o) => o.kind),
      [],
      "a namespace admin can install it",
    );
    for (const object of objects) {
      assert.equal(
        object.metadata.namespace,
        namespace,
        `${object.kind} ${object.metadata.name} is in the install namespace`,
      );
    }
    assert.deepEqual(permissions(only(objects, "Role").rules), LEAST_PRIVILEGE);
    checkBinding(only(objects, "RoleBinding"), "Role", namespace);

    const container =
      only(objects, "Deployment").spec.template.spec.containers[0];
    assert.deepEqual(container.args, ["--namespaces=$(POD_NAMESPACE)"]);
    assert.deepEqual(
      container.env.find((e: Obj) => e.name === "POD_NAMESPACE"),
      {
        name: "POD_NAMESPACE",
        valueFrom: { fieldRef: { fieldPath: "metadata.namespace" } },
      },
      "$(POD_NAMESPACE) is the pod's own namespace",
    );
  });
}
