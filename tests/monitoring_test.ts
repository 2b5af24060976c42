/**
 * Monitoring against a running Corral: main.ts in embedded mode with a
 * cluster created, its /metrics scraped. Every metric the alert rules
 * (deploy/components/prometheus-rule) and the dashboard
 * (deploy/components/grafana-dashboard) query is one it exposes, histogram
 * series (_bucket, _sum, _count) included; docs/monitoring.md's reference
 * names exactly the families it exposes; it counts its clusters by state;
 * and with --cache=off the gauges of managed objects are not exposed.
 */
import assert from "node:assert/strict";
import YAML from "yaml";
import { eventually } from "./eventually.ts";
import {
  DEV_PERMISSIONS,
  EMBEDDED,
  type MainProcess,
  startMain,
} from "./main_process.ts";
import { metricNames, type Obj } from "./promql_names.ts";

const ROOT = new URL("../", import.meta.url);
const NS = "team-a";

/**
 * Series Prometheus makes itself for each target it scrapes (up): not
 * Corral's to expose.
 */
const PROMETHEUS_OWN = new Set(["up"]);

const POLICY = `
rules:
  - groups: ["system:unauthenticated"]
    namespaces: ["${NS}"]
    resources: ["*"]
    verbs: ["*"]
quotas:
  - namespaces: ["${NS}"]
    maxClusters: 5
    cpu: 16
`;

/** Every query of the rules and the dashboard, with where it is. */
async function queries(): Promise<[where: string, expr: string][]> {
  const found: [string, string][] = [];
  const rule = YAML.parse(
    await Deno.readTextFile(
      new URL("deploy/components/prometheus-rule/prometheusrule.yaml", ROOT),
    ),
  );
  for (const group of rule.spec.groups) {
    for (const r of group.rules) found.push([`alert ${r.alert}`, r.expr]);
  }
  const dashboard = JSON.parse(
    await Deno.readTextFile(
      new URL("deploy/components/grafana-dashboard/corral.json", ROOT),
    ),
  );
  for (const panel of dashboard.panels) {
    for (const target of panel.targets ?? []) {
      found.push([`panel "${panel.title}"`, target.expr]);
    }
  }
  for (const variable of dashboard.templating.list as Obj[]) {
    if (variable.type === "query") {
      found.push([`variable ${variable.name}`, variable.definition]);
    }
  }
  return found;
}

/**
 * The families a scrape exposes (its # TYPE lines), and every series name
 * they make: a histogram's _bucket, _sum and _count, a summary's _sum and
 * _count.
 */
function exposed(text: string): { families: Set<string>; names: Set<string> } {
  const families = new Set<string>();
  const names = new Set<string>();
  for (const [, name, type] of text.matchAll(/^# TYPE (\S+) (\S+)$/gm)) {
    families.add(name);
    names.add(name);
    const suffixes = type === "histogram"
      ? ["_bucket", "_sum", "_count"]
      : type === "summary"
      ? ["_sum", "_count"]
      : [];
    for (const suffix of suffixes) names.add(`${name}${suffix}`);
  }
  return { families, names };
}

/** The families docs/monitoring.md's reference tables name (`| \`name\``). */
async function documented(): Promise<string[]> {
  const text = await Deno.readTextFile(new URL("docs/monitoring.md", ROOT));
  return [...text.matchAll(/^\| `([a-z_:][a-z0-9_:]*)` +\|/gm)].map((m) =>
    m[1]
  );
}

async function startEmbedded(args: string[] = []): Promise<MainProcess> {
  const policy = await Deno.makeTempFile({ suffix: ".yaml" });
  await Deno.writeTextFile(policy, POLICY);
  const main = await startMain({
    permissions: DEV_PERMISSIONS,
    args: [...EMBEDDED, "--authorization-policy-file", policy, ...args],
  });
  return {
    ...main,
    async stop() {
      const status = await main.stop();
      await Deno.remove(policy);
      return status;
    },
  };
}

async function post(url: string, body: unknown): Promise<void> {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  assert.equal(response.status, 200, await response.text());
}

async function scrape(main: MainProcess): Promise<string> {
  const response = await fetch(`${main.http}/metrics`);
  assert.equal(response.status, 200);
  return await response.text();
}

Deno.test("a running dev-mode Corral exposes every metric the alert rules and the dashboard query, counts its clusters by state, and docs/monitoring.md names each family", async () => {
  const main = await startEmbedded();
  try {
    await post(`${main.http}/apis/v1/namespaces/${NS}/compute_templates`, {
      name: "small",
      cpu: 2,
      memory: 4,
    });
    await post(`${main.http}/apis/v1/namespaces/${NS}/clusters`, {
      name: "blue",
      namespace: NS,
      user: "ada",
      version: "2.9.0",
      clusterSpec: {
        headGroupSpec: { computeTemplate: "small", rayStartParams: {} },
        workerGroupSpec: [{
          groupName: "workers",
          computeTemplate: "small",
          replicas: 1,
          maxReplicas: 2,
          rayStartParams: {},
        }],
      },
    });
    const ready = `corral_managed_clusters{namespace="${NS}",state="ready"} 1`;
    const text = await eventually("the cluster counted ready", async () => {
      const text = await scrape(main);
      return text.split("\n").includes(ready) ? text : undefined;
    });
    for (
      const line of [
        `corral_managed_clusters{namespace="${NS}",state="failed"} 0`,
        `corral_quota_limit{namespace="${NS}",dimension="cpu"} 16`,
        `corral_quota_used{namespace="${NS}",dimension="clusters"} 1`,
        `corral_clusters_expiring_within_hour{namespace="${NS}"} 0`,
      ]
    ) {
      assert.ok(text.split("\n").includes(line), `${line} in:\n${text}`);
    }

    const { families, names } = exposed(text);
    const missing: string[] = [];
    for (const [where, expr] of await queries()) {
      assert.ok(metricNames(expr).length > 0, `${where} queries a metric`);
      for (const name of metricNames(expr)) {
        if (!names.has(name) && !PROMETHEUS_OWN.has(name)) {
          missing.push(`${where}: ${name}`);
        }
      }
    }
    assert.deepEqual(missing, [], "metrics queried that /metrics lacks");

    const docs = await documented();
    assert.equal(new Set(docs).size, docs.length, "each family once");
    assert.deepEqual(
      [...docs].sort(),
      [...families].sort(),
      "docs/monitoring.md's reference is what /metrics exposes",
    );
  } finally {
    await main.stop();
  }
});

Deno.test("with --cache=off the gauges of managed objects are not exposed (each scrape would list every namespace)", async () => {
  const main = await startEmbedded(["--cache=off"]);
  try {
    const { families } = exposed(await scrape(main));
    assert.ok(families.has("corral_requests_total"));
    for (
      const name of [
        "corral_managed_clusters",
        "corral_managed_jobs",
        "corral_managed_services",
        "corral_quota_limit",
        "corral_quota_used",
        "corral_clusters_expiring_within_hour",
      ]
    ) {
      assert.ok(!families.has(name), name);
    }
  } finally {
    await main.stop();
  }
});
