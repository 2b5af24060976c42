/**
 * The compatibility table of docs/kuberay.md against what KubeRay served
 * and what Corral serves: every route of KubeRay's API server, v0.6.0 to
 * today (tests/testdata/kuberay_routes.tsv, read from its protos and its
 * proxy at each release), has its row, with its releases and its RPC; a
 * row that says "served" is a route Corral's proto binds to that RPC, and
 * one that says "not served" is not.
 */
import assert from "node:assert/strict";
import { compileRoutes, type Route } from "../../api/http/rules.ts";
import { schema } from "../schema.ts";

interface KubeRayRoute {
  method: string;
  path: string;
  rpc: string;
  releases: string;
}

async function kubeRayRoutes(): Promise<KubeRayRoute[]> {
  const text = await Deno.readTextFile(
    new URL("../testdata/kuberay_routes.tsv", import.meta.url),
  );
  return text.split("\n")
    .filter((line) => line !== "" && !line.startsWith("#"))
    .map((line) => {
      const [method, path, rpc, releases] = line.split("\t");
      return { method, path, rpc, releases };
    });
}

/** The table's rows: the route cell (its code span) to the other cells. */
async function documentedRows(): Promise<Map<string, string[]>> {
  const text = await Deno.readTextFile(
    new URL("../../docs/kuberay.md", import.meta.url),
  );
  const rows = new Map<string, string[]>();
  for (const line of text.split("\n")) {
    const cells = line.split("|").slice(1, -1).map((c) => c.trim());
    const route = /^`([^`]+)`/.exec(cells[0] ?? "")?.[1];
    if (route && cells.length === 4) rows.set(route, cells.slice(1));
  }
  return rows;
}

/** "GET /apis/v1/namespaces/{}/clusters": variables' names left out. */
function shape(method: string, path: string): string {
  return `${method} ${path.replace(/\{[^}]+\}/g, "{}")}`;
}

function routeShape(route: Route): string {
  return shape(route.verb, route.template);
}

Deno.test("docs/kuberay.md has a row for every route KubeRay's API server has served since v0.6.0, with its releases and RPC", async () => {
  const rows = await documentedRows();
  for (const route of await kubeRayRoutes()) {
    const key = route.method === "*"
      ? route.path
      : `${route.method} ${route.path}`;
    const row = rows.get(key);
    assert.ok(row, `docs/kuberay.md has no row for ${key}`);
    const [releases, rpc] = row;
    assert.equal(releases, route.releases, key);
    assert.ok(rpc.includes(route.rpc), `${key}: ${rpc} names ${route.rpc}`);
  }
});

Deno.test("a KubeRay route the table says Corral serves is bound to the same RPC in Corral's proto, and one it says is not served is not", async () => {
  const rows = await documentedRows();
  const routes = compileRoutes((await schema()).services);
  const bound = new Map(routes.map((r) => [routeShape(r), r.key]));
  let served = 0;
  for (const route of await kubeRayRoutes()) {
    // The Kubernetes API's routes are Corral's HTTP units, not the proto's.
    if (route.rpc === "(Kubernetes API)") continue;
    const key = `${route.method} ${route.path}`;
    const status = rows.get(key)![2];
    const rpc = bound.get(shape(route.method, route.path));
    if (status.startsWith("not served")) {
      assert.equal(rpc, undefined, `${key} is said not served`);
      continue;
    }
    assert.match(status, /^served/, key);
    assert.ok(rpc, `${key} is said served, and no proto route binds it`);
    assert.equal(rpc.split("/")[1], route.rpc, key);
    served++;
  }
  assert.ok(served >= 50, `served: ${served}`);
});
