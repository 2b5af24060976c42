/**
 * deploy/: every kustomize variant renders offline with `kubectl kustomize`,
 * and the rendered objects are what the README and the Containerfile
 * promise: ports and NodePorts, probes on /healthz and /readyz, exactly the
 * least-privilege RBAC verbs per resource, a locked-down security context,
 * and for the namespaced variant a Role, a RoleBinding and `--namespaces`.
 * Every variant is secure by default (an authenticator, a policy, never
 * anonymous), its command line is one Corral accepts, and every file a flag
 * names is on a mounted volume the image may read.
 */
import assert from "node:assert/strict";
import YAML from "yaml";
import { parsePolicy } from "../api/auth/policy.ts";
import { parseSettings } from "../settings.ts";

const ROOT = new URL("../", import.meta.url);

// deno-lint-ignore no-explicit-any
type Obj = Record<string, any>;

/**
 * The verbs Corral needs per "group/resource": exactly the calls
 * orchestrator/kubernetes.ts makes (its CustomObjectsPort and CoreV1Port),
 * and the list and watch of the cache (orchestrator/cache.ts).
 */
const LEAST_PRIVILEGE: Record<string, string[]> = {
  "ray.io/rayclusters": ["create", "delete", "get", "list", "update", "watch"],
  "/configmaps": ["create", "delete", "get", "list", "watch"],
  "/events": ["list", "watch"],
  // The dashboard proxy through the API server (--cluster-access).
  "/services/proxy": ["create", "delete", "get"],
};

/** What --authentication-token-review needs, cluster-wide in every variant. */
const TOKEN_REVIEW: Record<string, string[]> = {
  "authentication.k8s.io/tokenreviews": ["create"],
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

function named(objects: Obj[], kind: string, name: string): Obj {
  const found = objects.filter((o) =>
    o.kind === kind && o.metadata.name === name
  );
  assert.equal(found.length, 1, `exactly one ${kind} ${name}`);
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
  await checkSecurity(objects, namespace);
  return namespace;
}

/** `--flag=value` and `--flag value` as [flag, value] pairs. */
function flagsOf(args: string[]): [string, string][] {
  const pairs: [string, string][] = [];
  for (let i = 0; i < args.length; i++) {
    const match = /^--([^=]+)(?:=(.*))?$/s.exec(args[i]);
    assert.ok(match, `args[${i}] ${args[i]} is a flag`);
    const value = match[2] ??
      (args[i + 1]?.startsWith("--") === false ? args[++i] : "true");
    pairs.push([match[1], value]);
  }
  return pairs;
}

/**
 * Secure by default, in every variant: the command line (args, and the
 * CORRAL_ variables, with the pod's own namespace for $(POD_NAMESPACE)) is
 * one Corral accepts in Kubernetes mode, with an authenticator, a policy,
 * no anonymous access and the audit trail on standard error; every file
 * flag names a file on a mounted volume under --allow-read; the token file
 * and the policy are never optional; the policy ConfigMap holds a policy
 * Corral accepts; every binding names a role the variant has.
 */
async function checkSecurity(objects: Obj[], namespace: string): Promise<void> {
  const pod = only(objects, "Deployment").spec.template.spec;
  const [container] = pod.containers;
  const expand = (value: string) =>
    value.replaceAll("$(POD_NAMESPACE)", namespace);
  const args: string[] = (container.args ?? []).map(expand);
  const env: Record<string, string> = Object.fromEntries(
    container.env.filter((e: Obj) => e.name.startsWith("CORRAL_")).map((
      e: Obj,
    ) => [e.name, expand(e.value)]),
  );
  const invocation = parseSettings(
    ["--orchestrator", "kubernetes", ...args],
    env,
  );
  assert.equal(
    invocation.kind,
    "run",
    `Corral accepts the command line: ${JSON.stringify(invocation)}`,
  );

  const flags = [
    ...flagsOf(args),
    ...Object.entries(env).map(([name, value]): [string, string] => [
      name.replace(/^CORRAL_/, "").toLowerCase().replaceAll("_", "-"),
      value,
    ]),
  ];
  const given = (flag: string) =>
    flags.filter(([f]) => f === flag).map(([, v]) => v);
  assert.deepEqual(given("token-auth-file"), ["/etc/corral/auth/tokens.csv"]);
  assert.deepEqual(given("authentication-token-review"), ["true"]);
  assert.deepEqual(given("authorization-policy-file"), [
    "/etc/corral/policy/policy.yaml",
  ]);
  assert.deepEqual(given("allow-anonymous"), [], "never anonymous");
  assert.deepEqual(given("audit-log-path"), [], "the audit trail on stderr");

  // `deno task start`'s, which tests/containerfile_test.ts checks is the
  // image's.
  const denoJson = JSON.parse(
    await Deno.readTextFile(new URL("deno.json", ROOT)),
  );
  const readable = /--allow-read=(\S+)/.exec(denoJson.tasks.start)![1]
    .split(",");
  const within = (path: string, dir: string) =>
    path === dir || path.startsWith(`${dir.replace(/\/$/, "")}/`);
  const mounts: Obj[] = container.volumeMounts ?? [];
  const volumes = new Map<string, Obj>(
    (pod.volumes ?? []).map((v: Obj) => [v.name, v]),
  );
  for (const mount of mounts) {
    assert.ok(volumes.has(mount.name), `volume ${mount.name} exists`);
    assert.equal(mount.readOnly, true, `${mount.mountPath} is read-only`);
    assert.ok(
      readable.some((dir) => within(mount.mountPath, dir)),
      `--allow-read reaches ${mount.mountPath}`,
    );
  }
  for (const [flag, path] of flags) {
    if (!flag.endsWith("-file")) continue;
    const mount = mounts.find((m) => within(path, m.mountPath));
    assert.ok(mount, `--${flag}=${path} is on a mounted volume`);
    // A volume that lists its items provides those files only.
    const source = volumes.get(mount.name)!;
    const items: Obj[] | undefined = (source.secret ?? source.configMap)?.items;
    if (items) {
      assert.ok(
        items.some((item) => `${mount.mountPath}/${item.path}` === path),
        `volume ${mount.name} provides ${path}`,
      );
    }
  }

  const tokens = volumes.get("tokens")?.secret;
  assert.equal(tokens?.secretName, "corral-tokens");
  assert.equal(tokens.optional, false, "no token file, no start");
  const policyVolume = volumes.get("policy")?.configMap;
  assert.equal(policyVolume?.name, "corral-policy");
  assert.equal(policyVolume.optional, false);
  const policy = named(objects, "ConfigMap", "corral-policy");
  assert.equal(policy.metadata.namespace, namespace);
  const rules = parsePolicy(policy.data["policy.yaml"]);
  assert.ok(rules.length > 0, "the example policy grants something");
  checkRestrictivePolicy(rules);

  const roles = new Set(
    objects.filter((o) => o.kind === "Role" || o.kind === "ClusterRole")
      .map((o) => `${o.kind}/${o.metadata.name}`),
  );
  for (const binding of objects) {
    if (
      binding.kind !== "RoleBinding" && binding.kind !== "ClusterRoleBinding"
    ) {
      continue;
    }
    const { kind, name } = binding.roleRef;
    assert.ok(
      roles.has(`${kind}/${name}`),
      `${binding.kind} ${binding.metadata.name} binds ${kind} ${name}, which the variant has`,
    );
  }
  assert.deepEqual(
    permissions(named(objects, "ClusterRole", "corral-token-review").rules),
    TOKEN_REVIEW,
  );
}

function checkBinding(
  binding: Obj,
  roleKind: string,
  namespace: string,
  roleName = "corral",
): void {
  assert.deepEqual(binding.roleRef, {
    apiGroup: "rbac.authorization.k8s.io",
    kind: roleKind,
    name: roleName,
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
      "deploy/overlays/oidc",
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
      permissions(named(objects, "ClusterRole", "corral").rules),
      LEAST_PRIVILEGE,
    );
    checkBinding(
      named(objects, "ClusterRoleBinding", "corral"),
      "ClusterRole",
      namespace,
    );
    checkBinding(
      named(objects, "ClusterRoleBinding", "corral-token-review"),
      "ClusterRole",
      namespace,
      "corral-token-review",
    );
    assert.deepEqual(
      objects.filter((o) => o.kind === "Role" || o.kind === "RoleBinding"),
      [],
    );
    const container =
      only(objects, "Deployment").spec.template.spec.containers[0];
    assert.ok(
      !container.args.some((a: string) => a.startsWith("--namespaces")),
      "serves every namespace",
    );
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

  Deno.test("deploy/overlays/namespaced: a Role and RoleBinding, --namespaces, nothing cluster-scoped but TokenReview's", async () => {
    const objects = await render("deploy/overlays/namespaced");
    const namespace = await checkWorkload(objects);
    assert.deepEqual(
      objects.filter((o) => CLUSTER_SCOPED.has(o.kind)).map((o) =>
        `${o.kind} ${o.metadata.name}`
      ),
      [
        "ClusterRole corral-token-review",
        // Named after the namespace: installs in several namespaces each
        // keep their own binding.
        `ClusterRoleBinding corral-token-review-${namespace}`,
      ],
      "a namespace admin can install the rest",
    );
    for (const object of objects) {
      if (CLUSTER_SCOPED.has(object.kind)) continue;
      assert.equal(
        object.metadata.namespace,
        namespace,
        `${object.kind} ${object.metadata.name} is in the install namespace`,
      );
    }
    assert.deepEqual(permissions(only(objects, "Role").rules), LEAST_PRIVILEGE);
    checkBinding(only(objects, "RoleBinding"), "Role", namespace);
    checkBinding(
      only(objects, "ClusterRoleBinding"),
      "ClusterRole",
      namespace,
      "corral-token-review",
    );

    const container =
      only(objects, "Deployment").spec.template.spec.containers[0];
    assert.deepEqual(container.args, [
      "--token-auth-file=/etc/corral/auth/tokens.csv",
      "--authentication-token-review",
      "--authorization-policy-file=/etc/corral/policy/policy.yaml",
      "--namespaces=$(POD_NAMESPACE)",
    ]);
    assert.deepEqual(
      container.env.find((e: Obj) => e.name === "POD_NAMESPACE"),
      {
        name: "POD_NAMESPACE",
        valueFrom: { fieldRef: { fieldPath: "metadata.namespace" } },
      },
      "$(POD_NAMESPACE) is the pod's own namespace",
    );
  });

  Deno.test("deploy/overlays/oidc: OIDC ID tokens of the issuer, users by e-mail, the issuer's CA from a ConfigMap", async () => {
    const objects = await render("deploy/overlays/oidc");
    await checkWorkload(objects);
    const pod = only(objects, "Deployment").spec.template.spec;
    const [container] = pod.containers;
    const flags = Object.fromEntries(flagsOf(container.args));
    assert.match(flags["oidc-issuer-url"], /^https:\/\//);
    assert.ok(flags["oidc-client-id"]);
    assert.equal(flags["oidc-username-claim"], "email");
    assert.equal(flags["oidc-ca-file"], "/etc/corral/oidc/ca.crt");
    assert.equal(flags["token-auth-file"], "/etc/corral/auth/tokens.csv");
    const volume = pod.volumes.find((v: Obj) => v.name === "oidc-ca");
    assert.deepEqual(volume.configMap, {
      name: "corral-oidc-ca",
      optional: false,
    });
  });
}

/**
 * The shipped policy is the restrictive one: no host paths, no workload
 * grant that reaches the node or the outside (service accounts, pull
 * secrets, LoadBalancer, exposure start parameters, pod fields), images
 * named, teams' clusters their owners' to change, and "*" namespaces only
 * for reading.
 */
function checkRestrictivePolicy(rules: ReturnType<typeof parsePolicy>): void {
  for (const [i, rule] of rules.entries()) {
    const at = `policy rules[${i}]`;
    assert.equal(rule.allowHostPath, false, `${at}: allowHostPath`);
    const workload = rule.workload ?? {};
    for (
      const key of [
        "serviceAccounts",
        "imagePullSecrets",
        "hostPaths",
        "startParams",
        "podFields",
        "containerFields",
        "serviceTypes",
        "secrets",
        "annotations",
        "labels",
      ] as const
    ) {
      assert.equal(workload[key], undefined, `${at}: grants ${key}`);
    }
    const writes = rule.verbs.some((verb) =>
      ["*", "create", "update", "delete"].includes(verb)
    );
    if (!writes) continue;
    assert.ok(!rule.namespaces.includes("*"), `${at}: writes in "*"`);
    if (covers(rule.resources, "clusters")) {
      assert.ok(rule.images, `${at}: creates clusters of any image`);
      assert.equal(rule.owners, "only", `${at}: teammates change clusters`);
    }
  }
}

function covers(list: string[], value: string): boolean {
  return list.includes("*") || list.includes(value);
}
