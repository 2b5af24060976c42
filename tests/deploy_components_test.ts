/**
 * deploy/components and deploy/examples: each component rendered by
 * `kubectl kustomize` on top of the cluster-wide base and the namespaced
 * overlay, and the production example with all of them; every result
 * passes the workload checks of tests/deploy_checks.ts (the restricted Pod
 * Security profile among them) and does what its component says: a
 * ClusterIP Service behind an Ingress, a NetworkPolicy that lets Corral
 * reach only DNS, the API server and Ray heads' dashboard port, a
 * ServiceMonitor on /metrics, TokenReviews for the namespaced install, an
 * image pinned by digest, an HTTPRoute and a GRPCRoute, alert rules and a
 * dashboard (whose metric names tests/monitoring_test.ts checks against a
 * running Corral's /metrics).
 */
import assert from "node:assert/strict";
import { relative } from "node:path";
import {
  checkWorkload,
  named,
  type Obj,
  only,
  onPath,
  permissions,
  render,
  ROOT,
  TOKEN_REVIEW,
} from "./deploy_checks.ts";

const COMPONENTS = [
  "dashboard-session-key",
  "gateway-route",
  "grafana-dashboard",
  "ingress",
  "namespaced-token-review",
  "network-policy",
  "prometheus-rule",
  "service-monitor",
];

/** The components that put Corral behind a proxy: a ClusterIP Service. */
const BEHIND_A_PROXY = new Set(["gateway-route", "ingress"]);

/** `base` (a deploy/ directory) with `components`, rendered. */
async function renderWith(base: string, components: string[]): Promise<Obj[]> {
  const dir = await Deno.makeTempDir({ prefix: "corral-kustomize-" });
  // kustomize takes other directories by relative path only.
  const from = (path: string) => relative(dir, new URL(path, ROOT).pathname);
  try {
    await Deno.writeTextFile(
      `${dir}/kustomization.yaml`,
      JSON.stringify({
        apiVersion: "kustomize.config.k8s.io/v1beta1",
        kind: "Kustomization",
        // As an overlay of yours would: the components' objects go there.
        namespace: "corral",
        resources: [from(base)],
        components: components.map((c) => from(`deploy/components/${c}`)),
      }),
    );
    return await render(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** The session key's Secret mounted, never optional, the flag into it. */
function checkSessionKey(objects: Obj[]): void {
  const pod = only(objects, "Deployment").spec.template.spec;
  const [container] = pod.containers;
  assert.ok(
    container.args.includes(
      "--dashboard-session-key-file=/etc/corral/dashboard-session/key",
    ),
  );
  const volume = pod.volumes.find((v: Obj) =>
    v.name === "dashboard-session-key"
  );
  assert.equal(volume.secret.secretName, "corral-dashboard-session-key");
  assert.equal(volume.secret.optional, false);
  assert.ok(
    container.volumeMounts.some((m: Obj) =>
      m.name === "dashboard-session-key" &&
      m.mountPath === "/etc/corral/dashboard-session" && m.readOnly
    ),
  );
}

/**
 * HTTPS at the controller: every host of the rules is in the tls: section,
 * with a Secret; the class is the overlay's to set (`className`).
 */
function checkIngress(objects: Obj[], className?: string): void {
  const ingress = only(objects, "Ingress");
  assert.equal(ingress.spec.ingressClassName, className);
  const hosts = ingress.spec.rules.map((r: Obj) => r.host);
  for (const host of hosts) {
    assert.ok(
      ingress.spec.tls.some((t: Obj) => t.hosts.includes(host) && t.secretName),
      `${host} is served over TLS`,
    );
  }
  const paths = ingress.spec.rules.flatMap((r: Obj) => r.http.paths);
  assert.deepEqual(
    paths.map((p: Obj) => p.backend.service),
    [{ name: "corral", port: { name: "http" } }],
  );
  assert.ok(
    Number(
      ingress.metadata.annotations[
        "nginx.ingress.kubernetes.io/proxy-read-timeout"
      ],
    ) >= 1800,
    "watch streams are not cut before --watch-max-duration",
  );
}

/** An HTTPRoute to the HTTP port and a GRPCRoute to the gRPC port. */
function checkGatewayRoutes(objects: Obj[]): void {
  const service = only(objects, "Service");
  const port = (name: string) =>
    service.spec.ports.find((p: Obj) => p.name === name).port;
  const routes = [
    [only(objects, "HTTPRoute"), port("http")],
    [only(objects, "GRPCRoute"), port("grpc")],
  ] as const;
  for (const [route, servicePort] of routes) {
    assert.equal(route.apiVersion, "gateway.networking.k8s.io/v1");
    assert.equal(route.metadata.namespace, service.metadata.namespace);
    assert.ok(route.spec.parentRefs.length > 0, "attached to a Gateway");
    for (const parent of route.spec.parentRefs) {
      assert.equal(parent.kind, "Gateway");
      assert.ok(parent.name);
    }
    assert.ok(route.spec.hostnames.length > 0);
    assert.deepEqual(
      route.spec.rules.flatMap((r: Obj) => r.backendRefs),
      [{ name: service.metadata.name, port: servicePort }],
    );
  }
  const [http, grpc] = routes.map(([route]) => route.spec.hostnames);
  assert.ok(
    !http.some((host: string) => grpc.includes(host)),
    "no host name shared by an HTTPRoute and a GRPCRoute",
  );
}

/**
 * A PrometheusRule of at least three alerts, each with an expression, a
 * duration, a severity and a summary, in Corral's namespace.
 */
function checkPrometheusRule(objects: Obj[]): void {
  const rule = only(objects, "PrometheusRule");
  assert.equal(rule.apiVersion, "monitoring.coreos.com/v1");
  assert.equal(
    rule.metadata.namespace,
    only(objects, "Deployment").metadata.namespace,
  );
  const alerts = rule.spec.groups.flatMap((g: Obj) => g.rules);
  assert.ok(alerts.length >= 3, "at least three alerts");
  const names = alerts.map((a: Obj) => a.alert);
  assert.equal(new Set(names).size, names.length, "alert names are unique");
  for (const alert of alerts) {
    assert.match(alert.alert, /^Corral[A-Za-z]+$/);
    assert.ok(alert.expr.trim(), `${alert.alert}: an expression`);
    assert.match(alert.for, /^\d+[smh]$/, `${alert.alert}: a duration`);
    assert.ok(
      ["critical", "warning", "info"].includes(alert.labels.severity),
      `${alert.alert}: a severity`,
    );
    assert.ok(alert.annotations.summary, `${alert.alert}: a summary`);
  }
}

/** The dashboard's ConfigMap, labelled for Grafana's sidecar. */
function checkGrafanaDashboard(objects: Obj[]): void {
  const map = named(objects, "ConfigMap", "corral-grafana-dashboard");
  assert.equal(map.metadata.labels.grafana_dashboard, "1");
  const files = Object.keys(map.data);
  assert.deepEqual(files, ["corral.json"]);
  const dashboard = JSON.parse(map.data["corral.json"]);
  assert.equal(dashboard.uid, "corral-overview");
  const panels = dashboard.panels.filter((p: Obj) => p.type !== "row");
  assert.ok(panels.length > 0);
  for (const panel of panels) {
    assert.ok(panel.targets.length > 0, `${panel.title}: a query`);
    assert.ok(panel.gridPos, `${panel.title}: a place`);
  }
}

/** Corral's egress: exactly DNS, the API server and heads' port 8265. */
function checkNetworkPolicy(objects: Obj[]): void {
  const policy = only(objects, "NetworkPolicy");
  const labels = only(objects, "Deployment").spec.template.metadata.labels;
  assert.deepEqual(policy.spec.podSelector.matchLabels, labels);
  assert.deepEqual(policy.spec.policyTypes, ["Ingress", "Egress"]);
  for (const rule of policy.spec.ingress) {
    assert.ok(rule.from?.length > 0, "every ingress rule names its sources");
    for (const port of rule.ports) {
      assert.ok(["http", "grpc"].includes(port.port), `in: ${port.port}`);
    }
  }
  const egress = policy.spec.egress.map((rule: Obj) => {
    assert.ok(rule.to?.length > 0, "every egress rule names its peers");
    return rule.ports.map((p: Obj) => `${p.protocol}/${p.port}`).sort();
  });
  assert.deepEqual(egress, [
    ["TCP/53", "UDP/53"],
    ["TCP/443", "TCP/6443"],
    ["TCP/8265"],
  ]);
  const heads = policy.spec.egress[2].to[0];
  assert.deepEqual(heads.podSelector.matchLabels, {
    "ray.io/node-type": "head",
  });
  assert.ok(policy.spec.egress[1].to[0].ipBlock.cidr, "the API server");
}

function checkServiceMonitor(objects: Obj[]): void {
  const monitor = only(objects, "ServiceMonitor");
  const service = only(objects, "Service");
  for (
    const [key, value] of Object.entries(monitor.spec.selector.matchLabels)
  ) {
    assert.equal(service.metadata.labels[key], value, "selects the Service");
  }
  assert.deepEqual(
    monitor.spec.endpoints.map((e: Obj) => [e.port, e.path]),
    [["http", "/metrics"]],
  );
  assert.equal(monitor.metadata.namespace, service.metadata.namespace);
}

if (!(await onPath("kubectl"))) {
  Deno.test({
    name: "deploy/components render (ignored: kubectl is not on PATH)",
    ignore: true,
    fn() {},
  });
} else {
  Deno.test("every component renders on the base and the namespaced overlay", async (t) => {
    const found = [...Deno.readDirSync(new URL("deploy/components/", ROOT))]
      .filter((e) => e.isDirectory).map((e) => e.name).sort();
    assert.deepEqual(found, COMPONENTS);
    const bases = ["deploy/base", "deploy/overlays/namespaced"];
    for (const base of bases) {
      for (const component of COMPONENTS) {
        if (component === "namespaced-token-review" && base === "deploy/base") {
          continue; // the base reviews tokens already
        }
        await t.step(`${base} + ${component}`, async () => {
          const objects = await renderWith(base, [component]);
          await checkWorkload(objects, {
            serviceType: BEHIND_A_PROXY.has(component)
              ? "ClusterIP"
              : "NodePort",
          });
          if (component === "ingress") checkIngress(objects);
          if (component === "gateway-route") checkGatewayRoutes(objects);
          if (component === "prometheus-rule") checkPrometheusRule(objects);
          if (component === "grafana-dashboard") {
            checkGrafanaDashboard(objects);
          }
          if (component === "network-policy") checkNetworkPolicy(objects);
          if (component === "service-monitor") checkServiceMonitor(objects);
          if (component === "dashboard-session-key") checkSessionKey(objects);
        });
      }
    }
  });

  Deno.test("namespaced-token-review: the namespaced install reviews service-account tokens again, with a binding per namespace", async () => {
    const objects = await renderWith("deploy/overlays/namespaced", [
      "namespaced-token-review",
    ]);
    const namespace = await checkWorkload(objects);
    assert.deepEqual(
      permissions(named(objects, "ClusterRole", "corral-token-review").rules),
      TOKEN_REVIEW,
    );
    const binding = named(
      objects,
      "ClusterRoleBinding",
      `corral-token-review-${namespace}`,
    );
    assert.deepEqual(binding.subjects, [
      { kind: "ServiceAccount", name: "corral", namespace },
    ]);
    const args = only(objects, "Deployment").spec.template.spec.containers[0]
      .args;
    assert.ok(args.includes("--authentication-token-review"));
    // The component's copy of the base's ClusterRole says the same.
    const base = await render("deploy/base");
    assert.deepEqual(
      named(base, "ClusterRole", "corral-token-review").rules,
      named(objects, "ClusterRole", "corral-token-review").rules,
    );
  });

  Deno.test("deploy/examples/production: every component, two replicas with a budget, the image pinned by digest", async () => {
    const objects = await render("deploy/examples/production");
    await checkWorkload(objects, { serviceType: "ClusterIP" });
    checkIngress(objects, "nginx");
    checkNetworkPolicy(objects);
    checkServiceMonitor(objects);
    checkPrometheusRule(objects);
    checkGrafanaDashboard(objects);
    checkSessionKey(objects);
    const deployment = only(objects, "Deployment");
    assert.equal(deployment.spec.replicas, 2);
    assert.equal(only(objects, "PodDisruptionBudget").spec.minAvailable, 1);
    assert.match(
      deployment.spec.template.spec.containers[0].image,
      /^[a-z0-9.\-/]+@sha256:[0-9a-f]{64}$/,
    );
  });
}
