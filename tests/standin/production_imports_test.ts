/**
 * The stand-in and the simulated operator are development tooling: the
 * production start path (main.ts and what it imports statically) never
 * loads them, and no product layer imports them; startup/kubernetes.ts,
 * the start-up step that finds Kubernetes, imports them dynamically in
 * embedded mode only.
 */
import assert from "node:assert/strict";
import { moduleGraph } from "../module_graph.ts";
import { importSpecifiers } from "../source_imports.ts";

const ROOT = new URL("../../", import.meta.url);

Deno.test("main.ts loads no module of standin/ but through startup/kubernetes.ts's one dynamic import in embedded mode", async () => {
  const graph = await moduleGraph("main.ts");
  assert.ok(graph.static.includes("main.ts"), graph.static.join(" "));
  assert.ok(
    graph.static.includes("orchestrator/kubernetes.ts"),
    "the walk follows static imports",
  );
  const loaded = graph.static.filter((path) => path.startsWith("standin/"));
  assert.deepEqual(loaded, [], "standin/ modules main.ts loads statically");
  // The graph does hold the stand-in, reached through the dynamic import
  // alone: the walk above is what tells them apart.
  assert.ok(graph.all.includes("standin/server.ts"), graph.all.join(" "));
  assert.deepEqual(
    graph.dynamic.filter(([, to]) => to.startsWith("standin/")),
    [["startup/kubernetes.ts", "standin/mod.ts"]],
  );
});

Deno.test("no module of orchestrator/, api/, domain/ or startup/ imports standin/, but startup/kubernetes.ts's one dynamic import", async () => {
  const standin = new URL("standin/", ROOT).href;
  const offenders: string[] = [];
  let checked = 0;
  for (const folder of ["orchestrator/", "api/", "domain/", "startup/"]) {
    const stack = [new URL(folder, ROOT)];
    while (stack.length > 0) {
      const dir = stack.pop()!;
      for await (const entry of Deno.readDir(dir)) {
        const url = new URL(entry.name + (entry.isDirectory ? "/" : ""), dir);
        if (entry.isDirectory) stack.push(url);
        if (!entry.isFile || !/\.[cm]?[jt]sx?$/.test(entry.name)) continue;
        checked++;
        const source = await Deno.readTextFile(url);
        for (const specifier of importSpecifiers(source)) {
          if (new URL(specifier, url).href.startsWith(standin)) {
            offenders.push(`${url.href.slice(ROOT.href.length)}: ${specifier}`);
          }
        }
      }
    }
  }
  assert.ok(checked > 10, `checked ${checked} files`);
  // That import is dynamic: the first test tells it from a static one.
  assert.deepEqual(offenders, ["startup/kubernetes.ts: ../standin/mod.ts"]);
});
