/**
 * docs/policy.md, the policy reference, says what the code decides: every
 * resource and verb a rule may name (api/auth/policy.ts), every RPC's verb
 * and resource (its row of RPC_RULES, api/service/rpcs.ts), and the row of
 * every HTTP unit the port serves beside the RPCs (the dashboard proxy and
 * its sessions, /whoami, /metrics, KubeRay's Kubernetes-shaped routes and
 * their Events). A row added, changed or taken out of the code fails here
 * until the page says the same. Pure: the units are built (nothing they
 * are given is called while building) and read, never served.
 */
import assert from "node:assert/strict";
import { RESOURCES, VERBS } from "../api/auth/policy.ts";
import { RPC_RULES } from "../api/service/rpcs.ts";
import type { Service } from "../api/service/service.ts";
import { DashboardProxy } from "../api/http/dashboard_proxy.ts";
import type { HttpUnit } from "../api/http/units.ts";
import { httpUnits } from "../api/http_units.ts";
import type { Metrics } from "../api/metrics.ts";
import type { DashboardProxyOptions } from "../api/http/dashboard_proxy.ts";

const PAGE = new URL("../docs/policy.md", import.meta.url);

/** The page's table rows, by the code span their first cell starts with. */
async function rowsByKey(): Promise<Map<string, string[]>> {
  const rows = new Map<string, string[]>();
  for (const line of (await Deno.readTextFile(PAGE)).split("\n")) {
    const key = line.match(/^\|\s*`([^`]+)`/);
    if (!key) continue;
    const cells = line.split("|").slice(1, -1).map((cell) => cell.trim());
    assert.ok(!rows.has(key[1]), `docs/policy.md has two rows of ${key[1]}`);
    rows.set(key[1], cells);
  }
  return rows;
}

/** The section of the page under `heading`, up to the next one. */
async function section(heading: string): Promise<string> {
  const text = await Deno.readTextFile(PAGE);
  const start = text.indexOf(`\n## ${heading}\n`);
  assert.ok(start >= 0, `docs/policy.md has a section "${heading}"`);
  const end = text.indexOf("\n## ", start + 1);
  return text.slice(start, end < 0 ? undefined : end);
}

/**
 * Every HTTP unit api/mod.ts can serve (api/http_units.ts), with every
 * option on: built from stand-ins for what they act with, which building
 * never calls.
 */
function allUnits(): HttpUnit[] {
  const service = { clusterApiVersion: "ray.io/v1" } as unknown as Service;
  const dashboardProxy = new DashboardProxy(
    {
      clusterAccess: { mode: "direct" },
      secure: false,
    } as unknown as DashboardProxyOptions,
  );
  return httpUnits({
    service,
    metrics: {} as Metrics,
    dashboardProxy,
    maxBodyBytes: 1,
  });
}

Deno.test("docs/policy.md names every resource and verb a rule may use", async () => {
  const text = await section("Resources and verbs");
  for (const word of [...RESOURCES, ...VERBS]) {
    assert.ok(text.includes(`\`${word}\``), `"${word}" is not in the section`);
  }
});

Deno.test("docs/policy.md gives every RPC the verb and resource of its row in RPC_RULES, and no other RPC", async () => {
  const rows = await rowsByKey();
  for (const [rpc, rule] of Object.entries(RPC_RULES)) {
    const row = rows.get(rpc);
    assert.ok(row, `docs/policy.md has no row of ${rpc}`);
    assert.deepEqual(
      row.slice(1, 3),
      [`\`${rule.verb}\``, `\`${rule.resource}\``],
      rpc,
    );
  }
  const documented = [...rows.keys()].filter((key) => key.startsWith("proto."));
  assert.deepEqual(documented.sort(), Object.keys(RPC_RULES).sort());
});

Deno.test("docs/policy.md gives every HTTP unit its row's verb and resource, and no other unit", async () => {
  const rows = await rowsByKey();
  const units = allUnits();
  for (const unit of units) {
    const row = rows.get(unit.key);
    assert.ok(row, `docs/policy.md has no row of ${unit.key}`);
    const [, , verb, resource] = row;
    if (unit.check === "authentication") {
      assert.match(verb, /any authenticated caller/, unit.key);
      continue;
    }
    assert.ok(unit.rule, `${unit.key} has a row in the code`);
    assert.ok(verb.includes(`\`${unit.rule.verb}\``), `${unit.key}: ${verb}`);
    assert.ok(
      resource.includes(`\`${unit.rule.resource}\``),
      `${unit.key}: ${resource}`,
    );
  }
  const documented = [...rows.keys()].filter((key) =>
    /^[a-z][\w.]*\.[A-Z]\w*\/\w+$/.test(key) && !key.startsWith("proto.")
  );
  // One row per key: discovery's documents share theirs, one per kind.
  assert.deepEqual(
    documented.sort(),
    [...new Set(units.map((u) => u.key))].sort(),
  );
});
