/**
 * What tests/deploy_test.ts and tests/deploy_components_test.ts check of a
 * rendered deploy/ variant: `kubectl kustomize` output parsed, the workload
 * (ports, probes, RBAC, security context, the restricted Pod Security
 * profile) and its command line's security (an authenticator, a policy,
 * files on mounted volumes).
 */
import assert from "node:assert/strict";
import YAML from "yaml";
import { parsePolicy } from "../api/auth/policy_document.ts";
import { parseSettings } from "../settings.ts";

export const ROOT = new URL("../", import.meta.url);

// deno-lint-ignore no-explicit-any
export type Obj = Record<string, any>;

/**
 * The verbs Corral needs per "group/resource": exactly the calls
 * orchestrator/kubernetes.ts makes (its CustomObjectsPort and CoreV1Port),
 * and the list and watch of the cache (orchestrator/cache.ts).
 */
export const LEAST_PRIVILEGE: Record<string, string[]> = {
  "ray.io/rayclusters": ["create", "delete", "get", "list", "update", "watch"],
  "ray.io/rayjobs": ["create", "delete", "get", "list", "update", "watch"],
  "ray.io/rayservices": ["create", "delete", "get", "list", "update", "watch"],
  // update: the quota record (api/service/quota_ledger.ts).
  "/configmaps": ["create", "delete", "get", "list", "update", "watch"],
  // create: the expiry's ExpiringSoon and Expired events.
  "/events": ["create", "list", "watch"],
  // A job's log: its submitter pod, listed by label, and its log.
  "/pods": ["list"],
  "/pods/log": ["get"],
  // The dashboard proxy through the API server (--cluster-access).
  "/services/proxy": ["create", "delete", "get"],
};

/**
 * What leader election needs (one Lease, read, created, renewed): in every
 * variant a Role of Corral's own namespace, where the Lease lives, never
 * a ClusterRole (which would reach every namespace's Leases).
 */
export const LEADER_ELECTION: Record<string, string[]> = {
  "coordination.k8s.io/leases": ["create", "get", "update"],
};

/** What --authentication-token-review needs, cluster-wide in every variant. */
export const TOKEN_REVIEW: Record<string, string[]> = {
  "authentication.k8s.io/tokenreviews": ["create"],
};

export const CLUSTER_SCOPED = new Set([
  "Namespace",
  "ClusterRole",
  "ClusterRoleBinding",
  "CustomResourceDefinition",
]);

export async function onPath(program: string): Promise<boolean> {
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
export function variants(): string[] {
  const overlays = [...Deno.readDirSync(new URL("deploy/overlays/", ROOT))]
    .filter((e) => e.isDirectory).map((e) => `deploy/overlays/${e.name}`)
    .sort();
  return ["deploy/base", ...overlays];
}

export async function render(dir: string): Promise<Obj[]> {
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

export function only(objects: Obj[], kind: string): Obj {
  const found = objects.filter((o) => o.kind === kind);
  assert.equal(found.length, 1, `exactly one ${kind}`);
  return found[0];
}

export function named(objects: Obj[], kind: string, name: string): Obj {
  const found = objects.filter((o) =>
    o.kind === kind && o.metadata.name === name
  );
  assert.equal(found.length, 1, `exactly one ${kind} ${name}`);
  return found[0];
}

/** Rules as {"group/resource": sorted verbs}, refusing anything broader. */
export function permissions(rules: Obj[]): Record<string, string[]> {
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
export async function imageFacts(): Promise<{ uid: number; denoDir: string }> {
  const text = await Deno.readTextFile(new URL("Containerfile", ROOT));
  const users = [...text.matchAll(/^USER\s+(\d+)/gm)];
  const denoDir = /^ENV\s+(?:.*\s)?DENO_DIR=(\S+)/m.exec(text)?.[1];
  assert.ok(users.length > 0 && denoDir, "Containerfile USER and DENO_DIR");
  return { uid: Number(users.at(-1)![1]), denoDir };
}

/**
 * The "restricted" Pod Security Standard (Kubernetes' pod-security admission,
 * latest version) for a pod template: what a namespace labelled
 * `pod-security.kubernetes.io/enforce: restricted` admits.
 */
export function checkRestricted(pod: Obj): void {
  for (const host of ["hostNetwork", "hostPID", "hostIPC"]) {
    assert.ok(!pod[host], `no ${host}`);
  }
  const allowedVolumes = new Set([
    "configMap",
    "csi",
    "downwardAPI",
    "emptyDir",
    "ephemeral",
    "persistentVolumeClaim",
    "projected",
    "secret",
  ]);
  for (const volume of pod.volumes ?? []) {
    const types = Object.keys(volume).filter((k) => k !== "name");
    assert.ok(
      types.every((t) => allowedVolumes.has(t)),
      `volume ${volume.name} is of a restricted type: ${types}`,
    );
  }
  const podContext = pod.securityContext ?? {};
  const seccomp = (c: Obj) =>
    c.securityContext?.seccompProfile?.type ?? podContext.seccompProfile?.type;
  for (
    const container of [
      ...(pod.initContainers ?? []),
      ...pod.containers,
      ...(pod.ephemeralContainers ?? []),
    ]
  ) {
    const context = container.securityContext ?? {};
    const name = `container ${container.name}`;
    assert.notEqual(context.privileged, true, `${name}: not privileged`);
    assert.equal(
      context.allowPrivilegeEscalation,
      false,
      `${name}: no escalation`,
    );
    assert.ok(
      context.runAsNonRoot ?? podContext.runAsNonRoot,
      `${name}: runAsNonRoot`,
    );
    assert.notEqual(
      context.runAsUser ?? podContext.runAsUser,
      0,
      `${name}: not uid 0`,
    );
    assert.ok(
      ["RuntimeDefault", "Localhost"].includes(seccomp(container)),
      `${name}: seccomp RuntimeDefault or Localhost`,
    );
    assert.ok(
      context.capabilities?.drop?.includes("ALL"),
      `${name}: drops ALL`,
    );
    assert.ok(
      (context.capabilities?.add ?? []).every((c: string) =>
        c === "NET_BIND_SERVICE"
      ),
      `${name}: adds no capability but NET_BIND_SERVICE`,
    );
    for (const port of container.ports ?? []) {
      assert.ok(!port.hostPort, `${name}: no hostPort`);
    }
  }
}

/**
 * Checks shared by every variant; returns the Deployment's namespace. The
 * Service is the base's NodePort one unless `serviceType` says ClusterIP
 * (components/ingress).
 */
export async function checkWorkload(
  objects: Obj[],
  { serviceType = "NodePort" }: { serviceType?: "NodePort" | "ClusterIP" } = {},
): Promise<string> {
  const deployment = only(objects, "Deployment");
  const namespace = deployment.metadata.namespace;
  assert.ok(namespace, "the Deployment has a namespace");
  const pod = deployment.spec.template.spec;
  const podLabels = deployment.spec.template.metadata.labels;
  assert.equal(deployment.spec.replicas, 2);
  checkRestricted(pod);
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
  assert.equal(service.spec.type, serviceType);
  assert.deepEqual(service.spec.selector, podLabels);
  const nodePorts = serviceType === "NodePort"
    ? [31888, 31887]
    : [undefined, undefined];
  assert.deepEqual(
    service.spec.ports.map((
      p: Obj,
    ) => [p.name, p.port, p.targetPort, p.nodePort]),
    [["http", 8888, "http", nodePorts[0]], [
      "grpc",
      8887,
      "grpc",
      nodePorts[1],
    ]],
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
export function flagsOf(args: string[]): [string, string][] {
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
export async function checkSecurity(
  objects: Obj[],
  namespace: string,
): Promise<void> {
  const pod = only(objects, "Deployment").spec.template.spec;
  const [container] = pod.containers;
  const expand = (value: string) =>
    value.replaceAll("$(POD_NAMESPACE)", namespace);
  const args: string[] = (container.args ?? []).map(expand);
  const env: Record<string, string> = Object.fromEntries(
    // A variable from the downward API (CORRAL_POD_NAME) has no value
    // here: the pod's name is any name.
    container.env.filter((e: Obj) =>
      e.name.startsWith("CORRAL_") && e.value !== undefined
    ).map((e: Obj) => [e.name, expand(e.value)]),
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
  // Service-account tokens are reviewed where the variant may create
  // TokenReviews (not in the namespaced one, which has no ClusterRole).
  const reviews = objects.some((o) =>
    o.kind === "ClusterRole" && o.metadata.name === "corral-token-review"
  );
  assert.deepEqual(
    given("authentication-token-review"),
    reviews ? ["true"] : [],
    "--authentication-token-review exactly where TokenReviews are granted",
  );
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
  if (reviews) {
    assert.deepEqual(
      permissions(named(objects, "ClusterRole", "corral-token-review").rules),
      TOKEN_REVIEW,
    );
  }
  checkLeaderElection(objects, namespace, given("leader-elect-namespace"));
}

/**
 * The Lease is granted by the Role corral-leader-election in Corral's own
 * namespace (where --leader-elect-namespace, left empty, puts the Lease),
 * bound to Corral, and by no ClusterRole.
 */
function checkLeaderElection(
  objects: Obj[],
  namespace: string,
  leaseNamespace: string[],
): void {
  assert.deepEqual(leaseNamespace, [], "the Lease is in Corral's namespace");
  const role = named(objects, "Role", "corral-leader-election");
  assert.equal(role.metadata.namespace, namespace);
  assert.deepEqual(permissions(role.rules), LEADER_ELECTION);
  checkBinding(
    named(objects, "RoleBinding", "corral-leader-election"),
    "Role",
    namespace,
    "corral-leader-election",
  );
  for (const clusterRole of objects.filter((o) => o.kind === "ClusterRole")) {
    assert.equal(
      permissions(clusterRole.rules)["coordination.k8s.io/leases"],
      undefined,
      `ClusterRole ${clusterRole.metadata.name} grants no Lease`,
    );
  }
}

export function checkBinding(
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
export async function remoteResources(dir: string): Promise<string[]> {
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

/**
 * The shipped policy is the restrictive one: no host paths, no workload
 * grant that reaches the node or the outside (service accounts, pull
 * secrets, LoadBalancer, exposure start parameters, pod fields), images
 * named, teams' clusters their owners' to change, and "*" namespaces only
 * for reading.
 */
export function checkRestrictivePolicy(
  rules: ReturnType<typeof parsePolicy>,
): void {
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

export function covers(list: string[], value: string): boolean {
  return list.includes("*") || list.includes(value);
}
