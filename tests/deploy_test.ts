/**
 * deploy/: every kustomize variant renders offline with `kubectl kustomize`,
 * and the rendered objects are what docs/deploying.md and the Containerfile
 * promise: ports and NodePorts, probes on /healthz and /readyz, exactly the
 * least-privilege RBAC verbs per resource, a locked-down security context,
 * and for the namespaced variant a Role, a RoleBinding and `--namespaces`.
 * Every variant is secure by default (an authenticator, a policy, never
 * anonymous), its command line is one Corral accepts, and every file a flag
 * names is on a mounted volume the image may read.
 */
import assert from "node:assert/strict";
import {
  checkBinding,
  checkWorkload,
  CLUSTER_SCOPED,
  flagsOf,
  LEAST_PRIVILEGE,
  named,
  type Obj,
  only,
  onPath,
  permissions,
  remoteResources,
  render,
  ROOT,
  variants,
} from "./deploy_checks.ts";

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
    // The one Role: the Lease's, in Corral's namespace (checkWorkload).
    assert.deepEqual(
      objects.filter((o) => o.kind === "Role" || o.kind === "RoleBinding")
        .map((o) => `${o.kind} ${o.metadata.name}`),
      ["Role corral-leader-election", "RoleBinding corral-leader-election"],
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

  Deno.test("deploy/overlays/namespaced: a Role and RoleBinding, --namespaces, nothing cluster-scoped", async () => {
    const objects = await render("deploy/overlays/namespaced");
    const namespace = await checkWorkload(objects);
    assert.deepEqual(
      objects.filter((o) => CLUSTER_SCOPED.has(o.kind)).map((o) =>
        `${o.kind} ${o.metadata.name}`
      ),
      [],
      "a namespace admin can install all of it",
    );
    for (const object of objects) {
      if (CLUSTER_SCOPED.has(object.kind)) continue;
      assert.equal(
        object.metadata.namespace,
        namespace,
        `${object.kind} ${object.metadata.name} is in the install namespace`,
      );
    }
    assert.deepEqual(
      permissions(named(objects, "Role", "corral").rules),
      LEAST_PRIVILEGE,
    );
    checkBinding(named(objects, "RoleBinding", "corral"), "Role", namespace);

    const container =
      only(objects, "Deployment").spec.template.spec.containers[0];
    assert.deepEqual(container.args, [
      "--token-auth-file=/etc/corral/auth/tokens.csv",
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
